/**
 * Workers and the leases of instances (docs/storage.md "Leases and fencing tokens"): several
 * `npm run serve` processes share one database, and each instance's socket is owned by exactly one of
 * them at a time. The database decides, not a protocol of ours: every decision is ONE conditional
 * statement, so two workers racing never both win, on SQLite (one writer at a time) and on PostgreSQL
 * (`INSERT … ON CONFLICT DO UPDATE … WHERE` locks the row and evaluates the condition on its latest
 * version: https://www.postgresql.org/docs/current/sql-insert.html#SQL-ON-CONFLICT).
 *
 * The lease of an instance is its row in `instance_leases`: the owner, `expires_at` (epoch ms; it
 * holds while `now < expires_at`) and the **fencing token**: 1 at the first claim, one more at every
 * claim that follows an expiry or a release, kept by a renewal. The owner's credential writes carry
 * it ({@link checkFence}; `ChannelAuthRepo`), so once another worker has taken the instance over, a
 * stale owner's writes are refused. The rule is Martin Kleppmann's fencing token
 * (https://martin.kleppmann.com/2016/02/08/how-to-do-distributed-locking.html): the lease's expiry
 * decides who may start a socket; the token, checked by the storage itself, decides whose writes land,
 * whatever the clocks and pauses of the processes.
 *
 * `now` is always the caller's clock (epoch ms), passed in: the repository never reads a clock, so the
 * rules are tested with explicit times. The workers keep that clock in step with the database
 * server's ({@link LeaseRepo.databaseNow}; services/cluster/database-clock.ts), so every worker
 * compares expiries on one time line. Lease statements commit on their own (not in the group commit,
 * ../db/write-queue.ts): a claim's outcome never waits on or fails with unrelated writes, and a
 * statement that locks one row cannot join a deadlock with another worker's batch.
 */
import { sql, type Kysely } from 'kysely'
import { dialectOf } from '../db/dialect'
import { StaleLeaseError } from '../db/errors'
import type { Database } from '../db/schema'
import type { Exec } from './exec'

/** A worker as its heartbeat describes it. */
export interface WorkerInfo {
  /** `CHATAPP_WORKER_ID` (default host:port). */
  id: string
  /** Where the other workers reach it (`CHATAPP_WORKER_URL`). */
  url: string
  /** Epoch ms of the process's start. */
  startedAt: number
  /** The most instances it may own at once; null: no limit. */
  maxInstances: number | null
}

/** A lease held: the token the owner's writes carry. */
export interface Lease {
  token: number
}

/** The worker and token a fenced write carries (see {@link checkFence}). */
export interface Fence {
  worker: string
  token: number
}

/** A live worker and how many unexpired leases it holds ({@link LeaseRepo.leastLoaded}). */
export interface WorkerLoad {
  id: string
  url: string
  maxInstances: number | null
  instances: number
}

/** The cluster as `GET /cluster` shows it ({@link LeaseRepo.cluster}); epoch ms. */
export interface ClusterView {
  workers: Array<{ id: string; url: string; started_at: number; last_seen_at: number; max_instances: number | null; instances: number }>
  /** Every lease row, held or expired (an instance without a row has never been claimed). */
  leases: Array<{ instance_id: string; owner: string; fencing_token: number; expires_at: number; acquired_at: number }>
}

/** Ids per IN list: far below SQLite's 32,766 bound variables. */
const CHUNK = 250

/**
 * Inside a fenced write's transaction: throws {@link StaleLeaseError} unless `instanceId`'s lease is
 * `fence.worker`'s with token `fence.token`. On PostgreSQL the row is read `FOR UPDATE`: a take-over
 * (which updates the row) waits until this transaction ends, and a take-over committed meanwhile is
 * seen (the row no longer matches), so the check holds until the write commits. On SQLite the write
 * lock does the same: one writer at a time, and a transaction whose snapshot a take-over made stale
 * cannot write (SQLITE_BUSY), so nothing stale is stored either way. The expiry is not checked: a
 * lapsed lease nobody took over still fences correctly (the next owner's claim moves the token on),
 * and the writer's clock is not trusted.
 */
export async function checkFence(trx: Kysely<Database>, instanceId: string, fence: Fence): Promise<void> {
  const row = await trx
    .selectFrom('instance_leases')
    .select('instance_id')
    .where('instance_id', '=', instanceId)
    .where('owner', '=', fence.worker)
    .where('fencing_token', '=', fence.token)
    .$if(dialectOf(trx) === 'postgres', (q) => q.forUpdate())
    .executeTakeFirst()
  if (!row) throw new StaleLeaseError(instanceId, fence.worker, fence.token)
}

export class LeaseRepo {
  constructor(private readonly x: Exec) {}

  /**
   * The worker's heartbeat at `now` (epoch ms): creates or updates its `workers` row (url, start,
   * limit, `last_seen_at = now`). Workers seen within `liveWithinMs` count as live for
   * {@link leastLoaded}.
   */
  async heartbeat(worker: WorkerInfo, now: number): Promise<void> {
    const row = { url: worker.url, started_at: worker.startedAt, last_seen_at: now, max_instances: worker.maxInstances }
    await this.x.db
      .insertInto('workers')
      .values({ id: worker.id, ...row })
      .onConflict((oc) => oc.column('id').doUpdateSet(row))
      .execute()
  }

