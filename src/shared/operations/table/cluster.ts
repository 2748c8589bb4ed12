/**
 * The workers sharing one database (docs/design.md §22): who runs, and which worker holds
 * each instance. In the desktop's SQLite mode the one process is the only worker.
 */
import Type, { type Static } from 'typebox'
import { op } from '../define'
import { Empty } from './common'

const ClusterWorker = Type.Object({
  id: Type.String({ description: 'CHATAPP_WORKER_ID' }),
  url: Type.String({ description: 'CHATAPP_WORKER_URL: where the other workers reach it' }),
  last_seen_at: Type.String({ description: 'Its last heartbeat (ISO 8601)' }),
  instances: Type.Integer({ description: 'Leases it holds now' }),
  alive: Type.Boolean({ description: 'Seen within the lease time (CHATAPP_LEASE_TTL_MS); false: stopped or out of reach' })
})

const ClusterInstance = Type.Object({
  session_id: Type.String(),
  owner: Type.Union([Type.String(), Type.Null()], { description: 'The worker holding its lease; null: running nowhere' }),
  lease_expires_at: Type.Union([Type.String(), Type.Null()], { description: 'ISO 8601; null without a lease held' })
})

const Cluster = Type.Object({ workers: Type.Array(ClusterWorker), instances: Type.Array(ClusterInstance) })

/** The answer of `GET /cluster` (`cluster.get`); times are ISO 8601 UTC. */
export type ClusterT = Static<typeof Cluster>

export const CLUSTER_OPERATIONS = {
  'cluster.get': op<ClusterT>()({
    summary: 'The workers sharing the database and the worker running each instance',
    description:
      'In database mode (CHATAPP_DATABASE_URL) several workers share the instances: each runs those it holds a lease on. Instances nobody holds a lease on are listed with owner null. In the desktop (SQLite) this process is the only worker.',
    tags: ['app'],
    scope: 'account',
    permission: 'admin',
    input: Empty,
    output: Cluster,
    http: { method: 'GET', path: '/cluster', message: 'Cluster fetched successfully!' },
    rpc: true
  })
} as const
