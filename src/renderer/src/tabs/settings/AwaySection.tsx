/**
 * The away message (docs/design.md §13 "Hours"): what a customer gets outside active days and hours,
 * at most once per contact per window, so the bot's silence explains itself.
 */
import { Switch, Textarea } from '@mantine/core'
import { DEFAULT_AWAY, type Instance } from '../../../../shared/schemas/records'
import { call } from '../../store'
import { Section, useSectionForm } from './Section'

export function AwaySection({ inst }: { inst: Instance }) {
  const current = { ...DEFAULT_AWAY, ...inst.settings.away }
  const { form, section } = useSectionForm({ enabled: current.enabled, message: current.message }, (v) =>
    call('settings.away', { instanceId: inst._id, enabled: v.enabled, message: v.message })
  )
  return (
    <Section title="Away message" section={section}>
      <Switch label="Answer outside active days and hours" {...form.getInputProps('enabled', { type: 'checkbox' })} />
      <Textarea
        label="Message"
        description="Once per contact per day. [name] is the customer, [next_open] when you open again (e.g. tomorrow at 9:00)."
        autosize
        minRows={2}
        {...form.getInputProps('message')}
      />
    </Section>
  )
}
