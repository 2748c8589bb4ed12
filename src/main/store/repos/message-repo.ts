/**
 * The message log (docs/design.md §7, §20 "History"): every message of every instance, uncapped, in
 * `messages`, with its chat's row in `conversations` kept in step in the same transaction
 * (./conversation-index.ts) and the search index kept by triggers (migration 1).
 *
 * Reading a long history: pages are keyset pages on (time, insertion order), so they stay stable
 * while messages arrive and cost the same at any depth. A cursor is an entry's id (or, for older
 * scripts, an epoch-ms time). Search finds the newest matches first (see {@link MessageRepo.search}).
 */
import type { LoggedMessage } from '../../../shared/schemas/records'
import type { Kysely } from 'kysely'
import type { Exec } from './exec'
import type { Database } from '../db/schema'
import { prepared } from '../db/prepared'
import { noteMessage, rebuildConversation } from './conversation-index'
import { DETAIL_FIELDS, detailsOf, messageColumns, messageFromRow, messageToRow, type MessageRow } from './message-rows'
import { longTerms, matchesAll, searchTerms, snippet } from './search-terms'
import { matchingMessages } from '../db/search-sql'
import { notErasing } from './erasing'
import { inLists } from './in-lists'
import { applyStatus, type StatusReport } from '../../domain/delivery-status'

/** Where a page starts: after or before an entry (its id), or a time (epoch ms, older scripts). */
export type Cursor = { id: string } | { time: number }

export interface MessageQuery {
  chatId?: string
  /** Entries strictly older than this. */
  before?: Cursor
  /** Entries strictly newer than this (with `before` absent: the oldest first after it). */
  after?: Cursor
  /** At most this many (default 100). */
  limit?: number
}

/** A search result: the entry, and a snippet of its text with the matches' ranges. */
export type MessageHit = LoggedMessage & { snippet: string; highlights: Array<[number, number]> }

export interface SearchQuery {
  q: string
  chatId?: string
  /** Results older than this entry (the last one of the previous page). */
  before?: string
  limit?: number
}

/** A cursor that names no entry of the instance. */
export class UnknownCursorError extends Error {
  constructor(readonly id: string) {
    super(`No message has the id ${id}.`)
    this.name = 'UnknownCursorError'
  }
}

/** A new entry's row; no row (nothing inserted) when the instance has its id already. */
const insertMessage = prepared((db: Kysely<Database>, row: MessageRow) =>
  db
    .insertInto('messages')
    .values(row)
    .onConflict((oc) => oc.columns(['instance_id', 'id']).doNothing())
    .returning('seq')
)

/** Below this many messages a chat is searched by reading it (faster than walking the whole index). */
const CHAT_SCAN_MAX = 3000

export class MessageRepo {
  constructor(private readonly x: Exec) {}

  /**
   * Appends an entry (the conversation follows); resolves once on disk. An entry whose id the instance
   * has already is left as it is (answers false).
   */
  async append(instanceId: string, entry: LoggedMessage): Promise<boolean> {
    return this.x.write(async (trx) => {
      const [res] = await insertMessage(trx, messageToRow(instanceId, entry))
      if (!res) return false
      await noteMessage(trx, instanceId, entry, res.seq)
      return true
    })
  }

  /**
   * Appends many entries of one instance in one transaction (an import, a history sync). Answers how
   * many were new: an entry whose id the instance has already is left as it is. `history`: messages of
   * the phone's history, which never count as unread.
   */
  async appendMany(instanceId: string, entries: readonly LoggedMessage[], opts: { history?: boolean } = {}): Promise<number> {
    if (entries.length === 0) return 0
    return this.x.write(async (trx) => {
      let added = 0
      for (const e of entries) {
        const [res] = await insertMessage(trx, messageToRow(instanceId, e))
        if (!res) continue
        await noteMessage(trx, instanceId, e, res.seq, opts.history)
        added++
      }
      return added
    })
  }

  /**
   * Changes fields of the entry `id`; resolves with the entry as this change left it, or undefined
   * when the instance has no such entry. `id` itself cannot change.
   */
  async update(instanceId: string, id: string, patch: Partial<Omit<LoggedMessage, 'id'>>): Promise<LoggedMessage | undefined> {
    return (await this.updateIf(instanceId, id, () => patch)) ?? undefined
  }

