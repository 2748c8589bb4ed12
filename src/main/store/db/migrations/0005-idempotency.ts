/**
 * Migration 5: `Idempotency-Key` on sends (docs/design.md §22 "Idempotency-Key"). A send
 * retried with the same key by the same caller on the same route answers the first answer stored here
 * instead of sending again. One row per (key, caller, route): the request's hash (a different body with
 * the same key is refused), the answer's status and body (both null while the first request runs) and
 * when it was made (epoch ms; rows older than the TTL are purged by the daily retention run).
 */
import type { Kysely } from 'kysely'
import { columnTypes } from '../dialect'

// Migrations see the database as it was at their time, not as schema.ts describes it today.
export async function up(db: Kysely<unknown>): Promise<void> {
  const t = columnTypes(db)
  await db.schema
    .createTable('idempotency_keys')
    .addColumn('key', t.text, (c) => c.notNull())
    .addColumn('caller', t.text, (c) => c.notNull())
    .addColumn('route', t.text, (c) => c.notNull())
    .addColumn('request_hash', t.text, (c) => c.notNull())
    .addColumn('status', t.int)
    .addColumn('body', t.text)
    .addColumn('created_at', t.int, (c) => c.notNull())
    .addPrimaryKeyConstraint('idempotency_keys_pk', ['key', 'caller', 'route'])
    .execute()
  await db.schema.createIndex('idempotency_keys_created').on('idempotency_keys').column('created_at').execute()
}
