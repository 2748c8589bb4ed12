/**
 * A SQLite thread: one `node:sqlite` connection living in a worker thread, answering the requests of
 * ./protocol.ts one at a time, in the order they come. The main thread never runs a statement or a
 * commit's fsync itself (docs/storage.md "Threads"): it posts SQL here and awaits the answer.
 *
 * This file runs as it is in a worker (Node strips its types; the build makes it a file of its own,
 * `sqlite-thread.js`): it imports only Node's built-ins at run time, and its syntax is erasable
 * TypeScript (no enums, no parameter properties).
 *
 * Settings (https://www.sqlite.org/pragma.html): the writer sets WAL (readers never wait for it),
 * `synchronous=FULL` (a commit is on disk before it is acknowledged) and foreign keys; every
 * connection waits up to 5 s for a lock held by another (the backup and command-line tools).
 */
import { backup as sqliteBackup, DatabaseSync, type SQLInputValue, type StatementSync } from 'node:sqlite'
import { parentPort, workerData } from 'node:worker_threads'
import type { ThreadError, ThreadOptions, ThreadReady, ThreadReply, ThreadRequest } from './protocol'

const options = workerData as ThreadOptions
const port = parentPort!

function describe(err: unknown): ThreadError {
  const e = err as { name?: unknown; message?: unknown; code?: unknown; errcode?: unknown; errstr?: unknown } | null
  const out: ThreadError = { name: typeof e?.name === 'string' ? e.name : 'Error', message: typeof e?.message === 'string' ? e.message : String(err) }
  if (typeof e?.code === 'string') out.code = e.code
  if (typeof e?.errcode === 'number') out.errcode = e.errcode
  if (typeof e?.errstr === 'string') out.errstr = e.errstr
  return out
}

/** node:sqlite refuses `undefined` and booleans; the schema's flags are 0/1 and a missing value is NULL. */
function bind(params: unknown[]): SQLInputValue[] {
  return params.map((p) => (p === undefined ? null : typeof p === 'boolean' ? (p ? 1 : 0) : (p as SQLInputValue)))
}

let db: DatabaseSync
try {
  db = new DatabaseSync(options.file, { readOnly: options.readOnly, timeout: 5000 })
  // The first statement reads the header and the schema: a damaged file fails here, untouched.
  db.prepare('SELECT count(*) FROM sqlite_schema').get()
  if (!options.readOnly) {
    db.exec('PRAGMA journal_mode = WAL')
    db.exec('PRAGMA synchronous = FULL')
    db.exec('PRAGMA foreign_keys = ON')
  }
  port.postMessage({ ready: true } satisfies ThreadReady)
} catch (err) {
  port.postMessage({ ready: false, error: describe(err) } satisfies ThreadReady)
  process.exit(0)
}

/** Statements by SQL text, most recently used last (the Map's order is the eviction order). */
const statements = new Map<string, { stmt: StatementSync; reader: boolean }>()

function prepared(sql: string): { stmt: StatementSync; reader: boolean } {
  const cached = statements.get(sql)
  if (cached) {
    statements.delete(sql)
    statements.set(sql, cached)
    return cached
  }
  const stmt = db.prepare(sql)
  const entry = { stmt, reader: stmt.columns().length > 0 }
  statements.set(sql, entry)
  if (statements.size > options.statementCache) statements.delete(statements.keys().next().value!)
  return entry
}

function answer(reply: ThreadReply): void {
  port.postMessage(reply)
}

async function backupTo(target: string): Promise<void> {
  // A connection of its own, copying every page in one step: the step reads one snapshot (WAL
  // readers do not block the writer), so the copy is the database as of one commit. A copy in small
  // steps restarts whenever another connection writes, and might never end.
  const source = new DatabaseSync(options.file, { readOnly: true, timeout: 5000 })
  try {
    await sqliteBackup(source, target, { rate: 2_147_483_647 })
  } finally {
    source.close()
  }
}

function handle(req: ThreadRequest): void {
  switch (req.t) {
    case 'query': {
      const { stmt, reader } = prepared(req.sql)
      const params = bind(req.params)
      if (reader) return answer({ id: req.id, ok: true, rows: stmt.all(...params) })
      const { changes, lastInsertRowid } = stmt.run(...params)
      return answer({ id: req.id, ok: true, changes: Number(changes), lastInsertRowid })
    }
    case 'exec':
      db.exec(req.sql)
      return answer({ id: req.id, ok: true })
    case 'backup':
      backupTo(req.target).then(
        () => answer({ id: req.id, ok: true }),
        (err: unknown) => answer({ id: req.id, ok: false, error: describe(err) })
      )
      return
    case 'limitGrowth': {
      if (req.pages === null) db.exec('PRAGMA max_page_count = 4294967294')
      else {
        const { page_count } = db.prepare('PRAGMA page_count').get() as { page_count: number }
        db.exec(`PRAGMA max_page_count = ${page_count + req.pages}`)
      }
      return answer({ id: req.id, ok: true })
    }
    case 'close':
      statements.clear()
      if (req.checkpoint) {
        try {
          // Folds the WAL into the file, so a copy of the data dir made while the app is stopped is whole.
          db.exec('PRAGMA wal_checkpoint(TRUNCATE)')
        } catch {
          // A full disk or a read-only file: the WAL stays beside the file and is replayed at the next open.
        }
      }
      db.close()
      return answer({ id: req.id, ok: true })
    case 'crash':
      if (req.how === 'exit') process.exit(1)
      setImmediate(() => {
        throw new Error('A crash of the SQLite thread, injected by a test.')
      })
      return
  }
}

port.on('message', (req: ThreadRequest) => {
  try {
    handle(req)
  } catch (err) {
    answer({ id: req.id, ok: false, error: describe(err) })
  }
})