  /**
   * Reads the entry `id` and writes what `decide` answers for it, in one transaction: two changes
   * decided on the same entry (two reports of one delivery status) cannot both apply to what they
   * read. Resolves with the entry after the change, `null` when `decide` answered null (nothing
   * written), or undefined when there is no such entry.
   */
  async updateIf(instanceId: string, id: string, decide: (entry: LoggedMessage) => Partial<Omit<LoggedMessage, 'id'>> | null): Promise<LoggedMessage | null | undefined> {
    return this.x.write(async (trx) => {
      const row = await trx.selectFrom('messages').selectAll().where('instance_id', '=', instanceId).where('id', '=', id).executeTakeFirst()
      if (!row) return undefined
      const before = messageFromRow(row)
      const patch = decide(before)
      if (patch === null) return null
      const after: LoggedMessage = { ...before, ...patch, id }
      const columns: Partial<MessageRow> = messageColumns(patch)
      if (DETAIL_FIELDS.some((f) => f in patch)) columns.details = detailsOf(after)
      if (Object.keys(columns).length === 0) return after
      await trx.updateTable('messages').set(columns).where('seq', '=', row.seq).execute()
      // What the inbox derives from (who wrote, when, in which chat) changed: count the chat again.
      if (before.type !== after.type || before.source !== after.source || before.timestamp !== after.timestamp || before.pushName !== after.pushName) {
        await rebuildConversation(trx, instanceId, after.chatId)
      }
      return after
    })
  }

  /**
   * Applies a channel's status report to the desk's own message `update.id` by the delivery status
   * rules (domain/delivery-status.ts), deciding on the entry as stored in the write's transaction.
   * Resolves with the entry after the change, `null` when the report does not move it forward,
   * undefined when the instance has no such entry (or its customer is being erased). Data only, so on
   * SQLite it runs whole in the writer's thread, in the group commit (one round trip).
   */
  async recordStatus(instanceId: string, update: StatusReport): Promise<LoggedMessage | null | undefined> {
    return (await this.recordStatuses([{ instanceId, update }]))[0]
  }

  /**
   * {@link recordStatus} for several reports in one write (one round trip, one job of the group
   * commit), applied in order: each answer is what that report made of the entry. The entries are
   * read together (one statement per instance) and each distinct change is written once for all the
   * entries it applies to: a message's reports read it once and change its row once (a send's
   * SERVER_ACK and DELIVERY_ACK often come together), and a busy turn's acknowledgements of many sends
   * take two or three statements instead of two per report.
   */
  async recordStatuses(reports: ReadonlyArray<{ instanceId: string; update: StatusReport }>): Promise<Array<LoggedMessage | null | undefined>> {
    return this.x.write(async (trx) => {
      const entries = new Map<string, { seq: number; message: LoggedMessage; patch: ReturnType<typeof applyStatus> } | null>()
      const key = (instanceId: string, id: string) => `${instanceId}\n${id}`
      const wanted = new Map<string, Set<string>>()
      for (const { instanceId, update } of reports) {
        entries.set(key(instanceId, update.id), null)
        const ids = wanted.get(instanceId) ?? new Set<string>()
        ids.add(update.id)
        wanted.set(instanceId, ids)
      }
      for (const [instanceId, ids] of wanted) {
        for (const part of inLists([...ids])) {
          const rows = await trx.selectFrom('messages').selectAll().where('instance_id', '=', instanceId).where('id', 'in', part).where(notErasing()).execute()
          for (const row of rows) entries.set(key(instanceId, row.id), { seq: row.seq, message: messageFromRow(row), patch: null })
        }
      }
      const answers: Array<LoggedMessage | null | undefined> = []
      for (const { instanceId, update } of reports) {
        const entry = entries.get(key(instanceId, update.id))
        if (!entry) {
          answers.push(undefined)
          continue
        }
        const patch = applyStatus(entry.message, update)
        if (patch === null) {
          answers.push(null)
          continue
        }
        entry.patch = { ...entry.patch, ...patch }
        entry.message = { ...entry.message, ...patch }
        answers.push(entry.message)
      }
      // The same change (most often `status` alone) for many rows: one UPDATE … WHERE seq IN (…).
      const changes = new Map<string, { columns: Partial<MessageRow>; seqs: number[] }>()
      for (const entry of entries.values()) {
        if (!entry?.patch) continue
        const columns = messageColumns(entry.patch)
        const change = JSON.stringify(columns)
        const same = changes.get(change)
        if (same) same.seqs.push(entry.seq)
        else changes.set(change, { columns, seqs: [entry.seq] })
      }
      for (const { columns, seqs } of changes.values()) {
        for (const part of inLists(seqs)) await trx.updateTable('messages').set(columns).where('seq', 'in', part).execute()
      }
      return answers
    })
  }

