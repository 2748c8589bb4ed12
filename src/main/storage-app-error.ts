/** Storage failures a client can act on, as the AppError the faces answer with (docs/design.md §4). */
import { AppError, RetryLaterError } from './errors'
import { StaleLeaseError, StorageFullError } from './store/db/errors'
import { SqliteThreadError } from './store/db/sqlite-thread/sqlite-thread'

/**
 * The error a client sees for a storage failure it can act on: a full disk (SQLite's SQLITE_FULL, or
 * ENOSPC from a file write) is a 507 `INSUFFICIENT_STORAGE` saying nothing was saved (WebDAV's status
 * for "unable to store the representation", RFC 4918 §11.5); a credential write fenced off because
 * another worker took the instance over (StaleLeaseError) is a 409; a database thread that died
 * under the request (SqliteThreadError) a 503 to retry. Undefined for anything else.
 */
export function storageAppError(err: unknown): AppError | undefined {
  // A worker whose lease moved (docs/design.md §22): its socket stopped, another worker runs the instance now.
  if (err instanceof StaleLeaseError) return new AppError('CONFLICT', 'This instance is now run by another worker; nothing was saved here. Send the request to the worker that owns it (GET /cluster).')
  if (isDiskFull(err)) return new AppError('INSUFFICIENT_STORAGE', 'The disk is full: nothing was saved. Free some space and try again.')
  // A database thread died under the request (docs/storage.md "Threads"): it was not done, and the
  // thread is being started again.
  if (err instanceof SqliteThreadError) return new RetryLaterError('The database was restarting: this was not saved. Try again in a moment.', 1, 'SERVICE_UNAVAILABLE')
  return undefined
}

function isDiskFull(err: unknown): boolean {
  return err instanceof StorageFullError || (err as NodeJS.ErrnoException | null)?.code === 'ENOSPC'
}
