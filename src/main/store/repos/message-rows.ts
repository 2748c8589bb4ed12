/**
 * A message log entry (docs/design.md §7) ↔ its row in `messages`: the flat fields are columns (what
 * is filtered, sorted or searched on), the nested parts (media, location, options, the bot's
 * decision) one JSON column. Pure.
 */
import type { LoggedMessage } from '../../../shared/schemas/records'
import type { MessagesTable } from '../db/schema'
import { flag, fromJson, isSet, toJson } from './exec'
import { sentByOfSource } from '../../../shared/domain/sent-by'

export type MessageRow = Omit<MessagesTable, 'seq'>
type Details = Pick<LoggedMessage, 'media' | 'location' | 'options' | 'bot' | 'sent_by' | 'edited' | 'deleted' | 'reactions' | 'poll' | 'username'>

/** The entry fields kept in the details JSON (a patch naming any of them rewrites it). */
export const DETAIL_FIELDS = ['media', 'location', 'options', 'bot', 'sent_by', 'edited', 'deleted', 'reactions', 'poll', 'username'] as const

/** The columns of a log entry's fields (all of them, or those of a patch). */
export function messageColumns(m: Partial<Omit<LoggedMessage, 'id'>>): Partial<MessageRow> {
  const row: Partial<MessageRow> = {}
  if (m.chatId !== undefined) row.chat_id = m.chatId
  if (m.fromMe !== undefined) row.from_me = flag(m.fromMe)
  if (m.pushName !== undefined) row.push_name = m.pushName
  if (m.type !== undefined) row.type = m.type
  if (m.text !== undefined) row.text = m.text
  if (m.timestamp !== undefined) row.timestamp = m.timestamp
  if (m.status !== undefined) row.status = m.status
  if ('error_code' in m) row.error_code = m.error_code ?? null
  if (m.source !== undefined) row.source = m.source
  if ('senderId' in m) row.sender_id = m.senderId ?? null
  if ('senderPn' in m) row.sender_pn = m.senderPn ?? null
  if ('senderLid' in m) row.sender_lid = m.senderLid ?? null
  return row
}

/** The details JSON of an entry, or null when it has none. */
export function detailsOf(m: Partial<Details>): string | null {
  const d: Partial<Details> = {}
  if (m.media) d.media = m.media
  if (m.location) d.location = m.location
  if (m.options) d.options = m.options
  if (m.bot) d.bot = m.bot
  if (m.sent_by) d.sent_by = m.sent_by
  if (m.edited) d.edited = m.edited
  if (m.deleted) d.deleted = m.deleted
  if (m.reactions && m.reactions.length > 0) d.reactions = m.reactions
  if (m.poll) d.poll = m.poll
  if (m.username) d.username = m.username
  return Object.keys(d).length > 0 ? toJson(d) : null
}

/** The row of a new entry of `instanceId`. */
export function messageToRow(instanceId: string, m: LoggedMessage): MessageRow {
  return {
    instance_id: instanceId,
    id: m.id,
    chat_id: m.chatId,
    from_me: flag(m.fromMe),
    push_name: m.pushName,
    type: m.type,
    text: m.text,
    timestamp: m.timestamp,
    status: m.status,
    error_code: m.error_code ?? null,
    source: m.source,
    sender_id: m.senderId ?? null,
    sender_pn: m.senderPn ?? null,
    sender_lid: m.senderLid ?? null,
    details: detailsOf(m)
  }
}

/** The log entry of a row. */
export function messageFromRow(w: MessageRow): LoggedMessage {
  const d = w.details ? fromJson<Details>(w.details) : {}
  return {
    id: w.id,
    chatId: w.chat_id,
    fromMe: isSet(w.from_me),
    pushName: w.push_name,
    type: w.type,
    text: w.text,
    timestamp: w.timestamp,
    status: w.status,
    ...(w.error_code !== null ? { error_code: w.error_code } : {}),
    source: w.source as LoggedMessage['source'],
    ...(w.sender_id !== null ? { senderId: w.sender_id } : {}),
    ...(w.sender_pn !== null ? { senderPn: w.sender_pn } : {}),
    ...(w.sender_lid !== null ? { senderLid: w.sender_lid } : {}),
    ...d,
    ...(isSet(w.from_me) && !d.sent_by ? sentByOfSource(w.source) : {})
  }
}

/** A customer's own message (what unread counts): inbound and readable. */
export function isCustomerMessage(m: Pick<LoggedMessage, 'source' | 'type'>): boolean {
  return m.source === 'inbound' && m.type !== 'undecryptable'
}

/** A reply a person wrote (the desk or the phone): they read the chat before answering. */
export function isPersonMessage(m: Pick<LoggedMessage, 'source'>): boolean {
  return m.source === 'desk' || m.source === 'phone'
}

/** The digits of a chat's customer number: from a phone-number JID, else the sender's `senderPn`; null for groups. */
export function phoneOfChat(chatId: string, senderPn?: string | null): string | null {
  if (chatId.endsWith('@s.whatsapp.net')) return chatId.split('@')[0]!.split(':')[0]!
  if (chatId.endsWith('@g.us')) return null
  return senderPn ? senderPn.split('@')[0]!.split(':')[0]! : null
}