  /** The entry `id` of an instance. */
  async find(instanceId: string, id: string): Promise<LoggedMessage | undefined> {
    const row = await this.x.db.selectFrom('messages').selectAll().where('instance_id', '=', instanceId).where('id', '=', id).where(notErasing()).executeTakeFirst()
    return row ? messageFromRow(row) : undefined
  }

  /** The entry `id` of the first of `instanceIds` that has it, with that instance. */
  async findIn(instanceIds: readonly string[], id: string): Promise<{ instanceId: string; message: LoggedMessage } | undefined> {
    if (instanceIds.length === 0) return undefined
    const row = await this.x.db.selectFrom('messages').selectAll().where('instance_id', 'in', instanceIds).where('id', '=', id).where(notErasing()).orderBy('seq').limit(1).executeTakeFirst()
    return row ? { instanceId: row.instance_id, message: messageFromRow(row) } : undefined
  }

  /**
   * A page of an instance's entries (one chat's with `chatId`), oldest first: the newest `limit`
   * before `before` (or of all), or the oldest `limit` after `after`. Throws {@link UnknownCursorError}
   * for a cursor id the instance does not have.
   */
  async list(instanceId: string, query: MessageQuery = {}): Promise<LoggedMessage[]> {
    const limit = query.limit ?? 100
    const before = query.before ? await this.position(instanceId, query.before) : undefined
    const after = query.after ? await this.position(instanceId, query.after) : undefined
    let q = this.x.db.selectFrom('messages').selectAll().where('instance_id', '=', instanceId).where(notErasing())
    if (query.chatId !== undefined) q = q.where('chat_id', '=', query.chatId)
    if (before) q = q.where((eb) => eb(eb.refTuple('timestamp', 'seq'), '<', eb.tuple(before.timestamp, before.seq)))
    if (after) q = q.where((eb) => eb(eb.refTuple('timestamp', 'seq'), '>', eb.tuple(after.timestamp, after.seq)))
    if (after && !before) {
      const rows = await q.orderBy('timestamp').orderBy('seq').limit(limit).execute()
      return rows.map(messageFromRow)
    }
    const rows = await q.orderBy('timestamp', 'desc').orderBy('seq', 'desc').limit(limit).execute()
    return rows.reverse().map(messageFromRow)
  }

  /**
   * The oldest entry of a chat that WhatsApp has (what a history request starts from): sends that
   * never left (PENDING, ERROR) and placeholders of undecryptable messages are skipped.
   */
  async oldestDelivered(instanceId: string, chatId: string): Promise<LoggedMessage | undefined> {
    const row = await this.x.db
      .selectFrom('messages')
      .selectAll()
      .where('instance_id', '=', instanceId)
      .where('chat_id', '=', chatId)
      .where('status', 'not in', ['PENDING', 'ERROR', 'UNDECRYPTABLE'])
      .where(notErasing())
      .orderBy('timestamp')
      .orderBy('seq')
      .limit(1)
      .executeTakeFirst()
    return row ? messageFromRow(row) : undefined
  }

  /** Whether the chat has a message from the customer (they wrote to this number). */
  async hasInbound(instanceId: string, chatId: string): Promise<boolean> {
    const row = await this.x.db.selectFrom('messages').select('seq').where('instance_id', '=', instanceId).where('chat_id', '=', chatId).where('from_me', '=', 0).where(notErasing()).limit(1).executeTakeFirst()
    return row !== undefined
  }

