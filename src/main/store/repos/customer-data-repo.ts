/**
 * What the data layer does across tables for one instance or one customer: delete an instance's
 * data, export a customer's (streamed in pages) and erase it (hidden at once, deleted in slices), and
 * apply a retention period (in slices the caller drives). Nothing here decides who may do it or when:
 * the services do. A heavy change never holds the writer for long (docs/storage.md "Heavy jobs in
 * slices").
 */
import { createHash } from 'node:crypto'
import { sql, type Kysely } from 'kysely'
import type { Contact, LoggedMessage, SurveyRun } from '../../../shared/schemas/records'
import type { AssistantReply } from '../../../shared/schemas/assistant'
import { assistantReplyOf } from './assistant-repo'
import type { Database } from '../db/schema'
import { fromJson, toJson, type Exec } from './exec'
import { forgetMessages } from './conversation-index'
import { notErasing } from './erasing'
import { inSlices } from '../db/slices'
import { messageFromRow } from './message-rows'
import { surveyRunRows } from './survey-run-repo'
import type { ContactRepo } from './contact-repos'
import { msToTimeOrNull, timeToMs } from '../db/times'

/** A customer's data as it is stored: their contact, messages, survey runs and the assistant's answers to them. */
export interface CustomerData {
  contact: Contact | null
  /** Every message of their chats and their messages in groups, oldest first. */
  messages: LoggedMessage[]
  surveyRuns: SurveyRun[]
  /** The assistant's answers in their chats (model, tokens, sources), oldest first. */
  assistantReplies: AssistantReply[]
}

/** How many records of each kind an erasure deleted. */
export interface ErasureCounts {
  messages: number
  conversations: number
  survey_runs: number
  contacts: number
  webhook_deliveries: number
  broadcast_recipients: number
  assistant_replies: number
}

/**
 * The JID of a customer's key: a number's digits are its `…@s.whatsapp.net`; a LID (`…@lid`, a
 * customer who hides the number behind a username, docs/baileys.md "Usernames") is its own.
 */
export function customerJid(key: string): string {
  return key.includes('@') ? key : `${key}@s.whatsapp.net`
}

/** The sha256 a customer's key (number or LID) is remembered by after its erasure. */
export function subjectHash(number: string): string {
  return createHash('sha256').update(`chatapp-erasure:${number}`).digest('hex')
}

/** Rows of an instance read per page of a customer's scan (a reader holds each page's statement for a few ms). */
const SCAN_PAGE = 2000
/**
 * Messages read per page of an export. Small: a page's messages are alive while they are written out,
 * and with 500 a page the main thread's young generation grew to its largest during an export of
 * 100,000 messages (RSS +124–172 MB against +72–75 MB with 100; docs/benchmarks.md "A customer's
 * export: memory").
 */
const EXPORT_PAGE = 100

/**
 * What an instance holds of customer `number`, found by one pass over the instance's messages in
 * pages of {@link SCAN_PAGE} (off the writer: reads outside transactions go to a reader): their 1:1
 * chats (their number's JID and the LIDs it was linked to) and what they wrote in other chats (groups),
 * as insertion numbers with times. A LID is known to be theirs from a message carrying both (the
 * library's `senderPn`/`senderLid`); a LID row seen before that is kept aside and counted in once the
 * pass has seen the link.
 */
class CustomerScan {
  /** Their JIDs: the number's JID, then the LIDs it was linked to. */
  readonly jids: Set<string>
  /** Their messages: seq → time (epoch ms). */
  readonly found = new Map<number, { timestamp: number; chat_id: string }>()
  private readonly maybe: Array<{ seq: number; timestamp: number; chat_id: string; jid: string }> = []
  /** The last seq the pass read (where a later pass starts). */
  last = 0

  constructor(
    private readonly instanceId: string,
    readonly pn: string,
    knownJids: readonly string[] = []
  ) {
    this.jids = new Set([pn, ...knownJids])
  }

