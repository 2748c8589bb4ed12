/**
 * Migration 6: who took a request made with an `Idempotency-Key` (docs/design.md §22
 * "Idempotency-Key"). A request in progress whose process died stayed "in progress" for the key's
 * whole life; with its taker stored, a retry can tell a dead attempt from a running one:
 * `taken_by` is the worker id and `fencing_token` its lease's token on the instance (database mode),
 * or this process's run id and null (the desktop's one process). Null in rows of earlier releases.
 */
import type { Kysely } from 'kysely'
import { columnTypes } from '../dialect'

// Migrations see the database as it was at their time, not as schema.ts describes it today.
export async function up(db: Kysely<unknown>): Promise<void> {
  const t = columnTypes(db)
  await db.schema.alterTable('idempotency_keys').addColumn('taken_by', t.text).execute()
  await db.schema.alterTable('idempotency_keys').addColumn('fencing_token', t.int).execute()
}
