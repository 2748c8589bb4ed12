/**
 * `GET /cluster` (issue 26): the workers sharing the database and which of them holds each instance.
 * In database mode from the lease tables (store/repos/lease-repo.ts `cluster`); in the desktop's
 * SQLite mode this one process is the only worker and runs every instance it has a session for.
 */
import type { Clock } from '../../clock'
import type { InstanceRepo } from '../../store/repos'
import type { LeaseRepo, WorkerInfo } from '../../store/repos/lease-repo'

/** The answer of `GET /cluster`; times are ISO 8601 UTC. */
export interface ClusterInfo {
  workers: Array<{ id: string; url: string; last_seen_at: string; instances: number }>
  /** Every instance, by session id; owner null: no worker holds a lease on it (not running anywhere). */
  instances: Array<{ session_id: string; owner: string | null; lease_expires_at: string | null }>
}

export interface ClusterViewDeps {
  instances: InstanceRepo
  clock: Clock
  /** This process as a worker. */
  worker: WorkerInfo
  /** Database mode: the lease tables. Absent: SQLite mode, one process. */
  leases?: Pick<LeaseRepo, 'cluster' | 'holder'>
  /** SQLite mode: whether a session of the instance runs here. */
  running: (instanceId: string) => boolean
}

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
        workers: [{ id: this.deps.worker.id, url: this.deps.worker.url, last_seen_at: iso(now), instances: mine.length }],
        instances: all.map((i) => {
          const runs = this.deps.running(i._id)
          return { session_id: i.session_id, owner: runs ? this.deps.worker.id : null, lease_expires_at: null }
        })
      }
    }
    const c = await this.deps.leases.cluster(now)
    const held = new Map(c.leases.filter((l) => Number(l.expires_at) > now).map((l) => [l.instance_id, l]))
    return {
      workers: c.workers.map((w) => ({ id: w.id, url: w.url, last_seen_at: iso(Number(w.last_seen_at)), instances: w.instances })),
      instances: all.map((i) => {
        const l = held.get(i._id)
        return { session_id: i.session_id, owner: l?.owner ?? null, lease_expires_at: l ? iso(Number(l.expires_at)) : null }
      })
    }
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
}