  /** Reads the instance's messages after {@link last} (up to `upTo` when given), page by page. */
  async run(db: Kysely<Database>, upTo?: number): Promise<this> {
    for (;;) {
      let q = db.selectFrom('messages').select(['seq', 'timestamp', 'chat_id', 'sender_pn', 'sender_id', 'sender_lid']).where('instance_id', '=', this.instanceId).where('seq', '>', this.last)
      if (upTo !== undefined) q = q.where('seq', '<=', upTo)
      const rows = await q.orderBy('seq').limit(SCAN_PAGE).execute()
      for (const r of rows) this.see(r)
      if (rows.length > 0) this.last = rows[rows.length - 1]!.seq
      if (rows.length < SCAN_PAGE) break
    }
    // LID rows seen before their link: theirs once the link is known.
    for (const m of this.maybe.splice(0)) {
      if (this.jids.has(m.jid)) this.found.set(m.seq, { timestamp: m.timestamp, chat_id: m.chat_id })
      else this.maybe.push(m)
    }
    return this
  }

  private see(r: { seq: number; timestamp: number; chat_id: string; sender_pn: string | null; sender_id: string | null; sender_lid: string | null }): void {
    if (r.sender_pn === this.pn && r.sender_lid) this.jids.add(r.sender_lid)
    const mine = this.jids.has(r.chat_id) || (r.sender_pn !== null && this.jids.has(r.sender_pn)) || (r.sender_id !== null && this.jids.has(r.sender_id))
    if (mine) return void this.found.set(r.seq, { timestamp: r.timestamp, chat_id: r.chat_id })
    const lid = r.chat_id.endsWith('@lid') ? r.chat_id : r.sender_id?.endsWith('@lid') ? r.sender_id : null
    if (lid) this.maybe.push({ seq: r.seq, timestamp: r.timestamp, chat_id: r.chat_id, jid: lid })
  }

  /** Their messages' seqs, oldest first by (time, insertion). */
  inTimeOrder(): number[] {
    return [...this.found].sort((a, b) => a[1].timestamp - b[1].timestamp || a[0] - b[0]).map(([seq]) => seq)
  }
}

/** Their 1:1 chats: the number's JID and each of their LIDs with a conversation. */
async function customerChats(db: Kysely<Database>, instanceId: string, jids: ReadonlySet<string>): Promise<string[]> {
  const lidChats = await db.selectFrom('conversations').select('chat_id').where('instance_id', '=', instanceId).where('chat_id', 'in', [...jids]).execute()
  return [...new Set([[...jids][0]!, ...lidChats.map((c) => c.chat_id)])]
}

/** What an erasure tells and asks its caller as it goes. */
export interface ErasureOptions {
  /** The ids of each slice's deleted messages (their media files go). */
  onDeleted?: (messageIds: string[]) => Promise<void>
  /** Asked before each slice: true stops (a shutdown), leaving the erasure to be resumed. */
  stop?: () => boolean
}

/** An erasure in progress, as `erasing` and `erasures` hold it (what is needed to finish it). */
interface RunningErasure {
  id: string
  instanceId: string
  jids: string[]
  upToSeq: number
  counts: ErasureCounts
}

export class CustomerDataRepo {
  constructor(
    private readonly x: Exec,
    private readonly contacts: Pick<ContactRepo, 'byNumber'>
  ) {}

  /**
   * Customer `number`'s messages kept by an instance, oldest first, in pages (their chats and what
   * they wrote in groups): read page by page as the caller takes them, so an export of any size is
   * written with flat memory. Messages of a running erasure are left out.
   */
  async *exportMessages(instanceId: string, number: string): AsyncGenerator<LoggedMessage[]> {
    const db = this.x.db
    const scan = await new CustomerScan(instanceId, customerJid(number)).run(db)
    const seqs = scan.inTimeOrder()
    for (let i = 0; i < seqs.length; i += EXPORT_PAGE) {
      const page = seqs.slice(i, i + EXPORT_PAGE)
      const rows = await db.selectFrom('messages').selectAll().where('seq', 'in', page).where(notErasing()).execute()
      const bySeq = new Map(rows.map((r) => [r.seq, r]))
      // In the scan's order; a message deleted since the scan is left out.
      yield page.flatMap((seq) => {
        const r = bySeq.get(seq)
        return r ? [messageFromRow(r)] : []
      })
    }
  }

