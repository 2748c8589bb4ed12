/**
 * What happened to a message after it was sent, drawn in its bubble (docs/ui.md "Message bubble"):
 * "deleted" for a message deleted for everyone, "edited" with the earlier texts, the reactions under
 * it (one chip per emoji with its count, who reacted on hover), and a poll's options with their votes.
 */
import { Group, Progress, Stack, Text, Tooltip } from '@mantine/core'
import type { LoggedMessage } from '../../../shared/schemas/records'

/** The line a message deleted for everyone shows instead of its content. */
export function deletedText(m: Pick<LoggedMessage, 'fromMe' | 'deleted'>): string {
  if (!m.deleted) return ''
  return m.deleted.by === 'phone' ? 'You deleted this message (on the phone)' : 'This message was deleted by the customer'
}

/** "edited" under the text, with the earlier versions (oldest first) one per line. */
export function EditedNote({ edited }: { edited: NonNullable<LoggedMessage['edited']> }) {
  return (
    <Stack gap={0} mt={2} data-testid="edited">
      <Text size="xs" c="dimmed">
        Before the edit:
      </Text>
      {edited.history.map((h, i) => (
        <Text key={i} size="xs" c="dimmed" td="line-through" style={{ whiteSpace: 'pre-wrap', wordBreak: 'break-word' }} data-testid="edited-before">
          {h.text || '(no text)'}
        </Text>
      ))}
    </Stack>
  )
}

/** The reactions grouped by emoji: one chip each with how many reacted, their names on hover. */
export function ReactionChips({ reactions, name }: { reactions: NonNullable<LoggedMessage['reactions']>; name: (by: string, fromMe: boolean) => string }) {
  const groups = new Map<string, string[]>()
  for (const r of reactions) groups.set(r.emoji, [...(groups.get(r.emoji) ?? []), name(r.by, r.fromMe)])
  return (
    <Group gap={4} mt={4} data-testid="reactions">
      {[...groups].map(([emoji, who]) => (
        <Tooltip key={emoji} label={who.join(', ')} withArrow>
          <Text
            span
            size="sm"
            px={6}
            style={{ borderRadius: 12, background: 'var(--mantine-color-gray-1)', border: '1px solid var(--mantine-color-gray-3)' }}
            aria-label={`${emoji} from ${who.join(', ')}`}
            data-testid="reaction"
            data-emoji={emoji}
          >
            {emoji}
            {who.length > 1 ? ` ${who.length}` : ''}
          </Text>
        </Tooltip>
      ))}
    </Group>
  )
}

/** A poll's options with their votes and a bar each (the share of all votes). */
export function PollResults({ poll }: { poll: NonNullable<LoggedMessage['poll']> }) {
  const total = poll.options.reduce((n, o) => n + o.votes, 0)
  return (
    <Stack gap={4} mt={4} data-testid="poll">
      {poll.options.map((o) => (
        <div key={o.name} data-testid="poll-option" data-votes={o.votes}>
          <Group justify="space-between" gap="xs" wrap="nowrap">
            <Text size="sm">{o.name}</Text>
            <Text size="xs" c="dimmed">
              {o.votes} {o.votes === 1 ? 'vote' : 'votes'}
            </Text>
          </Group>
          <Progress value={total > 0 ? (o.votes / total) * 100 : 0} size="sm" aria-label={`${o.name}: ${o.votes} of ${total}`} />
        </div>
      ))}
      <Text size="xs" c="dimmed">
        {poll.voters.length} {poll.voters.length === 1 ? 'person voted' : 'people voted'}
        {poll.selectable === 1 ? ' · one choice' : ''}
      </Text>
    </Stack>
  )
}
