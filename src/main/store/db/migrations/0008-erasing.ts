/**
 * Migration 8: erasures in slices (docs/storage.md "Erasing a customer"). An erasure first hides the
 * customer's messages, then deletes them a slice at a time between the app's other writes, so no
 * statement holds the writer for long. `erasing` lists, while an erasure runs, the JIDs it covers
 * (the customer's number and LIDs) and the last message it covers (`up_to_seq`, the log's insertion
 * order): every read of the message log leaves those messages out, and an erasure cut short by a crash
 * is finished at the next start from these rows.
 */
import type { Kysely } from 'kysely'
import { columnTypes } from '../dialect'

// Migrations see the database as it was at their time, not as schema.ts describes it today.
export async function up(db: Kysely<unknown>): Promise<void> {
  const t = columnTypes(db)
  await db.schema
    .createTable('erasing')
    .addColumn('erasure_id', t.text, (c) => c.notNull())
    .addColumn('instance_id', t.text, (c) => c.notNull())
    .addColumn('jid', t.text, (c) => c.notNull())
    .addColumn('up_to_seq', t.int, (c) => c.notNull())
    .addPrimaryKeyConstraint('erasing_pk', ['erasure_id', 'jid'])
    .execute()
  await db.schema.createIndex('erasing_jid').on('erasing').columns(['instance_id', 'jid']).execute()
}