  /** Customer `number`'s contact, survey runs and the assistant's answers to them kept by an instance (the rest of an export). */
  async exportRecords(instanceId: string, number: string): Promise<Omit<CustomerData, 'messages'>> {
    const db = this.x.db
    const pn = customerJid(number)
    // Their LIDs as the conversations know them (a LID chat filed under their number).
    const lidChats = await db.selectFrom('conversations').select('chat_id').where('instance_id', '=', instanceId).where('phone', '=', number).execute()
    const jids = [pn, ...lidChats.map((c) => c.chat_id)]
    const runs = await db
      .selectFrom('survey_runs')
      .selectAll()
      .where('instance_id', '=', instanceId)
      .where((eb) => eb.or([eb('chat_id', 'in', jids), eb('contact_id', 'in', jids)]))
      .orderBy('started_at')
      .execute()
    const replies = await db.selectFrom('assistant_replies').selectAll().where('instance_id', '=', instanceId).where('chat_id', 'in', jids).orderBy('seq').execute()
    const contact = await this.contacts.byNumber(instanceId, number)
    return { contact: contact ? { ...contact, labels: [...contact.labels] } : null, surveyRuns: runs.map(surveyRunRows.fromRow), assistantReplies: replies.map(assistantReplyOf) }
  }

  /**
   * The 1:1 chat (its JID) of the customer with WhatsApp `username` (no "@", any case) on an
   * instance, as their conversation carries it; null when no chat there has it (docs/baileys.md
   * "Usernames"). The most recently active one when several did.
   */
  async chatOfUsername(instanceId: string, username: string): Promise<string | null> {
    const row = await this.x.db
      .selectFrom('conversations')
      .select('chat_id')
      .where('instance_id', '=', instanceId)
      .where(sql<boolean>`lower(username) = ${username.toLowerCase()}`)
      .orderBy('last_at', 'desc')
      .limit(1)
      .executeTakeFirst()
    return row?.chat_id ?? null
  }

  /**
   * The key an instance keeps customer `lid` (`…@lid`) under: the digits of the number their LID
   * chat is filed under when WhatsApp told it (the number's export and erasure cover the LID's
   * chats), else the LID itself (a customer who hides the number behind a username).
   */
  async customerKey(instanceId: string, lid: string): Promise<string> {
    const row = await this.x.db.selectFrom('conversations').select('phone').where('instance_id', '=', instanceId).where('chat_id', '=', lid).executeTakeFirst()
    return row?.phone ?? lid
  }

  /** Everything stored of customer `number` by an instance, whole in memory (see {@link exportMessages} for large ones). */
  async exportCustomer(instanceId: string, number: string): Promise<CustomerData> {
    const messages: LoggedMessage[] = []
    for await (const page of this.exportMessages(instanceId, number)) messages.push(...page)
    return { ...(await this.exportRecords(instanceId, number)), messages }
  }

