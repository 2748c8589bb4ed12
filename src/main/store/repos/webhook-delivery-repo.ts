/**
 * Webhook deliveries (docs/design.md §11): the outbox, one row per delivery of one event to one URL,
 * and what became of it. The dispatcher sends only deliveries whose row is committed, and records
 * every attempt's outcome here, so a restart resumes every pending one (at-least-once).
 *
 * Bounded per instance, as part of the writes that finish deliveries (the table never grows without
 * bound): delivered rows beyond the newest `keepDelivered` (default 50) are forgotten, failed ones
 * beyond `maxFailed` (default 500) lose their oldest; pending ones are bounded by the 24 h retry
 * window (../../webhooks/policy.ts). "Newest" is insertion order (`seq`), the order the list shows.
 */
import type { Kysely } from 'kysely'
import type { DeliveryFilter, DeliveryStatus, WebhookDelivery } from '../../../shared/schemas/webhooks'
import type { Database, WebhookDeliveriesTable } from '../db/schema'
import type { Exec } from './exec'
import { rowMap } from './row-map'
import { timeToMs, timeToMsOrNull } from '../db/times'
import { inLists } from './in-lists'

/** How many finished deliveries an instance keeps. */
export interface DeliveryBounds {
  /** Delivered rows kept per instance, newest first; older ones are forgotten. */
  keepDelivered: number
  /** Failed rows kept per instance for a manual retry; the oldest go first. */
  maxFailed: number
}

export const DEFAULT_DELIVERY_BOUNDS: DeliveryBounds = { keepDelivered: 50, maxFailed: 500 }

/** What an attempt came to: the fields of a delivery the dispatcher sets. */
export type DeliveryOutcome = Pick<WebhookDelivery, 'status' | 'attempts' | 'last_error' | 'last_status' | 'next_attempt_at'> & Partial<Pick<WebhookDelivery, 'delivered_at'>>

/** An outcome for {@link WebhookDeliveryRepo.record}: the delivery's id and instance (whose bounds apply). */
export interface RecordedOutcome {
  id: string
  instanceId: string
  outcome: DeliveryOutcome
}

/** The answer of {@link WebhookDeliveryRepo.requeue}. */
export type RequeueResult = { requeued: WebhookDelivery } | { refused: 'unknown' | 'delivered' }

type Row = Omit<WebhookDeliveriesTable, 'seq'>

export const webhookDeliveryRows = rowMap<WebhookDelivery, Row>({
  id: 'as is',
  instance_id: 'as is',
  event: 'as is',
  url: 'as is',
  payload: 'json',
  status: 'as is',
  attempts: 'as is',
  last_error: 'as is',
  last_status: 'as is',
  next_attempt_at: 'time',
  created_at: 'time',
  delivered_at: 'time'
})

/** The columns a delivery is read with (all but `seq`). */
const COLUMNS = ['id', 'instance_id', 'event', 'url', 'payload', 'status', 'attempts', 'last_error', 'last_status', 'next_attempt_at', 'created_at', 'delivered_at'] as const

/** Rows per INSERT statement: 12 columns each stays under SQLite's 32,766 bound parameters. */
const INSERT_CHUNK = 500

/** Outcomes of one instance's deliveries that set the same columns (see {@link outcomeGroups}). */
interface OutcomeGroup {
  instanceId: string
  columns: { set: Pick<Row, 'status' | 'attempts' | 'last_error' | 'last_status'> & { next_attempt_at: number | null }; setsDeliveredAt: boolean }
  delivered: Map<string, number | null>
}

/**
 * Outcomes that set the same columns of the same instance's deliveries, apart from `delivered_at`
 * (each delivery's own time): each group is written with one UPDATE per IN list instead of one per
 * delivery. `delivered` maps each delivery's id to its `delivered_at` (epoch ms; null when the
 * outcome has none or clears it).
 */
