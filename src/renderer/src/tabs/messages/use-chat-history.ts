/**
 * The part of a chat's history the conversation view holds (docs/ui.md "The long history"): the newest page at first,
 * or the messages around one message (a search hit); older pages prepended as the person scrolls up
 * (`before` cursor), newer ones appended after a jump (`after` cursor); new messages appended live
 * once the newest is loaded. Cursors are entry ids, stable while messages arrive (docs/design.md §7).
 */
import { useCallback, useEffect, useRef, useState } from 'react'
import type { LoggedMessage } from '../../../../shared/schemas/records'
import { call, onContractEvent } from '../../store'
import { chatJid } from './chat-names'

/** Messages per page (older or newer); the API answers at most 1,000. */
export const HISTORY_PAGE = 100
/** Messages loaded on each side of a jumped-to message. */
const AROUND = 50
/**
 * The list index of the first message held at the start: prepending a page lowers it by the page's
 * size, so the list (react-virtuoso's `firstItemIndex`) keeps what is on screen in place. Above any
 * chat's length, so it stays positive.
 */
const FIRST_INDEX = 1_000_000_000

export interface ChatWindow {
  /** Oldest first. */
  messages: LoggedMessage[]
  firstItemIndex: number
  /** The chat's oldest message is held. */
  reachedStart: boolean
  /** The chat's newest message is held: new ones are appended as they come. */
  reachedEnd: boolean
  /** The index in `messages` to open at: the jumped-to message, else the newest. */
  openAt: number
  /** Opened at a message (shown mid-list), not at the newest. */
  anchored: boolean
  /** A new number at each fresh load (the list starts over at `openAt`). */
  generation: number
}

/** A request for older messages from the phone (docs/design.md §7), as the top of the chat shows it. */
export interface PhoneFetch {
  busy: boolean
  /** What the last request came to, for the person; null before one. */
  notice: string | null
  error: unknown
}

export interface ChatHistory {
  view: ChatWindow | null
  error: unknown
  loadingOlder: boolean
  phone: PhoneFetch
  /** Asks the phone for older messages than the oldest held, then shows what it stored. */
  fetchFromPhone(): Promise<void>
  /** Hides what the last request came to. */
  dismissPhoneNotice(): void
  loadOlder(): Promise<void>
  loadNewer(): Promise<void>
  /** Starts over at the newest page (after a jump, to see the latest). */
  openLatest(): Promise<void>
}

/** Appends `page` to `held`, leaving out entries already held (a live message a page also brings). */
function appendNew(held: LoggedMessage[], page: LoggedMessage[]): LoggedMessage[] {
  const ids = new Set(held.map((m) => m.id))
  return [...held, ...page.filter((m) => !ids.has(m.id))]
}

