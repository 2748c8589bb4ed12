/** A file the app downloads from a URL and sends as an image, video, audio or document. */
import { Group, Select, Stack, TextInput, Textarea } from '@mantine/core'
import { useForm } from '@mantine/form'
import { call } from '../../../store'
import { SendFooter } from './SendFooter'
import { useSendForm, type SendFormProps } from './use-send-form'

type UrlType = 'image' | 'video' | 'audio' | 'document'
const TYPES = [
  { value: 'image', label: 'Image' },
  { value: 'video', label: 'Video' },
  { value: 'audio', label: 'Audio' },
  { value: 'document', label: 'Document' }
]

export function FileUrlForm({ instanceId, chatId, onSent }: SendFormProps) {
  const form = useForm({ initialValues: { url: '', type: 'image' as UrlType, caption: '' } })
  const { onSubmit, busy, error, fields } = useSendForm(form, '', (v) => call('messages.sendFileUrl', { instanceId, chatId, url: v.url, type: v.type, ...(v.caption ? { caption: v.caption } : {}) }), onSent)
  return (
    <form onSubmit={onSubmit}>
      <Stack gap="sm">
        <Group gap="xs" align="flex-start" wrap="nowrap">
          <TextInput label="File URL" placeholder="https://…" style={{ flex: 1 }} data-testid="compose-url" {...form.getInputProps('url')} />
          <Select label="Send as" w={150} allowDeselect={false} data={TYPES} {...form.getInputProps('type')} />
        </Group>
        <Textarea label="Caption" autosize minRows={2} data-testid="compose-text" {...form.getInputProps('caption')} />
        <SendFooter label="fileUrl" busy={busy} error={error} fields={fields} />
      </Stack>
    </form>
  )
}
