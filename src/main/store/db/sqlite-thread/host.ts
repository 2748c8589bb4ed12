/**
 * What a SQLite thread serves (./thread.ts is its entry): one `node:sqlite` connection, used two ways.
 *
 * - **Repository calls**: the database's repositories (../../repos/data-repositories.ts) live in the
 *   thread over its own connection, so a call whose arguments are data (`messages.append(id, entry)`)
 *   runs whole here: one round trip, whatever statements it takes. The writer's thread has the group
 *   commit (../write-queue.ts): the writes of the calls that arrive while a batch commits share the
 *   next transaction and its fsync. A reader's thread runs the calls that only read; one that writes
 *   is refused there ({@link ReadOnlyCallError}) and goes to the writer.
 * - **Statements**: the main thread's own transactions (a change with an immer recipe, a unit of work
 *   over several repositories, a migration) arrive statement by statement, in order. On the writer,
 *   from BEGIN to COMMIT or ROLLBACK the group commit waits ({@link Lock}): one transaction at a time
 *   on the one connection, as SQLite allows one writer.
 *
 * The settings (https://www.sqlite.org/pragma.html): the writer sets WAL (readers never wait for it),
 * `synchronous=FULL` (a commit is on disk before it is acknowledged) and foreign keys; every connection
 * waits up to 5 s for a lock held by another (the backup and command-line tools).
 */
import { backup as sqliteBackup, DatabaseSync, type SQLInputValue, type StatementSync } from 'node:sqlite'
import { Kysely } from 'kysely'
import { dataRepositories, type DataRepositories } from '../../repos/data-repositories'
import type { Database } from '../schema'
import { WriteQueue } from '../write-queue'
import { describeError, ReadOnlyCallError } from './error-transport'
import { Lock } from './lock'
import type { ThreadOptions, ThreadReply, ThreadRequest } from './protocol'
import { NodeSqliteDialect } from './sync-dialect'

/** node:sqlite refuses `undefined` and booleans; the schema's flags are 0/1 and a missing value is NULL. */
function bind(params: unknown[]): SQLInputValue[] {
  return params.map((p) => (p === undefined ? null : typeof p === 'boolean' ? (p ? 1 : 0) : (p as SQLInputValue)))
}

/** Opens the thread's connection with its settings. Throws node:sqlite's error for a file it cannot use. */
export function openConnection(options: ThreadOptions): DatabaseSync {
  const db = new DatabaseSync(options.file, { readOnly: options.readOnly, timeout: 5000 })
  try {
    // The first statement reads the header and the schema: a damaged file fails here, untouched.
    db.prepare('SELECT count(*) FROM sqlite_schema').get()
    if (!options.readOnly) {
      db.exec('PRAGMA journal_mode = WAL')
      db.exec('PRAGMA synchronous = FULL')
      db.exec('PRAGMA foreign_keys = ON')
    }
  } catch (err) {
    db.close()
    throw err
  }
  return db
}

export class ThreadHost {
  private readonly statements = new Map<string, { stmt: StatementSync; reader: boolean }>()
  private readonly kysely: Kysely<Database>
  private readonly queue: WriteQueue<Database> | null
  private readonly repos: DataRepositories
  /** The one writer: the main thread's transactions and this thread's group commits take turns. */
  private readonly writer = new Lock()
  /** The main thread's transaction in progress holds the writer until it ends. */
  private mainTransaction: (() => void) | null = null
  /** The main thread's statements, run in the order they came (each may wait for the writer). */
  private statementChain: Promise<void> = Promise.resolve()

  constructor(
    private readonly db: DatabaseSync,
    private readonly options: ThreadOptions,
    private readonly answer: (reply: ThreadReply) => void
  ) {
    this.kysely = new Kysely<Database>({ dialect: new NodeSqliteDialect(db, options.file) })
    this.queue = options.readOnly ? null : new WriteQueue(this.kysely, this.writer)
    const queue = this.queue
    this.repos = dataRepositories({
      db: this.kysely,
      write: (work) => (queue ? queue.run((trx) => work(trx)) : Promise.reject(new ReadOnlyCallError()))
    })
  }

  /** Handles one request of the main thread (the answer is posted when it is done). */
  handle(req: ThreadRequest): void {
    if (req.t === 'call') return void this.call(req)
    if (req.t === 'query' || req.t === 'exec') {
      this.statementChain = this.statementChain.then(() => this.statement(req))
      return
    }
    try {
      this.other(req)
    } catch (err) {
      this.answer({ id: req.id, ok: false, error: describeError(err) })
    }
  }

