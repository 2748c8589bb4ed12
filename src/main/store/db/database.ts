/**
 * The database: the file `<dataDir>/chatapp.db` (SQLite, the default), or a PostgreSQL database
 * (`CHATAPP_DATABASE_URL`, {@link openPostgresDatabase}; docs/storage.md "PostgreSQL"). Opened once at
 * start with the settings a desk needs for years, migrated to this version, and handed to the
 * repositories as
 *
 * - `db`, the typed query builder (Kysely) for reads;
 * - `write(work)`, the one door for writes: group-committed transactions (./write-queue.ts).
 *
 * SQLite runs in worker threads, never on the main thread (./sqlite-thread/: one writer, readers).
 * Settings (https://www.sqlite.org/pragma.html): WAL (readers never wait for the writer, and a commit
 * is one sequential append), `synchronous=FULL` (a commit is on disk before it is acknowledged; NORMAL
 * may lose the last commits on power loss), foreign keys on, and a busy timeout for the backup and
 * command-line tools that open the file beside the app.
 *
 * A file that is not a database, or whose schema cannot be read, is refused with
 * {@link CorruptDatabaseError} and never touched; a file written by a newer version is refused too.
 */
import { open } from 'node:fs/promises'
import { Kysely, sql, type Transaction } from 'kysely'
import { Migrator, type MigrationProvider } from 'kysely/migration'
import { ThreadedSqliteDialect, type SqliteThreads } from './sqlite-thread/thread-dialect'
import { SqliteThread, type SqliteThreadOptions } from './sqlite-thread/sqlite-thread'
import { dialectOf, type DialectName } from './dialect'
import { postgresDialect, redactUrl, type PostgresOptions } from './postgres-dialect'
import { CorruptDatabaseError, sqliteCode, storageError } from './errors'
import { MIGRATIONS } from './migrations'
import { createFromBaseline } from './baseline'
import type { Database } from './schema'
import { WriteQueue, type WriteWork } from './write-queue'
import { BackupUnavailableError } from '../backup/errors'

export type { Database } from './schema'
export type Tx = Transaction<Database>

/** The data dir was written by a newer version of the app. */
export class NewerDatabaseError extends Error {
  constructor(
    readonly file: string,
    unknown: string[]
  ) {
    super(`The database ${file} was written by a newer version of Chatapp Desk (it has migrations ${unknown.join(', ')}). Install that version again, or restore a backup made by this one.`)
    this.name = 'NewerDatabaseError'
  }
}

export interface DatabaseHandle {
  /** Which database this is: the embedded SQLite file, or a PostgreSQL server (docs/storage.md). */
  readonly dialect: DialectName
  /** The SQLite file, or the PostgreSQL URL without its password: names the database in messages. */
  readonly file: string
  /** Typed reads (and the migrator's and importer's own transactions). */
  readonly db: Kysely<Database>
  /** Runs `work` in the next group commit; resolves with its result once on disk (see ./write-queue.ts). */
  write<T>(work: WriteWork<Database, T>): Promise<T>
  /**
   * SQLite only: the threads that run every statement (./sqlite-thread/): the repositories send
   * their data calls there whole (../repos/index.ts).
   */
  readonly threads?: SqliteThreads
  /**
   * Copies the database, consistent as of one moment, to `file` (SQLite's online backup; writers go
   * on). PostgreSQL: not in this version (throws; pg_dump copies a server's database).
   */
  backupTo(file: string): Promise<void>
  /** The database's version: the number of migrations applied. */
  version(): Promise<number>
  /** Group commits so far: transactions committed and the writes they carried. */
  commitStats(): { commits: number; writes: number; replays: number }
  /**
   * PostgreSQL only (absent on SQLite): LISTENs on `channel` (a plain identifier) on a connection of
   * the pool held for it, and calls `onNotify` with each notification's payload, from this process's
   * writes too. Resolves once listening, with the function that stops (UNLISTEN, the connection goes
   * back). {@link close} stops every listener first. A listening connection that breaks is dropped and
   * its notifications stop; `onLost` is told (re-listening is the caller's).
   */
  listen?(channel: string, onNotify: (payload: string) => void, onLost?: (err: Error) => void): Promise<() => Promise<void>>
  /** Waits for queued writes, checkpoints the WAL into the file and closes it (PostgreSQL: ends the pool). */
  close(): Promise<void>
  /**
   * Test seam: lets the file grow by at most `pages` more pages (null: no limit), so the next writes
   * meet SQLite's own SQLITE_FULL as on a full disk (`PRAGMA max_page_count` on the writer). SQLite only.
   */
  limitGrowth(pages: number | null): Promise<void>
  /**
   * Test seam (SQLite only): the writer's or a reader's thread dies as a crash would (`exit`: it
   * exits; `throw`: an uncaught error in it). The thread is started again (./sqlite-thread/).
   */
  crashThread?(which: 'writer' | 'reader', how: 'exit' | 'throw'): void
}

