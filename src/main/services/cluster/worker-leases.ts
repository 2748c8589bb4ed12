/**
 * The workers' lease loop (docs/design.md §22, docs/storage.md "Leases and fencing tokens"): in database mode several `npm run
 * serve` processes share one database, and each instance's socket runs on exactly one of them, the
 * holder of its lease (store/repos/lease-repo.ts has the rules and the SQL; this service only decides
 * when to call them). Every `ttl / 3` ms a worker:
 *
 * 1. heartbeats (its `workers` row: live for the others' choice of who claims);
 * 2. renews each lease it holds; a lost renewal (taken over, released, lapsed) stops that instance's
 *    session at once, without logging out or touching its credentials;
 * 3. marks DISCONNECTED the instances saved as showing a QR that no worker holds (a stopped worker's);
 * 4. lists the orphans among the instances that should run (saved CONNECTED or CONNECTING) and claims
 *    those {@link assignOrphans} gives it (least loaded live worker, each worker's maximum kept), then
 *    starts each one's session with the fence `{worker, token}` its credential writes carry.
 *
 * A lease counts from just before the renewal that succeeded was sent (this process's clock): once
 * `ttl − margin` has passed since then without another success (the database out of reach, or slow),
 * the session stops, before another worker may claim the instance. `stop()` (SIGTERM) stops the
 * sessions and then releases every lease, so the others claim at once.
 *
 * Pure decisions apart from I/O: the repository, the sessions, the clock and the timers are passed in.
 */
import type { Clock, Timers } from '../../clock'
import type { Logger } from '../../logger'
import type { Fence, LeaseRepo, WorkerInfo, WorkerLoad } from '../../store/repos/lease-repo'
import { AppError } from '../../errors'

/**
 * A request for an instance whose lease another worker holds (a 409 naming that worker and its URL):
 * nothing was done here. The HTTP face forwards such requests to the owner before they get here
 * (api/forward.ts); this answers the races (the lease moved meanwhile) and what cannot be forwarded.
 */
export class OwnedElsewhereError extends AppError {
  constructor(
    readonly instanceId: string,
    readonly owner: string,
    readonly ownerUrl: string | undefined,
    hint = 'send the request there'
  ) {
    super('CONFLICT', `This instance runs on worker ${owner}${ownerUrl ? ` (${ownerUrl})` : ''}; ${hint}.`)
  }
}

/** The lease statements the loop uses (LeaseRepo's). */
export type LeasePort = Pick<LeaseRepo, 'heartbeat' | 'claim' | 'renew' | 'release' | 'releaseOne' | 'forget' | 'orphans' | 'leastLoaded' | 'holder' | 'lease'>

/** What the loop does to sessions (the session manager's). */
export interface SessionPort {
  /** Starts the instance's session with `fence` (the restore path for one instance). Never rejects. */
  resume(instanceId: string, fence: Fence): Promise<void>
  /** Stops the instance's session because its lease is lost: no state written, credentials kept. */
  drop(instanceId: string): Promise<void>
  /** Stops every session (shutdown); saved statuses kept. */
  closeAll(): Promise<void>
  /** True while a session of the instance runs here. */
  has(instanceId: string): boolean
  /** The instance is saved as showing a QR but no worker holds it: that QR is gone (DISCONNECTED). */
  qrAbandoned(instanceId: string): Promise<void>
}

export interface WorkerLeasesDeps {
  leases: LeasePort
  sessions: SessionPort
  /** This worker: id, url, start, maximum. */
  worker: WorkerInfo
  /** Lease time to live, ms (`CHATAPP_LEASE_TTL_MS`). */
  ttlMs: number
  /** The instance ids that should run somewhere (saved as connected). */
  wanted: () => string[]
  /** The instance ids saved as showing a QR (pairing on some worker, or left over by one that stopped). */
  pairing: () => string[]
  clock: Clock
  /** Measures the clock's offset from the database's again (DatabaseAlignedClock.sync), each round. */
  syncClock?: () => Promise<unknown>
  timers: Timers
  logger: Logger
  /**
   * Told each lease this worker comes to hold (`true`) or stops holding (`false`): the instance's
   * background jobs (webhook deliveries, broadcasts, schedules) follow its lease (docs/design.md §22).
   */
  onLease?: (instanceId: string, held: boolean) => void
}

