/**
 * The instance's attachments (files the bot and the composer send): list, upload and delete with
 * confirmation. Intents and surveys name them by id, so deleting one used there makes that action fail.
 */
import { ActionIcon, Button, Card, FileButton, Group, Modal, ScrollArea, Stack, Text } from '@mantine/core'
import { useState } from 'react'
import type { Attachment } from '../../../shared/schemas/records'
import { useAction, useContract } from '../hooks'
import { call } from '../store'
import { ErrorAlert } from './ErrorAlert'
import { fileToBase64, formatBytes } from './files'
import { CardHeader } from './CardHeader'

export function FilesCard({ instanceId }: { instanceId: string }) {
  const list = useContract('attachments.list', { instanceId }, (e) => e.type === 'changed' && e.what === 'attachments' && e.instanceId === instanceId)
  const act = useAction()
  const [deleting, setDeleting] = useState<Attachment | null>(null)
  const upload = (file: File | null) =>
    file &&
    act.run(async () => {
      await call('attachments.upload', { instanceId, filename: file.name, mimetype: file.type || undefined, dataBase64: await fileToBase64(file) })
      await list.reload()
    })
  return (
    <Card withBorder mt="md" data-testid="files-card">
      <CardHeader title="Files">
        <FileButton onChange={upload}>
          {(p) => (
            <Button {...p} size="xs" variant="default" loading={act.busy}>
              Upload…
            </Button>
          )}
        </FileButton>
      </CardHeader>
      <ErrorAlert error={list.error ?? act.error} />
      {list.data?.length === 0 && (
        <Text size="sm" c="dimmed">
          No files yet. Upload images and documents to send them or to use them in intents.
        </Text>
      )}
      <ScrollArea.Autosize mah={220}>
        <Stack gap={4}>
          {list.data?.map((a) => (
            <Group key={a._id} justify="space-between" wrap="nowrap">
              <div style={{ minWidth: 0 }}>
                <Text size="sm" truncate>
                  {a.filename}
                </Text>
                <Text size="xs" c="dimmed">
                  {a.mimetype} · {formatBytes(a.size)}
                </Text>
              </div>
              <ActionIcon variant="subtle" color="red" aria-label={`Delete ${a.filename}`} onClick={() => setDeleting(a)}>
                ×
              </ActionIcon>
            </Group>
          ))}
        </Stack>
      </ScrollArea.Autosize>
      <Modal opened={!!deleting} onClose={() => setDeleting(null)} title="Delete file?">
        <Text size="sm">“{deleting?.filename}” will be deleted. Intents or survey steps that send it will fail to.</Text>
        <Group justify="flex-end" mt="lg">
          <Button variant="default" onClick={() => setDeleting(null)}>
            Cancel
          </Button>
          <Button color="red" onClick={() => act.run(async () => (await call('attachments.delete', { instanceId, id: deleting!._id }), setDeleting(null), await list.reload()))}>
            Delete
          </Button>
        </Group>
      </Modal>
    </Card>
  )
}