const staticMigrations: MigrationProvider = { getMigrations: async () => ({ ...MIGRATIONS }) }

/** Names of the migrations a database has applied (none for a new file). */
async function appliedMigrations(db: Kysely<Database>): Promise<string[]> {
  if (dialectOf(db) === 'postgres') {
    // The table as the search_path finds it (introspection lists every schema's tables).
    const { rows } = await sql<{ present: boolean }>`SELECT to_regclass('kysely_migration') IS NOT NULL AS present`.execute(db)
    if (!rows[0]?.present) return []
  } else {
    const tables = await db.introspection.getTables({ withInternalKyselyTables: true })
    if (!tables.some((t) => t.name === 'kysely_migration')) return []
  }
  const rows = await (db as unknown as Kysely<{ kysely_migration: { name: string } }>).selectFrom('kysely_migration').select('name').execute()
  return rows.map((r) => r.name)
}

/**
 * Refuses a database written by a newer version ({@link NewerDatabaseError}), then applies this
 * version's migrations with Kysely's Migrator, all in one transaction (both databases have
 * transactional DDL). `where` names the database in errors.
 */
async function migrate(db: Kysely<Database>, where: string): Promise<void> {
  const known = new Set(Object.keys(MIGRATIONS))
  const unknown = (await appliedMigrations(db)).filter((n) => !known.has(n))
  if (unknown.length > 0) throw new NewerDatabaseError(where, unknown)
  const { error } = await new Migrator({ db, provider: staticMigrations }).migrateToLatest()
  if (error) throw error instanceof Error ? error : new Error(`The database ${where} could not be migrated: ${JSON.stringify(error)}`)
}

/** Where the database is: the embedded SQLite file, or a PostgreSQL server's URL. */
export type DatabaseLocation = { file: string } | { url: string; postgres?: PostgresOptions }

/** Opens the database at `where` ({@link openDatabase} or {@link openPostgresDatabase}). */
export function openDatabaseAt(where: DatabaseLocation, sqlite: SqliteOptions = {}): Promise<DatabaseHandle> {
  return 'url' in where ? openPostgresDatabase(where.url, where.postgres) : openDatabase(where.file, sqlite)
}

/** The oldest PostgreSQL this version runs on (`server_version_num`: 14.0). */
const POSTGRES_MIN_VERSION = 140000

/**
 * Connects to the PostgreSQL database at `url` (`postgres://user:password@host:port/db`, as
 * CHATAPP_DATABASE_URL gives it) through a pool, checks the server is PostgreSQL 14 or newer, and
 * migrates the database to this version with the same migrations as SQLite (their dialect branches:
 * ./dialect.ts). The user needs to own the database (or its schema) and may create the `pg_trgm`
 * and `unaccent` extensions (trusted extensions: a database owner may). Writes go through the same
 * group commit as on SQLite (./write-queue.ts): one transaction at a time, so a write's reads and its
 * changes are never interleaved with another write's. Throws the connection's error (with the URL,
 * password left out) when the server cannot be reached, {@link NewerDatabaseError} for a database of a
 * newer version, and an Error for a server older than 14.
 */