/**
 * Which of `orphans` `me` should claim, given the live workers' loads (`leastLoaded`'s answer, those
 * at their maximum already left out): each orphan in turn goes to the least loaded worker that is
 * still under its maximum (ties by id), and its count goes up, so a batch of orphans spreads over the
 * workers as their own loops would spread it. The claim stays the arbiter; this only avoids every
 * worker racing for every orphan. Answers `me`'s share, in the orphans' order.
 */
export function assignOrphans(orphans: readonly string[], loads: readonly WorkerLoad[], me: string): string[] {
  const counts = loads.map((l) => ({ ...l }))
  const mine: string[] = []
  for (const id of orphans) {
    const open = counts.filter((w) => w.maxInstances === null || w.instances < w.maxInstances)
    if (open.length === 0) break
    const pick = open.reduce((a, b) => (b.instances < a.instances || (b.instances === a.instances && b.id < a.id) ? b : a))
    pick.instances++
    if (pick.id === me) mine.push(id)
  }
  return mine
}

interface Held {
  token: number
  /** The clock's time just before the renewal (or claim) that last succeeded was sent. */
  since: number
}

export class WorkerLeases {
  private readonly held = new Map<string, Held>()
  private timer: unknown = null
  /** Fires at the earliest `since + ttl − margin` of the leases held (see {@link armDeadline}). */
  private deadline: unknown = null
  private ticking: Promise<void> | null = null
  private stopped = false

  constructor(private readonly deps: WorkerLeasesDeps) {}

  /** The worker this loop runs as. */
  get worker(): WorkerInfo {
    return this.deps.worker
  }

  /** The loop's period, ms: a third of the TTL, so two renewals may fail before a lease lapses. */
  get periodMs(): number {
    return Math.max(50, Math.floor(this.deps.ttlMs / 3))
  }

  /** How long before a lease's expiry its session stops when no renewal succeeded, ms (clock drift, the stop's own time). */
  get marginMs(): number {
    return Math.max(50, Math.floor(this.deps.ttlMs / 5))
  }

  /** Starts the loop: a first round now, then one every {@link periodMs}. */
  async start(): Promise<void> {
    await this.tick()
    this.arm()
  }

  /** One round now (tests; the timer calls it too). Never rejects; rounds never overlap. */
  tick(): Promise<void> {
    if (this.stopped) return Promise.resolve()
    // Even while a round waits on an unreachable database, the deadline check runs (it needs no I/O).
    this.expireStale(this.deps.clock.now())
    if (this.ticking) return this.ticking
    this.ticking = this.round()
      .catch((err: unknown) => this.deps.logger.warn({ err }, 'lease loop: the database could not be reached'))
      .finally(() => {
        this.ticking = null
        this.armDeadline()
      })
    return this.ticking
  }

  /** True while this worker holds `instanceId`'s lease: the instance's jobs run here (docs/design.md §22). */
  holds(instanceId: string): boolean {
    return this.held.has(instanceId)
  }

  private gained(instanceId: string, h: Held): void {
    const had = this.held.has(instanceId)
    this.held.set(instanceId, h)
    if (!had) this.tell(instanceId, true)
  }

  private dropped(instanceId: string): boolean {
    if (!this.held.delete(instanceId)) return false
    this.tell(instanceId, false)
    return true
  }

  private dropAll(): void {
    for (const id of [...this.held.keys()]) this.dropped(id)
  }

  private tell(instanceId: string, held: boolean): void {
    try {
      this.deps.onLease?.(instanceId, held)
    } catch (err) {
      this.deps.logger.error({ err, instanceId }, 'a lease listener failed')
    }
  }

  /** The fence of an instance this worker holds, if any. */
  fenceOf(instanceId: string): Fence | undefined {
    const h = this.held.get(instanceId)
    return h ? { worker: this.deps.worker.id, token: h.token } : undefined
  }

  /**
   * Whether `fence` still holds `instanceId`'s lease (a request taken under it may still answer):
   * this worker's own fences are answered from what it holds, another worker's from the lease row
   * (same owner and token, unexpired).
   */
  async holdsFence(instanceId: string, fence: Fence): Promise<boolean> {
    if (fence.worker === this.deps.worker.id) return this.fenceOf(instanceId)?.token === fence.token
    const row = await this.deps.leases.lease(instanceId)
    return !!row && row.owner === fence.worker && Number(row.fencing_token) === fence.token && Number(row.expires_at) > this.deps.clock.now()
  }

