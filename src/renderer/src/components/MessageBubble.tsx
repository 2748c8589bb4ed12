/**
 * One message as a chat bubble (own messages right): WhatsApp formatting rendered, image previews,
 * locations as map links, who sent it and when, ticks, and why the bot answered (or did not).
 * The simple log (./ChatLog.tsx) and the long, virtualised conversation both draw messages with it.
 */
import { Anchor, Badge, Group, Paper, Text } from '@mantine/core'
import type { LoggedMessage } from '../../../shared/schemas/records'
import { senderLabel } from './sender-label'
import { useDesk } from '../store'
import { explainBotDecision } from '../../../shared/domain/bot-decision-text'
import { FormattedText } from './FormattedText'
import { MediaPreview } from './MediaPreview'
import { deletedText, EditedNote, PollResults, ReactionChips } from './MessageChanges'


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

/** The time under a bubble: the clock, with the date when it is not today (a long chat spans years). */
function stamp(ms: number): string {
  const d = new Date(ms)
  return d.toDateString() === new Date().toDateString() ? d.toLocaleTimeString() : d.toLocaleString()
}

export function MessageBubble({ m, instanceId, flash = false }: { m: LoggedMessage; instanceId?: string; flash?: boolean }) {
  const me = useDesk((s) => s.me)
  return (
    <Group justify={m.fromMe ? 'flex-end' : 'flex-start'} wrap="nowrap">
      <Paper
        shadow="xs"
        px="sm"
        py={6}
        maw="75%"
        bg={flash ? 'yellow.1' : m.fromMe ? 'teal.0' : 'white'}
        style={{ transition: 'background-color 600ms ease', outline: flash ? '2px solid var(--mantine-color-yellow-5)' : undefined }}
        data-testid={m.fromMe ? 'bubble-out' : 'bubble-in'}
        data-source={m.source}
        data-message-id={m.id}
        data-flash={flash || undefined}
      >
        {!m.deleted && m.type !== 'text' && m.type !== 'extendedText' && m.type !== 'undecryptable' && m.type !== 'location' && (
          <Badge size="xs" variant="light" mb={4}>
            {m.type}
          </Badge>
        )}
        {instanceId && !m.fromMe && m.media?.mimetype.startsWith('image/') && <MediaPreview instanceId={instanceId} messageId={m.id} alt={m.text || m.type} />}
        {m.deleted ? (
          <Text size="sm" c="dimmed" fs="italic" data-testid="deleted">
            {deletedText(m)}
          </Text>
        ) : m.location ? (
          <Anchor href={mapUrl(m.location)} target="_blank" rel="noreferrer" size="sm" data-testid="map-link">
            Location: {m.text || `${m.location.latitude.toFixed(5)}, ${m.location.longitude.toFixed(5)}`} · open map
          </Anchor>
        ) : (
          <Text size="sm" style={{ whiteSpace: 'pre-wrap', wordBreak: 'break-word' }}>
            {m.type === 'undecryptable' ? <i>Waiting for this message… (WhatsApp is asking the sender for it again)</i> : m.text ? <FormattedText text={m.text} /> : <i>({m.type})</i>}
          </Text>
        )}
        {m.edited && <EditedNote edited={m.edited} />}
        {m.poll && <PollResults poll={m.poll} />}
        <Text size="xs" c="dimmed" ta="right" data-testid="sender">
          {senderLabel(m, me)}
          {m.username && !m.fromMe ? ` @${m.username}` : ''} · {stamp(m.timestamp)}
          {m.edited ? ' · edited' : ''}
          {m.fromMe && <DeliveryTicks status={m.status} errorCode={m.error_code} />}
        </Text>
        {m.reactions && m.reactions.length > 0 && <ReactionChips reactions={m.reactions} name={(by, fromMe) => (fromMe ? 'You' : by === m.senderId || by === m.chatId ? (m.pushName ?? by.split('@')[0]!) : by.split('@')[0]!)} />}
        {!m.fromMe && m.bot && (
          <Text size="xs" c={m.bot.action === 'none' ? 'orange.8' : 'teal.8'} fs="italic" mt={2} data-testid="bot-decision" data-action={m.bot.action}>
            {explainBotDecision(m.bot)}
          </Text>
        )}
      </Paper>
    </Group>
  )
}