  /**
   * Erases everything stored of customer `number` by an instance and records the erasure (who, when,
   * how many; the number only as a hash). All or nothing to the user: one short transaction first
   * deletes their small records (contact, inbox rows, survey runs, pauses, queued webhooks…) and hides
   * their messages from every read (./erasing.ts); then the messages go in slices of a few ms of the
   * writer's time each, between the app's other writes ({@link inSlices}); a crash on the way is
   * finished at the next start ({@link resumeErasures}). `opts.onDeleted` is told the ids of each
   * slice's messages (their media files go); `opts.stop` is asked before each slice (a shutdown: the
   * rest is finished at the next start, the customer staying hidden). Answers the counts (null when
   * stopped before the end).
   */
  async eraseCustomer(instanceId: string, number: string, by: string, at: string, erasureId: string, opts: ErasureOptions = {}): Promise<{ counts: ErasureCounts | null }> {
    const pn = customerJid(number)
    // Off the writer: the customer's LIDs and messages as of now.
    const scan = await new CustomerScan(instanceId, pn).run(this.x.db)
    const begun = await this.x.write(async (trx) => {
      const top = await trx.selectFrom('messages').select((eb) => eb.fn.max('seq').as('seq')).executeTakeFirst()
      const upToSeq = Number(top?.seq ?? 0)
      const chats = await customerChats(trx, instanceId, scan.jids)
      const jids = [...new Set([...scan.jids, ...chats])]
      await trx.insertInto('erasing').values(jids.map((jid) => ({ erasure_id: erasureId, instance_id: instanceId, jid, up_to_seq: upToSeq }))).execute()
      const conv = await trx.deleteFrom('conversations').where('instance_id', '=', instanceId).where('chat_id', 'in', chats).executeTakeFirst()
      const runs = await trx
        .deleteFrom('survey_runs')
        .where('instance_id', '=', instanceId)
        .where((eb) => eb.or([eb('chat_id', 'in', jids), eb('contact_id', 'in', jids)]))
        .executeTakeFirst()
      const contact = await trx.deleteFrom('contacts').where('instance_id', '=', instanceId).where('number', '=', number).executeTakeFirst()
      await trx.deleteFrom('chat_pauses').where('instance_id', '=', instanceId).where('chat_id', 'in', chats).execute()
      await trx.deleteFrom('conversation_events').where('instance_id', '=', instanceId).where('chat_id', 'in', chats).execute()
      await trx.deleteFrom('bot_reply_marks').where('instance_id', '=', instanceId).where('chat_id', 'in', jids).execute()
      // The assistant's answers hold the customer's questions; the bot's activity names their chats.
      const replies = await trx.deleteFrom('assistant_replies').where('instance_id', '=', instanceId).where('chat_id', 'in', chats).executeTakeFirst()
      await trx.deleteFrom('bot_activity').where('instance_id', '=', instanceId).where('chat_id', 'in', chats).execute()
      await trx.deleteFrom('outreach_sends').where('instance_id', '=', instanceId).where('to', 'in', [number, ...chats]).execute()
      const recipients = await trx
        .deleteFrom('broadcast_recipients')
        .where('number', 'in', [number, ...chats])
        .where('broadcast_id', 'in', (eb) => eb.selectFrom('broadcasts').select('id').where('instance_id', '=', instanceId))
        .executeTakeFirst()
      let deliveries = 0
      for (const jid of jids) {
        const res = await trx.deleteFrom('webhook_deliveries').where('instance_id', '=', instanceId).where('payload', 'like', `%${jid}%`).executeTakeFirst()
        deliveries += Number(res.numDeletedRows)
      }
      const counts: ErasureCounts = {
        messages: 0,
        conversations: Number(conv.numDeletedRows),
        survey_runs: Number(runs.numDeletedRows),
        contacts: Number(contact.numDeletedRows),
        webhook_deliveries: deliveries,
        broadcast_recipients: Number(recipients.numDeletedRows),
        assistant_replies: Number(replies.numDeletedRows)
      }
      await trx.insertInto('erasures').values({ id: erasureId, instance_id: instanceId, subject_hash: subjectHash(number), by, at: timeToMs(at), counts: toJson(counts) }).execute()
      return { upToSeq, jids, counts }
    })
    // What came in between the pass and the start is read too (it is hidden already).
    await scan.run(this.x.db, begun.upToSeq)
    return { counts: await this.finishErasure({ id: erasureId, instanceId, ...begun }, scan, opts) }
  }