  /**
   * Claims `instanceId` for a start asked of this worker (init, a logout): answers the fence when this
   * worker holds it or could claim it. Throws {@link OwnedElsewhereError} (a 409 naming the owner
   * worker and its URL) when another worker holds it.
   */
  async acquire(instanceId: string): Promise<Fence> {
    if (this.stopped) throw new AppError('CONFLICT', 'This worker is shutting down; try again on another worker.')
    const held = this.fenceOf(instanceId)
    if (held) return held
    const now = this.deps.clock.now()
    const lease = await this.deps.leases.claim(instanceId, this.deps.worker.id, now, this.deps.ttlMs)
    if (lease) {
      this.gained(instanceId, { token: lease.token, since: now })
      this.armDeadline()
      return { worker: this.deps.worker.id, token: lease.token }
    }
    const owner = await this.deps.leases.holder(instanceId, now)
    throw new OwnedElsewhereError(instanceId, owner?.id ?? 'another worker', owner?.url || undefined)
  }

  /** A credential write was refused (StaleLeaseError): another worker owns the instance; stop here at once. */
  async lost(instanceId: string): Promise<void> {
    if (!this.dropped(instanceId) && !this.deps.sessions.has(instanceId)) return
    this.deps.logger.warn({ instanceId }, 'lease lost (a credential write was fenced off): session stopped')
    await this.deps.sessions.drop(instanceId)
  }

  /**
   * The owner stopped `instanceId` here (Stop, a logout), its session already stopped: gives its lease
   * up at once, fenced by this worker's token (LeaseRepo.releaseOne), so `init` on another worker
   * claims it now instead of after the TTL. Nothing when this worker does not hold it. Never rejects:
   * a release that fails (the database out of reach) leaves the lease to lapse, as before.
   */
  async release(instanceId: string): Promise<void> {
    const fence = this.fenceOf(instanceId)
    if (!fence) return
    this.dropped(instanceId)
    this.armDeadline()
    // A round in flight may have sent this lease's renewal already; carrying the round's earlier time,
    // it would still match a lease released now and extend it. Let that round end first (at most a
    // period); the rounds after it no longer see the lease.
    await this.roundOrPeriod()
    try {
      await this.deps.leases.releaseOne(instanceId, fence, this.deps.clock.now())
    } catch (err) {
      this.deps.logger.warn({ err, instanceId }, 'could not release the lease of a stopped instance; it lapses after the TTL')
    }
  }

  /**
   * `instanceId` was deleted: its lease row goes (LeaseRepo.forget: when no worker holds it, or with
   * this worker's fence; never another worker's live lease). Never rejects (a row left behind is
   * harmless: no instance wants it).
   */
  async forget(instanceId: string): Promise<void> {
    const fence = this.fenceOf(instanceId)
    if (fence) this.dropped(instanceId)
    this.armDeadline()
    await this.roundOrPeriod()
    try {
      await this.deps.leases.forget(instanceId, fence, this.deps.clock.now())
    } catch (err) {
      this.deps.logger.warn({ err, instanceId }, 'could not delete the lease row of a deleted instance')
    }
  }

  /**
   * SIGTERM: stops the loop and the sessions, then releases every lease of this worker at once (its
   * row goes too), so the others claim its instances in their next round instead of after the TTL.
   */
  async stop(): Promise<void> {
    if (this.stopped) return
    await this.halt()
    try {
      await this.deps.leases.release(this.deps.worker.id, this.deps.clock.now())
    } catch (err) {
      // The leases then lapse after the TTL: the others take over a little later.
      this.deps.logger.warn({ err }, 'could not release the leases at shutdown')
    }
  }

  /**
   * Stops the loop and the sessions and releases nothing (the leases lapse after the TTL): the first
   * half of {@link stop}, and the tests' stand-in for a worker killed with no goodbye.
   */
  async halt(): Promise<void> {
    this.stopped = true
    this.clearTimers()
    await this.roundOrPeriod()
    await this.deps.sessions.closeAll()
    this.dropAll()
  }

