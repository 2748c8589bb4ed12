/**
 * Keeps `conversations` in step with `messages`, inside the transaction that changes the messages:
 * the inbox then lists a chat of 100,000 messages by reading one row (docs/design.md §20 "Inbox rows"). The rules are
 * the inbox's (docs/design.md §15):
 *
 * - the last message is the newest by (time, insertion);
 * - `unread`: the customer's messages newer than both the desk's read mark and the last reply a
 *   person wrote; a new customer message adds one, anything that moves the threshold counts again
 *   (an index range from the threshold: the unread ones only);
 * - `name`: the customer's latest push name; `phone`: the chat's number, or a sender's `senderPn`.
 */
import type { Kysely } from 'kysely'
import type { LoggedMessage } from '../../../shared/schemas/records'
import type { ConversationsTable, Database } from '../db/schema'
import { prepared } from '../db/prepared'
import { isCustomerMessage, isPersonMessage, phoneOfChat } from './message-rows'

/** A chat's conversation row (none yet: no row). */
const conversationOf = prepared((db: Kysely<Database>, k: { instanceId: string; chatId: string }) =>
  db.selectFrom('conversations').selectAll().where('instance_id', '=', k.instanceId).where('chat_id', '=', k.chatId)
)

/**
 * What a new message changes in its chat's row: every column it may move, written whole (a column
 * it leaves as it was gets its own value back), so the statement has one shape and is compiled once.
 */
const updateConversation = prepared(
  (db: Kysely<Database>, c: Pick<ConversationsTable, 'last_seq' | 'last_at' | 'name' | 'username' | 'phone' | 'last_customer_at' | 'last_person_at' | 'unread' | 'message_count'> & { instanceId: string; chatId: string }) =>
    db
      .updateTable('conversations')
      .set({
        last_seq: c.last_seq,
        last_at: c.last_at,
        name: c.name,
        username: c.username,
        phone: c.phone,
        last_customer_at: c.last_customer_at,
        last_person_at: c.last_person_at,
        unread: c.unread,
        message_count: c.message_count
      })
      .where('instance_id', '=', c.instanceId)
      .where('chat_id', '=', c.chatId)
)

/** Counts the customer messages of a chat newer than `after` (epoch ms). */
export async function countUnread(db: Kysely<Database>, instanceId: string, chatId: string, after: number): Promise<number> {
  const { n } = await db
    .selectFrom('messages')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('instance_id', '=', instanceId)
    .where('chat_id', '=', chatId)
    .where('timestamp', '>', after)
    .where('source', '=', 'inbound')
    .where('type', '!=', 'undecryptable')
    .executeTakeFirstOrThrow()
  return Number(n)
}

/**
 * Records a message just inserted (its `seq`) in its chat's conversation. `old`: a message of the
 * phone's history, not one that just arrived; it is never unread.
 */
export async function noteMessage(db: Kysely<Database>, instanceId: string, m: LoggedMessage, seq: number, old = false): Promise<void> {
  const customer = isCustomerMessage(m)
  const person = isPersonMessage(m)
  const [c] = await conversationOf(db, { instanceId, chatId: m.chatId })
  if (!c) {
    await db
      .insertInto('conversations')
      .values({
        instance_id: instanceId,
        chat_id: m.chatId,
        name: customer ? m.pushName : null,
        username: customer ? (m.username ?? null) : null,
        phone: phoneOfChat(m.chatId, customer ? m.senderPn : null),
        last_seq: seq,
        last_at: m.timestamp,
        last_customer_at: customer ? m.timestamp : 0,
        last_person_at: person ? m.timestamp : 0,
        unread: customer && !old ? 1 : 0,
        read_until: 0,
        resolved_at: null,
        message_count: 1
      })
      .execute()
    return
  }
  const newest = m.timestamp >= c.last_at
  const lastPerson = person ? Math.max(c.last_person_at, m.timestamp) : c.last_person_at
  const threshold = Math.max(c.read_until, c.last_person_at)
  const nextThreshold = Math.max(c.read_until, lastPerson)
  let unread = c.unread
  if (nextThreshold > threshold) unread = await countUnread(db, instanceId, m.chatId, nextThreshold)
  else if (customer && !old && m.timestamp > threshold) unread += 1
  await updateConversation(db, {
    instanceId,
    chatId: m.chatId,
    last_seq: newest ? seq : c.last_seq,
    last_at: newest ? m.timestamp : c.last_at,
    name: customer && m.pushName ? m.pushName : c.name,
    username: customer && m.username ? m.username : c.username,
    phone: c.phone ?? phoneOfChat(m.chatId, customer ? m.senderPn : null),
    last_customer_at: customer ? Math.max(c.last_customer_at, m.timestamp) : c.last_customer_at,
    last_person_at: lastPerson,
    unread,
    message_count: c.message_count + 1
  })
}

/**
 * Works a chat's conversation out again from its messages (after messages moved between chats or
 * were deleted); removes it when the chat has none left. The read mark and resolve are kept.
 */
