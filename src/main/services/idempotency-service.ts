/**
 * `Idempotency-Key` on sends (issue 26; docs/design.md §22): the faces ask here before a send made with
 * a key, and store its answer after. A key is good for {@link IDEMPOTENCY_TTL_MS}; the daily retention
 * run purges older ones. The answer stored is the face's (status and body), so the core stays free of
 * HTTP: it keeps only numbers and text.
 */
import { createHash } from 'node:crypto'
import type { Clock } from '../clock'
import type { Caller } from '../../shared/access'
import type { IdempotencyBegin, IdempotencyId, IdempotencyRepo } from '../store/repos/idempotency-repo'

/** How long a key is remembered: a retry within a day of the first request answers its answer. */
export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000

export class IdempotencyService {
  constructor(private readonly deps: { repo: IdempotencyRepo; clock: Clock }) {}

  /** The (key, caller, route) of a request: a key means nothing across callers, operations or instances. */
  idOf(key: string, caller: Caller | undefined, operation: string, instanceId: string): IdempotencyId {
    const who = !caller || caller.kind === 'owner' ? 'owner' : `${caller.kind}:${caller.id}`
    return { key, caller: who, route: `${operation} ${instanceId}` }
  }

  /** sha256 of a request's input (stable JSON), which a retry with the same key must repeat. */
  hashOf(input: unknown): string {
    return createHash('sha256').update(JSON.stringify(input)).digest('hex')
  }

  /** Starts a request with a key (see IdempotencyRepo.begin). */
  begin(id: IdempotencyId, hash: string): Promise<IdempotencyBegin> {
    const now = this.deps.clock.now()
    return this.deps.repo.begin(id, hash, now, now - IDEMPOTENCY_TTL_MS)
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
