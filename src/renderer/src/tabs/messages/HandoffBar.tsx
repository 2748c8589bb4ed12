/**
 * Hand-off for one chat (docs/design.md §13): whether the bot is paused because a person is handling
 * the chat, how long for, and the owner's controls — pause now, or hand it back to the bot. A reply
 * sent from this desk pauses it by itself (the instance's pause time).
 */
import { Badge, Button, Group, Text } from '@mantine/core'
import { useEffect, useState } from 'react'
import { ErrorAlert } from '../../components/ErrorAlert'
import { useAction, useContract } from '../../hooks'
import { call, useDesk } from '../../store'
import { pauseReason } from './handoff-text'
import type { ChatPause } from '../../../../shared/schemas/records'

/** "12 min left", "until you resume", from a pause and the current time (ms). */
export function pauseLabel(p: ChatPause, nowMs: number): string {
  if (p.until === null) return 'until you hand it back'
  const min = Math.max(1, Math.ceil((Date.parse(p.until) - nowMs) / 60_000))
  return min >= 60 ? `${Math.floor(min / 60)} h ${min % 60} min left` : `${min} min left`
}

export function HandoffBar({ instanceId, chatId }: { instanceId: string; chatId: string }) {
  const pauses = useContract('handoff.list', { instanceId }, (e) => (e.type === 'handoff' || e.type === 'message') && e.instanceId === instanceId)
  const action = useAction()
  const me = useDesk((s) => s.me)
  // Drawn again every 30 s so the time left counts down; the time is read at each drawing, so a pause
  // that starts after the bar appeared does not show a minute too many.
  const [, tick] = useState(0)
  useEffect(() => {
    const t = setInterval(() => tick((n) => n + 1), 30_000)
    return () => clearInterval(t)
  }, [])
  const now = Date.now()
  const bare = chatId.split('@')[0]!.replace(/^\+/, '')
  const pause = pauses.data?.find((p) => p.chatId.split('@')[0] === bare && (p.until === null || Date.parse(p.until) > now))
  const run = (fn: () => Promise<unknown>) => action.run(async () => (await fn(), await pauses.reload()))
  return (
    <Group justify="space-between" gap="xs" data-testid="handoff-bar" data-paused={pause ? 'yes' : 'no'}>
      {pause ? (
        <Group gap={6}>
          <Badge color="orange" variant="light">
            Bot paused
          </Badge>
          <Text size="sm" c="dimmed">
            {pauseReason(pause, me)} · {pauseLabel(pause, now)}
          </Text>
        </Group>
      ) : (
        <Group gap={6}>
          <Badge color="teal" variant="light">
            Bot on
          </Badge>
          <Text size="sm" c="dimmed">
            Your reply here pauses it for this chat.
          </Text>
        </Group>
      )}
      {pause ? (
        <Button size="xs" variant="light" loading={action.busy} onClick={() => void run(() => call('handoff.resume', { instanceId, chatId }))}>
          Hand back to bot
        </Button>
      ) : (
        <Button size="xs" variant="default" loading={action.busy} onClick={() => void run(() => call('handoff.pause', { instanceId, chatId }))}>
          Pause bot
        </Button>
      )}
      <ErrorAlert error={action.error ?? pauses.error} />
    </Group>
  )
}
