/**
 * `Idempotency-Key` on sends (docs/design.md §22): the first answer of a request made with a
 * key, so that a retry after a lost answer sends nothing twice. Each decision is ONE statement that
 * commits on its own (not in the group commit): two retries racing (on one worker or two) never both
 * start, because only one INSERT of the (key, caller, route) row succeeds.
 */
import type { Exec } from './exec'

/** What a request with a key finds ({@link IdempotencyRepo.begin}). */
export type IdempotencyBegin =
  | { state: 'new' }
  | { state: 'running'; taker: IdempotencyTaker | null }
  | { state: 'mismatch' }
  | { state: 'done'; status: number; body: string }

/**
 * Who took a request: the worker and its lease token on the instance (database mode), or this
 * process's run id and a null token (one process). Null for rows of releases before migration 6.
 */
export interface IdempotencyTaker {
  worker: string
  token: number | null
}

export interface IdempotencyId {
  key: string
  caller: string
  route: string
}

export class IdempotencyRepo {
  constructor(private readonly x: Exec) {}

  /**
   * Starts the request `id` with input hash `hash` at `now`, taken by `taker`: `new` when this is the
   * first (its row is made, in progress), else what the first left: `running` with its taker, `done`
   * with its answer, or `mismatch` when the first had another input. A row made before
   * `expiredBefore` counts as absent (replaced).
   */
  async begin(id: IdempotencyId, hash: string, now: number, expiredBefore: number, taker: IdempotencyTaker): Promise<IdempotencyBegin> {
    await this.x.db.deleteFrom('idempotency_keys').where('key', '=', id.key).where('caller', '=', id.caller).where('route', '=', id.route).where('created_at', '<', expiredBefore).execute()
    const made = await this.x.db
      .insertInto('idempotency_keys')
      .values({ ...id, request_hash: hash, status: null, body: null, created_at: now, taken_by: taker.worker, fencing_token: taker.token })
      .onConflict((oc) => oc.columns(['key', 'caller', 'route']).doNothing())
      .returning('key')
      .executeTakeFirst()
    if (made) return { state: 'new' }
    const row = await this.x.db
      .selectFrom('idempotency_keys')
      .select(['request_hash', 'status', 'body', 'taken_by', 'fencing_token'])
      .where('key', '=', id.key)
      .where('caller', '=', id.caller)
      .where('route', '=', id.route)
      .executeTakeFirst()
    // Gone meanwhile (the first request failed and let go of it): this one may start it.
    if (!row) return this.begin(id, hash, now, expiredBefore, taker)
    if (row.request_hash !== hash) return { state: 'mismatch' }
    if (row.status === null || row.body === null) {
      return { state: 'running', taker: row.taken_by === null ? null : { worker: row.taken_by, token: row.fencing_token === null ? null : Number(row.fencing_token) } }
    }
    return { state: 'done', status: Number(row.status), body: row.body }
  }

  /** Stores the answer of the request `id` begun here. */
  async finish(id: IdempotencyId, status: number, body: string): Promise<void> {
    await this.x.db.updateTable('idempotency_keys').set({ status, body }).where('key', '=', id.key).where('caller', '=', id.caller).where('route', '=', id.route).execute()
  }

  /** Lets go of the request `id` (it failed in a way a retry may fix): a retry runs it again. */
  async abandon(id: IdempotencyId): Promise<void> {
    await this.x.db.deleteFrom('idempotency_keys').where('key', '=', id.key).where('caller', '=', id.caller).where('route', '=', id.route).execute()
  }

  /** Deletes the rows made before `before` (epoch ms); answers how many. */
  async purgeBefore(before: number): Promise<number> {
    const r = await this.x.db.deleteFrom('idempotency_keys').where('created_at', '<', before).executeTakeFirst()
    return Number(r.numDeletedRows)
  }
}
