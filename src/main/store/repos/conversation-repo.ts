/**
 * The inbox's conversations (docs/design.md §15): one row per chat, kept by the message log
 * (./conversation-index.ts), plus the desk's read mark and resolve. Listing reads those rows, the
 * chat's newest message, the customer's contact (name, labels) and the hand-off pause in force: no
 * message history is read, however long.
 */
import { sql, type Kysely } from 'kysely'
import type { ConversationT } from '../../../shared/operations/results'
import type { LoggedMessage } from '../../../shared/schemas/records'
import type { Database } from '../db/schema'
import { isSet, type Exec } from './exec'
import { countUnread } from './conversation-index'
import { messageFromRow } from './message-rows'
import { searchText } from './search-terms'
import { chatsOfMatchingMessages, inListUnindexed, likeAnyCase } from '../db/search-sql'
import { sentByOfSource } from '../../../shared/domain/sent-by'
import { msToTimeOrNull } from '../db/times'

export interface ConversationFilter {
  /** `open`, `resolved`, or both (`all`, the default). */
  status?: 'open' | 'resolved' | 'all'
  /** Only chats whose last message is the customer's. */
  unanswered?: boolean
  /** The name or number contains it, or a recent message does (the newest 5,000 matches). */
  q?: string
  /** Only chats whose contact has this label (any case). */
  label?: string
  /** Only chats assigned to this person (a staff id or `owner`), or (null) only unassigned ones. */
  assignee?: string | null
}

/** Who a conversation is assigned to: a staff id, or `owner`. */
export const OWNER_ASSIGNEE = 'owner'

/** Matches of `q` in messages that make their chats part of a filtered list. */
const TEXT_MATCHES = 5000

/** `sent_by` of a chat's newest message when it is outbound (stored, or known by its source). */
function lastSender(r: { from_me: number; source: string; details: string | null }): Pick<LoggedMessage, 'sent_by'> {
  if (!isSet(r.from_me)) return {}
  const stored = r.details?.includes('"sent_by"') ? (JSON.parse(r.details) as Pick<LoggedMessage, 'sent_by'>).sent_by : undefined
  return stored ? { sent_by: stored } : sentByOfSource(r.source)
}

export class ConversationRepo {
  constructor(private readonly x: Exec) {}

  /**
   * Conversations of `instanceIds`, newest activity first, at most `limit`, after `filter`. `now`
   * (epoch ms) decides which hand-off pauses are in force.
   */
  async list(instanceIds: readonly string[], filter: ConversationFilter, limit: number, now: number): Promise<ConversationT[]> {
    return this.select(instanceIds, filter, limit, now)
  }

  /** One conversation, or undefined when the chat has no messages. */
  async get(instanceId: string, chatId: string, now: number): Promise<ConversationT | undefined> {
    return (await this.select([instanceId], {}, 1, now, chatId))[0]
  }

