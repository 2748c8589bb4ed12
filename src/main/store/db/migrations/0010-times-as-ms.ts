/**
 * Migration 10: every instant is epoch milliseconds (docs/storage.md "Times"). Until now record times
 * (`created_at`, `updated_at`, a pause's `since`/`until`, a delivery's `next_attempt_at`, …) were ISO
 * 8601 text while the times the product computes with (message times, leases, queues) were integers.
 * Each text column below becomes an integer holding the same instant, to the millisecond; NULL stays
 * NULL. What stays text on purpose: `schedules.start_at` (a wall-clock time in the instance's zone,
 * `YYYY-MM-DDTHH:MM`, no instant until a zone is applied) and `assistant_usage.day` (a calendar day).
 *
 * How a value converts: the text every release wrote (`Date.prototype.toISOString`:
 * `2026-01-02T03:04:05.678Z`) by SQL in one statement per column; anything else (no milliseconds, an
 * offset, a space for the `T`, no zone: UTC) value by value through ../times.ts `timeToMs`. A value
 * that names no instant stops the migration with its table, column and value (the transaction rolls
 * back: the database stays at version 9, nothing lost), never a NULL in its place.
 *
 * Per dialect: PostgreSQL changes each column's type in place (`ALTER COLUMN … TYPE bigint USING`: its
 * place, NOT NULL and indexes stay; the indexes are rebuilt). SQLite cannot change a column's type: the
 * integer goes into a new column, the text column is dropped and the new one takes its name, the
 * table's indexes are dropped first and made again from their own SQL. Its columns lose NOT NULL (SQLite
 * adds no NOT NULL to an existing column without rebuilding the table, and rebuilding a table that
 * others reference with ON DELETE CASCADE, inside the migrations' transaction where foreign keys stay
 * on, would delete their rows); the typed schema and the repositories still never write NULL there.
 */
import { sql, type Kysely } from 'kysely'
import { dialectOf } from '../dialect'
import { timeToMs } from '../times'

/** The instants held as text at version 9, by table (the tables of migrations 1, 2 and 9). */
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

/** The new column beside `column` while its values convert. */
const msColumn = (column: string): string => `${column}__ms`

export async function up(db: Kysely<unknown>): Promise<void> {
  const postgres = dialectOf(db) === 'postgres'
  for (const [table, columns] of Object.entries(TEXT_TIMES)) {
    // SQLite refuses to drop an indexed column: the table's indexes go first and come back last.
    const indexes = postgres ? [] : (await sql<{ name: string; sql: string }>`SELECT name, sql FROM sqlite_master WHERE type = 'index' AND tbl_name = ${table} AND sql IS NOT NULL ORDER BY name`.execute(db)).rows
    for (const index of indexes) await sql`DROP INDEX ${sql.id(index.name)}`.execute(db)
    for (const column of columns) {
      await db.schema.alterTable(table).addColumn(msColumn(column), postgres ? 'bigint' : 'integer').execute()
      await sql`UPDATE ${sql.id(table)} SET ${sql.id(msColumn(column))} = ${canonicalToMs(postgres, column)} WHERE ${canonical(postgres, column)}`.execute(db)
      await convertTheRest(db, table, column)
      if (!postgres) {
        await db.schema.alterTable(table).dropColumn(column).execute()
        await db.schema.alterTable(table).renameColumn(msColumn(column), column).execute()
      }
    }
    if (postgres) {
      // One ALTER TABLE: the table is rewritten once, its indexes rebuilt once.
      const changes = columns.flatMap((c) => [sql`ALTER COLUMN ${sql.id(c)} TYPE bigint USING ${sql.id(msColumn(c))}`, sql`DROP COLUMN ${sql.id(msColumn(c))}`])
      await sql`ALTER TABLE ${sql.id(table)} ${sql.join(changes)}`.execute(db)
    }
    for (const index of indexes) await sql.raw(index.sql).execute(db)
  }
}

/** The text every release wrote (`toISOString`, years 0000–9999), which SQL converts exactly. */
function canonical(postgres: boolean, column: string) {
  const c = sql.id(column)
  if (postgres) return sql`${c} ~ '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}\\.\\d{3}Z$'`
  return sql`${c} GLOB '[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]T[0-9][0-9]:[0-9][0-9]:[0-9][0-9].[0-9][0-9][0-9]Z' AND strftime('%s', ${c}) IS NOT NULL`
}

/**
 * Epoch ms of a {@link canonical} value: whole seconds from the date functions, the milliseconds from
 * the text, so no floating point is involved.
 */
function canonicalToMs(postgres: boolean, column: string) {
  const c = sql.id(column)
  if (postgres) return sql`(extract(epoch FROM date_trunc('second', ${c}::timestamptz))::bigint * 1000 + substr(${c}, 21, 3)::bigint)`
  return sql`(CAST(strftime('%s', ${c}) AS INTEGER) * 1000 + CAST(substr(${c}, 21, 3) AS INTEGER))`
}

/** Converts the values SQL left (written otherwise than `toISOString` writes), one distinct value at a time. */
async function convertTheRest(db: Kysely<unknown>, table: string, column: string): Promise<void> {
  const t = sql.id(table)
  const c = sql.id(column)
  const ms = sql.id(msColumn(column))
  const { rows } = await sql<{ v: unknown }>`SELECT DISTINCT ${c} AS v FROM ${t} WHERE ${c} IS NOT NULL AND ${ms} IS NULL`.execute(db)
  for (const { v } of rows) {
    if (BLANK_IS_NONE.has(`${table}.${column}`) && String(v).trim() === '') continue
    let value: number
    try {
      value = timeToMs(String(v))
    } catch {
      throw new Error(`Migration 10: ${table}.${column} holds ${JSON.stringify(v)}, which is no time; the database stays at version 9. Correct or clear that value and start again.`)
    }
    await sql`UPDATE ${t} SET ${ms} = ${value} WHERE ${c} = ${v} AND ${ms} IS NULL`.execute(db)
  }
}
