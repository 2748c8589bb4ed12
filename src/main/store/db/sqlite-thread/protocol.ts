/**
 * The messages between the main thread and a SQLite thread (./thread.ts): one connection per thread,
 * every request numbered, every answer naming its request (the shape Signal-Desktop's `MainSQL` uses
 * for its SQL workers: a repository's call, `{method, args}`, answered by `seq`). Types only.
 */

/** What the thread opens: a database file, for writing (the one writer) or read-only (a reader). */
export interface ThreadOptions {
  file: string
  readOnly: boolean
  /** Prepared statements kept by SQL text (bounded: IN lists of other lengths are other texts). */
  statementCache: number
}

/** A request to the thread. `id` numbers it; the answer carries the same `id`. */
export type ThreadRequest =
  /**
   * One statement: rows for a statement that answers rows (SELECT, RETURNING, some PRAGMAs), else
   * changes. The main thread's transactions arrive this way, statement by statement, in order.
   */
  | { id: number; t: 'query'; sql: string; params: unknown[] }
  /**
   * SQL without parameters and without rows (pragmas, savepoints). `tx` marks the main thread's
   * BEGIN, COMMIT and ROLLBACK: the writer's thread holds its group commit back from BEGIN until the
   * COMMIT succeeds or a ROLLBACK comes.
   */
  | { id: number; t: 'exec'; sql: string; tx?: 'begin' | 'commit' | 'rollback' }
  /** A repository's method, run whole in the thread (../../repos/data-repositories.ts): `repos[repo][method](...args)`. */
  | { id: number; t: 'call'; repo: string; method: string; args: unknown[] }
  /** SQLite's online backup of this connection's database into `target`, all pages in one step. */
  | { id: number; t: 'backup'; target: string }
  /** Lets the file grow by at most `pages` more pages (null: no limit): a full disk, for tests. */
  | { id: number; t: 'limitGrowth'; pages: number | null }
  /** Closes the connection (the writer folds the WAL into the file first); the main thread then ends the thread. */
  | { id: number; t: 'close'; checkpoint: boolean }
  /** Test seam: the thread dies as a crash would (`exit`: process.exit inside it; `throw`: an uncaught error). */
  | { id: number; t: 'crash'; how: 'exit' | 'throw' }

/** An error as it crossed the thread boundary: node:sqlite's own fields, and those of the errors the services tell apart (./error-transport.ts). */
export interface ThreadError {
  name: string
  message: string
  code?: string
  errcode?: number
  errstr?: string
  /** StorageFullError, CorruptDatabaseError. */
  file?: string
  /** StaleLeaseError. */
  instanceId?: string
  worker?: string
  token?: number
  /** UnknownCursorError. */
  id?: string
  cause?: ThreadError
}

/** The answer to a request. */
export type ThreadReply =
  | { id: number; ok: true; rows?: unknown[]; changes?: number; lastInsertRowid?: number | bigint; value?: unknown }
  | { id: number; ok: false; error: ThreadError }

/** The first message a thread posts: its connection is open and set up, or why it is not. */
export type ThreadReady = { ready: true } | { ready: false; error: ThreadError }
