/**
 * Wiring of the workers sharing a database (docs/design.md §22): the lease loop, the events relayed
 * between workers, `Idempotency-Key` takers, the cluster view; and the sessions' restore, which in
 * database mode is the lease loop's first round.
 */
import { randomUUID } from 'node:crypto'
import { hostname } from 'node:os'
import { systemClock, systemTimers } from '../clock'
import { WorkerLeases } from '../services/cluster/worker-leases'
import { IdempotencyService } from '../services/idempotency-service'
import { ClusterView } from '../services/cluster/cluster-view'
import { DatabaseAlignedClock } from '../services/cluster/database-clock'
import { receiveEvent, sendEvents } from '../services/cluster/event-relay'
import { EventChannel } from '../store/db/event-channel'
import type { InstancesWiring } from './instances'
import { DEFAULT_LEASE_TTL_MS } from './options'
import type { Step, Wiring } from './steps'

export interface ClusterWiring {
  /** Database mode: the lease loop; null with one process. */
  workers: WorkerLeases | null
  /** Database mode on PostgreSQL: the events sent to and heard from the other workers. */
  relay: EventChannel | null
  idempotency: IdempotencyService
  cluster: ClusterView
  /** The relay, closed after the sessions so their last events reach the other workers. */
  relayStep: Step
  /** The leases, given up once the sockets have stopped, so other workers claim at once. */
  leases: Step
  /** Last to start: the sessions saved as connected reconnect (database mode: this worker's share). */
  claim: Step
}

/** Aligns the lease clock with the database's and opens the relay. Throws the storage's errors. */
export async function wireCluster(w: Wiring, { sessions }: Pick<InstancesWiring, 'sessions'>): Promise<ClusterWiring> {
  const { opts, repos, store, events, faces, logger, clock } = w
  const leaseTtlMs = opts.worker?.leaseTtlMs ?? DEFAULT_LEASE_TTL_MS
  // Lease expiries are compared across workers: each worker's lease clock follows the database's.
  const aligned =
    opts.databaseUrl && (opts.worker?.alignClock ?? !opts.worker?.clock) ? new DatabaseAlignedClock(opts.worker?.clock ?? systemClock, () => repos.leases.databaseNow()) : null
  if (aligned) {
    const offset = await aligned.sync()
    if (Math.abs(offset) > 1000) logger.warn({ offsetMs: Math.round(offset) }, 'this machine\'s clock differs from the database server\'s by more than a second; lease times follow the database\'s (keep the clocks in step with NTP)')
  }
  const leaseClock = aligned ?? opts.worker?.clock ?? systemClock
  const worker = {
    id: opts.worker?.id || `${hostname()}:${process.pid}`,
    url: opts.worker?.url ?? '',
    startedAt: leaseClock.now(),
    maxInstances: opts.worker?.maxInstances ?? null
  }
  // Database mode: several workers share the instances; each runs those it holds a lease on.
  const workers = opts.databaseUrl
    ? new WorkerLeases({
        leases: repos.leases,
        sessions,
        worker,
        ttlMs: leaseTtlMs,
        wanted: () => repos.instances.all().filter((i) => i.settings.status === 'CONNECTED' || i.settings.status === 'CONNECTING').map((i) => i._id),
        pairing: () => repos.instances.all().filter((i) => i.settings.status === 'QR').map((i) => i._id),
        clock: leaseClock,
        ...(aligned ? { syncClock: () => aligned.sync() } : {}),
        timers: opts.worker?.timers ?? systemTimers,
        logger: logger.child({ worker: worker.id }),
        onLease: (instanceId, held) => events.emit('lease', { instanceId, held })
      })
    : null
  if (workers) sessions.useLeases(workers)
  // Database mode on PostgreSQL: this worker's events reach the UIs connected to the others, and
  // theirs reach this one's, on the faces' bus only (docs/design.md §22 "Events across workers").
  const relayLogger = logger.child({ worker: worker.id })
  const relay = workers
    ? await EventChannel.open({
        database: store.database,
        worker: worker.id,
        config: store.config,
        logger: relayLogger,
        onEvent: (type, payload, from) => receiveEvent(faces, type, payload, from, relayLogger),
        onResync: (reason) => faces.emit('resync', { reason })
      })
    : null
  const stopRelay = relay ? sendEvents(events, (type, payload) => relay.publish(type, payload)) : () => {}
  // A request made with a key notes who took it, so a retry can tell a dead attempt from a running one:
  // the lease's fence in database mode, else this process's run.
  const runId = `run:${randomUUID()}`
  const idempotency = new IdempotencyService({
    repo: repos.idempotency,
    clock,
    taker: (instanceId) => workers?.fenceOf(instanceId) ?? { worker: workers ? worker.id : runId, token: null },
    alive: async (instanceId, taker) => {
      if (!workers || taker.token === null) return taker.worker === (workers ? worker.id : runId)
      return workers.holdsFence(instanceId, { worker: taker.worker, token: taker.token })
    }
  })
  const cluster = new ClusterView({
    instances: repos.instances,
    clock: leaseClock,
    worker,
    ttlMs: leaseTtlMs,
    ...(workers ? { leases: repos.leases } : {}),
    running: (id) => sessions.has(id),
    takingOverHere: (id) => sessions.takingOver(id),
    config: store.config
  })
  return {
    workers,
    relay,
    idempotency,
    cluster,
    relayStep: {
      name: 'event relay',
      close: async () => {
        stopRelay()
        await relay?.close()
      }
    },
    // Database mode: sockets stop, then the leases go at once, so other workers claim right away.
    leases: { name: 'leases', close: () => workers?.stop() },
    claim: {
      name: 'restore sessions',
      start: async () => {
        if (opts.restoreSessions === false) return
        await sessions.restore()
        // The lease loop's first round claims this worker's share of the instances saved as connected.
        if (workers) await workers.start()
      }
    }
  }
}
