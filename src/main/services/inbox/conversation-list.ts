/**
 * Pure: the inbox's conversations of one instance from its message log, the desk's chat states and
 * the hand-off pauses (issue 13 §1, docs/design.md §15). No I/O; the inbox service feeds it.
 */
import type { ChatPause, ChatState, LoggedMessage } from '../../../shared/schemas/records'
import type { ConversationT } from '../../../shared/operations/results'

export interface ConversationFilter {
  /** `open`, `resolved`, or both (`all`, the default). */
  status?: 'open' | 'resolved' | 'all'
  /** Only chats whose last message is the customer's. */
  unanswered?: boolean
  /** Case-insensitive: the name, the number (digits) or the text of any kept message. */
  q?: string
  /** Only chats whose contact has this label (any case). */
  label?: string
}

/** What the inbox shows of a customer who is a contact. */
export interface ContactView {
  name: string
  labels: readonly string[]
}

/** Messages a person at the desk or on the phone wrote: they read the chat before answering. */
const byPerson = (m: LoggedMessage): boolean => m.source === 'desk' || m.source === 'phone'
const fromCustomer = (m: LoggedMessage): boolean => m.source === 'inbound' && m.type !== 'undecryptable'

/** The number of a chat: the digits of a phone-number JID, else of the customer's `senderPn`; null for groups. */
function phoneOf(chatId: string, entries: readonly LoggedMessage[]): string | null {
  if (chatId.endsWith('@s.whatsapp.net')) return chatId.split('@')[0]!.split(':')[0]!
  if (chatId.endsWith('@g.us')) return null
  const pn = entries.find((m) => m.senderPn)?.senderPn
  return pn ? pn.split('@')[0]!.split(':')[0]! : null
}

/**
 * One conversation per chat of `entries` (oldest first, as the log keeps them), newest activity
 * first; `name` is the contact's name, else the customer's latest push name; `labels` the contact's; ties go to the chat logged last. `unread`: customer messages after both the desk's read mark
 * and the last reply a person wrote. `status`: resolved until a customer message newer than the
 * resolve. `paused_until`: the hand-off pause in force (null: until resumed), absent when none.
 */
export function listConversations(
  instanceId: string,
  entries: readonly LoggedMessage[],
  states: ReadonlyMap<string, ChatState>,
  pauses: ReadonlyMap<string, ChatPause>,
  filter: ConversationFilter = {},
  /** The contact of a number (digits), when the customer is one. */
  contactOf: (number: string) => ContactView | undefined = () => undefined
): ConversationT[] {
  const byChat = new Map<string, LoggedMessage[]>()
  const lastIndex = new Map<string, number>()
  for (const [i, m] of entries.entries()) {
    const list = byChat.get(m.chatId)
    if (list) list.push(m)
    else byChat.set(m.chatId, [m])
    lastIndex.set(m.chatId, i)
  }
  const q = filter.q?.trim().toLowerCase() ?? ''
  const qDigits = q.replace(/\D/g, '')
  const rows: Array<{ row: ConversationT; order: number }> = []
  for (const [chatId, chat] of byChat) {
    const last = chat.at(-1)!
    const state = states.get(chatId)
    let lastCustomer = 0
    let lastPerson = 0
    let name: string | null = null
    for (const m of chat) {
      if (fromCustomer(m)) {
        lastCustomer = Math.max(lastCustomer, m.timestamp)
        if (m.pushName) name = m.pushName
      } else if (byPerson(m)) lastPerson = Math.max(lastPerson, m.timestamp)
    }
    const readUntil = Math.max(state?.read_until ?? 0, lastPerson)
    const unread = chat.filter((m) => fromCustomer(m) && m.timestamp > readUntil).length
    const resolved = state?.resolved_at != null && !(lastCustomer > state.resolved_at)
    const phone = phoneOf(chatId, chat)
    // The contact's name, else the latest push name.
    const contact = phone && !chatId.endsWith('@g.us') ? contactOf(phone) : undefined
    name = contact?.name ?? name
    const pause = pauses.get(chatId)
    const row: ConversationT = {
      instance_id: instanceId,
      chatId,
      name,
      phone,
      is_group: chatId.endsWith('@g.us'),
      last: { id: last.id, text: last.text, type: last.type, fromMe: last.fromMe, source: last.source, status: last.status, timestamp: last.timestamp },
      unread,
      unanswered: fromCustomer(last),
      status: resolved ? 'resolved' : 'open',
      labels: [...(contact?.labels ?? [])],
      ...(pause ? { paused_until: pause.until } : {})
    }
    if (filter.status && filter.status !== 'all' && row.status !== filter.status) continue
    if (filter.unanswered && !row.unanswered) continue
    if (filter.label && !row.labels.some((l) => l.toLowerCase() === filter.label!.toLowerCase())) continue
    if (q && !matches(row, chat, q, qDigits)) continue
    rows.push({ row, order: lastIndex.get(chatId)! })
  }
  return rows.sort((a, b) => b.row.last.timestamp - a.row.last.timestamp || b.order - a.order).map((r) => r.row)
}

function matches(row: ConversationT, chat: readonly LoggedMessage[], q: string, qDigits: string): boolean {
  if (row.name?.toLowerCase().includes(q)) return true
  if (qDigits.length >= 3 && (row.phone ?? row.chatId).includes(qDigits)) return true
  return chat.some((m) => m.text.toLowerCase().includes(q))
}
