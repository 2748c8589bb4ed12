/**
 * A short conversation as bubbles (./MessageBubble.tsx), newest at the bottom, scrolled to the end —
 * every message rendered at once, for a log that stays small (Test chat). The inbox's conversations
 * can be long and use the virtualised tabs/messages/ConversationView.tsx instead.
 */
import { ScrollArea, Stack, Text } from '@mantine/core'
import { useEffect, useMemo, useRef } from 'react'
import type { LoggedMessage } from '../../../shared/schemas/records'
import { MessageBubble } from './MessageBubble'
import { decisionRuns } from './decision-runs'

export function ChatLog({
  messages,
  height = 420,
  empty,
  testId,
  instanceId
}: {
  messages: LoggedMessage[]
  height?: number | string
  empty: string
  testId?: string
  /** Shows inbound image previews (fetched through this instance). */
  instanceId?: string
}) {
  const viewport = useRef<HTMLDivElement>(null)
  const runs = useMemo(() => decisionRuns(messages), [messages])
  useEffect(() => {
    viewport.current?.scrollTo({ top: viewport.current.scrollHeight })
  }, [messages.length])
  return (
    <ScrollArea h={height} viewportRef={viewport} type="auto" bg="gray.0" p="sm" style={{ borderRadius: 8 }} data-testid={testId}>
      {messages.length === 0 && (
        <Text c="dimmed" ta="center" mt="xl">
          {empty}
        </Text>
      )}
      <Stack gap={6}>
        {messages.map((m) => (
          <MessageBubble key={m.id} m={m} instanceId={instanceId} decisionRun={runs.get(m.id)} />
        ))}
      </Stack>
    </ScrollArea>
  )
}
