/**
 * `npm run db:copy` (docs/deploy.md "Moving a desk between SQLite and PostgreSQL"): copies
 * a desk, every table of the typed schema and the configuration document, from a data dir's SQLite
 * database or a PostgreSQL database to another of either kind, and checks the copy by counts and
 * checksums.
 *
 * How, and why so:
 * - Both ends are opened with the app's own functions (../db/database.ts), so both are migrated to this
 *   version by the same migrator first; a database written by a newer release is refused there
 *   (NewerDatabaseError) before anything is read or written. An older source is brought up to this
 *   version, as the app's next start would.
 * - A source data dir is locked as the app locks it (../data-dir-lock.ts): a copy is refused while a
 *   `serve` or the desktop app runs on it, and none can start during the copy. A PostgreSQL source has
 *   no such lock: the copy is refused while a worker holds a lease or was seen lately (a desk being
 *   written to would be copied half-old), and is read in one REPEATABLE READ snapshot anyway.
 * - The target must hold no desk: no row in any table and no configuration document (a data dir:
 *   no `config.json`). No `--force`: overwriting a desk is never what a move needs, and emptying one is
 *   a deliberate step of its own (`dropdb`/`createdb`, or another folder).
 * - Rows go through Kysely in batches, read in primary-key order (keyset pages, so a large table is
 *   never held whole), all into ONE transaction of the target, checked inside that same transaction
 *   before it commits: a failure or a mismatch rolls everything back and the target is as it was (a
 *   data dir made for the copy is removed again).
 * - The search indexes are not copied: the migrations' triggers fill them from each inserted row, on
 *   SQLite (FTS5) as on PostgreSQL (`messages_words`, the contacts' expression index). The counters of
 *   numbered tables follow the copied numbers: SQLite's AUTOINCREMENT does by itself; PostgreSQL's
 *   identity sequences are set past the largest copied number.
 * - The configuration document: a data dir's `config.json` ↔ the `config_document` row and the
 *   `config_instances` rows of database mode (migrations 4 and 10; ../config/database-document.ts). A target data dir gets `config.json` just
 *   before the database commits, read back and checked (removed again if the commit fails).
 * - Attachments and media are files, not rows: they stay in the data dir; the caller says so
 *   ({@link FILES_NOT_COPIED}).
 */
import { existsSync } from 'node:fs'
import { mkdir, rm, rmdir } from 'node:fs/promises'
import { resolve } from 'node:path'
import { sql, type Kysely, type Transaction } from 'kysely'
import { checkConfig } from '../config/config-check'
import type { ConfigData } from '../config/config-data'
import { DatabaseDocument, insertDocument } from '../config/database-document'
import { DIR_MODE, DurableJsonFile } from '../config/durable-json-file'
import { DataDirLockedError, lockDataDir } from '../data-dir-lock'
import { dataPaths } from '../data-paths'
import { openDatabase, openPostgresDatabase, type DatabaseHandle } from '../db/database'
import { redactUrl } from '../db/postgres-dialect'
import type { Database } from '../db/schema'
import { documentChecksum, TableDigest } from './checksum'
import { CONFIG_TABLES, COPIED_TABLES, type CopiedTable } from './tables'

/** One end of a copy: a data dir (its `chatapp.db` and `config.json`) or a PostgreSQL database. */
export type CopyEndpoint = { kind: 'dir'; dir: string } | { kind: 'postgres'; url: string }

/** `value` as an end: a `postgres://` or `postgresql://` URL, else a folder (resolved against the working directory). */
export function parseEndpoint(value: string): CopyEndpoint {
  const v = value.trim()
  if (v === '') throw new Error('an empty --from or --to: give a data dir or a postgres:// URL')
  if (/^postgres(ql)?:\/\//i.test(v)) {
    try {
      new URL(v)
    } catch {
      throw new Error(`not a valid PostgreSQL URL: ${redactUrl(v)}`)
    }
    return { kind: 'postgres', url: v }
  }
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(v)) throw new Error(`${v.split(':')[0]}:// is not a database this copies: give a data dir or a postgres:// URL`)
  return { kind: 'dir', dir: resolve(v) }
}

/** The end as shown in messages (a URL without its password). */
export function describeEndpoint(e: CopyEndpoint): string {
  return e.kind === 'dir' ? `the data dir ${e.dir}` : redactUrl(e.url)
}

/** Why a copy was refused before anything was written. */
export type RefusalReason = 'same' | 'no-source' | 'source-in-use' | 'target-in-use' | 'target-not-empty'

/** The copy was refused before anything was written (the message says why and what to do). */
export class CopyRefusedError extends Error {
  constructor(
    readonly reason: RefusalReason,
    message: string
  ) {
    super(message)
    this.name = 'CopyRefusedError'
  }
}