/** The history of `chatId` on `instanceId`, opened at `anchor` (a message of the chat) when given. */
export function useChatHistory(instanceId: string, chatId: string, anchor?: LoggedMessage): ChatHistory {
  const [view, setView] = useState<ChatWindow | null>(null)
  const [error, setError] = useState<unknown>()
  const [loadingOlder, setLoadingOlder] = useState(false)
  const held = useRef<ChatWindow | null>(null)
  held.current = view
  const generation = useRef(0)
  const busy = useRef({ older: false, newer: false })
  const [phone, setPhone] = useState<PhoneFetch>({ busy: false, notice: null, error: undefined })

  const open = useCallback(
    async (at: LoggedMessage | undefined) => {
      const g = ++generation.current
      busy.current = { older: false, newer: false }
      try {
        let next: ChatWindow
        if (at) {
          const [older, newer] = await Promise.all([
            call('messages.list', { instanceId, chatId, before: at.id, limit: AROUND }),
            call('messages.list', { instanceId, chatId, after: at.id, limit: AROUND })
          ])
          next = { messages: [...older, at, ...newer], firstItemIndex: FIRST_INDEX - older.length, reachedStart: older.length < AROUND, reachedEnd: newer.length < AROUND, openAt: older.length, anchored: true, generation: g }
        } else {
          const page = await call('messages.list', { instanceId, chatId, limit: HISTORY_PAGE })
          next = { messages: page, firstItemIndex: FIRST_INDEX - page.length, reachedStart: page.length < HISTORY_PAGE, reachedEnd: true, openAt: Math.max(0, page.length - 1), anchored: false, generation: g }
        }
        if (g !== generation.current) return
        setView(next)
        setError(undefined)
      } catch (err) {
        if (g === generation.current) setError(err)
      }
    },
    [instanceId, chatId]
  )

  const loadOlder = useCallback(async (again = false) => {
    const w = held.current
    if (!w || (w.reachedStart && !again) || busy.current.older || w.messages.length === 0) return
    busy.current.older = true
    setLoadingOlder(true)
    const g = generation.current
    try {
      const page = await call('messages.list', { instanceId, chatId, before: w.messages[0]!.id, limit: HISTORY_PAGE })
      if (g !== generation.current) return
      setView((cur) => cur && { ...cur, messages: [...page, ...cur.messages], firstItemIndex: cur.firstItemIndex - page.length, reachedStart: page.length < HISTORY_PAGE })
    } catch (err) {
      if (g === generation.current) setError(err)
    } finally {
      if (g === generation.current) busy.current.older = false
      setLoadingOlder(false)
    }
  }, [instanceId, chatId])

  const loadNewer = useCallback(async () => {
    const w = held.current
    if (!w || w.reachedEnd || busy.current.newer || w.messages.length === 0) return
    busy.current.newer = true
    const g = generation.current
    try {
      const page = await call('messages.list', { instanceId, chatId, after: w.messages.at(-1)!.id, limit: HISTORY_PAGE })
      if (g !== generation.current) return
      setView((cur) => cur && { ...cur, messages: appendNew(cur.messages, page), reachedEnd: page.length < HISTORY_PAGE })
    } catch (err) {
      if (g === generation.current) setError(err)
    } finally {
      if (g === generation.current) busy.current.newer = false
    }
  }, [instanceId, chatId])

  // What a request for older messages came to belongs to the chat it was made in.
  useEffect(() => setPhone({ busy: false, notice: null, error: undefined }), [instanceId, chatId])

  useEffect(() => {
    void open(anchor)
    // A new anchor is a new view (the list remounts); the anchor's object identity changes each render.
  }, [open, anchor?.id])

  useEffect(() => {
    const jid = chatJid(chatId)
    return onContractEvent((e) => {
      if (e.type === 'resync') return void open(undefined)
      if (!('instanceId' in e) || e.instanceId !== instanceId) return
      if (e.type === 'chatMerged' && (e.from === jid || e.to === jid)) return void open(undefined)
      // The phone's history came (a late answer, a sync): older messages may be there now.
      if (e.type === 'history' && e.added > 0 && e.chatIds.includes(jid)) return void loadOlder(true)
      if (e.type === 'message' && e.message.chatId === jid) {
        // Before the newest is held, a new message comes with the pages below (endReached).
        setView((cur) => (cur?.reachedEnd ? { ...cur, messages: appendNew(cur.messages, [e.message]) } : cur))
      }
      if ((e.type === 'status' || e.type === 'messageChanged') && e.message.chatId === jid) {
        setView((cur) => cur && { ...cur, messages: cur.messages.map((m) => (m.id === e.message.id ? e.message : m)) })
      }
      // The assistant answered (or fell back): the "why" line of the messages it answered says how.
      const answered = e.type === 'activity' && e.entry.chatId === jid ? e.entry.assistant : undefined
      if (answered?.message_ids) {
        const ids = new Set(answered.message_ids)
        setView((cur) => cur && { ...cur, messages: cur.messages.map((m) => (ids.has(m.id) ? { ...m, bot: { action: 'assistant', ref: answered.model, assistant: answered } } : m)) })
      }
    })
  }, [instanceId, chatId, open, loadOlder])

  const fetchFromPhone = useCallback(async () => {
    setPhone({ busy: true, notice: null, error: undefined })
    try {
      const r = await call('messages.fetchHistory', { instanceId, chatId })
      await loadOlder(true)
      setPhone({ busy: false, notice: phoneNotice(r), error: undefined })
    } catch (err) {
      setPhone({ busy: false, notice: null, error: err })
    }
  }, [instanceId, chatId, loadOlder])

  const dismissPhoneNotice = useCallback(() => setPhone({ busy: false, notice: null, error: undefined }), [])

  return { view, error, loadingOlder, loadOlder: () => loadOlder(), loadNewer, openLatest: () => open(undefined), phone, fetchFromPhone, dismissPhoneNotice }
}

/** What a request for older messages came to, in words. */
export function phoneNotice(r: { answered: boolean; received: number; stored: number }): string {
  if (!r.answered) return 'The phone did not answer yet (is it online?). Older messages it sends later appear here.'
  if (r.stored > 0) return `${r.stored} older message${r.stored === 1 ? '' : 's'} loaded from the phone.`
  if (r.received > 0) return 'The phone sent only messages already here.'
  return 'The phone has no older messages in this chat.'
}