export async function openPostgresDatabase(url: string, options: PostgresOptions = {}): Promise<DatabaseHandle> {
  const where = redactUrl(url)
  const { dialect, pool } = postgresDialect(url, where, options)
  const db = new Kysely<Database>({ dialect })
  try {
    let version: number
    try {
      const { rows } = await sql<{ v: string }>`SELECT current_setting('server_version_num') AS v`.execute(db)
      version = Number(rows[0]!.v)
    } catch (err) {
      throw new Error(`Could not connect to the database ${where}: ${err instanceof Error ? err.message : String(err)}`, { cause: err })
    }
    if (!(version >= POSTGRES_MIN_VERSION)) throw new Error(`The database ${where} runs PostgreSQL ${version}; Chatapp Desk needs PostgreSQL 14 or newer.`)
    await migrate(db, where)
  } catch (err) {
    await db.destroy()
    throw err
  }
  const queue = new WriteQueue(db)
  let closed = false
  const listeners = new Set<() => Promise<void>>()
  return {
    dialect: 'postgres',
    file: where,
    db,
    write: (work) => queue.run(work),
    async listen(channel, onNotify, onLost) {
      // LISTEN takes no bind parameter: the channel goes into the SQL, so only a plain identifier.
      if (!/^[a-z_][a-z0-9_]*$/.test(channel)) throw new Error(`Not a channel name: ${channel}`)
      if (closed) throw new Error('The database is closed.')
      const client = await pool.connect()
      let broken: Error | undefined
      const onNotification = (n: { channel: string; payload?: string }): void => {
        if (n.channel === channel) onNotify(n.payload ?? '')
      }
      const onError = (err: Error): void => {
        if (broken) return
        broken = err
        void stop()
        onLost?.(err)
      }
      client.on('notification', onNotification)
      client.on('error', onError)
      let stopped = false
      const stop = async (): Promise<void> => {
        if (stopped) return
        stopped = true
        listeners.delete(stop)
        client.off('notification', onNotification)
        if (!broken) await client.query(`UNLISTEN ${channel}`).catch((err: Error) => void (broken = err))
        client.off('error', onError)
        // A broken connection is destroyed rather than handed back to the pool.
        client.release(broken)
      }
      try {
        await client.query(`LISTEN ${channel}`)
      } catch (err) {
        broken ??= err instanceof Error ? err : new Error(String(err))
        await stop()
        throw err
      }
      listeners.add(stop)
      return stop
    },
    backupTo() {
      return Promise.reject(new BackupUnavailableError(`The app does not back up a PostgreSQL database: use pg_dump on ${where} (docs/deploy.md "Backups"). Nothing was written.`))
    },
    async version() {
      return (await appliedMigrations(db)).length
    },
    commitStats: () => ({ ...queue.stats }),
    async close() {
      if (closed) return
      closed = true
      // The pool's end waits for every connection to come back, a listening one too.
      await Promise.all([...listeners].map((stop) => stop()))
      await queue.close()
      await db.destroy()
    },
    limitGrowth() {
      return Promise.reject(new Error('limitGrowth is a test seam of SQLite databases.'))
    }
  }
}

/** How the SQLite threads of a database are run. */
export interface SqliteOptions {
  /** Read-only connections, each in a thread of its own, for reads outside transactions (default 2). */
  readers?: number
  /** Told when a SQLite thread died and was started again, or could not be (then the database is unusable). */
  onThreadEvent?: (event: { kind: 'restarted' | 'failed'; thread: string; error: Error }) => void
}

/** Prepared statements kept per connection (distinct SQL texts; IN lists of other lengths are other texts). */
const STATEMENT_CACHE_SIZE = 500

