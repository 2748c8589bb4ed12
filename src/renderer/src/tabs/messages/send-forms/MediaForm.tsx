/** An image, video, audio or document message from a stored attachment (picked or uploaded here). */
import { Stack, Switch, Textarea } from '@mantine/core'
import { useForm } from '@mantine/form'
import { AttachmentPicker } from '../../../components/AttachmentPicker'
import { call } from '../../../store'
import { SendFooter } from './SendFooter'
import { useSendForm, type SendFormProps } from './use-send-form'

export type MediaKind = 'image' | 'video' | 'audio' | 'document'

export function MediaForm({ instanceId, chatId, onSent, kind }: SendFormProps & { kind: MediaKind }) {
  const form = useForm({
    initialValues: { attachmentId: null as string | null, caption: '', voiceNote: false },
    validate: { attachmentId: (v) => (v ? null : 'Pick or upload a file first.') }
  })
  const { onSubmit, busy, error, fields } = useSendForm(
    form,
    '',
    (v) =>
      call('messages.sendMedia', {
        instanceId,
        chatId,
        kind,
        attachmentId: v.attachmentId!,
        ...(v.caption && kind !== 'audio' ? { caption: v.caption } : {}),
        ...(kind === 'audio' ? { voiceNote: v.voiceNote } : {})
      }),
    onSent
  )
  const picker = form.getInputProps('attachmentId')
  return (
    <form onSubmit={onSubmit}>
      <Stack gap="sm">
        <AttachmentPicker
          instanceId={instanceId}
          label={`${kind[0]!.toUpperCase() + kind.slice(1)} file`}
          imagesOnly={kind === 'image'}
          value={form.values.attachmentId}
          onChange={(id) => form.setFieldValue('attachmentId', id)}
          error={picker.error as string | undefined}
          testId="media-picker"
        />
        {kind === 'audio' ? (
          <Switch label="Send as voice note" {...form.getInputProps('voiceNote', { type: 'checkbox' })} />
        ) : (
          <Textarea label="Caption" autosize minRows={2} data-testid="compose-text" {...form.getInputProps('caption')} />
        )}
        <SendFooter label={kind} busy={busy} error={error} fields={fields} />
      </Stack>
    </form>
  )
}
