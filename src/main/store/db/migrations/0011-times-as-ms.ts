/**
 * Migration 11: every instant is epoch milliseconds (docs/storage.md "Times"). Until now record times
 * (`created_at`, `updated_at`, a pause's `since`/`until`, a delivery's `next_attempt_at`, …) were ISO
 * 8601 text while the times the product computes with (message times, leases, queues) were integers.
 * Each text column below becomes an integer holding the same instant, to the millisecond; NULL stays
 * NULL. What stays text on purpose: `schedules.start_at` (a wall-clock time in the instance's zone,
 * `YYYY-MM-DDTHH:MM`, no instant until a zone is applied) and `assistant_usage.day` (a calendar day).
 *
 * How a value converts: the text every release wrote (`Date.prototype.toISOString`:
 * `2026-01-02T03:04:05.678Z`) by SQL, exactly; anything else (no milliseconds, an offset, a space for
 * the `T`, no zone: UTC) through ../times.ts `timeToMs`, each distinct value once, into a table of
 * text → ms that the conversion joins. A value that names no instant stops the migration with its
 * table, column and value (the transaction rolls back: the database stays at version 10, nothing
 * lost), never a NULL in its place.
 *
 * Per dialect: PostgreSQL changes each table's columns' type in place, in one ALTER TABLE (`ALTER
 * COLUMN … TYPE bigint USING`: one rewrite; their place, NOT NULL and indexes stay, the indexes are
 * rebuilt; no UPDATE, which would also refold every contact's search words). SQLite cannot change a
 * column's type: the integer goes into a new column (one UPDATE), the text column is dropped and the
 * new one takes its name, the table's indexes are dropped first and made again from their own SQL.
 * Those SQLite columns lose NOT NULL (SQLite adds no NOT NULL to an existing column without rebuilding
 * the table, and rebuilding a table that others reference with ON DELETE CASCADE, inside the
 * migrations' transaction where foreign keys stay on, would delete their rows); migration 12 gives
 * the rule back with triggers (./0012-time-columns-not-null.ts). Measured: docs/storage.md "Times".
 */
import { sql, type Kysely } from 'kysely'
import { columnTypes, dialectOf } from '../dialect'
import { timeToMs } from '../times'

/** The instants held as text at versions 9 and 10, by table (the tables of migrations 1, 2 and 9). */
export const TEXT_TIMES: Readonly<Record<string, readonly string[]>> = {
  chat_pauses: ['since', 'until'],
  intents: ['created_at', 'updated_at'],
  survey_steps: ['created_at', 'updated_at'],
  survey_runs: ['started_at', 'updated_at', 'completed_at'],
  attachments: ['created_at'],
  quick_replies: ['created_at', 'updated_at'],
  labels: ['created_at', 'updated_at'],
  contact_groups: ['created_at', 'updated_at'],
  contacts: ['last_seen_at', 'created_at', 'updated_at'],
  broadcasts: ['created_at', 'updated_at'],
  broadcast_recipients: ['at'],
  schedules: ['next_run_at', 'created_at', 'updated_at'],
  bot_activity: ['at'],
  webhook_deliveries: ['next_attempt_at', 'created_at', 'delivered_at'],
  auth_creds: ['updated_at'],
  erasures: ['at'],
  legacy_import: ['done_at'],
  staff: ['created_at', 'updated_at'],
  api_keys: ['created_at', 'last_used_at', 'revoked_at'],
  assistant_settings: ['updated_at'],
  knowledge: ['created_at', 'updated_at']
}

/**
 * Where a blank text meant "no time": the broadcast repository wrote a recipient's empty `at` as it
 * came and reads NULL as empty, so blank becomes NULL there. Anywhere else blank is no time.
 */
const BLANK_IS_NONE = new Set(['broadcast_recipients.at'])

/** The table of text → ms of the values SQL does not convert (made and dropped by the migration). */
const VALUE_MAP = 'migration_0011_times'
/** PostgreSQL: the lookup of {@link VALUE_MAP} as a function (a column's USING takes no subquery). */
const LOOKUP = 'migration_0011_time'
/** Rows per INSERT into the value map (2 parameters each). */
const VALUES_PER_INSERT = 500