/** One line of the check: a table (or `config`), its rows and sha256 on each end. */
export interface TableCheck {
  table: string
  sourceRows: number
  targetRows: number
  sourceChecksum: string
  targetChecksum: string
  ok: boolean
}

/** What a copy did. */
export interface CopyReport {
  tables: TableCheck[]
  /** Every table's count and checksum agree. */
  ok: boolean
  /** Rows copied, every table together (the configuration document not counted). */
  rows: number
  /** Wall time of the copy and its check, ms. */
  ms: number
}

/** The copy was made but did not check out: it was rolled back (the report says which tables differ). */
export class CopyMismatchError extends Error {
  constructor(readonly report: CopyReport) {
    const bad = report.tables.filter((t) => !t.ok).map((t) => t.table)
    super(`The copy did not match its source in ${bad.join(', ')}; it was rolled back and the target is as it was.`)
    this.name = 'CopyMismatchError'
  }
}

/** What stays behind in the data dir: files, not rows. */
export const FILES_NOT_COPIED = 'attachments/ and media/ (attachment and media files)'

export interface CopyOptions {
  /** Rows per read and per insert (default 500; within both databases' bound-parameter limits at 16 columns). */
  batchRows?: number
  /** Told after each table is copied: its name and rows (awaited: tests inject a failure here). */
  onTable?: (table: string, rows: number) => void | Promise<void>
  /** Epoch ms now (the live-worker check; the document row's `updated_at`). */
  now?: () => number
}

/** A worker seen this recently (ms) on a PostgreSQL source is taken as running (twice the default lease TTL). */
export const LIVE_WORKER_MS = 30_000

/** The loosely typed view the table-by-table copy uses (the tables' types come from ./tables.ts). */
type Row = Record<string, unknown>
type AnyDb = Kysely<Record<string, Row>>

/** An opened end: its database and configuration document, and how to close it. */
interface OpenEnd {
  database: DatabaseHandle
  close(): Promise<void>
}

/**
 * Copies the desk at `from` to `to` and checks it (see the module doc). Resolves with the report of a
 * copy that checked out, committed. Rejects, with the target as it was, with {@link CopyRefusedError}
 * (same ends, no source, a source or target in use, a target holding a desk), NewerDatabaseError (an
 * end from a newer release), DataFileError (an unreadable configuration document), {@link
 * CopyMismatchError} (counts or checksums differ: rolled back), or the database's error (a constraint,
 * a lost connection: rolled back).
 */
export async function copyDesk(from: CopyEndpoint, to: CopyEndpoint, options: CopyOptions = {}): Promise<CopyReport> {
  const started = performance.now()
  const now = options.now ?? Date.now
  const batch = Math.max(1, Math.floor(options.batchRows ?? 500))
  if (sameEnd(from, to)) throw new CopyRefusedError('same', `--from and --to are the same (${describeEndpoint(from)}): nothing to copy.`)

  const ends: OpenEnd[] = []
  let cleanupTarget: (() => Promise<void>) | null = null
  try {
    const source = await openSource(from, now())
    ends.push(source)
    const config = await readDocument(from, source.database)
    const target = await openTarget(to)
    ends.push(target)
    cleanupTarget = target.cleanup

    const tables: TableCheck[] = []
    await target.database.db.transaction().execute(async (trx) => {
      await readSnapshot(source.database, async (src) => {
        for (const table of COPIED_TABLES) {
          const digest = await copyTable(src as unknown as AnyDb, trx as unknown as AnyDb, table, batch)
          if (table.numbered && to.kind === 'postgres') await moveSequence(trx, table)
          await options.onTable?.(table.name, digest.rows)
          tables.push({ table: table.name, sourceRows: digest.rows, sourceChecksum: digest.hex(), targetRows: 0, targetChecksum: '', ok: false })
        }
      })
      if (to.kind === 'postgres' && config) await insertDocument(trx, config, now())
      // Checked before the commit, on the target's own transaction: a mismatch rolls back.
      for (const check of tables) {
        const table = COPIED_TABLES.find((t) => t.name === check.table)!
        const digest = await digestTable(trx as unknown as AnyDb, table, batch)
        Object.assign(check, { targetRows: digest.rows, targetChecksum: digest.hex() })
        check.ok = check.targetRows === check.sourceRows && check.targetChecksum === check.sourceChecksum
      }
      if (to.kind === 'postgres') {
        tables.push(documentCheck(config, await new DatabaseDocument({ db: trx, write: () => Promise.reject(new Error('read only')), file: target.database.file }).read()))
      } else {
        // config.json, written before the database commits: a failed write still rolls the rows back,
        // and a failed commit removes the file again (the target had none: openTarget refuses one).
        const file = new DurableJsonFile(dataPaths(to.dir).config, checkConfig)
        if (config) await file.write(config)
        tables.push(documentCheck(config, await file.read()))
      }
      const report = reportOf(tables, started)
      if (!report.ok) throw new CopyMismatchError(report)
    })
    cleanupTarget = null
    return reportOf(tables, started)
  } finally {
    // Closed in reverse: the target (and its lock) first, then the source.
    for (const end of ends.reverse()) await end.close().catch(() => {})
    if (cleanupTarget) await cleanupTarget().catch(() => {})
  }
}

