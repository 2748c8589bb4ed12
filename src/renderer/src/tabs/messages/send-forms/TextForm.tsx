/** A text message. */
import { Stack, Textarea } from '@mantine/core'
import { useForm } from '@mantine/form'
import { call } from '../../../store'
import { SendFooter } from './SendFooter'
import { useSendForm, type SendFormProps } from './use-send-form'

export function TextForm({ instanceId, chatId, onSent }: SendFormProps) {
  const form = useForm({ initialValues: { message: '' } })
  const { onSubmit, busy, error } = useSendForm(form, '', (v) => call('messages.sendText', { instanceId, chatId, message: v.message }), onSent)
  return (
    <form onSubmit={onSubmit}>
      <Stack gap="sm">
        <Textarea label="Message" autosize minRows={2} data-testid="compose-text" {...form.getInputProps('message')} />
        <SendFooter label="text" busy={busy} error={error} />
      </Stack>
    </form>
  )
}
