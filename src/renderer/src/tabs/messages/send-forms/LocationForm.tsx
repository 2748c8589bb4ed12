/** A location pin (sent as the text send's `location`). */
import { SimpleGrid, Stack, TextInput } from '@mantine/core'
import { useForm } from '@mantine/form'
import { call } from '../../../store'
import { MapLinkInput } from '../../../components/MapLinkInput'
import { SendFooter } from './SendFooter'
import { useSendForm, type SendFormProps } from './use-send-form'

export function LocationForm({ instanceId, chatId, onSent }: SendFormProps) {
  const form = useForm({ initialValues: { lat: '', lng: '', name: '' } })
  const { onSubmit, busy, error, fields } = useSendForm(
    form,
    'location.',
    (v) => call('messages.sendText', { instanceId, chatId, location: { lat: v.lat, lng: v.lng, ...(v.name ? { name: v.name } : {}) } }),
    onSent
  )
  return (
    <form onSubmit={onSubmit}>
      <Stack gap="sm">
        <MapLinkInput onCoordinates={(c) => form.setValues({ lat: String(c.latitude), lng: String(c.longitude) })} />
        <SimpleGrid cols={{ base: 1, xs: 3 }}>
          <TextInput label="Latitude" {...form.getInputProps('lat')} />
          <TextInput label="Longitude" {...form.getInputProps('lng')} />
          <TextInput label="Name" {...form.getInputProps('name')} />
        </SimpleGrid>
        <SendFooter label="location" busy={busy} error={error} fields={fields} />
      </Stack>
    </form>
  )
}
