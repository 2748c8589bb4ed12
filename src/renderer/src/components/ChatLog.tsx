/**
 * A conversation as bubbles (own messages right), newest at the bottom, scrolled to the end: WhatsApp
 * formatting rendered, image previews, locations as map links, who sent each message, and ticks.
 */
import { Anchor, Badge, Group, Paper, ScrollArea, Stack, Text } from '@mantine/core'
import { useEffect, useRef } from 'react'
import type { LoggedMessage } from '../../../shared/schemas/records'
import { explainBotDecision } from '../../../shared/domain/bot-decision-text'
import { FormattedText } from './FormattedText'
import { MediaPreview } from './MediaPreview'

/** Who wrote a message, in the owner's words. */
export function senderLabel(m: Pick<LoggedMessage, 'source' | 'pushName'>): string {
  switch (m.source) {
    case 'bot':
      return 'Bot'
    case 'desk':
      return 'You (desk)'
    case 'phone':
      return 'You (phone)'
    case 'api':
      return 'Script (API)'
    case 'broadcast':
      return 'Broadcast'
    case 'schedule':
      return 'Scheduled message'
    case 'inbound':
      return m.pushName ?? 'Customer'
  }
}

/** A map link for coordinates (opens in the browser). */
export function mapUrl(l: { latitude: number; longitude: number }): string {
  return `https://www.google.com/maps/search/?api=1&query=${l.latitude},${l.longitude}`
}

/**
 * WhatsApp's ticks for a sent message: one grey (the server took it), two grey (delivered), two blue
 * (read or played), a clock while pending, and a red mark with the server's code when refused.
 */
export function DeliveryTicks({ status, errorCode }: { status: string; errorCode?: string }) {
  const tick: Record<string, { glyph: string; color: string; label: string }> = {
    PENDING: { glyph: '◷', color: 'dimmed', label: 'sending' },
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
              {m.type !== 'text' && m.type !== 'extendedText' && m.type !== 'undecryptable' && m.type !== 'location' && (
                <Badge size="xs" variant="light" mb={4}>
                  {m.type}
                </Badge>
              )}
              {instanceId && !m.fromMe && m.media?.mimetype.startsWith('image/') && <MediaPreview instanceId={instanceId} messageId={m.id} alt={m.text || m.type} />}
              {m.location ? (
                <Anchor href={mapUrl(m.location)} target="_blank" rel="noreferrer" size="sm" data-testid="map-link">
                  Location: {m.text || `${m.location.latitude.toFixed(5)}, ${m.location.longitude.toFixed(5)}`} · open map
                </Anchor>
              ) : (
                <Text size="sm" style={{ whiteSpace: 'pre-wrap', wordBreak: 'break-word' }}>
                  {m.type === 'undecryptable' ? <i>Waiting for this message… (WhatsApp is asking the sender for it again)</i> : m.text ? <FormattedText text={m.text} /> : <i>({m.type})</i>}
                </Text>
              )}
              <Text size="xs" c="dimmed" ta="right" data-testid="sender">
                {senderLabel(m)} · {new Date(m.timestamp).toLocaleTimeString()}
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
