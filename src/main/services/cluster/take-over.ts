/**
 * A take-over as clients see it (docs/design.md §22 "Take-overs"): after the worker running an
 * instance stops without a goodbye (`kill -9`, a machine lost), its lease holds until it lapses, the
 * next loop round of a live worker claims the instance, and that worker connects it. Meanwhile:
 *
 * - the status a client reads is the real one, never the CONNECTED the old owner stored: CONNECTING
 *   while nobody that answers holds the lease (it lapses, or its holder cannot be reached), and on the
 *   new owner its session's own state from the claim on ({@link effectiveStatus});
 * - a send waits for the take-over, bounded ({@link TakeOver.route}): for a live worker to hold the
 *   lease (then it goes there), and on the new owner for the connect; past the bound it is a 503 that
 *   says the instance is being taken over and when to retry, nothing sent.
 *
 * In the desktop's SQLite mode there is one process and no take-over: the status is its session's
 * (or the stored one) and a send never waits here.
 */
import type { Clock, Timers } from '../../clock'
import type { ConnectionState } from '../../channel/types'
import type { InstanceRepo } from '../../store/repos'
import type { LeaseHolder, LeaseRepo } from '../../store/repos/lease-repo'
import type { SessionManager } from '../session-manager'
import { RetryLaterError } from '../errors'

/**
 * Who runs an instance's socket, seen from a worker with no session of it: `owner` — another worker
 * that answers holds its lease (the stored status is that owner's own report, relayed through the
 * shared document); `none` — no unexpired lease, or its holder cannot be reached (it stopped: its
 * lease lapses, then another worker claims it).
 */
export type LeaseSide = 'owner' | 'none'

/**
 * The status a client reads (docs/design.md §22 "Take-overs"): the state of the session running on
 * this worker when there is one (`local`, as its channel last reported it); else, in database mode
 * (`lease` given), an instance stored as CONNECTED or CONNECTING that no answering worker holds is
 * CONNECTING — it is being taken over, it does not run anywhere now; else the stored status.
 * `lease` undefined: the desktop's one process (no leases).
 */
export function effectiveStatus(saved: ConnectionState, local: ConnectionState | undefined, lease: LeaseSide | undefined): ConnectionState {
  if (local !== undefined) return local
  if (lease === 'none' && wanted(saved)) return 'CONNECTING'
  return saved
}

/** Stored as running: a worker must run it (the lease loop claims such orphans). */
function wanted(status: ConnectionState | undefined): boolean {
  return status === 'CONNECTED' || status === 'CONNECTING'
}

/** What a client reads about an instance's connection. */
export interface ShownStatus {
  status: ConnectionState
  /** Why it is in that state (a channel's reason, or the take-over under way); null when there is nothing to say. */
  reason: string | null
}

/** Where a request that needs the instance's connection goes once the take-over has settled. */
export type Route = { here: true } | { owner: { id: string; url: string } }

export interface TakeOverDeps {
  instances: Pick<InstanceRepo, 'find'>
  sessions: Pick<SessionManager, 'state' | 'stateReason' | 'takingOverHere' | 'nextChange'>
  /** Database mode: the lease statements. Absent: the desktop's one process. */
  leases?: Pick<LeaseRepo, 'holder' | 'cluster'>
  /** This worker's id. */
  self: string
  /** The lease clock (in step with the database's: services/cluster/database-clock.ts). */
  clock: Clock
  timers: Timers
  /** The lease time to live, ms (`CHATAPP_LEASE_TTL_MS`). */
  ttlMs: number
}

/**
 * How long the new owner's connect may take within a send's wait, ms: a login of the real channel
 * takes about a second (docs/design.md §22 "Failover on the real channel"), a slow network several.
 */
export const CONNECT_ALLOWANCE_MS = 5_000

export class TakeOver {
  /**
   * Workers a request could not connect to: the heartbeat they had then (null: not known), and when
   * (lease clock). See {@link unreachable}.
   */
  private readonly refused = new Map<string, { seen: number | null; at: number }>()

  constructor(private readonly deps: TakeOverDeps) {}

  /** The lease loop's period, ms (as WorkerLeases.periodMs): how long an orphan waits for its claim at most. */
  private get periodMs(): number {
    return Math.max(50, Math.floor(this.deps.ttlMs / 3))
  }

