/** The days the bot answers. */
import { Checkbox, Group } from '@mantine/core'
import { WEEK_DAYS, type Instance } from '../../../../shared/schemas/records'
import { call } from '../../store'
import { Section, useSectionForm } from './Section'

export function ActiveDaysSection({ inst }: { inst: Instance }) {
  const { form, section } = useSectionForm({ ...inst.settings.active_days }, (v) => call('settings.updateActiveDays', { instanceId: inst._id, ...v }))
  return (
    <Section title="Active days" section={section}>
      <Group>
        {WEEK_DAYS.map((day) => (
          <Checkbox key={day} label={day[0]!.toUpperCase() + day.slice(1)} {...form.getInputProps(day, { type: 'checkbox' })} />
        ))}
      </Group>
    </Section>
  )
}
