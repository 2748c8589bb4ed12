/**
 * The inbox (issue 13 §1): conversations of every instance (or the picked one) with unread counts,
 * the unanswered marker, open/resolved, search; the open chat with its history, hand-off bar and the
 * composer (./Composer.tsx). On a phone the list and the chat take turns on the screen.
 */
import { Badge, Button, Card, Checkbox, EmptyState, Grid, Group, SegmentedControl, Stack, TagsInput, Text, TextInput, Title, UnstyledButton } from '@mantine/core'
import { useMediaQuery } from '@mantine/hooks'
import { useEffect, useState } from 'react'
import { ChatLog } from '../../components/ChatLog'
import { FilesCard } from '../../components/FilesCard'
import { ErrorAlert } from '../../components/ErrorAlert'
import { NeedInstance } from '../../components/NeedInstance'
import { LabelBadges } from '../../components/LabelBadges'
import { useAction, useContract } from '../../hooks'
import { call, useDesk, useSelectedInstance } from '../../store'
import type { Conversation } from '../../../../shared/contract'
import type { ContractEvent } from '../../../../shared/contract'
import { Composer } from './Composer'
import { HandoffBar } from './HandoffBar'
import { QuickRepliesCard } from './QuickRepliesCard'
import { CardHeader } from '../../components/CardHeader'

type Filter = 'open' | 'unanswered' | 'resolved' | 'all'

/** The chat being looked at: a listed conversation, or a number typed in "New chat". */
interface OpenChat {
  instanceId: string
  chatId: string
}

const inboxEvent = (e: ContractEvent) => e.type === 'message' || e.type === 'chatMerged' || e.type === 'chatStatus' || e.type === 'handoff' || e.type === 'status'

/** "+1 555 000 1111"-ish: the number as digits with a plus, or the bare JID. */
export function displayNumber(c: Pick<Conversation, 'phone' | 'chatId'>): string {
  return c.phone ? `+${c.phone}` : c.chatId.split('@')[0]!
}

/** Time of the last message: the clock today, else the date. */
function when(ms: number): string {
  const d = new Date(ms)
  return d.toDateString() === new Date().toDateString() ? d.toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' }) : d.toLocaleDateString()
}

export function MessagesTab() {
  const inst = useSelectedInstance()
  const instances = useDesk((s) => s.instances)
  const [everyInstance, setEveryInstance] = useState(true)
  const [filter, setFilter] = useState<Filter>('open')
  const [q, setQ] = useState('')
  const [open, setOpen] = useState<OpenChat | null>(null)
  const [newChat, setNewChat] = useState('')
  const phone = useMediaQuery('(max-width: 62em)')
  const scoped = !everyInstance && inst ? { instance_id: inst._id } : {}
  const input = { ...scoped, status: filter === 'resolved' ? ('resolved' as const) : filter === 'all' ? ('all' as const) : ('open' as const), ...(filter === 'unanswered' ? { unanswered: true } : {}), ...(q.trim() ? { q: q.trim() } : {}) }
  const list = useContract('inbox.list', input, inboxEvent)
  if (!inst) return <NeedInstance />
  const nameOf = (id: string) => instances.find((i) => i._id === id)?.settings.bot_name ?? id.slice(-6)
  const current = open && list.data?.find((c) => c.instance_id === open.instanceId && c.chatId === open.chatId)
  const showList = !phone || !open
  const showChat = !phone || !!open
  return (
    <Grid>
      {showList && (
        <Grid.Col span={{ base: 12, md: 4 }}>
          <Card withBorder data-testid="inbox">
            <CardHeader title="Inbox">
              {instances.length > 1 && <Checkbox size="xs" label="Every instance" checked={everyInstance} onChange={(e) => setEveryInstance(e.currentTarget.checked)} />}
            </CardHeader>
            <SegmentedControl
              fullWidth
              size="xs"
              value={filter}
              onChange={setFilter}
              data={[
                { value: 'open', label: 'Open' },
                { value: 'unanswered', label: 'Unanswered' },
                { value: 'resolved', label: 'Resolved' },
                { value: 'all', label: 'All' }
              ]}
              aria-label="Show conversations"
              mb="xs"
            />
            <TextInput placeholder="Search name, number or text" value={q} onChange={(e) => setQ(e.currentTarget.value)} aria-label="Search conversations" mb="xs" type="search" />
            <form onSubmit={(e) => (e.preventDefault(), newChat.trim() && setOpen({ instanceId: inst._id, chatId: newChat.trim() }), setNewChat(''))}>
              <Group gap="xs" mb="sm" wrap="nowrap">
                <TextInput placeholder="New chat: phone number" value={newChat} onChange={(e) => setNewChat(e.currentTarget.value)} aria-label="New chat" style={{ flex: 1 }} data-testid="new-chat" />
                <Button type="submit" variant="light">
                  Open chat
                </Button>
              </Group>
            </form>
            <ErrorAlert error={list.error} />
            {list.data?.length === 0 && (
              <EmptyState size="sm" title={q || filter !== 'all' ? 'Nothing here' : 'No messages yet'} description={q ? 'No conversation matches the search.' : 'Conversations appear when customers write.'} />
            )}
            {/* A plain scroller: Mantine's ScrollArea lays its content out as a table, which defeats truncation. */}
            <div style={{ maxHeight: phone ? undefined : 420, overflowY: 'auto', overflowX: 'hidden' }}>
              <Stack gap={2}>
                {list.data?.map((c) => (
                  <ConversationRow
                    key={`${c.instance_id}:${c.chatId}`}
                    c={c}
                    instanceName={everyInstance && instances.length > 1 ? nameOf(c.instance_id) : null}
                    active={open?.instanceId === c.instance_id && open.chatId === c.chatId}
                    onOpen={() => setOpen({ instanceId: c.instance_id, chatId: c.chatId })}
                  />
                ))}
              </Stack>
            </div>
          </Card>
          {!phone && <QuickRepliesCard />}
          {!phone && <FilesCard instanceId={inst._id} />}
        </Grid.Col>
      )}
      {showChat && (
        <Grid.Col span={{ base: 12, md: 8 }}>
          {open ? (
            <ChatView
              key={`${open.instanceId}:${open.chatId}`}
              chat={open}
              conversation={current ?? null}
              instanceName={instances.length > 1 ? nameOf(open.instanceId) : null}
              connected={instances.find((i) => i._id === open.instanceId)?.settings.status === 'CONNECTED'}
              onBack={phone ? () => setOpen(null) : undefined}
              onChanged={list.reload}
            />
          ) : (
            <EmptyState title="Pick a chat" description="Choose a conversation on the left or open one with a phone number." />
          )}
        </Grid.Col>
      )}
    </Grid>
  )
}