  /**
   * The longest a send waits for a take-over, ms: the old lease lapsing (at most the TTL), the next
   * loop round claiming the instance (a period) and the new owner's connect ({@link CONNECT_ALLOWANCE_MS}).
   * 25 s with the default 15 s TTL.
   */
  get waitMs(): number {
    return this.deps.ttlMs + this.periodMs + CONNECT_ALLOWANCE_MS
  }

  /** The lease clock's time now, epoch ms (deadlines of {@link route}). */
  now(): number {
    return this.deps.clock.now()
  }

  /**
   * A request to `worker` found no one there (the connection refused: nothing was sent). Until that
   * worker's heartbeat moves on from the one it had (`lastSeenAt`, when the caller read it with the
   * lease), its leases count as held by nobody that answers: the status reads CONNECTING and sends
   * wait for the take-over instead of trying it again. A worker that was only out of reach for a
   * moment clears this with its next heartbeat (a loop period).
   */
  unreachable(worker: { id: string; lastSeenAt?: number | null }): void {
    this.refused.set(worker.id, { seen: worker.lastSeenAt ?? null, at: this.deps.clock.now() })
  }

  /**
   * True when `holder` no longer answers for its leases: a request could not reach it since its last
   * heartbeat ({@link unreachable}), or its last heartbeat is older than the deadline after which a
   * live worker stops its own sockets (TTL − TTL/5 without a renewal; its renewals follow its
   * heartbeat in each round: services/cluster/worker-leases.ts), so none of its sessions runs now.
   * The heartbeat is compared with the one seen at the refusal, not with this worker's clock: the
   * workers' database-aligned clocks differ by a few ms, and a heartbeat written just before the
   * worker died would else look newer than the refusal.
   */
  cannotReach(holder: Pick<LeaseHolder, 'id' | 'lastSeenAt'>): boolean {
    if (holder.lastSeenAt !== null && this.deps.clock.now() - holder.lastSeenAt > this.deadlineMs) return true
    const refusal = this.refused.get(holder.id)
    if (refusal === undefined) return false
    const since = refusal.seen ?? refusal.at
    if (holder.lastSeenAt !== null && holder.lastSeenAt > since) {
      this.refused.delete(holder.id)
      return false
    }
    return true
  }

  /** How long a worker runs its sockets without a renewal, ms (WorkerLeases' deadline: TTL − TTL/5, at least 50 ms less). */
  private get deadlineMs(): number {
    return this.deps.ttlMs - Math.max(50, Math.floor(this.deps.ttlMs / 5))
  }

  /** The status and reason a client reads for `instanceId` on this worker ({@link effectiveStatus}). */
  async status(instanceId: string): Promise<ShownStatus> {
    const saved = this.deps.instances.find(instanceId)?.settings.status ?? 'DISCONNECTED'
    const local = this.deps.sessions.state(instanceId)
    const reason = this.deps.sessions.stateReason(instanceId) ?? null
    if (local !== undefined || !this.deps.leases || !wanted(saved)) return { status: effectiveStatus(saved, local, undefined), reason }
    const holder = await this.deps.leases.holder(instanceId, this.deps.clock.now())
    if (holder && holder.id !== this.deps.self && !this.cannotReach(holder)) return { status: saved, reason }
    return { status: effectiveStatus(saved, local, 'none'), reason: `Being taken over: ${this.pending(holder)}.` }
  }

  /**
   * The statuses of `instanceIds` as clients read them (lists): one read of the leases for all.
   * Answers a map by id.
   */
  async statuses(instanceIds: readonly string[]): Promise<Map<string, ConnectionState>> {
    const out = new Map<string, ConnectionState>()
    const leases = this.deps.leases
    const saved = (id: string) => this.deps.instances.find(id)?.settings.status ?? 'DISCONNECTED'
    const needLeases = leases && instanceIds.some((id) => this.deps.sessions.state(id) === undefined && wanted(saved(id)))
    const now = this.deps.clock.now()
    const view = needLeases ? await leases.cluster(now) : undefined
    const seen = new Map(view?.workers.map((w) => [w.id, Number(w.last_seen_at)]))
    const held = new Map(view?.leases.filter((l) => Number(l.expires_at) > now).map((l) => [l.instance_id, l.owner]))
    for (const id of instanceIds) {
      const owner = held.get(id)
      const side: LeaseSide | undefined = !leases ? undefined : owner !== undefined && owner !== this.deps.self && !this.cannotReach({ id: owner, lastSeenAt: seen.get(owner) ?? null }) ? 'owner' : 'none'
      out.set(id, effectiveStatus(saved(id), this.deps.sessions.state(id), side))
    }
    return out
  }