  /**
   * Finishes the erasures a crash cut short (their rows in `erasing`), each as
   * {@link eraseCustomer} would have: answers what each deleted in all.
   */
  async resumeErasures(opts: { onDeleted?: (instanceId: string, messageIds: string[]) => Promise<void>; stop?: () => boolean } = {}): Promise<Array<{ erasureId: string; instanceId: string; counts: ErasureCounts }>> {
    const rows = await this.x.db
      .selectFrom('erasing')
      .innerJoin('erasures', 'erasures.id', 'erasing.erasure_id')
      .select(['erasing.erasure_id', 'erasing.instance_id', 'erasing.jid', 'erasing.up_to_seq', 'erasures.counts'])
      .orderBy('erasing.erasure_id')
      .execute()
    const running = new Map<string, RunningErasure>()
    for (const r of rows) {
      const e = running.get(r.erasure_id) ?? { id: r.erasure_id, instanceId: r.instance_id, jids: [], upToSeq: r.up_to_seq, counts: fromJson<ErasureCounts>(r.counts) }
      e.jids.push(r.jid)
      running.set(r.erasure_id, e)
    }
    const out: Array<{ erasureId: string; instanceId: string; counts: ErasureCounts }> = []
    for (const e of running.values()) {
      const pn = e.jids.find((j) => j.endsWith('@s.whatsapp.net')) ?? e.jids[0]!
      const scan = await new CustomerScan(e.instanceId, pn, e.jids).run(this.x.db, e.upToSeq)
      const onDeleted = opts.onDeleted
      const counts = await this.finishErasure(e, scan, { ...(onDeleted ? { onDeleted: (ids: string[]) => onDeleted(e.instanceId, ids) } : {}), ...(opts.stop ? { stop: opts.stop } : {}) })
      if (!counts) break
      out.push({ erasureId: e.id, instanceId: e.instanceId, counts })
    }
    return out
  }

  /**
   * Deletes a running erasure's messages in slices, then ends it (its `erasing` rows go, its counts
   * are stored). Answers null when `opts.stop` stopped it first (it stays running, to be resumed).
   */
  private async finishErasure(e: RunningErasure, scan: CustomerScan, opts: ErasureOptions): Promise<ErasureCounts | null> {
    const seqs = [...scan.found.keys()].sort((a, b) => a - b)
    const jids = new Set(e.jids)
    let next = 0
    let deleted = 0
    let stopped = false
    await inSlices(async (limit) => {
      if (opts.stop?.()) {
        stopped = true
        return 0
      }
      const slice = seqs.slice(next, next + limit)
      next += slice.length
      if (slice.length === 0) return 0
      const ids = await this.x.write(async (trx) => {
        const rows = await trx.selectFrom('messages').select(['seq', 'id', 'chat_id']).where('seq', 'in', slice).execute()
        if (rows.length === 0) return []
        await trx.deleteFrom('messages').where('seq', 'in', slice).execute()
        await trx.deleteFrom('wa_messages').where('instance_id', '=', e.instanceId).where('id', 'in', rows.map((r) => r.id)).execute()
        // Their own chats' rows went at the start (a row there now counts only what came since); the
        // groups they wrote in keep counting the others' messages.
        await forgetMessages(
          trx,
          e.instanceId,
          rows.filter((r) => !jids.has(r.chat_id))
        )
        return rows.map((r) => r.id)
      })
      deleted += ids.length
      if (ids.length > 0) await opts.onDeleted?.(ids)
      return slice.length
    })
    if (stopped) return null
    const counts: ErasureCounts = { ...e.counts, messages: e.counts.messages + deleted }
    await this.x.write(async (trx) => {
      await trx.deleteFrom('erasing').where('erasure_id', '=', e.id).execute()
      await trx.updateTable('erasures').set({ counts: toJson(counts) }).where('id', '=', e.id).execute()
    })
    return counts
  }

  /** Whether customer `number` was erased from an instance, and when. */
  async erasedAt(instanceId: string, number: string): Promise<string | null> {
    const row = await this.x.db.selectFrom('erasures').select('at').where('instance_id', '=', instanceId).where('subject_hash', '=', subjectHash(number)).orderBy('at', 'desc').limit(1).executeTakeFirst()
    return msToTimeOrNull(row?.at ?? null)
  }

