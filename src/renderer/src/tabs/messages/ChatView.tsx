/**
 * The open chat: who it is, its assignee (./AssignMenu.tsx) and latest assignment changes, resolve/reopen, the customer's data (export, erase), labels, the hand-off
 * bar, the conversation (./ConversationView.tsx, opened at a search hit when one was picked) and the
 * composer.
 */
import { Button, Group, Stack, TagsInput, Text, Title } from '@mantine/core'
import { useEffect } from 'react'
import type { Conversation } from '../../../../shared/contract'
import type { LoggedMessage } from '../../../../shared/schemas/records'
import { CustomerDataMenu } from '../../components/CustomerDataMenu'
import { ErrorAlert } from '../../components/ErrorAlert'
import { useAction } from '../../hooks'
import { call, useDesk, useMayCall } from '../../store'
import { AssignMenu } from './AssignMenu'
import { AssignmentLines } from './AssignmentLines'
import { chatNumber, customerNumberOf, displayNumber } from './chat-names'
import { Composer } from './Composer'
import { ConversationView } from './ConversationView'
import { HandoffBar } from './HandoffBar'
import { useChatHistory } from './use-chat-history'
import { useFillHeight } from './use-fill-height'

/** The least height of the open chat (px): on a shorter window the page scrolls rather than squeeze the messages away. */
const MIN_CHAT_HEIGHT = 520

/** The chat being looked at: a listed conversation, a search hit's chat, or a number typed in "New chat". */
export interface OpenChat {
  instanceId: string
  chatId: string
  /** Open at this message (a search hit). */
  anchor?: LoggedMessage
  /**
   * Counts the clicks on search hits: the same hit clicked again (the chat scrolled away from it
   * meanwhile) opens the chat at it again instead of leaving it where it was.
   */
  jump?: number
}

export function ChatView({
  chat,
  conversation,
  instanceName,
  connected,
  onBack,
  onChanged,
  onErased
}: {
  chat: OpenChat
  conversation: Conversation | null
  instanceName: string | null
  connected: boolean
  onBack?: () => void
  onChanged(): Promise<void>
  /** The customer's data was erased: the chat is gone. */
  onErased(): void
}) {
  const { instanceId, chatId } = chat
  const history = useChatHistory(instanceId, chatId, chat.anchor)
  const action = useAction()
  const reading = useAction()
  const unread = conversation?.unread ?? 0
  // Opening a chat reads it, as on WhatsApp: the customer's unread messages get read receipts.
  useEffect(() => {
    if (unread > 0) void reading.run(async () => (await call('inbox.read', { instanceId, chatId }), await onChanged()))
  }, [unread, instanceId, chatId])
  const title = conversation ? (conversation.name ?? displayNumber(conversation)) : chatNumber(chatId)
  // A customer's key for their data: the number, or the LID when WhatsApp gives none (a username).
  const number = conversation ? (conversation.is_group ? null : (conversation.phone ?? (chatId.endsWith('@lid') ? chatId : null))) : customerNumberOf(chatId)
  const customerData = useMayCall('customers.export')
  const run = (fn: () => Promise<unknown>) => action.run(async () => (await fn(), await onChanged()))
  // The chat fills the window down to its bottom edge: the messages take what the rest leaves, and
  // the composer shows without scrolling (a laptop's 1366×768 included).
  const [fillRef, fillHeight] = useFillHeight<HTMLDivElement>()
  return (
    <Stack gap="xs" data-testid="chat-view" ref={fillRef} h={fillHeight === null ? undefined : Math.max(MIN_CHAT_HEIGHT, fillHeight)} style={{ flexWrap: 'nowrap' }}>
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
        <Group gap="xs">
          {conversation && <AssignMenu instanceId={instanceId} chatId={chatId} assigned={conversation.assigned_to} onChanged={onChanged} />}
          {number && customerData && <CustomerDataMenu instanceId={instanceId} number={number} username={conversation?.username ?? null} name={conversation?.name} onErased={onErased} />}
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
      </Group>
      <AssignmentLines instanceId={instanceId} chatId={chatId} />
      {conversation?.phone && !conversation.is_group && <ChatLabels instanceId={instanceId} chatId={chatId} labels={conversation.labels} onChanged={onChanged} />}
      <HandoffBar instanceId={instanceId} chatId={chatId} />
      <ErrorAlert error={action.error ?? reading.error} />
      <ConversationView history={history} instanceId={instanceId} highlightId={chat.anchor?.id} height="fill" />
      {!connected && <Text c="orange">This instance is not connected; link it in Pairing before sending.</Text>}
      {/* After a jump the newest messages are not loaded: a send goes back to them. */}
      <Composer instanceId={instanceId} chatId={chatId} onSent={async () => (history.view?.reachedEnd ? undefined : await history.openLatest(), await onChanged())} />
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