  /**
   * Waits for the round in flight, but no longer than a loop period: a round stuck on an unreachable
   * database must not hold the sockets open at shutdown (a stopped loop starts nothing it claims).
   */
  private async roundOrPeriod(): Promise<void> {
    if (!this.ticking) return
    let timer: unknown = null
    await Promise.race([this.ticking, new Promise<void>((resolve) => (timer = this.deps.timers.setTimeout(resolve, this.periodMs)))])
    this.deps.timers.clearTimeout(timer)
  }

  private clearTimers(): void {
    if (this.timer !== null) this.deps.timers.clearTimeout(this.timer)
    if (this.deadline !== null) this.deps.timers.clearTimeout(this.deadline)
    this.timer = this.deadline = null
  }

  /**
   * Arms the deadline timer at the earliest moment a held lease's session must stop if no renewal
   * succeeds before it (`since + ttl − margin`): on its own timer, not at the loop's ticks, so the
   * stop comes before the expiry whatever the phase of the loop and however long a round hangs.
   */
  private armDeadline(): void {
    if (this.deadline !== null) this.deps.timers.clearTimeout(this.deadline)
    this.deadline = null
    if (this.stopped || this.held.size === 0) return
    const first = Math.min(...[...this.held.values()].map((h) => h.since)) + this.deps.ttlMs - this.marginMs
    this.deadline = this.deps.timers.setTimeout(() => {
      this.deadline = null
      this.expireStale(this.deps.clock.now())
      this.armDeadline()
    }, Math.max(0, first - this.deps.clock.now()))
  }

  private arm(): void {
    if (this.stopped) return
    this.timer = this.deps.timers.setTimeout(() => {
      // Re-armed before the round, not after: a round stuck on an unreachable database must not
      // stop the next ticks, whose deadline check stops the sockets in time.
      this.arm()
      void this.tick()
    }, this.periodMs)
  }

  /** Stops the sessions whose lease may have lapsed: no renewal succeeded within `ttl − margin`. */
  private expireStale(now: number): void {
    for (const [id, h] of this.held) {
      if (now - h.since < this.deps.ttlMs - this.marginMs) continue
      this.dropped(id)
      this.deps.logger.warn({ instanceId: id }, 'lease not renewed in time (database out of reach?): session stopped before it could expire')
      void this.deps.sessions.drop(id)
    }
  }

  private async round(): Promise<void> {
    const { leases, worker, ttlMs, sessions } = this.deps
    await this.deps.syncClock?.()
    const now = this.deps.clock.now()
    await leases.heartbeat(worker, now)
    const wanted = this.deps.wanted()
    const wantedSet = new Set(wanted)
    for (const [id, h] of [...this.held]) {
      if (this.stopped) return
      // Neither wanted nor running here (logged out, stopped by the owner): let the lease lapse.
      if (!sessions.has(id) && !wantedSet.has(id)) {
        this.dropped(id)
        continue
      }
      const ok = await leases.renew(id, worker.id, h.token, now, ttlMs)
      if (this.held.get(id) !== h) continue
      if (ok) h.since = now
      else {
        this.dropped(id)
        this.deps.logger.warn({ instanceId: id }, 'lease lost (another worker took it over): session stopped')
        await sessions.drop(id)
      }
    }
    if (this.stopped) return
    // A QR no worker holds a lease for was left by a worker that stopped: nobody shows it any more
    // (the single process's restore() does the same at start).
    const pairing = this.deps.pairing()
    if (pairing.length > 0) {
      for (const id of await leases.orphans(pairing, now)) if (!sessions.has(id)) await sessions.qrAbandoned(id)
    }
    const orphans = await leases.orphans(wanted, now)
    if (orphans.length === 0) return
    const loads = await leases.leastLoaded(now, ttlMs)
    for (const id of assignOrphans(orphans, loads, worker.id)) {
      if (this.stopped) return
      const lease = await leases.claim(id, worker.id, now, ttlMs)
      // Stopped meanwhile: no socket; stop()'s release (after this round) frees the lease again.
      if (!lease || this.stopped) continue
      this.gained(id, { token: lease.token, since: now })
      this.deps.logger.info({ instanceId: id, token: lease.token }, 'instance claimed')
      void sessions.resume(id, { worker: worker.id, token: lease.token })
    }
  }
}