export async function up(db: Kysely<unknown>): Promise<void> {
  const postgres = dialectOf(db) === 'postgres'
  // Made when a first value needs it: a database without one (a new one) keeps no trace of it, not
  // even the free pages a dropped table leaves in a SQLite file.
  let mapped = false
  const map = async (): Promise<void> => {
    if (mapped) return
    const types = columnTypes(db)
    await db.schema.createTable(VALUE_MAP).addColumn('v', types.text, (c) => c.primaryKey()).addColumn('ms', types.int).execute()
    if (postgres) await sql.raw(`CREATE FUNCTION ${LOOKUP}(t text) RETURNS bigint LANGUAGE sql STABLE STRICT AS $$ SELECT ms FROM ${VALUE_MAP} WHERE v = t $$`).execute(db)
    mapped = true
  }

  for (const [table, columns] of Object.entries(TEXT_TIMES)) {
    for (const column of columns) await mapOtherValues(db, postgres, table, column, map)
    if (postgres) {
      const changes = columns.map((c) => sql`ALTER COLUMN ${sql.id(c)} TYPE bigint USING ${toMs(postgres, c, mapped)}`)
      await sql`ALTER TABLE ${sql.id(table)} ${sql.join(changes)}`.execute(db)
      continue
    }
    // SQLite refuses to drop an indexed column: the table's indexes go first and come back last.
    const indexes = (await sql<{ name: string; sql: string }>`SELECT name, sql FROM sqlite_master WHERE type = 'index' AND tbl_name = ${table} AND sql IS NOT NULL ORDER BY name`.execute(db)).rows
    for (const index of indexes) await sql`DROP INDEX ${sql.id(index.name)}`.execute(db)
    for (const column of columns) {
      const ms = `${column}__ms`
      await db.schema.alterTable(table).addColumn(ms, 'integer').execute()
      await sql`UPDATE ${sql.id(table)} SET ${sql.id(ms)} = ${toMs(postgres, column, mapped)}`.execute(db)
      await db.schema.alterTable(table).dropColumn(column).execute()
      await db.schema.alterTable(table).renameColumn(ms, column).execute()
    }
    for (const index of indexes) await sql.raw(index.sql).execute(db)
  }

  if (!mapped) return
  if (postgres) await sql.raw(`DROP FUNCTION ${LOOKUP}(text)`).execute(db)
  await db.schema.dropTable(VALUE_MAP).execute()
}

/** The text every release wrote (`toISOString`, years 0000–9999), which SQL converts exactly. */
function canonical(postgres: boolean, column: string) {
  const c = sql.id(column)
  if (postgres) return sql`${c} ~ '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}\\.\\d{3}Z$'`
  return sql`(${c} GLOB '[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]T[0-9][0-9]:[0-9][0-9]:[0-9][0-9].[0-9][0-9][0-9]Z' AND strftime('%s', ${c}) IS NOT NULL)`
}

/**
 * Epoch ms of the text in `column` (NULL for NULL): a {@link canonical} value from its whole seconds
 * (the date functions) and its milliseconds (the text), so no floating point is involved; any other
 * from the value map (when `mapped`: there is one; without, no value of the table needs it).
 */
function toMs(postgres: boolean, column: string, mapped: boolean) {
  const c = sql.id(column)
  const other = !mapped ? sql`NULL` : postgres ? sql`${sql.id(LOOKUP)}(${c})` : sql`(SELECT m.ms FROM ${sql.id(VALUE_MAP)} m WHERE m.v = ${c})`
  if (postgres) return sql`CASE WHEN ${canonical(postgres, column)} THEN extract(epoch FROM date_trunc('second', ${c}::timestamptz))::bigint * 1000 + substr(${c}, 21, 3)::bigint ELSE ${other} END`
  return sql`CASE WHEN ${canonical(postgres, column)} THEN CAST(strftime('%s', ${c}) AS INTEGER) * 1000 + CAST(substr(${c}, 21, 3) AS INTEGER) ELSE ${other} END`
}

/**
 * Puts the values of `column` that SQL does not convert into the value map, each converted once by
 * `timeToMs`; throws, naming it, on a value that is no time.
 */
async function mapOtherValues(db: Kysely<unknown>, postgres: boolean, table: string, column: string, map: () => Promise<void>): Promise<void> {
  const c = sql.id(column)
  const { rows } = await sql<{ v: unknown }>`SELECT DISTINCT ${c} AS v FROM ${sql.id(table)} WHERE ${c} IS NOT NULL AND NOT ${canonical(postgres, column)}`.execute(db)
  const pairs: Array<[string, number | null]> = []
  for (const { v } of rows) {
    const text = String(v)
    if (BLANK_IS_NONE.has(`${table}.${column}`) && text.trim() === '') {
      pairs.push([text, null])
      continue
    }
    try {
      pairs.push([text, timeToMs(text)])
    } catch {
      throw new Error(`Migration 11: ${table}.${column} holds ${JSON.stringify(v)}, which is no time; the database stays at version 10. Correct or clear that value and start again.`)
    }
  }
  if (pairs.length > 0) await map()
  for (let i = 0; i < pairs.length; i += VALUES_PER_INSERT) {
    const batch = pairs.slice(i, i + VALUES_PER_INSERT).map(([v, ms]) => sql`(${v}, ${ms})`)
    await sql`INSERT INTO ${sql.id(VALUE_MAP)} (v, ms) VALUES ${sql.join(batch)} ON CONFLICT (v) DO NOTHING`.execute(db)
  }
}
