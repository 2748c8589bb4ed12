/**
 * Hand-off to a person (docs/design.md §13): how long a reply from the desk or the phone pauses the bot
 * for that chat (0 = never), and the words a customer writes to ask for a person.
 */
import { NumberInput, TextInput } from '@mantine/core'
import { DEFAULT_HANDOFF, type Instance } from '../../../../shared/schemas/records'
import { call } from '../../store'
import { Section, useSectionForm } from './Section'

export function HandoffSection({ inst }: { inst: Instance }) {
  const current = { ...DEFAULT_HANDOFF, ...inst.settings.handoff }
  const { form, section } = useSectionForm({ pause_minutes: current.pause_minutes, keyword: current.keyword }, (v) =>
    call('handoff.settings', { instanceId: inst._id, pause_minutes: Number(v.pause_minutes), keyword: v.keyword })
  )
  return (
    <Section title="Hand-off to a person" section={section}>
      <NumberInput
        label="Pause the bot after a person replies (minutes)"
        description="A reply from this desk or from the phone silences the bot in that chat for this long. 0 = never pause."
        min={0}
        max={10080}
        {...form.getInputProps('pause_minutes')}
      />
      <TextInput
        label="Customer asks for a person with"
        description="Comma-separated words, e.g. agent, human. The bot then pauses for that chat until you hand it back. Empty = off."
        {...form.getInputProps('keyword')}
      />
    </Section>
  )
}
