/**
 * `Idempotency-Key` on sends (docs/design.md §22): the faces ask here before a send made with
 * a key, and store its answer after. A key is good for {@link IDEMPOTENCY_TTL_MS}; the daily retention
 * run purges older ones. The answer stored is the face's (status and body), so the core stays free of
 * HTTP: it keeps only numbers and text.
 */
import { createHash } from 'node:crypto'
import type { Clock } from '../clock'
import type { Caller } from '../../shared/access'
import type { IdempotencyBegin, IdempotencyId, IdempotencyRepo, IdempotencyTaker } from '../store/repos/idempotency-repo'

/**
 * What a request with a key finds: as the repository answers, or `orphaned` — the first request's
 * taker is gone (its process stopped, or its lease on the instance moved) before it answered, so it
 * will never answer, and whether it sent is unknown.
 */
export type IdempotencyOutcome = Exclude<IdempotencyBegin, { state: 'running' }> | { state: 'running' } | { state: 'orphaned'; taker: IdempotencyTaker }

export interface IdempotencyDeps {
  repo: IdempotencyRepo
  clock: Clock
  /** Who this process is for a request on `instanceId`: its worker and lease token, or its run id. */
  taker: (instanceId: string) => IdempotencyTaker
  /** Whether `taker` may still be running a request on `instanceId` (its run, or its lease, lives on). */
  alive: (instanceId: string, taker: IdempotencyTaker) => Promise<boolean>
}

/** How long a key is remembered: a retry within a day of the first request answers its answer. */
export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000

export class IdempotencyService {
  constructor(private readonly deps: IdempotencyDeps) {}

  /** The (key, caller, route) of a request: a key means nothing across callers, operations or instances. */
  idOf(key: string, caller: Caller | undefined, operation: string, instanceId: string): IdempotencyId {
    const who = !caller || caller.kind === 'owner' ? 'owner' : `${caller.kind}:${caller.id}`
    return { key, caller: who, route: `${operation} ${instanceId}` }
  }

  /** sha256 of a request's input (stable JSON), which a retry with the same key must repeat. */
  hashOf(input: unknown): string {
    return createHash('sha256').update(JSON.stringify(input)).digest('hex')
  }

  /**
   * Starts a request with a key on `instanceId` (see IdempotencyRepo.begin), taken by this process;
   * a first request still in progress whose taker is gone answers `orphaned`, not `running`.
   */
  async begin(id: IdempotencyId, hash: string, instanceId: string): Promise<IdempotencyOutcome> {
    const now = this.deps.clock.now()
    const found = await this.deps.repo.begin(id, hash, now, now - IDEMPOTENCY_TTL_MS, this.deps.taker(instanceId))
    if (found.state !== 'running') return found
    // A row of a release before the taker was stored: nothing tells, so it counts as running.
    if (found.taker && !(await this.deps.alive(instanceId, found.taker))) return { state: 'orphaned', taker: found.taker }
    return { state: 'running' }
  }

  /** Stores the answer a retry will get. */
  finish(id: IdempotencyId, status: number, body: string): Promise<void> {
    return this.deps.repo.finish(id, status, body)
  }

  /** Forgets a request that failed in a way a retry may fix (a 5xx, a 409, a 429): the retry runs. */
  abandon(id: IdempotencyId): Promise<void> {
    return this.deps.repo.abandon(id)
  }
}
