/**
 * A SQLite file opened in a thread of its own (one connection, no readers), with Kysely over it: for
 * the files the app reads but does not run on (a backup being checked before a restore, a data dir
 * backed up from the command line, read-only), and for tools and tests that need a bare connection.
 * Nothing here runs SQLite on the calling thread.
 */
import { Kysely } from 'kysely'
import { storageError } from '../errors'
import { SqliteThread } from './sqlite-thread'
import { ThreadedSqliteDialect } from './thread-dialect'

export interface SqliteFile<DB> {
  readonly db: Kysely<DB>
  /** SQLite's online backup of the file into `target`, all pages in one step (one snapshot). */
  backupTo(target: string): Promise<void>
  close(): Promise<void>
}

/**
 * Opens `file` in a thread: read-only by default; `readOnly: false` creates it when missing and sets
 * the writer's settings (WAL, full sync, foreign keys), without migrating it. Throws node:sqlite's
 * error for a file that cannot be opened or is not a database (turned into the storage errors of
 * ../errors where they say which).
 */
export async function openSqliteFile<DB>(file: string, opts: { readOnly?: boolean } = {}): Promise<SqliteFile<DB>> {
  const readOnly = opts.readOnly ?? true
  let thread: SqliteThread
  try {
    thread = await SqliteThread.open({ file, readOnly, name: readOnly ? 'read-only' : 'single', statementCache: 50 })
  } catch (err) {
    throw storageError(err, file)
  }
  const db = new Kysely<DB>({ dialect: new ThreadedSqliteDialect({ file, writer: thread, readers: [] }) })
  return {
    db,
    async backupTo(target) {
      try {
        await thread.request({ t: 'backup', target })
      } catch (err) {
        throw storageError(err, target)
      }
    },
    async close() {
      await db.destroy()
      await thread.close(false)
    }
  }
}
