/** The chat's latest assignment changes (its timeline), as small lines under the header; live on `assignment`. */
import { Stack, Text } from '@mantine/core'
import type { ContractEvent } from '../../../../shared/contract'
import { useContract } from '../../hooks'
import { timelineText } from './assignment'

/** How many of the latest changes show. */
const SHOWN = 3

export function AssignmentLines({ instanceId, chatId }: { instanceId: string; chatId: string }) {
  const timeline = useContract('inbox.timeline', { instanceId, chatId }, (e: ContractEvent) => e.type === 'assignment' && e.instanceId === instanceId && e.chatId === chatId)
  const latest = timeline.data?.slice(-SHOWN) ?? []
  if (latest.length === 0) return null
  return (
    <Stack gap={0} data-testid="assignment-lines">
      {latest.map((e) => (
        <Text key={e.at + (e.assigned_to?.id ?? '')} size="xs" c="dimmed" ta="center" data-testid="assignment-line">
          {timelineText(e)}
        </Text>
      ))}
    </Stack>
  )
}