  private async select(instanceIds: readonly string[], filter: ConversationFilter, limit: number, now: number, chatId?: string): Promise<ConversationT[]> {
    if (instanceIds.length === 0) return []
    const db = this.x.db
    let q = db
      .selectFrom('conversations as c')
      .innerJoin('messages as m', 'm.seq', 'c.last_seq')
      .leftJoin('contacts as ct', (j) => j.onRef('ct.instance_id', '=', 'c.instance_id').onRef('ct.number', '=', 'c.phone'))
      .leftJoin('chat_pauses as p', (j) => j.onRef('p.instance_id', '=', 'c.instance_id').onRef('p.chat_id', '=', 'c.chat_id'))
      .leftJoin('staff as st', 'st.id', 'c.assigned_to')
      .select([
        'c.assigned_to',
        'st.name as assignee_name',
        'c.instance_id',
        'c.chat_id',
        'c.name',
        'c.username',
        'c.phone',
        'c.unread',
        'c.resolved_at',
        'c.last_customer_at',
        'ct.id as contact_id',
        'ct.name as contact_name',
        'p.until as pause_until',
        'p.since as pause_since'
      ])
      .select(['m.id', 'm.text', 'm.type', 'm.from_me', 'm.source', 'm.status', 'm.timestamp', 'm.details'])
    // One instance: its index gives the order. Several: the recency index must give it, so the scan
    // stops after `limit` rows; SQLite prefers the instance index for an IN list and then sorts every
    // chat (1.3 s at 20,000 chats): `+` keeps the IN term off the index (a filter on the scan).
    q = instanceIds.length === 1 ? q.where('c.instance_id', '=', instanceIds[0]!) : q.where(inListUnindexed(db, 'c.instance_id', instanceIds))
    if (chatId !== undefined) q = q.where('c.chat_id', '=', chatId)
    const resolved = sql<boolean>`(c.resolved_at IS NOT NULL AND c.last_customer_at <= c.resolved_at)`
    if (filter.status === 'resolved') q = q.where(resolved)
    else if (filter.status === 'open') q = q.where(sql<boolean>`NOT ${resolved}`)
    if (filter.assignee === null) q = q.where('c.assigned_to', 'is', null)
    else if (filter.assignee !== undefined) q = q.where('c.assigned_to', '=', filter.assignee)
    if (filter.unanswered) q = q.where('m.source', '=', 'inbound').where('m.type', '!=', 'undecryptable')
    if (filter.label) {
      const label = filter.label
      q = q.where('c.chat_id', 'not like', '%@g.us').where((eb) => eb.exists(eb.selectFrom('contact_labels as cl').select('cl.contact_id').whereRef('cl.contact_id', '=', 'ct.id').where(sql<boolean>`lower(cl.label) = lower(${label})`)))
    }
    const text = filter.q === undefined ? '' : searchText(filter.q)
    if (text) {
      const like = `%${text.replace(/[\\%_]/g, (ch) => '\\' + ch)}%`
      const digits = text.replace(/\D/g, '')
      const inMessages = chatsOfMatchingMessages(db, text, TEXT_MATCHES)
      q = q.where((eb) =>
        eb.or([
          likeAnyCase(db, 'c.name', like),
          likeAnyCase(db, 'c.username', `%${text.replace(/^@/, '').replace(/[\\%_]/g, (ch) => '\\' + ch)}%`),
          likeAnyCase(db, 'ct.name', like),
          ...(digits.length >= 3 ? [eb(eb.fn.coalesce('c.phone', 'c.chat_id'), 'like', '%' + digits + '%')] : []),
          ...(inMessages ? [eb(eb.refTuple('c.instance_id', 'c.chat_id'), 'in', inMessages as never)] : [])
        ])
      )
    }
    const rows = await q.orderBy('c.last_at', 'desc').orderBy('c.last_seq', 'desc').limit(limit).execute()
    const labels = await this.labelsOf(db, rows.map((r) => r.contact_id).filter((id): id is string => id !== null))
    return rows.map((r) => {
      const isGroup = r.chat_id.endsWith('@g.us')
      const pauseInForce = r.pause_since !== null && (r.pause_until === null || r.pause_until > now)
      return {
        instance_id: r.instance_id,
        chatId: r.chat_id,
        name: (!isGroup ? r.contact_name : null) ?? r.name,
        phone: r.phone,
        ...(r.username ? { username: r.username } : {}),
        is_group: isGroup,
        last: { id: r.id, text: r.text, type: r.type, fromMe: isSet(r.from_me), source: r.source, status: r.status, timestamp: r.timestamp, ...lastSender(r) },
        unread: r.unread,
        unanswered: r.source === 'inbound' && r.type !== 'undecryptable',
        status: r.resolved_at !== null && r.last_customer_at <= r.resolved_at ? 'resolved' : 'open',
        labels: !isGroup && r.contact_id ? (labels.get(r.contact_id) ?? []) : [],
        ...(pauseInForce ? { paused_until: msToTimeOrNull(r.pause_until) } : {}),
        assigned_to: r.assigned_to === null ? null : { id: r.assigned_to, name: r.assigned_to === OWNER_ASSIGNEE ? 'Owner' : (r.assignee_name ?? 'Former staff member') }
      }
    })
  }

  /**
   * Marks the chat read up to its newest message; answers the customer messages that were unread
   * before (for read receipts), or undefined when the chat has no messages.
   */
  async markRead(instanceId: string, chatId: string): Promise<LoggedMessage[] | undefined> {
    return this.x.write(async (trx) => {
      const c = await trx.selectFrom('conversations').select(['read_until', 'last_at']).where('instance_id', '=', instanceId).where('chat_id', '=', chatId).executeTakeFirst()
      if (!c) return undefined
      const unread = await trx
        .selectFrom('messages')
        .selectAll()
        .where('instance_id', '=', instanceId)
        .where('chat_id', '=', chatId)
        .where('timestamp', '>', c.read_until)
        .where('source', '=', 'inbound')
        .where('type', '!=', 'undecryptable')
        .orderBy('timestamp')
        .orderBy('seq')
        .execute()
      if (c.last_at > c.read_until) {
        await trx.updateTable('conversations').set({ read_until: c.last_at, unread: 0 }).where('instance_id', '=', instanceId).where('chat_id', '=', chatId).execute()
      }
      return unread.map(messageFromRow)
    })
  }

  /** Resolves the chat at `at` (epoch ms), or reopens it (null). False when the chat has no messages. */
  async setResolved(instanceId: string, chatId: string, at: number | null): Promise<boolean> {
    return this.x.write(async (trx) => {
      const res = await trx.updateTable('conversations').set({ resolved_at: at }).where('instance_id', '=', instanceId).where('chat_id', '=', chatId).executeTakeFirst()
      return Number(res.numUpdatedRows) > 0
    })
  }

