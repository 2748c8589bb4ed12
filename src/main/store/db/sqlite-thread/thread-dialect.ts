/**
 * Kysely on SQLite threads: every query the repositories build is compiled on the main thread and
 * run by a thread of ./sqlite-thread.ts (docs/storage.md "Threads"). Kysely's SQLite adapter, query
 * compiler and introspector are used as they are; this module is only the driver.
 *
 * Where a query runs:
 * - in a transaction (the group commit's, a migration's, a copy's): on the writer, which the
 *   transaction holds from BEGIN to COMMIT or ROLLBACK (a FIFO lock: one transaction at a time, as
 *   SQLite allows one writer);
 * - a SELECT outside a transaction: on the least busy reader (WAL: readers see the last commit and
 *   never wait for the writer). A statement a reader refuses as a write (`SQLITE_READONLY`: a raw
 *   statement that only looked like a read) goes to the writer;
 * - any other statement outside a transaction: on the writer, between transactions.
 *
 * BEGIN, SAVEPOINT and RELEASE are posted without waiting for their answer (the thread runs requests
 * in order): a group commit of many writes then costs one round trip per statement of its own, not
 * three. If one of them fails, the transaction is spoiled: its later statements and its COMMIT
 * reject with that error without running, and only a ROLLBACK goes through.
 *
 * A transaction whose writer died (./sqlite-thread.ts `generation`) is gone: its statements reject
 * with the thread's error, its ROLLBACK only frees the writer for the next one.
 */
import {
  SelectQueryNode,
  SqliteAdapter,
  SqliteIntrospector,
  SqliteQueryCompiler,
  type DatabaseConnection,
  type DatabaseIntrospector,
  type Dialect,
  type DialectAdapter,
  type Driver,
  type CompiledQuery,
  type Kysely,
  type QueryCompiler,
  type QueryResult
} from 'kysely'
import { Lock } from './lock'
import type { SqliteThread, ThreadResult } from './sqlite-thread'
import { sqliteCode, storageError } from '../errors'

/** SQLITE_READONLY: a reader was asked to write. */
const SQLITE_READONLY = 8

/** The writer and the readers of one database file. */
export interface SqliteThreads {
  readonly file: string
  readonly writer: SqliteThread
  /** Empty: reads go to the writer too (a short-lived connection, a read-only file). */
  readonly readers: readonly SqliteThread[]
}

/** `SAVEPOINT "name"` and its kin, the name quoted as an identifier. */
function savepointSql(command: 'SAVEPOINT' | 'ROLLBACK TO' | 'RELEASE', name: string): string {
  return `${command} "${name.replace(/"/g, '""')}"`
}

/** Is `query` a read a reader can run (a SELECT, or raw SQL that starts as one)? */
function isRead(query: CompiledQuery): boolean {
  if (SelectQueryNode.is(query.query)) return true
  return query.query.kind === 'RawNode' && /^\s*(select|with)\b/i.test(query.sql)
}

function asResult<R>(r: ThreadResult): QueryResult<R> {
  if (r.rows) return { rows: r.rows as R[] }
  return {
    rows: [],
    numAffectedRows: r.changes === undefined ? undefined : BigInt(r.changes),
    insertId: r.lastInsertRowid === undefined || r.lastInsertRowid === null ? undefined : BigInt(r.lastInsertRowid)
  }
}

class ThreadConnection implements DatabaseConnection {
  /** The writer's generation when this connection's transaction began (undefined: no transaction). */
  txGeneration: number | undefined
  /** Frees the writer when the transaction ends. */
  unlock: (() => void) | undefined
  /** The error of a statement posted without waiting (BEGIN, SAVEPOINT, RELEASE): the transaction is spoiled. */
  spoiled: Error | undefined

  constructor(private readonly driver: ThreadDriver) {}

  executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    return this.driver.run<R>(this, query)
  }

  streamQuery<R>(): AsyncIterableIterator<QueryResult<R>> {
    // Long reads page by keyset in the repositories (a cursor held open would pin the WAL).
    throw new Error('Streaming is not used on SQLite threads: read in keyset pages.')
  }
}

class ThreadDriver implements Driver {
  private readonly writerLock = new Lock()
  private nextReader = 0

  constructor(private readonly threads: SqliteThreads) {}

  async init(): Promise<void> {}

  async acquireConnection(): Promise<DatabaseConnection> {
    return new ThreadConnection(this)
  }