function outcomeGroups(outcomes: Iterable<RecordedOutcome>): OutcomeGroup[] {
  const groups = new Map<string, OutcomeGroup>()
  for (const { id, instanceId, outcome } of outcomes) {
    const set = {
      status: outcome.status,
      attempts: outcome.attempts,
      last_error: outcome.last_error,
      last_status: outcome.last_status,
      next_attempt_at: timeToMsOrNull(outcome.next_attempt_at)
    }
    const setsDeliveredAt = outcome.delivered_at !== undefined
    const key = JSON.stringify([instanceId, set, setsDeliveredAt])
    let group = groups.get(key)
    if (!group) groups.set(key, (group = { instanceId, columns: { set, setsDeliveredAt }, delivered: new Map() }))
    group.delivered.set(id, setsDeliveredAt ? timeToMsOrNull(outcome.delivered_at ?? null) : null)
  }
  return [...groups.values()]
}

export class WebhookDeliveryRepo {
  private readonly bounds: DeliveryBounds

  /** `bounds` default to {@link DEFAULT_DELIVERY_BOUNDS} (50 delivered, 500 failed per instance). */
  constructor(
    private readonly x: Exec,
    bounds: Partial<DeliveryBounds> = {}
  ) {
    this.bounds = { ...DEFAULT_DELIVERY_BOUNDS, ...bounds }
  }

  /** A delivery by id. */
  async find(id: string): Promise<WebhookDelivery | undefined> {
    const row = await this.x.db.selectFrom('webhook_deliveries').select(COLUMNS).where('id', '=', id).executeTakeFirst()
    return row ? webhookDeliveryRows.fromRow(row) : undefined
  }

  /** An instance's deliveries, newest first, optionally of one status, at most `filter.limit` (default 50). */
  async list(instanceId: string, filter: DeliveryFilter = {}): Promise<WebhookDelivery[]> {
    let q = this.x.db.selectFrom('webhook_deliveries').select(COLUMNS).where('instance_id', '=', instanceId)
    if (filter.status) q = q.where('status', '=', filter.status)
    const rows = await q.orderBy('seq', 'desc').limit(filter.limit ?? 50).execute()
    return rows.map(webhookDeliveryRows.fromRow)
  }

  /** Every pending delivery (of `instanceId` when given), oldest first: what a start (or a worker's claim of the instance) resumes. */
  async pending(instanceId?: string): Promise<WebhookDelivery[]> {
    let q = this.x.db.selectFrom('webhook_deliveries').select(COLUMNS).where('status', '=', 'pending')
    if (instanceId !== undefined) q = q.where('instance_id', '=', instanceId)
    const rows = await q.orderBy('seq').execute()
    return rows.map(webhookDeliveryRows.fromRow)
  }

  /** Ids of the instances that have deliveries. */
  async instanceIds(): Promise<string[]> {
    const rows = await this.x.db.selectFrom('webhook_deliveries').select('instance_id').distinct().execute()
    return rows.map((r) => r.instance_id)
  }

  /**
   * Stores new deliveries in one transaction (all or none); resolves once committed. Finished ones
   * among them (an import) are held to the bounds. Rejects with StorageFullError on a full disk, or
   * the database's error for an id already stored; nothing of the call is stored then.
   */
  async add(deliveries: readonly WebhookDelivery[]): Promise<void> {
    if (deliveries.length > 0) await this.x.write((trx) => this.insert(trx, deliveries))
  }

  private async insert(trx: Kysely<Database>, deliveries: readonly WebhookDelivery[]): Promise<void> {
    for (let i = 0; i < deliveries.length; i += INSERT_CHUNK) {
      await trx.insertInto('webhook_deliveries').values(deliveries.slice(i, i + INSERT_CHUNK).map(webhookDeliveryRows.toRow)).execute()
    }
    const finished = new Map(deliveries.filter((d) => d.status !== 'pending').map((d) => [`${d.instance_id}\n${d.status}`, d]))
    for (const d of finished.values()) await this.prune(trx, d.instance_id, d.status)
  }

