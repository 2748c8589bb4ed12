/**
 * Migration 3: workers and the leases of instances (docs/storage.md "Leases and fencing
 * tokens"). Several `npm run serve` processes (workers) share one database; each instance's socket
 * is owned by one worker at a time through its row in `instance_leases`: the owner, when the lease
 * expires, and a fencing token that the owner's credential writes carry. Times are epoch ms.
 *
 * No foreign key from a lease's owner to `workers`: a worker that stops deletes its row and its
 * leases stay (expired), keeping their token for the next owner to increment.
 */
import type { Kysely } from 'kysely'
import { columnTypes } from '../dialect'

// Migrations see the database as it was at their time, not as schema.ts describes it today.
export async function up(db: Kysely<unknown>): Promise<void> {
  const s = db.schema
  const t = columnTypes(db)

  await s
    .createTable('workers')
    .addColumn('id', t.text, (c) => c.primaryKey())
    .addColumn('url', t.text, (c) => c.notNull())
    .addColumn('started_at', t.int, (c) => c.notNull())
    .addColumn('last_seen_at', t.int, (c) => c.notNull())
    .addColumn('max_instances', t.int)
    .execute()

  await s
    .createTable('instance_leases')
    .addColumn('instance_id', t.text, (c) => c.primaryKey())
    .addColumn('owner', t.text, (c) => c.notNull())
    .addColumn('fencing_token', t.int, (c) => c.notNull())
    .addColumn('expires_at', t.int, (c) => c.notNull())
    .addColumn('acquired_at', t.int, (c) => c.notNull())
    .execute()
  // A worker's leases (release, the per-worker counts of least-loaded and the cluster view).
  await s.createIndex('instance_leases_owner').on('instance_leases').columns(['owner', 'expires_at']).execute()
}
