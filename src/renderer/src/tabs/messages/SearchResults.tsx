/**
 * The inbox's message search results: each hit's chat, sender and time, and its snippet with the
 * matches marked (from the API's `highlights`, drawn as <mark> elements); "More results" pages back.
 * Picking a hit opens its chat at that message.
 */
import { Badge, Button, EmptyState, Group, Loader, Stack, Text, UnstyledButton } from '@mantine/core'
import { ErrorAlert } from '../../components/ErrorAlert'
import { ListScroller } from '../../components/ListScroller'
import { senderLabel } from '../../components/sender-label'
import { useDesk } from '../../store'
import { chatNumber, shortWhen } from './chat-names'
import { snippetParts } from './highlight'
import type { SearchHit } from './search-merge'
import type { MessageSearch } from './use-message-search'

export function SearchResults({
  search,
  query,
  activeKey,
  instanceName,
  onOpen,
  phone,
  typing
}: {
  search: MessageSearch
  query: string
  /** The box holds words not searched yet (they are, once typing pauses). */
  typing: boolean
  /** The hit whose chat is open (`instanceId:id`). */
  activeKey: string | null
  /** The instance's name, when hits of several instances are listed. */
  instanceName: ((id: string) => string) | null
  onOpen(hit: SearchHit): void
  phone: boolean
}) {
  const { hits, error, hasMore } = search
  const loading = search.loading || typing
  return (
    <div data-testid="search-results" data-query={query} data-pending={loading} style={{ opacity: typing ? 0.6 : 1 }}>
      <ErrorAlert error={error} title="Search failed" />
      {!loading && !error && hits.length === 0 && <EmptyState size="sm" title="No message found" description={`No message, sender or number contains “${query}”.`} />}
      <ListScroller phone={phone}>
        <Stack gap={2} role="list" aria-label="Messages found">
          {hits.map((h) => (
            <div role="listitem" key={`${h.instanceId}:${h.id}`}>
              <HitRow hit={h} active={activeKey === `${h.instanceId}:${h.id}`} instanceName={instanceName?.(h.instanceId) ?? null} onOpen={() => onOpen(h)} />
            </div>
          ))}
        </Stack>
        <Group justify="space-between" mt="xs" mih={28} px="xs">
          <Text size="xs" c="dimmed" aria-live="polite">
            {hits.length > 0 && `${hits.length}${hasMore ? '+' : ''} message${hits.length === 1 && !hasMore ? '' : 's'} found, newest first`}
          </Text>
          {loading ? (
            <Loader size="xs" aria-label="Searching" />
          ) : (
            hasMore && (
              <Button size="compact-xs" variant="subtle" onClick={() => void search.more()}>
                More results
              </Button>
            )
          )}
        </Group>
      </ListScroller>
    </div>
  )
}

function HitRow({ hit, active, instanceName, onOpen }: { hit: SearchHit; active: boolean; instanceName: string | null; onOpen(): void }) {
  const me = useDesk((s) => s.me)
  const chat = chatNumber(hit.chatId)
  const title = !hit.fromMe && hit.pushName ? `${hit.pushName} · ${chat}` : chat
  return (
    <UnstyledButton
      onClick={onOpen}
      p="xs"
      w="100%"
      style={{ display: 'block', borderRadius: 6, background: active ? 'var(--mantine-color-teal-light)' : undefined }}
      aria-current={active ? 'true' : undefined}
      data-testid="search-hit"
    >
      <div style={{ display: 'flex', gap: 8, alignItems: 'baseline' }}>
        <Text size="sm" fw={500} truncate style={{ minWidth: 0, flex: 1 }}>
          {title}
        </Text>
        <Text size="xs" c="dimmed" style={{ flex: 'none' }} title={new Date(hit.timestamp).toLocaleString()}>
          {shortWhen(hit.timestamp)}
        </Text>
      </div>
      <Text size="xs" c="dimmed" lineClamp={2} style={{ wordBreak: 'break-word' }} data-testid="hit-snippet">
        {hit.fromMe ? `${senderLabel(hit, me)}: ` : ''}
        <Snippet hit={hit} />
      </Text>
      {instanceName && (
        <Badge size="xs" variant="outline" color="gray" mt={2}>
          {instanceName}
        </Badge>
      )}
    </UnstyledButton>
  )
}

/** The snippet with its matches marked; the message's text (or type) when the match was its sender or number. */
function Snippet({ hit }: { hit: SearchHit }) {
  if (!hit.snippet) return <>{hit.text || `(${hit.type})`}</>
  return (
    <>
      {snippetParts(hit.snippet, hit.highlights).map((p, i) =>
        p.match ? (
          <mark key={i} style={{ background: 'var(--mantine-color-yellow-2)', color: 'var(--mantine-color-black)', borderRadius: 2, padding: '0 1px' }}>
            {p.text}
          </mark>
        ) : (
          <span key={i}>{p.text}</span>
        )
      )}
    </>
  )
}