  /**
   * Records attempts' outcomes in one write (the outbox gathers those of one moment), then forgets
   * what the bounds no longer keep of the instances whose deliveries finished, once per instance.
   * Answers, per outcome, whether its delivery was there (false: gone with its instance meanwhile).
   * Rejects with the storage's error when the write failed: then nothing of it changed.
   */
  async record(outcomes: readonly RecordedOutcome[]): Promise<boolean[]> {
    if (outcomes.length === 0) return []
    return this.x.write(async (trx) => {
      // A delivery's last outcome of the call is what it is left with, as if each were written in turn.
      const last = new Map<string, RecordedOutcome>()
      for (const o of outcomes) last.set(`${o.instanceId}\n${o.id}`, o)
      const present = new Set<string>()
      for (const { instanceId, columns, delivered } of outcomeGroups(last.values())) {
        for (const part of inLists([...delivered.keys()])) {
          const rows = await trx
            .updateTable('webhook_deliveries')
            .set((eb) => {
              if (!columns.setsDeliveredAt) return columns.set
              const timeOf = (id: string) => delivered.get(id) ?? null
              const [first, ...rest] = part as [string, ...string[]]
              if (rest.every((id) => timeOf(id) === timeOf(first))) return { ...columns.set, delivered_at: timeOf(first) }
              // Each delivery its own time: CASE id WHEN … THEN … END, cast so that PostgreSQL
              // types the parameters as the column.
              const time = (id: string) => eb.cast<number | null>(eb.val(timeOf(id)), 'bigint')
              let at = eb.case('id').when(first).then(time(first))
              for (const id of rest) at = at.when(id).then(time(id))
              return { ...columns.set, delivered_at: at.end() }
            })
            .where('instance_id', '=', instanceId)
            .where('id', 'in', part)
            .returning('id')
            .execute()
          for (const r of rows) present.add(`${instanceId}\n${r.id}`)
        }
      }
      const found = outcomes.map((o) => present.has(`${o.instanceId}\n${o.id}`))
      const finished = new Map<string, { instanceId: string; status: DeliveryStatus }>()
      outcomes.forEach(({ instanceId, outcome: { status } }, i) => {
        if (found[i] && status !== 'pending') finished.set(`${instanceId}\n${status}`, { instanceId, status })
      })
      for (const f of finished.values()) await this.prune(trx, f.instanceId, f.status)
      return found
    })
  }

  /**
   * Makes a failed or pending delivery of `instanceId` pending again, due at `nextAttemptAt` (ISO
   * 8601), to `url` when given, else to its own (a manual retry). Refused, with nothing changed, for
   * an id that is not the instance's (`unknown`) or a delivery already delivered (`delivered`).
   */
  async requeue(instanceId: string, id: string, url: string | null, nextAttemptAt: string): Promise<RequeueResult> {
    return this.x.write(async (trx) => {
      const row = await trx
        .updateTable('webhook_deliveries')
        .set({ status: 'pending', next_attempt_at: timeToMs(nextAttemptAt), ...(url ? { url } : {}) })
        .where('id', '=', id)
        .where('instance_id', '=', instanceId)
        .where('status', '!=', 'delivered')
        .returning(COLUMNS)
        .executeTakeFirst()
      if (row) return { requeued: webhookDeliveryRows.fromRow(row) }
      const found = await trx.selectFrom('webhook_deliveries').select('status').where('id', '=', id).where('instance_id', '=', instanceId).executeTakeFirst()
      return { refused: found ? 'delivered' : 'unknown' }
    })
  }

  /** Forgets every delivery of an instance (deleted); answers how many there were. */
  async removeInstance(instanceId: string): Promise<number> {
    return this.x.write(async (trx) => {
      const res = await trx.deleteFrom('webhook_deliveries').where('instance_id', '=', instanceId).executeTakeFirst()
      return Number(res.numDeletedRows)
    })
  }

  /**
   * Forgets an instance's rows of a finished `status` beyond its bound, oldest first: one index walk
   * to the bound's edge (instance_id, status, seq) and one delete below it.
   */
  private async prune(trx: Kysely<Database>, instanceId: string, status: DeliveryStatus): Promise<void> {
    const keep = status === 'delivered' ? this.bounds.keepDelivered : status === 'failed' ? this.bounds.maxFailed : Infinity
    if (keep === Infinity) return
    const edge = await trx
      .selectFrom('webhook_deliveries')
      .select('seq')
      .where('instance_id', '=', instanceId)
      .where('status', '=', status)
      .orderBy('seq', 'desc')
      .limit(1)
      .offset(keep)
      .executeTakeFirst()
    if (edge) await trx.deleteFrom('webhook_deliveries').where('instance_id', '=', instanceId).where('status', '=', status).where('seq', '<=', edge.seq).execute()
  }
}
