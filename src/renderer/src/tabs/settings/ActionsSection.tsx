/** The behaviour flags (docs/api-seed.md §2.7 actions). */
import { SimpleGrid, Switch } from '@mantine/core'
import type { Instance } from '../../../../shared/schemas/records'
import { call } from '../../store'
import { Section, useSectionForm } from './Section'

const FLAGS = [
  ['reply_msgs', 'Reply to messages'],
  ['send_default_msg', 'Send the default message'],
  ['reply_group_msgs', 'Reply in groups'],
  ['reply_unread_msgs', 'Reply to messages received while offline'],
  ['multi_device', 'Multi-device'],
  ['send_webhook', 'Send webhooks']
] as const

export function ActionsSection({ inst }: { inst: Instance }) {
  const { form, section } = useSectionForm({ ...inst.settings.actions }, (v) => call('settings.updateActions', { instanceId: inst._id, ...v }))
  return (
    <Section title="Bot actions" section={section}>
      <SimpleGrid cols={{ base: 1, sm: 2 }}>
        {FLAGS.map(([key, label]) => (
          <Switch key={key} label={label} {...form.getInputProps(key, { type: 'checkbox' })} />
        ))}
      </SimpleGrid>
    </Section>
  )
}