/** SQLite's result codes for a file that cannot be opened at all (no such folder, no permission): not damage. */
const SQLITE_PERM = 3
const SQLITE_CANTOPEN = 14

/**
 * Opens (or creates) the database at `file` and migrates it to this version (a new file: from the
 * baseline, ./baseline.ts). Every statement runs in a
 * SQLite thread (./sqlite-thread/): one writer, which the group commit's transactions hold, and
 * `options.readers` read-only connections for the reads outside transactions (docs/storage.md
 * "Threads"). Throws {@link CorruptDatabaseError} for a damaged file, {@link NewerDatabaseError} for a
 * newer one, and the storage errors of ./errors for a full disk.
 */
export async function openDatabase(file: string, options: SqliteOptions = {}): Promise<DatabaseHandle> {
  // Created 0600 before SQLite makes it 0644 by the umask: it holds credentials and the customers'
  // messages. SQLite gives the -wal and -shm files the database file's permissions.
  await (await open(file, 'a', 0o600)).close()
  const threadOptions = (name: string, readOnly: boolean): SqliteThreadOptions => ({
    file,
    readOnly,
    name,
    statementCache: STATEMENT_CACHE_SIZE,
    onRestart: (error) => options.onThreadEvent?.({ kind: 'restarted', thread: name, error }),
    onFailed: (error) => options.onThreadEvent?.({ kind: 'failed', thread: name, error })
  })
  let writer: SqliteThread
  try {
    writer = await SqliteThread.open(threadOptions('writer', false))
  } catch (err) {
    const e = storageError(err, file)
    const code = sqliteCode(err)
    if (e instanceof Error && e.name === 'StorageFullError') throw e
    if (code === SQLITE_CANTOPEN || code === SQLITE_PERM || code === undefined) throw e
    throw new CorruptDatabaseError(file, err)
  }
  const readers: SqliteThread[] = []
  const threads: SqliteThreads = { file, writer, readers }
  const db = new Kysely<Database>({ dialect: new ThreadedSqliteDialect(threads) })
  // The readers start while the writer migrates: a thread's start is mostly loading its code. Their
  // connections open on a file the writer has already put in WAL mode (they never wait for it), and
  // see the migrated schema once the migration commits; no read is sent to them before.
  const n = options.readers ?? 2
  const opening = Promise.allSettled(Array.from({ length: n }, (_, i) => SqliteThread.open(threadOptions(`reader ${i + 1}`, true))))
  let failure: { error: unknown } | undefined
  try {
    // A new file gets this version's schema in one step (./baseline.ts); the migrations then find it current.
    await createFromBaseline(writer, file)
    await migrate(db, file)
  } catch (error) {
    failure = { error }
  }
  const opened = await opening
  for (const r of opened) if (r.status === 'fulfilled') readers.push(r.value)
  const refused = opened.find((r) => r.status === 'rejected')
  failure ??= refused ? { error: refused.reason } : undefined
  if (failure) {
    await Promise.all(readers.map((r) => r.close(false)))
    await writer.close(false)
    throw failure.error
  }
  const queue = new WriteQueue(db)
  let closed = false
  return {
    dialect: 'sqlite',
    file,
    db,
    threads,
    write: (work) => queue.run(work),
    async backupTo(target) {
      try {
        // In a reader's thread: the copy reads one snapshot and never holds the writer.
        await (readers[0] ?? writer).request({ t: 'backup', target })
      } catch (err) {
        throw storageError(err, target)
      }
    },
    async version() {
      return (await appliedMigrations(db)).length
    },
    commitStats: () => ({ ...queue.stats }),
    async close() {
      if (closed) return
      closed = true
      await queue.close()
      await db.destroy()
      await Promise.all(readers.map((r) => r.close(false)))
      await writer.close(true)
    },
    async limitGrowth(pages) {
      await writer.request({ t: 'limitGrowth', pages })
    },
    crashThread(which, how) {
      ;(which === 'writer' ? writer : readers[0] ?? writer).crash(how)
    }
  }
}