  /** The entries of an instance from `fromMs` on (epoch ms), oldest first. */
  async since(instanceId: string, fromMs: number): Promise<LoggedMessage[]> {
    const rows = await this.x.db.selectFrom('messages').selectAll().where('instance_id', '=', instanceId).where('timestamp', '>=', fromMs).where(notErasing()).orderBy('timestamp').orderBy('seq').execute()
    return rows.map(messageFromRow)
  }

  /** The time (epoch ms) of an instance's oldest entry, or null when it has none. */
  async oldestTime(instanceId: string): Promise<number | null> {
    const row = await this.x.db.selectFrom('messages').select('timestamp').where('instance_id', '=', instanceId).orderBy('timestamp').orderBy('seq').limit(1).executeTakeFirst()
    return row?.timestamp ?? null
  }

  /**
   * The log of `instanceIds` newest first, page `page` (from 1) of `limit` (the original service's
   * `/message-log`), and how many entries there are in all.
   */
  async logPage(instanceIds: readonly string[], page: number, limit: number): Promise<{ items: Array<{ instanceId: string; message: LoggedMessage }>; total: number }> {
    if (instanceIds.length === 0) return { items: [], total: 0 }
    const rows = await this.x.db
      .selectFrom('messages')
      .selectAll()
      .where('instance_id', 'in', instanceIds)
      .where(notErasing())
      .orderBy('timestamp', 'desc')
      .orderBy('seq', 'desc')
      .offset((page - 1) * limit)
      .limit(limit)
      .execute()
    const { n } = await this.x.db
      .selectFrom('conversations')
      .select((eb) => eb.fn.coalesce(eb.fn.sum<number>('message_count'), eb.lit(0)).as('n'))
      .where('instance_id', 'in', instanceIds)
      .executeTakeFirstOrThrow()
    return { items: rows.map((r) => ({ instanceId: r.instance_id, message: messageFromRow(r) })), total: Number(n) }
  }

  /**
   * Messages of an instance (one chat's with `chatId`) whose text, sender name or number contain
   * every term of `q`, newest first, `limit` of them (default 50) older than `before`, each with a
   * snippet. Terms of 3+ characters go through the trigram index, matched newest rowid first and
   * filtered by instance in batches (a join sorted after the match cost 136 ms for a common word at
   * 1M rows); a small chat is read directly; a query of only short terms scans.
   */
  async search(instanceId: string, query: SearchQuery): Promise<MessageHit[]> {
    const limit = query.limit ?? 50
    const terms = searchTerms(query.q)
    if (terms.length === 0) return []
    let cursor = Number.MAX_SAFE_INTEGER
    if (query.before) {
      const row = await this.x.db.selectFrom('messages').select('seq').where('instance_id', '=', instanceId).where('id', '=', query.before).where(notErasing()).executeTakeFirst()
      if (!row) throw new UnknownCursorError(query.before)
      cursor = row.seq
    }
    const rows = longTerms(query.q).length === 0 ? await this.scan(instanceId, query, cursor, limit) : query.chatId !== undefined && (await this.chatSize(instanceId, query.chatId)) <= CHAT_SCAN_MAX ? await this.scan(instanceId, query, cursor, limit) : await this.viaIndex(instanceId, query, cursor, limit)
    return rows.map((r) => {
      const m = messageFromRow(r)
      return { ...m, ...snippet(m.text, query.q) }
    })
  }

  /** Moves chat `from`'s entries to chat `to` (a LID chat filed under its number); answers how many moved. */
  async rekeyChat(instanceId: string, from: string, to: string): Promise<number> {
    return this.x.write(async (trx) => {
      const old = await trx.selectFrom('conversations').select(['read_until', 'resolved_at']).where('instance_id', '=', instanceId).where('chat_id', '=', from).executeTakeFirst()
      const res = await trx
        .updateTable('messages')
        .set((eb) => ({
          chat_id: to,
          sender_id: eb.case().when('sender_id', '=', from).then(to).else(eb.ref('sender_id')).end(),
          sender_pn: eb.case().when('from_me', '=', 0).then(eb.fn.coalesce('sender_pn', eb.val(to))).else(eb.ref('sender_pn')).end(),
          sender_lid: eb.case().when('from_me', '=', 0).then(eb.fn.coalesce('sender_lid', eb.val(from))).else(eb.ref('sender_lid')).end()
        }))
        .where('instance_id', '=', instanceId)
        .where('chat_id', '=', from)
        .executeTakeFirst()
      const moved = Number(res.numUpdatedRows)
      if (moved === 0 && !old) return 0
      const target = await trx.selectFrom('conversations').select(['read_until', 'resolved_at']).where('instance_id', '=', instanceId).where('chat_id', '=', to).executeTakeFirst()
      await trx.deleteFrom('conversations').where('instance_id', '=', instanceId).where('chat_id', '=', from).execute()
      await rebuildConversation(trx, instanceId, to, {
        read_until: Math.max(old?.read_until ?? 0, target?.read_until ?? 0),
        resolved_at: target?.resolved_at ?? old?.resolved_at ?? null
      })
      return moved
    })
  }

