/** A text message; typing `/shortcut` offers the desk's quick replies (../quick-reply-insert.ts). */
import { Button, Group, Stack, Text, Textarea } from '@mantine/core'
import { useForm } from '@mantine/form'
import { useContract } from '../../../hooks'
import { call } from '../../../store'
import { insertReply, matchingReplies, shortcutBeingTyped } from '../quick-reply-insert'
import { SendFooter } from './SendFooter'
import { useSendForm, type SendFormProps } from './use-send-form'

export function TextForm({ instanceId, chatId, onSent }: SendFormProps) {
  const form = useForm({ initialValues: { message: '' } })
  const { onSubmit, busy, error, fields } = useSendForm(form, '', (v) => call('messages.sendText', { instanceId, chatId, message: v.message }), onSent)
  const replies = useContract('quickReplies.list', {}, (e) => e.type === 'quickReplies')
  const query = shortcutBeingTyped(form.values.message)
  const offered = query ? matchingReplies(replies.data ?? [], query).slice(0, 5) : []
  return (
    <form onSubmit={onSubmit}>
      <Stack gap="sm">
        <Textarea label="Message" description="*bold* _italic_ ~strike~ · type / for quick replies" autosize minRows={2} data-testid="compose-text" {...form.getInputProps('message')} />
        {query && (
          <Group gap={6} data-testid="quick-reply-offers" role="listbox" aria-label="Quick replies">
            {offered.length === 0 && (
              <Text size="xs" c="dimmed">
                No quick reply starts with /{query.prefix}.
              </Text>
            )}
            {offered.map((r) => (
              <Button key={r._id} size="compact-xs" variant="light" role="option" title={r.text} onClick={() => form.setFieldValue('message', insertReply(form.values.message, query, r.text))}>
                /{r.shortcut}
              </Button>
            ))}
          </Group>
        )}
        <SendFooter label="text" busy={busy} error={error} fields={fields} />
      </Stack>
    </form>
  )
}