function sameEnd(a: CopyEndpoint, b: CopyEndpoint): boolean {
  if (a.kind === 'dir' && b.kind === 'dir') return a.dir === b.dir
  if (a.kind === 'postgres' && b.kind === 'postgres') {
    const ua = new URL(a.url)
    const ub = new URL(b.url)
    return ua.hostname === ub.hostname && (ua.port || '5432') === (ub.port || '5432') && ua.pathname === ub.pathname
  }
  return false
}

function reportOf(tables: TableCheck[], started: number): CopyReport {
  return {
    tables: [...tables],
    ok: tables.every((t) => t.ok),
    rows: tables.filter((t) => t.table !== 'config').reduce((n, t) => n + t.sourceRows, 0),
    ms: performance.now() - started
  }
}

function documentCheck(source: ConfigData | null, target: ConfigData | null): TableCheck {
  const sourceChecksum = source ? documentChecksum(source) : ''
  const targetChecksum = target ? documentChecksum(target) : ''
  return { table: 'config', sourceRows: source ? 1 : 0, targetRows: target ? 1 : 0, sourceChecksum, targetChecksum, ok: sourceChecksum === targetChecksum }
}

/** Opens (and for a data dir locks) the source; refuses one that is missing or in use. */
async function openSource(from: CopyEndpoint, now: number): Promise<OpenEnd> {
  if (from.kind === 'dir') {
    const paths = dataPaths(from.dir)
    if (!existsSync(paths.database)) throw new CopyRefusedError('no-source', `There is no Chatapp database in ${from.dir} (no chatapp.db): nothing to copy. Check --from.`)
    const release = await lock(from.dir, 'source-in-use')
    try {
      const database = await openDatabase(paths.database)
      return { database, close: async () => void (await database.close(), await release()) }
    } catch (err) {
      await release()
      throw err
    }
  }
  const database = await openPostgresDatabase(from.url, { poolSize: 2 })
  try {
    const db = database.db
    const lease = await db.selectFrom('instance_leases').select(['instance_id', 'owner']).where('expires_at', '>', now).limit(1).executeTakeFirst()
    const worker = await db.selectFrom('workers').select(['id']).where('last_seen_at', '>', now - LIVE_WORKER_MS).limit(1).executeTakeFirst()
    if (lease || worker) {
      const who = lease ? `worker ${lease.owner} holds the lease of instance ${lease.instance_id}` : `worker ${worker!.id} was seen in the last ${LIVE_WORKER_MS / 1000} s`
      throw new CopyRefusedError('source-in-use', `Workers are running on ${database.file} (${who}). Stop every npm run serve on it first (a desk being written to would be copied half-old); nothing was copied.`)
    }
  } catch (err) {
    await database.close()
    throw err
  }
  return { database, close: () => database.close() }
}

/** The source's configuration document (null: none yet). */
async function readDocument(from: CopyEndpoint, database: DatabaseHandle): Promise<ConfigData | null> {
  if (from.kind === 'dir') return new DurableJsonFile(dataPaths(from.dir).config, checkConfig).read()
  return new DatabaseDocument(database).read()
}

/** Locks a data dir for the copy; refuses with `reason` when a running app holds it. */
async function lock(dir: string, reason: 'source-in-use' | 'target-in-use'): Promise<() => Promise<void>> {
  try {
    return await lockDataDir(dir, () => {})
  } catch (err) {
    if (!(err instanceof DataDirLockedError)) throw err
    throw new CopyRefusedError(reason, `Chatapp is running on the data dir ${dir} (it holds its lock). Stop it first (the app, or its npm run serve); nothing was copied.`)
  }
}

/** An opened target, and what undoes what opening it created (a data dir made for the copy). */
interface OpenTarget extends OpenEnd {
  cleanup: () => Promise<void>
}

