/**
 * An inbound image's preview in a chat bubble, fetched through the instance's connection when the
 * bubble shows (the log keeps no bytes). A message whose media is gone shows a note instead.
 */
import { Image, Text } from '@mantine/core'
import { useContract } from '../hooks'

export function MediaPreview({ instanceId, messageId, alt }: { instanceId: string; messageId: string; alt: string }) {
  const preview = useContract('messages.preview', { instanceId, id: messageId })
  if (preview.loading) return <Text size="xs" c="dimmed">Loading image…</Text>
  if (preview.error) return <Text size="xs" c="dimmed">Image not available ({preview.error instanceof Error ? preview.error.message : 'error'})</Text>
  if (!preview.data?.dataUrl) return null
  return <Image src={preview.data.dataUrl} alt={alt} maw={240} radius="sm" mb={4} data-testid="media-preview" />
}
