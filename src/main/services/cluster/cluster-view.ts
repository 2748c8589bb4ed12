/**
 * `GET /cluster` (docs/design.md §22): the workers sharing the database and which of them holds each instance.
 * In database mode from the lease tables (store/repos/lease-repo.ts `cluster`); in the desktop's
 * SQLite mode this one process is the only worker and runs every instance it has a session for.
 */
import type { Clock } from '../../clock'
import type { ClusterT } from '../../../shared/operations/table/cluster'
import type { ConnectionStatus, Instance } from '../../../shared/schemas/records'
import type { InstanceRepo } from '../../store/repos'
import type { LeaseRepo, WorkerInfo, WorkerLoad } from '../../store/repos/lease-repo'
import { AppError } from '../../errors'

/** The answer of `GET /cluster` (the operation table's shape); owner null: no worker holds the instance. */
export type ClusterInfo = ClusterT

export interface ClusterViewDeps {
  instances: InstanceRepo
  clock: Clock
  /** This process as a worker. */
  worker: WorkerInfo
  /** Database mode: the lease tables. Absent: SQLite mode, one process. */
  leases?: Pick<LeaseRepo, 'cluster' | 'holder' | 'leastLoaded'>
  /** The lease time (CHATAPP_LEASE_TTL_MS), ms: a worker seen within it counts as live. */
  ttlMs: number
  /** Whether a session of the instance runs here. */
  running: (instanceId: string) => boolean
  /** Whether this worker claimed the instance from another and its session is not CONNECTED yet (SessionManager.takingOver). */
  takingOverHere?: (instanceId: string) => boolean
  /** The configuration document this process holds (ConfigStore's), for a forwarded request's catch-up. */
  config?: { readonly version: number | null; atLeast(version: number): Promise<void> }
}

/**
 * Where a start asked of worker `me` should run (docs/design.md §22 "Requests": new and orphaned
 * instances are claimed by the least-loaded worker): `loads` is LeaseRepo.leastLoaded's answer (the live workers with room
 * under their maximum, fewest instances first, ties by id). `me` keeps it when no worker has fewer
 * instances than `me` (no hop for a tie); else the least-loaded worker that others can reach (a URL).
 * 'full': no live worker has room.
 */
export function placeStart(loads: readonly WorkerLoad[], me: string): WorkerLoad | 'here' | 'full' {
  const self = loads.find((l) => l.id === me)
  const least = loads[0]
  if (!least) return 'full'
  if (self && self.instances <= least.instances) return 'here'
  const pick = loads.find((l) => l.id === me || l.url !== '')
  if (!pick) return 'full'
  return pick.id === me ? 'here' : pick
}

/** The shortest wait for a take-over, ms ({@link ClusterView.takeOverWaitMs}). */
const TAKE_OVER_WAIT_FLOOR_MS = 10_000

/** Saved statuses of an instance whose owner had, or was getting, the connection. */
const CONNECTED_BEFORE: ReadonlySet<ConnectionStatus> = new Set(['CONNECTED', 'CONNECTING'])

export class ClusterView {
  constructor(private readonly deps: ClusterViewDeps) {}

  /** The workers (by id) and every instance with the worker holding its lease unexpired now. */
  async view(): Promise<ClusterInfo> {
    const now = this.deps.clock.now()
    const iso = (ms: number) => new Date(ms).toISOString()
    const all = this.deps.instances.all()
    if (!this.deps.leases) {
      const mine = all.filter((i) => this.deps.running(i._id))
      return {
        workers: [{ id: this.deps.worker.id, url: this.deps.worker.url, last_seen_at: iso(now), instances: mine.length, alive: true }],
        instances: all.map((i) => {
          const runs = this.deps.running(i._id)
          return { session_id: i.session_id, owner: runs ? this.deps.worker.id : null, lease_expires_at: null }
        })
      }
    }
    const c = await this.deps.leases.cluster(now)
    const held = new Map(c.leases.filter((l) => Number(l.expires_at) > now).map((l) => [l.instance_id, l]))
    return {
      // A worker's heartbeat is every TTL/3: one unseen for a whole TTL has stopped or lost the database.
      workers: c.workers.map((w) => ({ id: w.id, url: w.url, last_seen_at: iso(Number(w.last_seen_at)), instances: w.instances, alive: Number(w.last_seen_at) >= now - this.deps.ttlMs })),
      instances: all.map((i) => {
        const l = held.get(i._id)
        return { session_id: i.session_id, owner: l?.owner ?? null, lease_expires_at: l ? iso(Number(l.expires_at)) : null }
      })
    }
  }

  /**
   * How long a change asked during a take-over waits for it (api/forward.ts), ms: one and a half
   * lease times, which covers the lease lapsing (≤ TTL), the next round claiming it (≤ TTL/3) and the
   * new owner's connect in the common case, and at least 10 s, since with short leases the connect and
   * a busy machine's scheduling outlast the lease (docs/design.md §22 "Take-over").
   */
  get takeOverWaitMs(): number {
    return Math.max(TAKE_OVER_WAIT_FLOOR_MS, Math.round(this.deps.ttlMs * 1.5))
  }