  /**
   * Claims `instanceId` for `worker` at `now` for `ttlMs` ms, in ONE conditional statement
   * (`INSERT … ON CONFLICT (instance_id) DO UPDATE … WHERE expires_at <= now OR owner = worker
   * RETURNING fencing_token`). Succeeds when the instance has no lease (token 1), when its lease has
   * expired or was released (the token is incremented, whoever held it), or when `worker` holds it
   * unexpired (a renewal: the token is kept). Answers the token to carry, or undefined when another
   * worker holds the lease: then nothing changed. Two workers racing for one instance never both win.
   */
  async claim(instanceId: string, worker: string, now: number, ttlMs: number): Promise<Lease | undefined> {
    const expiresAt = now + ttlMs
    const row = await this.x.db
      .insertInto('instance_leases')
      .values({ instance_id: instanceId, owner: worker, fencing_token: 1, expires_at: expiresAt, acquired_at: now })
      .onConflict((oc) =>
        oc
          .column('instance_id')
          .doUpdateSet((eb) => {
            // Still this worker's: a renewal, same token and acquisition time; otherwise a new grant.
            const renewal = eb.and([eb('instance_leases.owner', '=', worker), eb('instance_leases.expires_at', '>', now)])
            return {
              owner: worker,
              expires_at: expiresAt,
              fencing_token: eb.case().when(renewal).then(eb.ref('instance_leases.fencing_token')).else(eb('instance_leases.fencing_token', '+', 1)).end(),
              acquired_at: eb.case().when(renewal).then(eb.ref('instance_leases.acquired_at')).else(eb.val(now)).end()
            }
          })
          .where((eb) => eb.or([eb('instance_leases.expires_at', '<=', now), eb('instance_leases.owner', '=', worker)]))
      )
      .returning('fencing_token')
      .executeTakeFirst()
    return row ? { token: Number(row.fencing_token) } : undefined
  }

  /**
   * Extends the lease of `instanceId` to `now + ttlMs` when it is still `worker`'s with `token` and
   * unexpired at `now` (one conditional UPDATE). False: the lease was lost (taken over, released, or
   * lapsed): stop the socket; {@link claim} it again to start a new one with a new token.
   */
  async renew(instanceId: string, worker: string, token: number, now: number, ttlMs: number): Promise<boolean> {
    const r = await this.x.db
      .updateTable('instance_leases')
      .set({ expires_at: now + ttlMs })
      .where('instance_id', '=', instanceId)
      .where('owner', '=', worker)
      .where('fencing_token', '=', token)
      .where('expires_at', '>', now)
      .executeTakeFirst()
    return Number(r.numUpdatedRows) === 1
  }

  /**
   * Hands every lease of `worker` over at once (SIGTERM, after its sockets stopped): they expire at
   * `now`, token and owner kept, so the next claim increments the token; and the worker's row goes,
   * so {@link leastLoaded} no longer picks it. One transaction. Answers the ids released.
   */
  async release(worker: string, now: number): Promise<string[]> {
    const work = async (trx: Kysely<Database>): Promise<string[]> => {
      const rows = await trx
        .updateTable('instance_leases')
        .set({ expires_at: now })
        .where('owner', '=', worker)
        .where('expires_at', '>', now)
        .returning('instance_id')
        .execute()
      await trx.deleteFrom('workers').where('id', '=', worker).execute()
      return rows.map((r) => r.instance_id).sort()
    }
    return this.x.db.isTransaction ? work(this.x.db) : this.x.db.transaction().execute(work)
  }

  /**
   * Gives up one lease at once (the owner stopped the instance, or logged it out), fenced: only when
   * it is still `fence.worker`'s with `fence.token` and unexpired at `now` (one conditional UPDATE). It
   * expires at `now`, owner and token kept, so the next claim (any worker's) increments the token, as
   * after {@link release}. False: not held with that fence any more (taken over, lapsed): nothing changed.
   */
  async releaseOne(instanceId: string, fence: Fence, now: number): Promise<boolean> {
    const r = await this.x.db
      .updateTable('instance_leases')
      .set({ expires_at: now })
      .where('instance_id', '=', instanceId)
      .where('owner', '=', fence.worker)
      .where('fencing_token', '=', fence.token)
      .where('expires_at', '>', now)
      .executeTakeFirst()
    return Number(r.numUpdatedRows) === 1
  }

