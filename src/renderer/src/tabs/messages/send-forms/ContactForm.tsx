/** A contact card (vCard). */
import { SimpleGrid, Stack, TextInput } from '@mantine/core'
import { useForm } from '@mantine/form'
import { call } from '../../../store'
import { SendFooter } from './SendFooter'
import { useSendForm, type SendFormProps } from './use-send-form'

export function ContactForm({ instanceId, chatId, onSent }: SendFormProps) {
  const form = useForm({ initialValues: { fullName: '', phoneNumber: '', organization: '' } })
  const { onSubmit, busy, error, fields } = useSendForm(
    form,
    'vcard.',
    (v) => call('messages.sendContact', { instanceId, chatId, vcard: { fullName: v.fullName, phoneNumber: v.phoneNumber, ...(v.organization ? { organization: v.organization } : {}) } }),
    onSent
  )
  return (
    <form onSubmit={onSubmit}>
      <Stack gap="sm">
        <SimpleGrid cols={{ base: 1, xs: 3 }}>
          <TextInput label="Full name" {...form.getInputProps('fullName')} />
          <TextInput label="Phone number" {...form.getInputProps('phoneNumber')} />
          <TextInput label="Organization" {...form.getInputProps('organization')} />
        </SimpleGrid>
        <SendFooter label="contact" busy={busy} error={error} fields={fields} />
      </Stack>
    </form>
  )
}