  /** How often a waiting change looks again (a tenth of the lease time, 50–500 ms). */
  get takeOverPollMs(): number {
    return Math.min(500, Math.max(50, Math.round(this.deps.ttlMs / 10)))
  }

  /**
   * True while `inst` is being taken over (database mode only; docs/design.md §22 "Take-over"): its
   * last owner had (or was getting) the connection — saved CONNECTED or CONNECTING — and no worker
   * holds its lease unexpired now (that owner stopped or died; a live worker's lease loop claims it
   * within a round), or this worker claimed it and its session has not started or is still CONNECTING.
   */
  async takingOver(inst: Pick<Instance, '_id' | 'settings'>): Promise<boolean> {
    const leases = this.deps.leases
    if (!leases) return false
    if (this.deps.running(inst._id)) return this.deps.takingOverHere?.(inst._id) ?? false
    if (!CONNECTED_BEFORE.has(inst.settings.status)) return false
    // No holder, or this worker itself: it claimed the lease and its session is about to start.
    const holder = await leases.holder(inst._id, this.deps.clock.now())
    return holder === undefined || holder.id === this.deps.worker.id
  }

  /**
   * The status a client reads for each of `insts` (by id): the saved one, except CONNECTING for one
   * saved CONNECTED that is being taken over ({@link takingOver}): the last owner's CONNECTED is not
   * the new owner's state, and a send would be refused until it connects. One statement for the list.
   */
  async liveStatuses(insts: ReadonlyArray<Pick<Instance, '_id' | 'settings'>>): Promise<Map<string, ConnectionStatus>> {
    const out = new Map(insts.map((i) => [i._id, i.settings.status]))
    const leases = this.deps.leases
    const candidates = insts.filter((i) => i.settings.status === 'CONNECTED' && !this.deps.running(i._id))
    if (!leases || candidates.length === 0) return out
    const now = this.deps.clock.now()
    // Held by another worker: its own status stands. Held by none, or by this worker before its
    // session started: a take-over under way.
    const me = this.deps.worker.id
    const one = candidates.length === 1 ? await leases.holder(candidates[0]!._id, now) : undefined
    const held =
      candidates.length === 1
        ? new Set(one && one.id !== me ? [candidates[0]!._id] : [])
        : new Set((await leases.cluster(now)).leases.filter((l) => Number(l.expires_at) > now && l.owner !== me).map((l) => l.instance_id))
    for (const i of candidates) if (!held.has(i._id)) out.set(i._id, 'CONNECTING')
    return out
  }

  /** The version of the configuration document this worker holds (database mode; null otherwise). */
  configVersion(): number | null {
    return this.deps.config?.version ?? null
  }

  /**
   * Before answering a request another worker forwarded: reads the configuration document again if
   * the forwarder held a newer version (an instance created there a moment ago must be known here).
   */
  async catchUp(version: number): Promise<void> {
    await this.deps.config?.atLeast(version)
  }

  /** This process's worker id. */
  get self(): string {
    return this.deps.worker.id
  }

  /**
   * The other worker that runs `instanceId` now (its lease unexpired, held by another worker), with
   * the URL it is reached at; undefined in SQLite mode, when the session runs here, or when no other
   * worker holds it (then this worker answers: init claims it). The HTTP face forwards to it.
   */
  async ownerElsewhere(instanceId: string): Promise<{ id: string; url: string } | undefined> {
    if (!this.deps.leases || this.deps.running(instanceId)) return undefined
    const holder = await this.deps.leases.holder(instanceId, this.deps.clock.now())
    return holder && holder.id !== this.deps.worker.id ? holder : undefined
  }

  /**
   * Where a start of `instanceId` (init) asked of this worker should run: the other worker holding it,
   * or, when no worker does, the least-loaded live worker if it is another one ({@link placeStart});
   * undefined: here; `placed`: no worker holds it (a worker out of reach may be passed over). Throws
   * CONFLICT when every live worker runs its maximum
   * (CHATAPP_WORKER_MAX_INSTANCES). The HTTP faces forward the init to the worker answered.
   */
  async placeFor(instanceId: string): Promise<{ id: string; url: string; placed?: true } | undefined> {
    const leases = this.deps.leases
    if (!leases || this.deps.running(instanceId)) return undefined
    const now = this.deps.clock.now()
    const holder = await leases.holder(instanceId, now)
    if (holder) return holder.id !== this.deps.worker.id ? holder : undefined
    const place = placeStart(await leases.leastLoaded(now, this.deps.ttlMs), this.deps.worker.id)
    if (place === 'full') {
      throw new AppError('CONFLICT', 'Every worker runs its maximum number of instances (CHATAPP_WORKER_MAX_INSTANCES); nothing was started. Stop an instance, raise a maximum or add a worker.')
    }
    return place === 'here' ? undefined : { id: place.id, url: place.url, placed: true }
  }
}
