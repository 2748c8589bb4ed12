/**
 * A new broadcast (docs/design.md §18 "Broadcasts"): to a contact group or to numbers typed in, with the message. The
 * send governor spaces it out; the card of each broadcast shows how far it got.
 */
import { Button, Card, SegmentedControl, Select, Stack, Text, Textarea, Title } from '@mantine/core'
import { useForm } from '@mantine/form'
import type { Contact, ContactGroup } from '../../../../shared/schemas/records'
import { ErrorAlert } from '../../components/ErrorAlert'
import { showFieldErrors } from '../../components/form-errors'
import { useAction } from '../../hooks'
import { call } from '../../store'
import { MessageFields, outreachMessage, type MessageValues } from './MessageFields'

/** How many people a broadcast would reach: a group's contacts who did not opt out, or the numbers typed. */
export function recipientCount(v: { send_type: 'group' | 'individual'; group_id: string | null; to: string }, contacts: readonly Contact[]): number {
  if (v.send_type === 'group') return v.group_id === null ? 0 : contacts.filter((c) => c.group_id === v.group_id && !c.opted_out).length
  return new Set(v.to.split(/[,\n]/).map((n) => n.replace(/[^\d@a-z.]/gi, '')).filter(Boolean)).size
}

export function BroadcastComposer({ instanceId, groups, contacts }: { instanceId: string; groups: readonly ContactGroup[]; contacts: readonly Contact[] }) {
  const act = useAction()
  const form = useForm<{ send_type: 'group' | 'individual'; group_id: string | null; to: string; message: MessageValues }>({
    initialValues: { send_type: 'group', group_id: null, to: '', message: { text: '', attachments: [] } }
  })
  const count = recipientCount(form.values, contacts)
  const send = form.onSubmit((v) => {
    if (!window.confirm(`Send this message to ${count} ${count === 1 ? 'person' : 'people'}? The send governor spaces the messages out; you can pause or cancel at any time.`)) return
    void act.run(async () => {
      try {
        await call('broadcasts.create', {
          instanceId,
          send_type: v.send_type,
          to: v.send_type === 'group' ? (v.group_id ?? '') : v.to.split('\n').join(','),
          message: outreachMessage(v.message)
        })
      } catch (err) {
        showFieldErrors(form, err)
        throw err
      }
      form.reset()
    })
  })
  return (
    <Card withBorder component="form" onSubmit={send} aria-label="New broadcast">
      <Title order={5} mb="sm">
        New broadcast
      </Title>
      <Stack gap="sm">
        <SegmentedControl
          data={[
            { value: 'group', label: 'To a contact group' },
            { value: 'individual', label: 'To numbers' }
          ]}
          {...form.getInputProps('send_type')}
        />
        {form.values.send_type === 'group' ? (
          <Select
            label="Contact group"
            placeholder={groups.length ? 'Pick a group' : 'No groups yet (make one in Contacts)'}
            data={groups.map((g) => ({ value: g._id, label: g.title }))}
            {...form.getInputProps('group_id')}
            error={form.errors.to ?? form.errors.group_id}
          />
        ) : (
          <Textarea label="Numbers" description="With country codes, separated by commas or one per line" autosize minRows={2} {...form.getInputProps('to')} />
        )}
        <MessageFields form={form} instanceId={instanceId} />
        <Text size="sm" c="dimmed">
          {count} {count === 1 ? 'person' : 'people'}; opted-out contacts and numbers not on WhatsApp are skipped.
        </Text>
        <ErrorAlert error={act.error} form={{ keys: ['to', 'group_id', 'message'], prefix: '' }} />
        <Button type="submit" loading={act.busy} disabled={count === 0 || (!form.values.message.text.trim() && form.values.message.attachments.length === 0)}>
          Send broadcast
        </Button>
      </Stack>
    </Card>
  )
}