  private async call(req: Extract<ThreadRequest, { t: 'call' }>): Promise<void> {
    try {
      const repo = this.repos[req.repo as keyof DataRepositories] as unknown as Record<string, unknown> | undefined
      const method = repo?.[req.method]
      if (typeof method !== 'function') throw new Error(`No repository method ${req.repo}.${req.method}.`)
      const value: unknown = await (method as (...a: unknown[]) => Promise<unknown>).apply(repo, req.args)
      this.answer({ id: req.id, ok: true, value })
    } catch (err) {
      this.answer({ id: req.id, ok: false, error: describeError(err) })
    }
  }

  private async statement(req: Extract<ThreadRequest, { t: 'query' | 'exec' }>): Promise<void> {
    const tx = req.t === 'exec' ? req.tx : undefined
    let release: (() => void) | null = null
    try {
      if (tx === 'begin') this.mainTransaction = await this.writer.acquire()
      else if (!this.mainTransaction && !this.options.readOnly) release = await this.writer.acquire()
      if (req.t === 'exec') {
        this.db.exec(req.sql)
        this.answer({ id: req.id, ok: true })
      } else {
        const { stmt, reader } = this.prepared(req.sql)
        const params = bind(req.params)
        if (reader) this.answer({ id: req.id, ok: true, rows: stmt.all(...params) })
        else {
          const { changes, lastInsertRowid } = stmt.run(...params)
          this.answer({ id: req.id, ok: true, changes: Number(changes), lastInsertRowid })
        }
      }
      if (tx === 'commit') this.endMainTransaction()
    } catch (err) {
      // A failed BEGIN holds nothing; a failed COMMIT leaves the transaction to its ROLLBACK.
      if (tx === 'begin') this.endMainTransaction()
      this.answer({ id: req.id, ok: false, error: describeError(err) })
    } finally {
      if (tx === 'rollback') this.endMainTransaction()
      release?.()
    }
  }

  private endMainTransaction(): void {
    const release = this.mainTransaction
    this.mainTransaction = null
    release?.()
  }

  /** Statements by SQL text, most recently used last (the Map's order is the eviction order). */
  private prepared(sql: string): { stmt: StatementSync; reader: boolean } {
    const cached = this.statements.get(sql)
    if (cached) {
      this.statements.delete(sql)
      this.statements.set(sql, cached)
      return cached
    }
    const stmt = this.db.prepare(sql)
    const entry = { stmt, reader: stmt.columns().length > 0 }
    this.statements.set(sql, entry)
    if (this.statements.size > this.options.statementCache) this.statements.delete(this.statements.keys().next().value!)
    return entry
  }

  private other(req: Extract<ThreadRequest, { t: 'backup' | 'limitGrowth' | 'close' | 'crash' }>): void {
    switch (req.t) {
      case 'backup':
        this.backupTo(req.target).then(
          () => this.answer({ id: req.id, ok: true }),
          (err: unknown) => this.answer({ id: req.id, ok: false, error: describeError(err) })
        )
        return
      case 'limitGrowth': {
        if (req.pages === null) this.db.exec('PRAGMA max_page_count = 4294967294')
        else {
          const { page_count } = this.db.prepare('PRAGMA page_count').get() as { page_count: number }
          this.db.exec(`PRAGMA max_page_count = ${page_count + req.pages}`)
        }
        return this.answer({ id: req.id, ok: true })
      }
      case 'close':
        void this.close(req)
        return
      case 'crash':
        if (req.how === 'exit') process.exit(1)
        setImmediate(() => {
          throw new Error('A crash of the SQLite thread, injected by a test.')
        })
        return
    }
  }

  private async backupTo(target: string): Promise<void> {
    // A connection of its own, copying every page in one step: the step reads one snapshot (WAL
    // readers do not block the writer), so the copy is the database as of one commit. A copy in small
    // steps restarts whenever another connection writes, and might never end.
    const source = new DatabaseSync(this.options.file, { readOnly: true, timeout: 5000 })
    try {
      await sqliteBackup(source, target, { rate: 2_147_483_647 })
    } finally {
      source.close()
    }
  }

  private async close(req: Extract<ThreadRequest, { t: 'close' }>): Promise<void> {
    try {
      // The calls in flight commit first.
      await this.queue?.close()
      await this.statementChain
      this.statements.clear()
      if (req.checkpoint) {
        try {
          // Folds the WAL into the file, so a copy of the data dir made while the app is stopped is whole.
          this.db.exec('PRAGMA wal_checkpoint(TRUNCATE)')
        } catch {
          // A full disk or a read-only file: the WAL stays beside the file and is replayed at the next open.
        }
      }
      this.db.close()
      this.answer({ id: req.id, ok: true })
      // The thread ends by itself (its profile and handles closed as at any exit); the main thread waits for it.
      setImmediate(() => process.exit(0))
    } catch (err) {
      this.answer({ id: req.id, ok: false, error: describeError(err) })
    }
  }
}