export async function rebuildConversation(db: Kysely<Database>, instanceId: string, chatId: string, keep?: { read_until: number; resolved_at: number | null }): Promise<void> {
  const stats = await db
    .selectFrom('messages')
    .select((eb) => [
      eb.fn.countAll<number>().as('n'),
      eb.fn.max(eb.case().when(eb.and([eb('source', '=', 'inbound'), eb('type', '!=', 'undecryptable')])).then(eb.ref('timestamp')).else(0).end()).as('last_customer_at'),
      eb.fn.max(eb.case().when('source', 'in', ['desk', 'phone']).then(eb.ref('timestamp')).else(0).end()).as('last_person_at')
    ])
    .where('instance_id', '=', instanceId)
    .where('chat_id', '=', chatId)
    .executeTakeFirstOrThrow()
  const existing = await db.selectFrom('conversations').select(['read_until', 'resolved_at', 'username']).where('instance_id', '=', instanceId).where('chat_id', '=', chatId).executeTakeFirst()
  if (Number(stats.n) === 0) {
    await db.deleteFrom('conversations').where('instance_id', '=', instanceId).where('chat_id', '=', chatId).execute()
    return
  }
  const last = await db.selectFrom('messages').select(['seq', 'timestamp']).where('instance_id', '=', instanceId).where('chat_id', '=', chatId).orderBy('timestamp', 'desc').orderBy('seq', 'desc').limit(1).executeTakeFirstOrThrow()
  const named = await db
    .selectFrom('messages')
    .select(['push_name', 'sender_pn'])
    .where('instance_id', '=', instanceId)
    .where('chat_id', '=', chatId)
    .where('source', '=', 'inbound')
    .where('push_name', 'is not', null)
    .orderBy('timestamp', 'desc')
    .orderBy('seq', 'desc')
    .limit(1)
    .executeTakeFirst()
  const pn = await db.selectFrom('messages').select('sender_pn').where('instance_id', '=', instanceId).where('chat_id', '=', chatId).where('sender_pn', 'is not', null).limit(1).executeTakeFirst()
  const readUntil = Math.max(keep?.read_until ?? 0, existing?.read_until ?? 0)
  const resolvedAt = keep?.resolved_at ?? existing?.resolved_at ?? null
  const lastPerson = Number(stats.last_person_at ?? 0)
  const row = {
    instance_id: instanceId,
    chat_id: chatId,
    name: named?.push_name ?? null,
    // Kept across a rebuild: it lives in the messages' details, not in a column to read back.
    username: existing?.username ?? null,
    phone: phoneOfChat(chatId, pn?.sender_pn ?? null),
    last_seq: last.seq,
    last_at: last.timestamp,
    last_customer_at: Number(stats.last_customer_at ?? 0),
    last_person_at: lastPerson,
    unread: await countUnread(db, instanceId, chatId, Math.max(readUntil, lastPerson)),
    read_until: readUntil,
    resolved_at: resolvedAt,
    message_count: Number(stats.n)
  }
  const { instance_id: _i, chat_id: _c, ...rest } = row
  await db.insertInto('conversations').values(row).onConflict((oc) => oc.columns(['instance_id', 'chat_id']).doUpdateSet(rest)).execute()
}

/**
 * Keeps the conversations of `deleted` messages (just deleted in this transaction) in step without
 * counting their chats again: each count goes down by what went; a chat left empty loses its row; a
 * chat whose last message went gets its new last one (one index read); the unread count is taken
 * again where it was not zero (an index range). A slice of a heavy deletion then costs the writer
 * what it deleted, not the size of its chats.
 */
export async function forgetMessages(db: Kysely<Database>, instanceId: string, deleted: ReadonlyArray<{ seq: number; chat_id: string }>): Promise<void> {
  const perChat = new Map<string, Set<number>>()
  for (const m of deleted) perChat.set(m.chat_id, (perChat.get(m.chat_id) ?? new Set()).add(m.seq))
  for (const [chat, seqs] of perChat) {
    const c = await db.selectFrom('conversations').select(['message_count', 'unread', 'read_until', 'last_person_at', 'last_seq']).where('instance_id', '=', instanceId).where('chat_id', '=', chat).executeTakeFirst()
    if (!c) continue
    if (c.message_count <= seqs.size) {
      await db.deleteFrom('conversations').where('instance_id', '=', instanceId).where('chat_id', '=', chat).execute()
      continue
    }
    const last = seqs.has(c.last_seq)
      ? await db.selectFrom('messages').select(['seq', 'timestamp']).where('instance_id', '=', instanceId).where('chat_id', '=', chat).orderBy('timestamp', 'desc').orderBy('seq', 'desc').limit(1).executeTakeFirst()
      : undefined
    const unread = c.unread > 0 ? await countUnread(db, instanceId, chat, Math.max(c.read_until, c.last_person_at)) : 0
    await db
      .updateTable('conversations')
      .set({ message_count: c.message_count - seqs.size, unread, ...(last ? { last_seq: last.seq, last_at: last.timestamp } : {}) })
      .where('instance_id', '=', instanceId)
      .where('chat_id', '=', chat)
      .execute()
  }
}