function ConversationRow({ c, instanceName, active, onOpen }: { c: Conversation; instanceName: string | null; active: boolean; onOpen(): void }) {
  const who = c.last.source === 'inbound' ? '' : c.last.source === 'bot' ? 'Bot: ' : c.last.source === 'broadcast' || c.last.source === 'schedule' ? 'Broadcast: ' : 'You: '
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
          {(instanceName || c.paused_until !== undefined || c.status === 'resolved' || c.labels.length > 0) && (
            <Group gap={4} mt={2}>
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
            {when(c.last.timestamp)}
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

function ChatView({
  chat,
  conversation,
  instanceName,
  connected,
  onBack,
  onChanged
}: {
  chat: OpenChat
  conversation: Conversation | null
  instanceName: string | null
  connected: boolean
  onBack?: () => void
  onChanged(): Promise<void>
}) {
  const { instanceId, chatId } = chat
  const log = useContract('messages.list', { instanceId, chatId, limit: 200 }, (e) => (e.type === 'message' || e.type === 'status' || e.type === 'chatMerged') && e.instanceId === instanceId)
  const action = useAction()
  const reading = useAction()
  const unread = conversation?.unread ?? 0
  // Opening a chat reads it, as on WhatsApp: the customer's unread messages get read receipts.
  useEffect(() => {
    if (unread > 0) void reading.run(async () => (await call('inbox.read', { instanceId, chatId }), await onChanged()))
  }, [unread, instanceId, chatId])
  const title = conversation ? (conversation.name ?? displayNumber(conversation)) : chatId.includes('@') ? chatId.split('@')[0] : `+${chatId.replace(/^\+/, '')}`
  const run = (fn: () => Promise<unknown>) => action.run(async () => (await fn(), await onChanged()))
  return (
    <Stack gap="sm" data-testid="chat-view">
      <Group justify="space-between" wrap="wrap" gap="xs">
        <Group gap="xs" wrap="nowrap" style={{ minWidth: 0 }}>
          {onBack && (
            <Button variant="subtle" size="compact-sm" onClick={onBack} aria-label="Back to conversations">
              ← Chats
            </Button>
          )}
          <div style={{ minWidth: 0 }}>
            <Title order={5} style={{ overflow: 'hidden', textOverflow: 'ellipsis', whiteSpace: 'nowrap' }}>
              {title}
            </Title>
            <Text size="xs" c="dimmed" truncate>
              {conversation?.name ? displayNumber(conversation) : ''}
              {instanceName ? `${conversation?.name ? ' · ' : ''}via ${instanceName}` : ''}
            </Text>
          </div>
        </Group>
        {conversation &&
          (conversation.status === 'open' ? (
            <Button size="xs" variant="light" color="gray" loading={action.busy} onClick={() => void run(() => call('inbox.resolve', { instanceId, chatId }))}>
              Resolve
            </Button>
          ) : (
            <Button size="xs" variant="default" loading={action.busy} onClick={() => void run(() => call('inbox.reopen', { instanceId, chatId }))}>
              Reopen
            </Button>
          ))}
      </Group>
      {conversation?.phone && !conversation.is_group && <ChatLabels instanceId={instanceId} chatId={chatId} labels={conversation.labels} onChanged={onChanged} />}
      <HandoffBar instanceId={instanceId} chatId={chatId} />
      <ErrorAlert error={log.error ?? action.error ?? reading.error} />
      <ChatLog messages={log.data ?? []} height="min(50vh, 420px)" empty="No messages in this chat yet." testId="conversation" instanceId={instanceId} />
      {!connected && <Text c="orange">This instance is not connected; link it in Pairing before sending.</Text>}
      <Composer instanceId={instanceId} chatId={chatId} onSent={async () => (await log.reload(), await onChanged())} />
    </Stack>
  )
}

/** The conversation's labels (its customer's contact's): pick existing ones or type a new one. */
function ChatLabels({ instanceId, chatId, labels, onChanged }: { instanceId: string; chatId: string; labels: string[]; onChanged(): Promise<void> }) {
  const all = useDesk((s) => s.labels)
  const act = useAction()
  return (
    <>
      <TagsInput
        size="xs"
        aria-label="Labels"
        placeholder={labels.length ? '' : 'Add a label (vip, wholesale…)'}
        data={all.map((l) => l.name)}
        value={labels}
        onChange={(next) => void act.run(async () => (await call('inbox.labels', { instanceId, chatId, labels: next }), await onChanged()))}
        disabled={act.busy}
        data-testid="chat-labels"
      />
      <ErrorAlert error={act.error} />
    </>
  )
}
