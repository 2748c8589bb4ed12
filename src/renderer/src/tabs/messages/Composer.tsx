/**
 * The composer: the send kind (a compact picker, Text first, so the composer stays short enough to
 * show under the chat on a laptop's screen) and that kind's own small form. The kinds that pick an
 * uploaded file (the bot's files) show only to whoever may read those files.
 */
import { Card, Select, Stack } from '@mantine/core'
import { useState } from 'react'
import { ButtonsForm } from './send-forms/ButtonsForm'
import { ContactForm } from './send-forms/ContactForm'
import { FileUrlForm } from './send-forms/FileUrlForm'
import { ListForm } from './send-forms/ListForm'
import { LocationForm } from './send-forms/LocationForm'
import { MediaForm } from './send-forms/MediaForm'
import { TextForm } from './send-forms/TextForm'
import type { SendFormProps } from './send-forms/use-send-form'
import { useMayCall } from '../../store'

const KIND_LABELS = {
  text: 'Text',
  image: 'Image',
  video: 'Video',
  audio: 'Audio',
  document: 'Document',
  fileUrl: 'File URL',
  location: 'Location',
  contact: 'Contact',
  buttons: 'Buttons',
  list: 'List',
  mediaButtons: 'Image + buttons'
} as const
type Kind = keyof typeof KIND_LABELS
/** The kinds whose form picks one of the bot's uploaded files (`attachments.list`). */
const FILE_KINDS: readonly Kind[] = ['image', 'video', 'audio', 'document', 'mediaButtons']

function KindForm({ kind, ...props }: SendFormProps & { kind: Kind }) {
  switch (kind) {
    case 'text':
      return <TextForm {...props} />
    case 'image':
    case 'video':
    case 'audio':
    case 'document':
      return <MediaForm key={kind} kind={kind} {...props} />
    case 'fileUrl':
      return <FileUrlForm {...props} />
    case 'location':
      return <LocationForm {...props} />
    case 'contact':
      return <ContactForm {...props} />
    case 'buttons':
    case 'mediaButtons':
      return <ButtonsForm key={kind} withImage={kind === 'mediaButtons'} {...props} />
    case 'list':
      return <ListForm {...props} />
  }
}

export function Composer(props: SendFormProps) {
  const [kind, setKind] = useState<Kind>('text')
  const files = useMayCall('attachments.list')
  const kinds = (Object.keys(KIND_LABELS) as Kind[]).filter((k) => files || !FILE_KINDS.includes(k))
  return (
    <Card withBorder role="form" aria-label="Compose" p="sm">
      <Stack gap="xs">
        <Select
          aria-label="Message kind"
          size="xs"
          w={180}
          data={kinds.map((k) => ({ value: k, label: KIND_LABELS[k] }))}
          value={kind}
          onChange={(v) => v && setKind(v)}
          allowDeselect={false}
          data-testid="send-kind"
        />
        <KindForm kind={kind} {...props} />
      </Stack>
    </Card>
  )
}
