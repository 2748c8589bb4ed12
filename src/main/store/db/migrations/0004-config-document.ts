/**
 * Migration 4: the configuration document in the database (docs/storage.md "The
 * configuration document"). In database mode (`CHATAPP_DATABASE_URL`) the account, the app's settings
 * and the instances live in one row of `config_document` instead of the data dir's `config.json`, so
 * every worker on the database reads and writes the same document (../../config/database-document.ts).
 *
 * One row (`id = 'config'`): the document's JSON text, and a version raised by every write, which makes
 * writes optimistic (`UPDATE … WHERE version = <the version read>`: a write that lost a race changes
 * nothing and is applied again on the newer document). The table exists on SQLite too (the same
 * migrations run on both); a desk on its SQLite file keeps using `config.json`.
 */
import type { Kysely } from 'kysely'
import { columnTypes } from '../dialect'

// Migrations see the database as it was at their time, not as schema.ts describes it today.
export async function up(db: Kysely<unknown>): Promise<void> {
  const t = columnTypes(db)
  await db.schema
    .createTable('config_document')
    .addColumn('id', t.text, (c) => c.primaryKey())
    .addColumn('body', t.text, (c) => c.notNull())
    .addColumn('version', t.int, (c) => c.notNull())
    .addColumn('updated_at', t.int, (c) => c.notNull())
    .execute()
}