  /**
   * Where a request that needs `instanceId`'s connection (a send) should run, once any take-over
   * under way has settled: here (this worker runs it, or nothing is under way: no worker should run
   * it), or the live worker holding its lease. Waits while the instance is being taken over — its
   * holder cannot be reached, or no worker holds an instance stored as running, or this worker
   * claimed it and its session still connects — until `until` (lease clock, epoch ms); then throws
   * a 503 {@link RetryLaterError} saying so, with a Retry-After. Woken by the session's state changes
   * here; the lease is read again every quarter of a loop period (at most 250 ms).
   */
  async route(instanceId: string, until: number): Promise<Route> {
    const poll = Math.min(250, Math.max(20, Math.floor(this.periodMs / 4)))
    for (;;) {
      const now = this.deps.clock.now()
      if (this.deps.sessions.takingOverHere(instanceId)) {
        if (now >= until) throw this.busy(`This instance is being taken over by worker ${this.deps.self}, which is still connecting it (the worker that ran it stopped); nothing was sent.`, this.periodMs)
        await this.wake(instanceId, until - now)
        continue
      }
      if (!this.deps.leases || this.deps.sessions.state(instanceId) !== undefined) return { here: true }
      const holder = await this.deps.leases.holder(instanceId, now)
      // Read after the lease: the claim's session may have started here meanwhile.
      if (this.deps.sessions.takingOverHere(instanceId)) continue
      if (this.deps.sessions.state(instanceId) !== undefined) return { here: true }
      const saved = this.deps.instances.find(instanceId)?.settings.status
      // Nothing under way: no worker should run it (stopped, logged out, showing a QR that lapsed).
      if (!wanted(saved) && (!holder || holder.id === this.deps.self)) return { here: true }
      if (holder && holder.id !== this.deps.self && !this.cannotReach(holder)) return { owner: { id: holder.id, url: holder.url } }
      // Still under way: the holder cannot be reached (its lease lapses), no worker holds it yet, or
      // this worker's lease loop has just claimed it and is about to start its session.
      if (now >= until) {
        const wait = holder?.id === this.deps.self ? 0 : holder ? Math.max(0, holder.expiresAt - now) + this.periodMs : this.periodMs
        throw this.busy(`This instance is being taken over: ${this.pending(holder)}. Nothing was sent.`, wait + CONNECT_ALLOWANCE_MS)
      }
      await this.wake(instanceId, Math.min(poll, until - now))
    }
  }

  /** Why an instance no answering worker holds is CONNECTING (the take-over under way). */
  private pending(holder: LeaseHolder | undefined): string {
    if (holder?.id === this.deps.self) return `worker ${this.deps.self} has claimed it and is starting its connection`
    if (holder) {
      return `worker ${holder.id}, which ran it, cannot be reached; its lease lapses by ${new Date(holder.expiresAt).toISOString()}, then another worker connects it`
    }
    return 'no worker runs it at the moment; the next round of a live worker claims it and connects it'
  }

  private busy(message: string, waitMs: number): RetryLaterError {
    return new RetryLaterError(`${message} Retry in ${Math.max(1, Math.ceil(waitMs / 1000))} s.`, Math.max(1, Math.ceil(waitMs / 1000)), 'SERVICE_UNAVAILABLE')
  }

  /** Resolves at the instance's next state change here or after `ms`, whichever comes first. */
  private async wake(instanceId: string, ms: number): Promise<void> {
    const done = new AbortController()
    let timer: unknown = null
    await Promise.race([this.deps.sessions.nextChange(instanceId, done.signal), new Promise<void>((resolve) => (timer = this.deps.timers.setTimeout(resolve, Math.max(0, ms))))])
    this.deps.timers.clearTimeout(timer)
    done.abort()
  }
}
