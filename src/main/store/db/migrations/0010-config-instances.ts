/**
 * Migration 10: each instance of the configuration in database mode gets a row of its own
 * (docs/storage.md "In database mode"; ../../config/database-document.ts). Until now the instances
 * were a list inside the one `config_document` row, rewritten whole by every change: with 200
 * instances a settings change wrote 340 kB, and three workers changing settings at once made a
 * quarter of the changes one worker makes (`npm run bench -- config`).
 *
 * `config_instances`: the instance's record as JSON text (`body`), its place in creation order
 * (`position`) and the document version that last wrote it (`stamp`). `config_document` keeps the
 * account and the app's settings; its `version` is still raised by every write of either table, so
 * it orders every change of the configuration, and a worker reads only the rows stamped after the
 * version it holds. The instances in the document's row move to their rows here (the row's body then
 * holds `"instances": []`). A body that is not JSON is left as it is: the app refuses it at start,
 * naming the table, as before. The table exists on SQLite too; a desk on its SQLite file keeps
 * using `config.json`.
 */
import type { Kysely } from 'kysely'
import { columnTypes } from '../dialect'

/** The two tables as this migration leaves them. */
type Tables = {
  config_document: { id: string; body: string; version: number; updated_at: number }
  config_instances: { id: string; position: number; body: string; stamp: number; updated_at: number }
}

// Migrations see the database as it was at their time, not as schema.ts describes it today.
export async function up(untyped: Kysely<unknown>): Promise<void> {
  const db = untyped.withTables<Tables>()
  const t = columnTypes(db)
  await db.schema
    .createTable('config_instances')
    .addColumn('id', t.text, (c) => c.primaryKey())
    .addColumn('position', t.int, (c) => c.notNull())
    .addColumn('body', t.text, (c) => c.notNull())
    .addColumn('stamp', t.int, (c) => c.notNull())
    .addColumn('updated_at', t.int, (c) => c.notNull())
    .execute()
  await db.schema.createIndex('config_instances_stamp').on('config_instances').column('stamp').execute()

  const row = await db.selectFrom('config_document').select(['body', 'version', 'updated_at']).where('id', '=', 'config').executeTakeFirst()
  if (!row) return
  let doc: unknown
  try {
    doc = JSON.parse(row.body)
  } catch {
    return
  }
  if (!doc || typeof doc !== 'object' || !Array.isArray((doc as { instances?: unknown }).instances)) return
  const instances = (doc as { instances: Array<{ _id?: unknown }> }).instances
  for (const [position, instance] of instances.entries()) {
    await db
      .insertInto('config_instances')
      .values({ id: String(instance?._id), position, body: JSON.stringify(instance, null, 2), stamp: Number(row.version), updated_at: Number(row.updated_at) })
      .execute()
  }
  await db
    .updateTable('config_document')
    .set({ body: JSON.stringify({ ...doc, instances: [] }, null, 2) })
    .where('id', '=', 'config')
    .execute()
}
