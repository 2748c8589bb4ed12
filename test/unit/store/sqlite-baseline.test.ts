/**
 * A new SQLite database is made from the baseline (src/main/store/db/baseline.ts) instead of by
 * replaying every migration: the file must be the one the replay makes — its `sqlite_schema` row for
 * row in the same order, every table's rows (the search indexes' shadow tables and Kysely's lock
 * row too), its settings — and a file that already has a schema is never touched by it.
 */
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { sql, type Kysely } from 'kysely'
import { Migrator } from 'kysely/migration'
import { afterEach, beforeEach, expect, it } from 'vitest'
import { createFromBaseline, sqliteBaselineOf } from '../../../src/main/store/db/baseline'
import { openDatabase } from '../../../src/main/store/db/database'
import { MIGRATIONS } from '../../../src/main/store/db/migrations'
import { SQLITE_BASELINE } from '../../../src/main/store/db/migrations/sqlite-baseline'
import { SqliteThread } from '../../../src/main/store/db/sqlite-thread/sqlite-thread'
import { openSqliteFile } from '../../../src/main/store/db/sqlite-thread/sqlite-file'
import { replayedSqliteDatabase } from '../../support/replayed-sqlite-database'

const NAMES = Object.keys(MIGRATIONS)

let dir: string
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'chatapp-baseline-'))
})
afterEach(async () => {
  await rm(dir, { recursive: true, force: true })
})

/** A value as comparable text (FTS5's shadow tables hold blobs). */
function plain(v: unknown): unknown {
  return v instanceof Uint8Array ? `x'${Buffer.from(v).toString('hex')}'` : v
}

/**
 * Everything a file holds that the app or SQLite reads: its schema objects in `sqlite_schema`'s order,
 * every table's rows (sorted: some have no rowid), Kysely's record of the migrations (names; the
 * times are the open's), and the settings kept in the file.
 */
async function contentsOf(db: Kysely<any>): Promise<{ schema: unknown[]; rows: Record<string, unknown[]>; migrations: string[]; settings: unknown[] }> {
  const schema = (await sql`SELECT type, name, tbl_name, sql FROM sqlite_schema ORDER BY rowid`.execute(db)).rows
  const tables = (await sql<{ name: string }>`SELECT name FROM pragma_table_list WHERE schema = 'main' AND type IN ('table', 'shadow') ORDER BY name`.execute(db)).rows.map((t) => t.name)
  const rows: Record<string, unknown[]> = {}
  for (const t of tables) {
    if (t === 'kysely_migration' || t === 'sqlite_schema') continue
    const all = (await sql<Record<string, unknown>>`SELECT * FROM ${sql.table(t)}`.execute(db)).rows
    rows[t] = all.map((r) => JSON.stringify(Object.entries(r).map(([k, v]) => [k, plain(v)]))).sort()
  }
  const migrations = (await db.selectFrom('kysely_migration').select('name').orderBy('name').execute()).map((r: { name: string }) => r.name)
  const settings = []
  for (const p of ['user_version', 'application_id', 'page_size', 'auto_vacuum', 'encoding', 'journal_mode']) settings.push((await sql.raw(`PRAGMA ${p}`).execute(db)).rows[0])
  return { schema, rows, migrations, settings }
}

it('a new database the app opens holds what replaying every migration makes: schema in order, rows, search settings, pragmas', async () => {
  const replayed = await replayedSqliteDatabase(join(dir, 'replayed.db'))
  const expected = await contentsOf(replayed.db)
  await replayed.close()
  expect(expected.schema.length).toBeGreaterThan(200)
  expect(expected.migrations).toEqual([...NAMES].sort())
  expect(expected.rows['knowledge_fts_config']).toContain(JSON.stringify([['k', 'automerge'], ['v', 2]]))

  const made = await openDatabase(join(dir, 'new.db'))
  try {
    expect(await made.version()).toBe(NAMES.length)
    expect(await contentsOf(made.db)).toEqual(expected)
    // Made in one step: every migration recorded in the same instant (the replay records each as it ends).
    const times = await made.db.selectFrom('kysely_migration' as never).select('timestamp' as never).execute()
    expect(new Set(times.map((r) => (r as { timestamp: string }).timestamp)).size).toBe(1)
    expect((await sql<{ integrity_check: string }>`PRAGMA integrity_check`.execute(made.db)).rows).toEqual([{ integrity_check: 'ok' }])
  } finally {
    await made.close()
  }
})

it('the baseline is the latest migrations written down (after adding one: node --import tsx test/support/write-sqlite-baseline.ts)', async () => {
  const replayed = await replayedSqliteDatabase(join(dir, 'replayed.db'))
  try {
    expect(await sqliteBaselineOf(replayed.db, NAMES)).toEqual(SQLITE_BASELINE)
  } finally {
    await replayed.close()
  }
})

it('only a new file is made from the baseline: a file with any schema is left to the migrations, untouched', async () => {
  // A database of version 3, as a desk that has not upgraded yet has it.
  const file = join(dir, 'v3.db')
  const old = await openSqliteFile<any>(file, { readOnly: false })
  const { error } = await new Migrator({ db: old.db, provider: { getMigrations: async () => ({ ...MIGRATIONS }) } }).migrateTo(NAMES[2]!)
  expect(error).toBeUndefined()
  const before = (await sql`SELECT type, name, sql FROM sqlite_schema ORDER BY rowid`.execute(old.db)).rows
  await old.close()

  const writer = await SqliteThread.open({ file, readOnly: false, name: 'writer', statementCache: 10 })
  const fresh = await SqliteThread.open({ file: join(dir, 'fresh.db'), readOnly: false, name: 'writer', statementCache: 10 })
  try {
    expect(await createFromBaseline(writer, file)).toBe(false)
    expect(await createFromBaseline(fresh, join(dir, 'fresh.db'))).toBe(true)
    // Made once: the second open finds a schema.
    expect(await createFromBaseline(fresh, join(dir, 'fresh.db'))).toBe(false)
  } finally {
    await writer.close(false)
    await fresh.close(false)
  }
  const again = await openSqliteFile<any>(file)
  try {
    expect((await sql`SELECT type, name, sql FROM sqlite_schema ORDER BY rowid`.execute(again.db)).rows).toEqual(before)
    expect((await again.db.selectFrom('kysely_migration').select('name').execute()).length).toBe(3)
  } finally {
    await again.close()
  }
})

it('a baseline whose statement fails leaves the new file empty (one transaction) and says why', async () => {
  const file = join(dir, 'broken.db')
  const writer = await SqliteThread.open({ file, readOnly: false, name: 'writer', statementCache: 10 })
  try {
    const broken = { migrations: SQLITE_BASELINE.migrations, statements: [...SQLITE_BASELINE.statements.slice(0, 10), 'CREATE TABLE half_made (x integer', ...SQLITE_BASELINE.statements.slice(10)] }
    await expect(createFromBaseline(writer, file, broken)).rejects.toThrow(/syntax error|incomplete input/)
    expect((await writer.request({ t: 'query', sql: 'SELECT count(*) AS n FROM sqlite_schema', params: [] })).rows).toEqual([{ n: 0 }])
    // The writer is free again: the real baseline goes through.
    expect(await createFromBaseline(writer, file)).toBe(true)
  } finally {
    await writer.close(false)
  }
})
