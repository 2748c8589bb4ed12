/** Buttons (delivered as numbered text), optionally under an image: the image-with-buttons send. */
import { ActionIcon, Button, Group, Select, Stack, TextInput, Textarea } from '@mantine/core'
import { useForm } from '@mantine/form'
import { call } from '../../../store'
import { SendFooter } from './SendFooter'
import { useSendForm, type SendFormProps } from './use-send-form'

type ButtonType = 'replyButton' | 'urlButton' | 'callButton'
const BUTTON_TYPES = [
  { value: 'replyButton', label: 'Reply' },
  { value: 'urlButton', label: 'Link' },
  { value: 'callButton', label: 'Call' }
]
const newButton = () => ({ type: 'replyButton' as ButtonType, title: '', payload: '' })

export function ButtonsForm({ instanceId, chatId, onSent, withImage }: SendFormProps & { withImage: boolean }) {
  const form = useForm({ initialValues: { image: '', text: '', footerText: '', buttons: [newButton()] } })
  const { onSubmit, busy, error, fields } = useSendForm(
    form,
    'btndata.',
    (v) => {
      const btndata = { text: v.text, ...(v.footerText ? { footerText: v.footerText } : {}), buttons: v.buttons.map((b) => ({ type: b.type, title: b.title, ...(b.payload ? { payload: b.payload } : {}) })) }
      return withImage
        ? call('messages.sendMediaButtons', { instanceId, chatId, btndata: { ...btndata, image: v.image, mediaType: 'image' as const } })
        : call('messages.sendButtons', { instanceId, chatId, btndata })
    },
    onSent
  )
  const buttons = form.values.buttons
  return (
    <form onSubmit={onSubmit}>
      <Stack gap="sm">
        {withImage && <TextInput label="Image URL" placeholder="https://…" data-testid="compose-url" {...form.getInputProps('image')} />}
        <Textarea label="Body text" autosize minRows={2} data-testid="compose-text" {...form.getInputProps('text')} />
        <Stack gap={6}>
          {buttons.map((b, i) => (
            <Group key={i} gap="xs" wrap="nowrap">
              <Select aria-label="Button type" w={140} allowDeselect={false} data={BUTTON_TYPES} {...form.getInputProps(`buttons.${i}.type`)} />
              <TextInput aria-label="Button title" placeholder="Title" style={{ flex: 1 }} {...form.getInputProps(`buttons.${i}.title`)} />
              <TextInput
                aria-label="Button payload"
                placeholder={b.type === 'urlButton' ? 'https://…' : b.type === 'callButton' ? '+1555…' : 'payload (optional)'}
                style={{ flex: 1 }}
                {...form.getInputProps(`buttons.${i}.payload`)}
              />
              <ActionIcon variant="subtle" color="red" aria-label="Remove button" disabled={buttons.length === 1} onClick={() => form.removeListItem('buttons', i)}>
                ×
              </ActionIcon>
            </Group>
          ))}
          <Group>
            <Button size="xs" variant="default" disabled={buttons.length >= 10} onClick={() => form.insertListItem('buttons', newButton())}>
              Add button
            </Button>
            <TextInput size="xs" placeholder="Footer (optional)" aria-label="Footer" {...form.getInputProps('footerText')} />
          </Group>
        </Stack>
        <SendFooter label={withImage ? 'mediaButtons' : 'buttons'} busy={busy} error={error} fields={fields} />
      </Stack>
    </form>
  )
}