  /** Runs `query` where the module doc says, as a Kysely result; SQLite's errors as storage errors. */
  async run<R>(c: ThreadConnection, query: CompiledQuery): Promise<QueryResult<R>> {
    const { writer, readers, file } = this.threads
    try {
      if (c.txGeneration !== undefined) {
        this.checkTransaction(c)
        return asResult(await writer.request({ t: 'query', sql: query.sql, params: query.parameters as unknown[] }))
      }
      if (readers.length > 0 && isRead(query)) {
        try {
          return asResult(await this.reader().request({ t: 'query', sql: query.sql, params: query.parameters as unknown[] }))
        } catch (err) {
          if (sqliteCode(err) !== SQLITE_READONLY) throw err
        }
      }
      const unlock = await this.writerLock.acquire()
      try {
        return asResult(await writer.request({ t: 'query', sql: query.sql, params: query.parameters as unknown[] }))
      } finally {
        unlock()
      }
    } catch (err) {
      throw storageError(err, file)
    }
  }

  /** The reader with the fewest requests in flight (the next in turn among equals). */
  private reader(): SqliteThread {
    const { readers } = this.threads
    let best = readers[this.nextReader++ % readers.length]!
    for (const r of readers) if (r.load < best.load) best = r
    return best
  }

  private checkTransaction(c: ThreadConnection): void {
    if (c.spoiled) throw c.spoiled
    if (c.txGeneration !== this.threads.writer.generation) throw new Error(`The transaction on ${this.threads.file} was lost: its SQLite thread stopped.`)
  }

  /** Posts a transaction-control statement without waiting; a failure spoils the transaction. */
  private pipelined(c: ThreadConnection, sql: string, tx?: 'begin'): void {
    this.checkTransaction(c)
    this.threads.writer.request({ t: 'exec', sql, ...(tx ? { tx } : {}) }).catch((err: unknown) => {
      c.spoiled ??= storageError(err, this.threads.file) as Error
    })
  }

  async beginTransaction(c: ThreadConnection): Promise<void> {
    c.unlock = await this.writerLock.acquire()
    c.txGeneration = this.threads.writer.generation
    c.spoiled = undefined
    this.pipelined(c, 'BEGIN', 'begin')
  }

  async commitTransaction(c: ThreadConnection): Promise<void> {
    this.checkTransaction(c)
    try {
      await this.threads.writer.request({ t: 'exec', sql: 'COMMIT', tx: 'commit' })
    } catch (err) {
      throw storageError(err, this.threads.file)
    }
    // Still open (the COMMIT failed): the caller rolls back, which frees the writer.
    this.end(c)
  }

  async rollbackTransaction(c: ThreadConnection): Promise<void> {
    try {
      if (c.txGeneration === this.threads.writer.generation) await this.threads.writer.request({ t: 'exec', sql: 'ROLLBACK', tx: 'rollback' })
    } catch (err) {
      // SQLite rolls back by itself on some errors (a full disk): then there is nothing left to roll back.
      if (!/no transaction is active/.test((err as Error).message)) throw storageError(err, this.threads.file)
    } finally {
      this.end(c)
    }
  }

  private end(c: ThreadConnection): void {
    c.txGeneration = undefined
    c.spoiled = undefined
    const unlock = c.unlock
    c.unlock = undefined
    unlock?.()
  }

  async savepoint(c: ThreadConnection, name: string): Promise<void> {
    this.pipelined(c, savepointSql('SAVEPOINT', name))
  }

  async rollbackToSavepoint(c: ThreadConnection, name: string): Promise<void> {
    this.checkTransaction(c)
    try {
      await this.threads.writer.request({ t: 'exec', sql: savepointSql('ROLLBACK TO', name) })
    } catch (err) {
      throw storageError(err, this.threads.file)
    }
  }

  async releaseSavepoint(c: ThreadConnection, name: string): Promise<void> {
    this.pipelined(c, savepointSql('RELEASE', name))
  }

  async releaseConnection(): Promise<void> {}

  async destroy(): Promise<void> {
    // The owner of the threads closes them (it also checkpoints the WAL).
  }
}

class TransactionalSqliteAdapter extends SqliteAdapter {
  // SQLite has transactional DDL (Kysely's adapter says it has not): the Migrator then runs a batch
  // of migrations in one transaction, so a crash mid-migration leaves the previous version whole.
  override get supportsTransactionalDdl(): boolean {
    return true
  }
}

/** Kysely's SQLite dialect over `threads` (opened and closed by the caller). */
export class ThreadedSqliteDialect implements Dialect {
  constructor(private readonly threads: SqliteThreads) {}

  createAdapter(): DialectAdapter {
    return new TransactionalSqliteAdapter()
  }

  createDriver(): Driver {
    return new ThreadDriver(this.threads)
  }

  createQueryCompiler(): QueryCompiler {
    return new SqliteQueryCompiler()
  }

  createIntrospector(db: Kysely<unknown>): DatabaseIntrospector {
    return new SqliteIntrospector(db)
  }
}