/** Opens the target, migrated to this version; refuses one that holds a desk or is in use. */
async function openTarget(to: CopyEndpoint): Promise<OpenTarget> {
  if (to.kind === 'postgres') {
    const database = await openPostgresDatabase(to.url, { poolSize: 2 })
    try {
      await refuseDesk(database, describeEndpoint(to), 'Drop and create the database again (dropdb, createdb), or name another one')
    } catch (err) {
      await database.close()
      throw err
    }
    return { database, close: () => database.close(), cleanup: async () => {} }
  }
  const paths = dataPaths(to.dir)
  const madeDir = !existsSync(to.dir)
  await mkdir(to.dir, { recursive: true, mode: DIR_MODE })
  const hadDatabase = existsSync(paths.database)
  let hadDocument = true
  // Undoes what the copy created: a database file it made (and its WAL), the document, the folder.
  const cleanup = async (): Promise<void> => {
    if (!hadDatabase) for (const f of [paths.database, `${paths.database}-wal`, `${paths.database}-shm`]) await rm(f, { force: true })
    if (!hadDocument) await rm(paths.config, { force: true })
    if (madeDir) await rmdir(to.dir).catch(() => {})
  }
  let release: (() => Promise<void>) | undefined
  try {
    release = await lock(to.dir, 'target-in-use')
    if (existsSync(paths.config)) {
      throw new CopyRefusedError('target-not-empty', `The data dir ${to.dir} already holds a desk (config.json). Copy into an empty folder or a new one; nothing was copied.`)
    }
    hadDocument = false
    const database = await openDatabase(paths.database)
    try {
      await refuseDesk(database, `the data dir ${to.dir}`, 'Copy into an empty folder or a new one')
    } catch (err) {
      await database.close()
      throw err
    }
    const unlock = release
    return { database, close: async () => void (await database.close(), await unlock()), cleanup }
  } catch (err) {
    await release?.()
    await cleanup().catch(() => {})
    throw err
  }
}

/** Refuses a database holding any row of a desk: any table, or the configuration document. */
async function refuseDesk(database: DatabaseHandle, where: string, wayOut: string): Promise<void> {
  const db = database.db as unknown as AnyDb
  for (const name of [...COPIED_TABLES.map((t) => t.name), ...CONFIG_TABLES]) {
    const row = await db.selectFrom(name).select(sql<number>`1`.as('one')).limit(1).executeTakeFirst()
    if (row) throw new CopyRefusedError('target-not-empty', `${where} already holds a desk (table ${name} has rows). ${wayOut}; nothing was copied.`)
  }
}

/**
 * Runs `work` on one consistent view of the source: a REPEATABLE READ, read-only transaction on
 * PostgreSQL (one snapshot for every table); on SQLite a transaction too (in WAL mode its first read
 * fixes the snapshot), though the data dir's lock already keeps writers away.
 */
async function readSnapshot(source: DatabaseHandle, work: (db: Kysely<Database>) => Promise<void>): Promise<void> {
  let tx = source.db.transaction()
  if (source.dialect === 'postgres') tx = tx.setIsolationLevel('repeatable read').setAccessMode('read only')
  await tx.execute(work)
}

/**
 * Reads `table`'s rows in primary-key order, `batch` at a time (keyset: each page starts after the
 * last key read), and hands each page to `page`.
 */
async function eachPage(db: AnyDb, table: CopiedTable, batch: number, page: (rows: Row[]) => Promise<void>): Promise<void> {
  let last: unknown[] | null = null
  for (;;) {
    let q = db.selectFrom(table.name).selectAll()
    if (last) {
      const after = last
      // A row value comparison: the key's order, which both databases read from the key's index.
      q = q.where(sql<boolean>`(${sql.join(table.key.map((k) => sql.ref(k)))}) > (${sql.join(after)})`)
    }
    for (const k of table.key) q = q.orderBy(k)
    const rows = await q.limit(batch).execute()
    if (rows.length === 0) return
    await page(rows)
    if (rows.length < batch) return
    const end = rows[rows.length - 1]!
    last = table.key.map((k) => end[k])
  }
}

/** Copies `table` from `src` into `trx`; answers the source's digest. */
async function copyTable(src: AnyDb, trx: AnyDb, table: CopiedTable, batch: number): Promise<TableDigest> {
  const digest = new TableDigest()
  await eachPage(src, table, batch, async (rows) => {
    for (const row of rows) digest.add(row)
    await trx.insertInto(table.name).values(rows).execute()
  })
  return digest
}

/** The digest of `table` as `db` holds it. */
async function digestTable(db: AnyDb, table: CopiedTable, batch: number): Promise<TableDigest> {
  const digest = new TableDigest()
  await eachPage(db, table, batch, async (rows) => {
    for (const row of rows) digest.add(row)
  })
  return digest
}

/**
 * PostgreSQL: sets the identity sequence of a numbered table past its largest copied number, so the
 * next row the app inserts is numbered after them (rows inserted with their numbers leave it behind).
 */
async function moveSequence(trx: Transaction<Database>, table: CopiedTable): Promise<void> {
  const db = trx as unknown as AnyDb
  const top = await db
    .selectFrom(table.name)
    .select(sql<number | null>`max(seq)`.as('top'))
    .executeTakeFirst()
  if (top?.top == null) return
  await sql`SELECT setval(pg_get_serial_sequence(${table.name}, 'seq'), ${top.top})`.execute(trx)
}

