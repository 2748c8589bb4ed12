/**
 * A new SQLite database gets its schema in one step, from the baseline (./migrations/sqlite-baseline.ts),
 * instead of replaying every migration: the same file the replay would leave (its `sqlite_schema` row
 * for row in the same order, the same rows in every table, the search indexes' settings), made in one
 * `exec` on the writer's thread, in one transaction. The replay spends most of a new database's open on
 * work that only matters to data a new file does not have (migration 11 rewrites 45 time columns,
 * each ALTER TABLE re-checking the whole schema: ~200 ms of ~250). As Rails' `schema.rb` load: the
 * migrations stay the history and the way every existing database upgrades; the baseline is their
 * result, written down.
 *
 * The baseline names the migrations it holds; the Migrator then applies any later one as it would on
 * any database of that version (a baseline is never required to be of the latest version for the
 * result to be right, only to be fast). A file that holds anything at all (a table, Kysely's own) is
 * left to the migrations. docs/storage.md "Migrations"; proved equal to the replay by
 * test/unit/store/sqlite-baseline.test.ts, which also says how to write the baseline again
 * (test/support/write-sqlite-baseline.ts).
 *
 * SQLite only: on PostgreSQL the migrations run as they are (no rebuilds there: migration 11 changes
 * a column's type in place).
 */
import { sql, type Kysely } from 'kysely'
import type { SqliteThread } from './sqlite-thread/sqlite-thread'
import { storageError } from './errors'
import { MIGRATIONS } from './migrations'
import { SQLITE_BASELINE } from './migrations/sqlite-baseline'

/** A schema written down: the migrations it holds, in order, and the statements that make it. */
export interface SqliteBaseline {
  readonly migrations: readonly string[]
  readonly statements: readonly string[]
}

/** Does `baseline` hold the first migrations of `names`, in order (and no other)? */
function fits(baseline: SqliteBaseline, names: readonly string[]): boolean {
  return baseline.migrations.length > 0 && baseline.migrations.length <= names.length && baseline.migrations.every((m, i) => names[i] === m)
}

/**
 * Makes the schema of `baseline` in the file of `writer` when the file is new (nothing in its
 * `sqlite_schema`), with Kysely's record of the migrations it holds, in one transaction (BEGIN
 * IMMEDIATE: a second process opening the same new file waits, then finds it made). Resolves true
 * when it did, false when the file already had a schema (untouched) or the baseline does not fit
 * `MIGRATIONS`. Throws the storage errors of ./errors (a full disk): nothing is left half made.
 * Runs before anything else uses the writer (./database.ts openDatabase).
 */
export async function createFromBaseline(writer: SqliteThread, file: string, baseline: SqliteBaseline = SQLITE_BASELINE): Promise<boolean> {
  if (!fits(baseline, Object.keys(MIGRATIONS))) return false
  try {
    await writer.request({ t: 'exec', sql: 'BEGIN IMMEDIATE', tx: 'begin' })
  } catch (err) {
    throw storageError(err, file)
  }
  try {
    const { rows } = await writer.request({ t: 'query', sql: 'SELECT count(*) AS n FROM sqlite_schema', params: [] })
    const empty = Number((rows as Array<{ n: number }>)[0]!.n) === 0
    if (empty) {
      await writer.request({ t: 'exec', sql: baseline.statements.join(';\n') })
      // As Kysely's Migrator records a migration it ran: its name and the time, ISO text.
      const at = new Date().toISOString()
      await writer.request({ t: 'query', sql: `INSERT INTO kysely_migration (name, timestamp) VALUES ${baseline.migrations.map(() => '(?, ?)').join(', ')}`, params: baseline.migrations.flatMap((m) => [m, at]) })
    }
    await writer.request({ t: 'exec', sql: 'COMMIT', tx: 'commit' })
    return empty
  } catch (err) {
    await writer.request({ t: 'exec', sql: 'ROLLBACK', tx: 'rollback' }).catch(() => {})
    throw storageError(err, file)
  }
}

/** A value as an SQL literal (the baseline's rows hold text, numbers and NULL only). */
function literal(v: unknown): string {
  if (v === null) return 'NULL'
  if (typeof v === 'number' || typeof v === 'bigint') return String(v)
  if (typeof v === 'string') return `'${v.replace(/'/g, "''")}'`
  throw new Error(`A baseline row holds a value of type ${typeof v}, which it cannot write down.`)
}

/** An identifier, double-quoted. */
function id(name: string): string {
  return `"${name.replace(/"/g, '""')}"`
}

/**
 * Writes down the schema of the database `db` holds (made by the migrations `migrations`): every
 * object of `sqlite_schema` in its order, but what SQLite makes by itself (its own tables, the
 * indexes of UNIQUE and PRIMARY KEY, an FTS5 table's shadow tables); the rows of its tables but
 * Kysely's record of the migrations (made at each open from `migrations`); an FTS5 table's settings
 * (its `_config` rows, as the FTS5 commands that set them). Throws for a row it cannot write down.
 */
export async function sqliteBaselineOf(db: Kysely<unknown>, migrations: readonly string[]): Promise<SqliteBaseline> {
  const kinds = new Map((await sql<{ name: string; type: string }>`SELECT name, type FROM pragma_table_list WHERE schema = 'main'`.execute(db)).rows.map((r) => [r.name, r.type]))
  const objects = (await sql<{ type: string; name: string; sql: string | null }>`SELECT type, name, sql FROM sqlite_schema ORDER BY rowid`.execute(db)).rows
  const statements: string[] = []
  for (const o of objects) {
    if (o.sql === null || o.name.startsWith('sqlite_') || kinds.get(o.name) === 'shadow') continue
    statements.push(o.sql)
    if (kinds.get(o.name) === 'virtual') {
      const config = `${o.name}_config`
      if (kinds.get(config) !== 'shadow') continue
      const settings = (await sql<{ k: string; v: unknown }>`SELECT k, v FROM ${sql.table(config)} WHERE k <> 'version' ORDER BY k`.execute(db)).rows
      for (const s of settings) statements.push(`INSERT INTO ${id(o.name)}(${id(o.name)}, rank) VALUES (${literal(s.k)}, ${literal(s.v)})`)
      continue
    }
    if (o.type !== 'table' || o.name === 'kysely_migration') continue
    const rows = (await sql<Record<string, unknown>>`SELECT * FROM ${sql.table(o.name)} ORDER BY rowid`.execute(db)).rows
    for (const r of rows) statements.push(`INSERT INTO ${id(o.name)} (${Object.keys(r).map(id).join(', ')}) VALUES (${Object.values(r).map(literal).join(', ')})`)
  }
  return { migrations: [...migrations], statements }
}
