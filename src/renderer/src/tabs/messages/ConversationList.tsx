/**
 * The inbox's conversations (docs/design.md §15): mine / unassigned / all (docs/ui.md "People at the desk"), open / unanswered / resolved / all, a filter by name or
 * number, a new chat by number, and a row per chat with its unread count, the unanswered marker, its
 * labels, assignee and instance.
 */
import { Badge, Button, EmptyState, Group, SegmentedControl, Stack, Text, TextInput, UnstyledButton } from '@mantine/core'
import { useState } from 'react'
import type { Conversation } from '../../../../shared/contract'
import { ErrorAlert } from '../../components/ErrorAlert'
import { LabelBadges } from '../../components/LabelBadges'
import { ListScroller } from '../../components/ListScroller'
import type { Loaded } from '../../hooks'
import type { AssignedFilter } from '../../access'
import { displayNumber, shortWhen } from './chat-names'
import { isMine } from '../../components/sender-label'
import { useDesk } from '../../store'

export type ConversationFilter = 'open' | 'unanswered' | 'resolved' | 'all'

/** `inbox.list`'s input for a status filter and a name/number filter. */
export function inboxQuery(filter: ConversationFilter, q: string) {
  return {
    status: filter === 'resolved' ? ('resolved' as const) : filter === 'all' ? ('all' as const) : ('open' as const),
    ...(filter === 'unanswered' ? { unanswered: true } : {}),
    ...(q.trim() ? { q: q.trim() } : {})
  }
}

export function ConversationList({
  list,
  filter,
  onFilter,
  assigned,
  onAssigned,
  q,
  onQ,
  isOpen,
  instanceName,
  onOpen,
  onNewChat,
  phone
}: {
  list: Loaded<Conversation[]>
  filter: ConversationFilter
  onFilter(f: ConversationFilter): void
  assigned: AssignedFilter
  onAssigned(a: AssignedFilter): void
  q: string
  onQ(q: string): void
  isOpen(c: Conversation): boolean
  instanceName: ((id: string) => string) | null
  onOpen(c: Conversation): void
  onNewChat(number: string): void
  phone: boolean
}) {
  const [newChat, setNewChat] = useState('')
  return (
    <>
      <SegmentedControl
        fullWidth
        size="xs"
        value={assigned}
        onChange={(v) => onAssigned(v)}
        data={[
          { value: 'mine', label: 'Mine' },
          { value: 'unassigned', label: 'Unassigned' },
          { value: 'all', label: 'All' }
        ]}
        aria-label="Assigned to"
        data-testid="assigned-filter"
        mb="xs"
      />
      <SegmentedControl
        fullWidth
        size="xs"
        value={filter}
        onChange={onFilter}
        data={[
          { value: 'open', label: 'Open' },
          { value: 'unanswered', label: 'Unanswered' },
          { value: 'resolved', label: 'Resolved' },
          { value: 'all', label: 'All' }
        ]}
        aria-label="Show conversations"
        mb="xs"
      />
      <TextInput size="xs" placeholder="Filter chats by name or number" value={q} onChange={(e) => onQ(e.currentTarget.value)} aria-label="Filter conversations" mb="xs" type="search" />
      <form onSubmit={(e) => (e.preventDefault(), newChat.trim() && onNewChat(newChat.trim()), setNewChat(''))}>
        <Group gap="xs" mb="sm" wrap="nowrap">
          <TextInput size="xs" placeholder="New chat: phone number" value={newChat} onChange={(e) => setNewChat(e.currentTarget.value)} aria-label="New chat" style={{ flex: 1 }} data-testid="new-chat" />
          <Button size="xs" type="submit" variant="light">
            Open chat
          </Button>
        </Group>
      </form>
      <ErrorAlert error={list.error} />
      {list.data?.length === 0 && (
        <EmptyState size="sm" title={q || filter !== 'all' || assigned !== 'all' ? 'Nothing here' : 'No messages yet'} description={q ? 'No conversation matches the filter.' : 'Conversations appear when customers write.'} />
      )}
      <ListScroller phone={phone}>
        <Stack gap={2}>
          {list.data?.map((c) => (
            <ConversationRow key={`${c.instance_id}:${c.chatId}`} c={c} instanceName={instanceName?.(c.instance_id) ?? null} active={isOpen(c)} onOpen={() => onOpen(c)} />
          ))}
        </Stack>
      </ListScroller>
    </>
  )
}

function ConversationRow({ c, instanceName, active, onOpen }: { c: Conversation; instanceName: string | null; active: boolean; onOpen(): void }) {
  const me = useDesk((s) => s.me)
  const who = c.last.source === 'inbound' ? '' : c.last.sent_by ? `${isMine(c.last.sent_by, me) ? 'You' : c.last.sent_by.name}: ` : c.last.source === 'bot' ? 'Bot: ' : c.last.source === 'broadcast' || c.last.source === 'schedule' ? 'Broadcast: ' : 'You: '
  return (
    <UnstyledButton
      onClick={onOpen}
      p="xs"
      w="100%"
      style={{ display: 'block', borderRadius: 6, background: active ? 'var(--mantine-color-teal-light)' : undefined }}
      data-testid="conversation-row"
      data-unread={c.unread}
      data-status={c.status}
      aria-current={active ? 'true' : undefined}
    >
      <div style={{ display: 'flex', gap: 8, alignItems: 'flex-start' }}>
        <div style={{ minWidth: 0, flex: 1 }}>
          <div style={{ display: 'flex', alignItems: 'center', gap: 6, minWidth: 0 }}>
            {c.unanswered && <span aria-label="Unanswered" title="Waiting for an answer" style={{ width: 8, height: 8, borderRadius: 4, background: 'var(--mantine-color-orange-6)', flex: 'none' }} />}
            <Text size="sm" fw={c.unread ? 700 : 500} truncate style={{ minWidth: 0 }}>
              {c.name ?? displayNumber(c)}
            </Text>
          </div>
          <Text size="xs" c="dimmed" truncate>
            {c.name ? `${displayNumber(c)} · ` : ''}
            {who}
            {c.last.text || `(${c.last.type})`}
          </Text>
          {(instanceName || c.assigned_to || c.paused_until !== undefined || c.status === 'resolved' || c.labels.length > 0) && (
            <Group gap={4} mt={2}>
              {c.assigned_to && (
                <Badge size="xs" variant="light" color="blue" tt="none" data-testid="assignee" title={`Assigned to ${c.assigned_to.name}`}>
                  → {c.assigned_to.name}
                </Badge>
              )}
              <LabelBadges names={c.labels} />
              {instanceName && (
                <Badge size="xs" variant="outline" color="gray">
                  {instanceName}
                </Badge>
              )}
              {c.paused_until !== undefined && (
                <Badge size="xs" color="orange" variant="light">
                  Bot paused
                </Badge>
              )}
              {c.status === 'resolved' && (
                <Badge size="xs" color="gray" variant="light">
                  Resolved
                </Badge>
              )}
            </Group>
          )}
        </div>
        <div style={{ flex: 'none', display: 'flex', flexDirection: 'column', alignItems: 'flex-end', gap: 2 }}>
          <Text size="xs" c="dimmed">
            {shortWhen(c.last.timestamp)}
          </Text>
          {c.unread > 0 && (
            <Badge size="sm" circle color="teal" aria-label={`${c.unread} unread`}>
              {c.unread}
            </Badge>
          )}
        </div>
      </div>
    </UnstyledButton>
  )
}
