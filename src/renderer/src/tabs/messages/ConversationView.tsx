/**
 * A conversation of any length (docs/ui.md "The long history"): a virtualised list (react-virtuoso) that draws only the
 * bubbles on screen from the pages ./use-chat-history.ts holds, loads older ones as the person scrolls
 * up (what is on screen stays in place) and newer ones down after a jump, follows new messages while
 * at the bottom, and opens at a search hit, highlighted for a moment.
 */
import { ActionIcon, Alert, Button, Center, Loader, Stack, Text } from '@mantine/core'
import { useEffect, useMemo, useRef, useState } from 'react'
import { Virtuoso, type VirtuosoHandle } from 'react-virtuoso'
import type { LoggedMessage } from '../../../../shared/schemas/records'
import { ErrorAlert } from '../../components/ErrorAlert'
import { MessageBubble } from '../../components/MessageBubble'
import { decisionRuns } from '../../components/decision-runs'
import type { ChatHistory } from './use-chat-history'

/** How long a jumped-to message stays highlighted (ms). */
const FLASH_MS = 2500

/** What the list's header and rows need besides the message (react-virtuoso's `context`). */
interface ListContext {
  instanceId: string
  flashId: string | undefined
  /** The bot's line said once per run of silent decisions (../../components/decision-runs.ts). */
  runs: Map<string, number>
  reachedStart: boolean
  loadingOlder: boolean
  history: ChatHistory
}

/** `height`: the list's height (a CSS length), or `'fill'` to take the room its parent (a flex column) leaves it. */
export function ConversationView({ history, instanceId, highlightId, height }: { history: ChatHistory; instanceId: string; highlightId?: string; height: string | number }) {
  const list = useRef<VirtuosoHandle>(null)
  const [atBottom, setAtBottom] = useState(true)
  const [flashId, setFlashId] = useState(highlightId)
  useEffect(() => {
    if (!flashId) return
    const timer = setTimeout(() => setFlashId(undefined), FLASH_MS)
    return () => clearTimeout(timer)
  }, [flashId])
  const view = history.view
  const runs = useMemo(() => decisionRuns(view?.messages ?? []), [view?.messages])
  const fill = height === 'fill'
  const box = { ...(fill ? { flex: 1, minHeight: 0 } : { height }), background: 'var(--mantine-color-gray-0)', borderRadius: 8 }
  const outer = fill ? { position: 'relative' as const, flex: 1, minHeight: 160, display: 'flex', flexDirection: 'column' as const } : { position: 'relative' as const }
  if (!view) {
    return (
      <div style={fill ? { ...box, flex: 1, minHeight: 160 } : box} data-testid="conversation" data-loading>
        <ErrorAlert error={history.error} />
        {!history.error && (
          <Center h="100%">
            <Loader size="sm" aria-label="Loading messages" />
          </Center>
        )}
      </div>
    )
  }
  const latest = () => (view.reachedEnd ? list.current?.scrollToIndex({ index: 'LAST', align: 'end' }) : void history.openLatest())
  const context: ListContext = { instanceId, flashId, runs, reachedStart: view.reachedStart, loadingOlder: history.loadingOlder, history }
  return (
    <div style={outer}>
      <ErrorAlert error={history.error} />
      <PhoneFetchNotice history={history} />
      <div style={box} data-testid="conversation" data-messages={view.messages.length} data-reached-start={view.reachedStart} data-reached-end={view.reachedEnd}>
        {view.messages.length === 0 ? (
          <Text c="dimmed" ta="center" pt="xl">
            No messages in this chat yet.
          </Text>
        ) : (
          <Virtuoso
            key={view.generation}
            ref={list}
            style={{ height: '100%' }}
            data={view.messages}
            context={context}
            firstItemIndex={view.firstItemIndex}
            initialTopMostItemIndex={{ index: view.openAt, align: view.anchored ? 'center' : 'end' }}
            computeItemKey={(_, m) => m.id}
            itemContent={Row}
            startReached={() => void history.loadOlder()}
            endReached={() => void history.loadNewer()}
            followOutput={(bottom) => (bottom && view.reachedEnd ? 'auto' : false)}
            atBottomStateChange={setAtBottom}
            increaseViewportBy={{ top: 600, bottom: 300 }}
            components={COMPONENTS}
          />
        )}
      </div>
      {(!atBottom || !view.reachedEnd) && view.messages.length > 0 && (
        <ActionIcon size="lg" radius="xl" variant="default" onClick={latest} style={{ position: 'absolute', right: 20, bottom: 12, boxShadow: 'var(--mantine-shadow-sm)' }} aria-label="Go to the latest message" title="Latest message">
          ↓
        </ActionIcon>
      )}
    </div>
  )
}

function Row(_: number, m: LoggedMessage, { instanceId, flashId, runs }: ListContext) {
  return (
    <div style={{ padding: '3px 12px' }}>
      <MessageBubble m={m} instanceId={instanceId} flash={m.id === flashId} decisionRun={runs.get(m.id)} />
    </div>
  )
}

/**
 * Above the oldest message held: older messages on their way, or, at the oldest the app has, where
 * it begins here and the button that asks the phone for older ones (with what that came to).
 */
function HistoryStart({ context }: { context: ListContext }) {
  if (!context.reachedStart) {
    return (
      <Text size="xs" c="dimmed" ta="center" py="xs" data-testid="chat-older">
        {context.loadingOlder ? 'Loading older messages…' : 'Scroll up for older messages'}
      </Text>
    )
  }
  const { phone, fetchFromPhone } = context.history
  return (
    <Stack gap={6} align="center" py="xs" px="sm" data-testid="chat-start">
      <Text size="xs" c="dimmed" ta="center">
        Beginning of the conversation here
      </Text>
      <Button size="compact-xs" variant="light" loading={phone.busy} onClick={() => void fetchFromPhone()} data-testid="fetch-from-phone">
        Load older messages from the phone
      </Button>
    </Stack>
  )
}

/**
 * What the last request for older messages came to, above the list: the older messages show at its
 * top while the list keeps what was on screen, so the answer has to be said where it is seen.
 */
function PhoneFetchNotice({ history }: { history: ChatHistory }) {
  const { phone } = history
  if (phone.error !== undefined) {
    return (
      <div data-testid="phone-history-error" style={{ marginBottom: 8 }}>
        <ErrorAlert error={phone.error} title="Could not load older messages" />
      </div>
    )
  }
  if (!phone.notice) return null
  return (
    <Alert color="teal" variant="light" py={6} mb={8} role="status" data-testid="phone-history-notice" withCloseButton onClose={history.dismissPhoneNotice} closeButtonLabel="Dismiss">
      <Text size="sm">{phone.notice}</Text>
    </Alert>
  )
}

const COMPONENTS = { Header: HistoryStart, Footer: () => <div style={{ height: 12 }} /> }