  /** The (time, seq) of a cursor. */
  private async position(instanceId: string, cursor: Cursor): Promise<{ timestamp: number; seq: number }> {
    if ('time' in cursor) return { timestamp: cursor.time, seq: 0 }
    const row = await this.x.db.selectFrom('messages').select(['timestamp', 'seq']).where('instance_id', '=', instanceId).where('id', '=', cursor.id).where(notErasing()).executeTakeFirst()
    if (!row) throw new UnknownCursorError(cursor.id)
    return row
  }

  private async chatSize(instanceId: string, chatId: string): Promise<number> {
    const row = await this.x.db.selectFrom('conversations').select('message_count').where('instance_id', '=', instanceId).where('chat_id', '=', chatId).executeTakeFirst()
    return row?.message_count ?? 0
  }

  /**
   * Walks the index's matches newest first, kept by instance (and chat) in the same step, `limit` at
   * a time (more when short terms are checked here): ../db/search-sql.ts's matchingMessages, whose
   * SQLite form streams from the FTS5 index (at 1M messages 0.2 ms for a rare word, 1 ms for a
   * common one; left to choose, SQLite took 20 and 50 ms).
   */
  private async viaIndex(instanceId: string, query: SearchQuery, cursor: number, limit: number): Promise<MessageRow[]> {
    const found: MessageRow[] = []
    const short = searchTerms(query.q)
      .filter((t) => [...t].length < 3)
      .join(' ')
    let batch = short ? limit * 4 : limit
    for (;;) {
      const rows = await matchingMessages(this.x.db, { instanceId, ...(query.chatId !== undefined ? { chatId: query.chatId } : {}), q: query.q, beforeSeq: cursor, limit: batch })
      for (const r of rows) {
        // The index matched the long terms; the short ones are checked here.
        if (short && !this.matches(r, short)) continue
        found.push(r)
        if (found.length >= limit) return found
      }
      if (rows.length < batch) break
      cursor = rows[rows.length - 1]!.seq
      batch = Math.min(batch * 4, 2000)
    }
    return found
  }

  /** Reads the instance's (or chat's) entries newest first and keeps the matches (short terms, small chats). */
  private async scan(instanceId: string, query: SearchQuery, cursor: number, limit: number): Promise<MessageRow[]> {
    const found: MessageRow[] = []
    const page = 2000
    for (;;) {
      let q = this.x.db.selectFrom('messages').select(['seq', 'text', 'push_name', 'chat_id']).where('instance_id', '=', instanceId).where('seq', '<', cursor).where(notErasing())
      if (query.chatId !== undefined) q = q.where('chat_id', '=', query.chatId)
      const rows = await q.orderBy('seq', 'desc').limit(page).execute()
      if (rows.length === 0) break
      cursor = rows[rows.length - 1]!.seq
      const hits = rows.filter((r) => this.matches(r, query.q)).slice(0, limit - found.length).map((r) => r.seq)
      if (hits.length > 0) {
        const full = await this.x.db.selectFrom('messages').selectAll().where('seq', 'in', hits).orderBy('seq', 'desc').execute()
        found.push(...full)
      }
      if (found.length >= limit || rows.length < page) break
    }
    return found
  }

  private matches(r: Pick<MessageRow, 'text' | 'push_name' | 'chat_id'>, q: string): boolean {
    return matchesAll(`${r.text}\n${r.push_name ?? ''}\n${r.chat_id.split('@')[0]}`, q)
  }
}