  /** Whether the chat is resolved now (a customer message after the resolve reopens it). */
  async isResolved(instanceId: string, chatId: string): Promise<boolean> {
    const c = await this.x.db.selectFrom('conversations').select(['resolved_at', 'last_customer_at']).where('instance_id', '=', instanceId).where('chat_id', '=', chatId).executeTakeFirst()
    return !!c && c.resolved_at !== null && c.last_customer_at <= c.resolved_at
  }

  /** When the chat was resolved (epoch ms), or null when it is open or has no messages. */
  async resolvedAt(instanceId: string, chatId: string): Promise<number | null> {
    const c = await this.x.db.selectFrom('conversations').select('resolved_at').where('instance_id', '=', instanceId).where('chat_id', '=', chatId).executeTakeFirst()
    return c?.resolved_at ?? null
  }

  /**
   * Assigns the chat to `assignee` (a staff id or `owner`), or unassigns it (null), at `at` (epoch ms),
   * and adds the change to its timeline, in one transaction. Answers who it was assigned to before,
   * or undefined when the chat has no messages. `onlyIfUnassigned`: change nothing when it is assigned.
   */
  async assign(instanceId: string, chatId: string, assignee: string | null, at: number, event: { actor: string; detail: string }, onlyIfUnassigned = false): Promise<{ before: string | null; changed: boolean } | undefined> {
    return this.x.write(async (trx) => {
      const c = await trx.selectFrom('conversations').select('assigned_to').where('instance_id', '=', instanceId).where('chat_id', '=', chatId).executeTakeFirst()
      if (!c) return undefined
      if (c.assigned_to === assignee || (onlyIfUnassigned && c.assigned_to !== null)) return { before: c.assigned_to, changed: false }
      await trx.updateTable('conversations').set({ assigned_to: assignee, assigned_at: assignee === null ? null : at }).where('instance_id', '=', instanceId).where('chat_id', '=', chatId).execute()
      await trx.insertInto('conversation_events').values({ instance_id: instanceId, chat_id: chatId, at, kind: 'assigned', actor: event.actor, detail: event.detail }).execute()
      return { before: c.assigned_to, changed: true }
    })
  }

  /** Who the chat is assigned to (a staff id, `owner`, or null), or undefined when it has no messages. */
  async assignee(instanceId: string, chatId: string): Promise<string | null | undefined> {
    const c = await this.x.db.selectFrom('conversations').select('assigned_to').where('instance_id', '=', instanceId).where('chat_id', '=', chatId).executeTakeFirst()
    return c ? c.assigned_to : undefined
  }

  /** The chat's timeline of desk events, oldest first: `{at, kind, actor, detail}` with the JSON parsed. */
  async events(instanceId: string, chatId: string): Promise<Array<{ at: number; kind: string; actor: unknown; detail: unknown }>> {
    const rows = await this.x.db.selectFrom('conversation_events').selectAll().where('instance_id', '=', instanceId).where('chat_id', '=', chatId).orderBy('seq').execute()
    return rows.map((r) => ({ at: r.at, kind: r.kind, actor: JSON.parse(r.actor) as unknown, detail: r.detail === null ? null : (JSON.parse(r.detail) as unknown) }))
  }

  /**
   * Of `candidates` (staff ids), the one assigned a conversation of `instanceId` longest ago (never
   * first, then in the given order): round-robin that survives restarts.
   */
  async leastRecentlyAssigned(instanceId: string, candidates: readonly string[]): Promise<string | undefined> {
    if (candidates.length === 0) return undefined
    const rows = await this.x.db
      .selectFrom('conversations')
      .select((eb) => ['assigned_to', eb.fn.max('assigned_at').as('last')])
      .where('instance_id', '=', instanceId)
      .where('assigned_to', 'in', [...candidates])
      .groupBy('assigned_to')
      .execute()
    const last = new Map(rows.map((r) => [r.assigned_to!, Number(r.last ?? 0)]))
    return [...candidates].sort((a, b) => (last.get(a) ?? -1) - (last.get(b) ?? -1))[0]
  }

  /** Unread customer messages of a chat (as the inbox counts them), worked out from the messages. */
  async countUnread(instanceId: string, chatId: string): Promise<number> {
    const c = await this.x.db.selectFrom('conversations').select(['read_until', 'last_person_at']).where('instance_id', '=', instanceId).where('chat_id', '=', chatId).executeTakeFirst()
    return c ? countUnread(this.x.db, instanceId, chatId, Math.max(c.read_until, c.last_person_at)) : 0
  }

  private async labelsOf(db: Kysely<Database>, contactIds: string[]): Promise<Map<string, string[]>> {
    const out = new Map<string, string[]>()
    if (contactIds.length === 0) return out
    const rows = await db.selectFrom('contact_labels').select(['contact_id', 'label']).where('contact_id', 'in', contactIds).orderBy('contact_id').orderBy('position').execute()
    for (const r of rows) {
      const list = out.get(r.contact_id)
      if (list) list.push(r.label)
      else out.set(r.contact_id, [r.label])
    }
    return out
  }
}