  /**
   * Deletes the lease row of a deleted instance (one conditional DELETE): when no worker holds it at
   * `now` (never claimed, released, lapsed), or when `fence` is the holder's. A lease another worker
   * holds stays (its socket runs: the delete must not pull the lease from under it). Answers whether a
   * row went.
   */
  async forget(instanceId: string, fence: Fence | undefined, now: number): Promise<boolean> {
    const r = await this.x.db
      .deleteFrom('instance_leases')
      .where('instance_id', '=', instanceId)
      .where((eb) =>
        eb.or([
          eb('expires_at', '<=', now),
          ...(fence ? [eb.and([eb('owner', '=', fence.worker), eb('fencing_token', '=', fence.token)])] : [])
        ])
      )
      .executeTakeFirst()
    return Number(r.numDeletedRows) === 1
  }

  /** Of `instanceIds`, those without a lease held at `now` (none, expired or released), in the given order (each once). */
  async orphans(instanceIds: readonly string[], now: number): Promise<string[]> {
    const held = new Set<string>()
    const ids = [...new Set(instanceIds)]
    for (let i = 0; i < ids.length; i += CHUNK) {
      const rows = await this.x.db
        .selectFrom('instance_leases')
        .select('instance_id')
        .where('instance_id', 'in', ids.slice(i, i + CHUNK))
        .where('expires_at', '>', now)
        .execute()
      for (const r of rows) held.add(r.instance_id)
    }
    return ids.filter((id) => !held.has(id))
  }

  /**
   * The live workers (heartbeat within `liveWithinMs` of `now`) that may take one more instance,
   * least loaded first: by the number of leases they hold unexpired at `now`, then by id. A worker at
   * its `max_instances` is left out. The first is who should claim the next orphan; the claim itself
   * stays the arbiter (a worker acting on a stale view simply loses the race).
   */
  async leastLoaded(now: number, liveWithinMs: number): Promise<WorkerLoad[]> {
    const rows = await this.x.db
      .selectFrom('workers as w')
      .leftJoin('instance_leases as l', (j) => j.onRef('l.owner', '=', 'w.id').on('l.expires_at', '>', now))
      .select((eb) => ['w.id', 'w.url', 'w.max_instances', eb.fn.count<number>('l.instance_id').as('instances')])
      .where('w.last_seen_at', '>=', now - liveWithinMs)
      .groupBy(['w.id', 'w.url', 'w.max_instances'])
      .having((eb) => eb.or([eb('w.max_instances', 'is', null), eb(eb.fn.count('l.instance_id'), '<', eb.ref('w.max_instances'))]))
      .orderBy('instances')
      .orderBy('w.id')
      .execute()
    return rows.map((r) => ({ id: r.id, url: r.url, maxInstances: r.max_instances === null ? null : Number(r.max_instances), instances: Number(r.instances) }))
  }

  /**
   * The data of `GET /cluster` at `now`: every worker row (by id) with the number of leases it holds
   * unexpired, and every lease row (by instance id).
   */
  async cluster(now: number): Promise<ClusterView> {
    const workers = await this.x.db
      .selectFrom('workers as w')
      .leftJoin('instance_leases as l', (j) => j.onRef('l.owner', '=', 'w.id').on('l.expires_at', '>', now))
      .select((eb) => ['w.id', 'w.url', 'w.started_at', 'w.last_seen_at', 'w.max_instances', eb.fn.count<number>('l.instance_id').as('instances')])
      .groupBy(['w.id', 'w.url', 'w.started_at', 'w.last_seen_at', 'w.max_instances'])
      .orderBy('w.id')
      .execute()
    const leases = await this.x.db.selectFrom('instance_leases').selectAll().orderBy('instance_id').execute()
    return {
      workers: workers.map((w) => ({ ...w, instances: Number(w.instances) })),
      leases
    }
  }

  /** The lease row of `instanceId` (held or expired), or undefined when it was never claimed. */
  async lease(instanceId: string): Promise<ClusterView['leases'][number] | undefined> {
    return this.x.db.selectFrom('instance_leases').selectAll().where('instance_id', '=', instanceId).executeTakeFirst()
  }

  /**
   * The database server's time now, epoch ms (PostgreSQL's `clock_timestamp()`, which moves during a
   * transaction, unlike `now()`); null on SQLite, whose "server" is this process's own clock.
   */
  async databaseNow(): Promise<number | null> {
    if (dialectOf(this.x.db) !== 'postgres') return null
    const r = await sql<{ ms: number }>`SELECT (extract(epoch FROM clock_timestamp()) * 1000)::float8 AS ms`.execute(this.x.db)
    const ms = Number(r.rows[0]?.ms)
    return Number.isFinite(ms) ? ms : null
  }

  /**
   * The worker holding `instanceId`'s lease unexpired at `now`, with its URL (one statement); undefined
   * when no worker holds it. For forwarding a request to the owner (api/forward.ts).
   */
  async holder(instanceId: string, now: number): Promise<{ id: string; url: string } | undefined> {
    const row = await this.x.db
      .selectFrom('instance_leases as l')
      .leftJoin('workers as w', 'w.id', 'l.owner')
      .select(['l.owner', 'w.url'])
      .where('l.instance_id', '=', instanceId)
      .where('l.expires_at', '>', now)
      .executeTakeFirst()
    return row ? { id: row.owner, url: row.url ?? '' } : undefined
  }
}
