/**
 * What can go wrong with the database file, as errors the services and faces understand: a full disk
 * (507 to clients, nothing half-stored: SQLite rolled the transaction back), a damaged file (refused at
 * start with the way out), and any other I/O failure. SQLite's result codes:
 * https://www.sqlite.org/rescode.html (node:sqlite puts the extended code in `errcode`).
 */

/** The disk (or the database's size limit) is full; the write was rolled back whole. */
export class StorageFullError extends Error {
  constructor(readonly file: string, cause?: unknown) {
    super(`The disk holding ${file} is full: nothing was saved. Free some space; the app keeps working once there is room.`, { cause })
    this.name = 'StorageFullError'
  }
}

/** The database file is damaged or is not a database: never overwritten, never recreated silently. */
export class CorruptDatabaseError extends Error {
  constructor(readonly file: string, cause?: unknown) {
    super(
      `The database ${file} is damaged (${cause instanceof Error ? cause.message : String(cause)}). It was left untouched. ` +
        'Restore a backup (npm run restore -- FILE, or Settings → Backup), or move the file aside to start empty.',
      { cause }
    )
    this.name = 'CorruptDatabaseError'
  }
}

interface SqliteError {
  code?: string
  errcode?: number
}

const SQLITE_CORRUPT = 11
const SQLITE_FULL = 13
const SQLITE_NOTADB = 26
/** SQLITE_IOERR_WRITE and friends whose cause is a full disk show as SQLITE_FULL; ENOSPC in fsync as IOERR. */
const SQLITE_IOERR = 10

/** Primary result code of a node:sqlite error, or undefined for other errors. */
export function sqliteCode(err: unknown): number | undefined {
  const e = err as SqliteError | null
  return e && e.code === 'ERR_SQLITE_ERROR' && typeof e.errcode === 'number' ? e.errcode & 0xff : undefined
}

/** `err` as a storage error where SQLite's code says which (see the module doc); other errors as they are. */
export function storageError(err: unknown, file: string): unknown {
  switch (sqliteCode(err)) {
    case SQLITE_FULL:
      return new StorageFullError(file, err)
    case SQLITE_CORRUPT:
    case SQLITE_NOTADB:
      return new CorruptDatabaseError(file, err)
    default:
      return err
  }
}

/** True for errors that mean the disk could not take the write (a full disk, an I/O error). */
export function isDiskError(err: unknown): boolean {
  return err instanceof StorageFullError || sqliteCode(err) === SQLITE_IOERR || (err as NodeJS.ErrnoException | null)?.code === 'ENOSPC'
}

/**
 * A fenced write (a channel credential or key written with a lease's fencing token) was refused: the
 * instance's lease (`instance_leases`) is no longer this worker's with this token: it was taken over
 * (the token moved on), or it was never held. Nothing of the write was stored. The writer has lost
 * the instance and must stop its socket. The rule: Martin Kleppmann's fencing tokens,
 * https://martin.kleppmann.com/2016/02/08/how-to-do-distributed-locking.html (docs/storage.md
 * "Leases and fencing tokens").
 */
export class StaleLeaseError extends Error {
  constructor(
    readonly instanceId: string,
    readonly worker: string,
    readonly token: number
  ) {
    super(`Instance ${instanceId} is no longer leased to worker ${worker} with fencing token ${token}: the write was refused (another worker owns the instance now).`)
    this.name = 'StaleLeaseError'
  }
}
