/** A conversation as bubbles (own messages right), newest at the bottom, scrolled to the end. */
import { Badge, Group, Paper, ScrollArea, Stack, Text } from '@mantine/core'
import { useEffect, useRef } from 'react'
import type { LoggedMessage } from '../../../shared/schemas/records'
import { explainBotDecision } from '../../../shared/domain/bot-decision-text'

/**
 * WhatsApp's ticks for a sent message: one grey (the server took it), two grey (delivered), two blue
 * (read or played), a clock while pending, and a red mark with the server's code when refused.
 */
export function DeliveryTicks({ status, errorCode }: { status: string; errorCode?: string }) {
  const tick: Record<string, { glyph: string; color: string; label: string }> = {
    PENDING: { glyph: '🕓', color: 'dimmed', label: 'sending' },
    SERVER_ACK: { glyph: '✓', color: 'dimmed', label: 'sent' },
    DELIVERY_ACK: { glyph: '✓✓', color: 'dimmed', label: 'delivered' },
    READ: { glyph: '✓✓', color: 'blue', label: 'read' },
    PLAYED: { glyph: '✓✓', color: 'blue', label: 'played' },
    ERROR: { glyph: '⚠', color: 'red', label: `not delivered${errorCode ? ` (error ${errorCode})` : ''}` }
  }
  const t = tick[status]
  if (!t) return null
  return (
    <Text span size="xs" c={t.color} ml={6} title={t.label} aria-label={t.label} data-testid="ticks" data-status={status}>
      {t.glyph}
      {status === 'ERROR' && errorCode ? ` ${errorCode}` : ''}
    </Text>
  )
}

export function ChatLog({ messages, height = 420, empty, testId }: { messages: LoggedMessage[]; height?: number; empty: string; testId?: string }) {
  const viewport = useRef<HTMLDivElement>(null)
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
          <Group key={m.id} justify={m.fromMe ? 'flex-end' : 'flex-start'}>
            <Paper
              shadow="xs"
              px="sm"
              py={6}
              maw="75%"
              bg={m.fromMe ? 'teal.0' : 'white'}
              data-testid={m.fromMe ? 'bubble-out' : 'bubble-in'}
              data-source={m.source}
            >
              {m.type !== 'text' && m.type !== 'extendedText' && m.type !== 'undecryptable' && (
                <Badge size="xs" variant="light" mb={4}>
                  {m.type}
                </Badge>
              )}
              <Text size="sm" style={{ whiteSpace: 'pre-wrap', wordBreak: 'break-word' }}>
                {m.type === 'undecryptable' ? <i>Waiting for this message… (WhatsApp is asking the sender for it again)</i> : m.text || <i>({m.type})</i>}
              </Text>
              <Text size="xs" c="dimmed" ta="right">
                {m.fromMe ? m.source : (m.pushName ?? '')} · {new Date(m.timestamp).toLocaleTimeString()}
                {m.fromMe && <DeliveryTicks status={m.status} errorCode={m.error_code} />}
              </Text>
              {!m.fromMe && m.bot && (
                <Text size="xs" c={m.bot.action === 'none' ? 'orange.8' : 'teal.8'} fs="italic" mt={2} data-testid="bot-decision" data-action={m.bot.action}>
                  {explainBotDecision(m.bot)}
                </Text>
              )}
            </Paper>
          </Group>
        ))}
      </Stack>
    </ScrollArea>
  )
}
