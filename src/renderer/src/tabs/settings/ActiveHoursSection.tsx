/** The hours the bot answers: always, or a window (`from` later than `to` is overnight). */
import { Group, Switch, TextInput } from '@mantine/core'
import type { Instance } from '../../../../shared/schemas/records'
import { call } from '../../store'
import { Section, useSectionForm } from './Section'

export function ActiveHoursSection({ inst }: { inst: Instance }) {
  const hours = inst.settings.active_hours
  const always = hours.from === 'always'
  // Time inputs take two-digit hours; the server takes both.
  const pad = (t: string) => (/^\d:/.test(t) ? `0${t}` : t)
  const { form, section } = useSectionForm({ always, from: always ? '09:00' : pad(hours.from), to: always ? '17:00' : pad(hours.to) }, (v) =>
    call('settings.updateActiveHours', { instanceId: inst._id, ...(v.always ? { from: 'always', to: 'always' } : { from: v.from, to: v.to }) })
  )
  return (
    <Section title="Active hours" section={section}>
      <Switch label="Always active" {...form.getInputProps('always', { type: 'checkbox' })} />
      {!form.values.always && (
        <Group>
          <TextInput type="time" label="From" description="Opens at" {...form.getInputProps('from')} />
          <TextInput type="time" label="To" description="Earlier than From: overnight" {...form.getInputProps('to')} />
        </Group>
      )}
    </Section>
  )
}