  /**
   * Deletes an instance's messages older than `beforeMs` (epoch ms), at most `batch` at a time (call
   * again while it answers `batch`; ../db/slices.ts sizes the batches): the conversations follow.
   * Answers the deleted entries' ids.
   */
  async deleteMessagesBefore(instanceId: string, beforeMs: number, batch = 5000): Promise<string[]> {
    return this.x.write(async (trx) => {
      const doomed = await trx.selectFrom('messages').select(['seq', 'id', 'chat_id']).where('instance_id', '=', instanceId).where('timestamp', '<', beforeMs).orderBy('timestamp').orderBy('seq').limit(batch).execute()
      // The timeline's desk events go by the same rule as the messages.
      await trx.deleteFrom('conversation_events').where('instance_id', '=', instanceId).where('at', '<', beforeMs).execute()
      if (doomed.length === 0) return []
      for (let i = 0; i < doomed.length; i += 500) await trx.deleteFrom('messages').where('seq', 'in', doomed.slice(i, i + 500).map((m) => m.seq)).execute()
      await forgetMessages(trx, instanceId, doomed)
      return doomed.map((m) => m.id)
    })
  }

  /**
   * Deletes all of an instance's messages older than `beforeMs` (epoch ms) in slices of a few ms of
   * the writer's time ({@link deleteMessagesBefore} sized by ../db/slices.ts); `onDeleted` is told each
   * slice's ids (their media go), `stop` is asked before each slice (a shutdown). Answers how many went.
   */
  async deleteAllBefore(instanceId: string, beforeMs: number, onDeleted: (messageIds: string[]) => Promise<void>, stop: () => boolean = () => false): Promise<number> {
    return inSlices(async (limit) => {
      if (stop()) return 0
      const ids = await this.deleteMessagesBefore(instanceId, beforeMs, limit)
      if (ids.length > 0) await onDeleted(ids)
      return ids.length
    })
  }

  /**
   * An instance's messages with media older than `beforeMs` (epoch ms), `limit` at a time in
   * insertion order after `afterSeq` (pass the last `seq` of a page to get the next).
   */
  async mediaBefore(instanceId: string, beforeMs: number, afterSeq = 0, limit = 5000): Promise<Array<{ seq: number; id: string }>> {
    return this.x.db
      .selectFrom('messages')
      .select(['seq', 'id'])
      .where('instance_id', '=', instanceId)
      .where('seq', '>', afterSeq)
      .where('timestamp', '<', beforeMs)
      .where('details', 'like', '%"media"%')
      .orderBy('seq')
      .limit(limit)
      .execute()
  }

  /** Deletes everything an instance owns in the database, in one transaction; answers its attachments' ids (their files go too). */
  async removeInstance(instanceId: string): Promise<string[]> {
    return this.x.write(async (trx) => {
      const attachments = await trx.selectFrom('attachments').select('id').where('instance_id', '=', instanceId).execute()
      const broadcasts = trx.selectFrom('broadcasts').select('id').where('instance_id', '=', instanceId)
      await trx.deleteFrom('broadcast_recipients').where('broadcast_id', 'in', broadcasts).execute()
      const contacts = trx.selectFrom('contacts').select('id').where('instance_id', '=', instanceId)
      await trx.deleteFrom('contact_labels').where('contact_id', 'in', contacts).execute()
      for (const table of ['messages', 'conversations', 'chat_pauses', 'intents', 'survey_steps', 'survey_runs', 'attachments', 'contact_groups', 'contacts', 'broadcasts', 'outreach_sends', 'schedules', 'bot_activity', 'bot_reply_marks', 'webhook_deliveries', 'auth_creds', 'auth_keys', 'wa_messages', 'conversation_events', 'knowledge_chunks', 'knowledge', 'knowledge_revisions', 'assistant_settings', 'assistant_replies', 'assistant_usage'] as const) {
        await trx.deleteFrom(table).where('instance_id', '=', instanceId).execute()
      }
      return attachments.map((a) => a.id)
    })
  }
}
