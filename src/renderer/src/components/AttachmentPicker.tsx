/**
 * Picks an attachment of the instance (optionally images only), with an Upload button that stores a
 * new file through the contract and selects it.
 */
import { Button, FileButton, Group, Select } from '@mantine/core'
import type { Attachment } from '../../../shared/schemas/records'
import { useAction, useContract } from '../hooks'
import { call } from '../store'
import { fileToBase64, formatBytes } from './files'
import { ErrorAlert } from './ErrorAlert'

export function AttachmentPicker(props: {
  instanceId: string
  label: string
  value: string | null
  onChange(id: string | null): void
  imagesOnly?: boolean
  error?: string
  testId?: string
}) {
  const list = useContract('attachments.list', { instanceId: props.instanceId }, (e) => e.type === 'changed' && e.what === 'attachments' && e.instanceId === props.instanceId)
  const upload = useAction()
  const fits = (a: Attachment) => !props.imagesOnly || a.mimetype.startsWith('image/')
  const onFile = (file: File | null) =>
    file &&
    upload.run(async () => {
      const a = await call('attachments.upload', { instanceId: props.instanceId, filename: file.name, mimetype: file.type || undefined, dataBase64: await fileToBase64(file) })
      await list.reload()
      props.onChange(a._id)
    })
  return (
    <div>
      <Group align="flex-end" gap="xs" wrap="nowrap">
        <Select
          label={props.label}
          placeholder={list.data?.some(fits) ? 'Pick a file' : 'No files yet: upload one'}
          data={(list.data ?? []).filter(fits).map((a) => ({ value: a._id, label: `${a.filename} (${formatBytes(a.size)})` }))}
          value={props.value}
          onChange={props.onChange}
          clearable
          searchable
          error={props.error}
          style={{ flex: 1 }}
          data-testid={props.testId}
        />
        <FileButton onChange={onFile} accept={props.imagesOnly ? 'image/*' : undefined}>
          {(p) => (
            <Button {...p} variant="default" loading={upload.busy} data-testid={props.testId ? `${props.testId}-upload` : undefined}>
              Upload…
            </Button>
          )}
        </FileButton>
      </Group>
      <ErrorAlert error={upload.error} title="Upload failed" />
    </div>
  )
}
