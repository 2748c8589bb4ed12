/**
 * Errors the services raise, with the stable codes of docs/design.md §4. The HTTP layer maps a code to its
 * status; the UI shows the message. Messages are written for the owner, never stack traces.
 */
import { StaleLeaseError, StorageFullError } from './store/db/errors'
import { SqliteThreadError } from './store/db/sqlite-thread/sqlite-thread'

export type ErrorCode =
  | 'VALIDATION_ERROR'
  | 'UNAUTHORIZED'
  | 'FORBIDDEN'
  | 'NOT_FOUND'
  | 'CONFLICT'
  | 'PAYLOAD_TOO_LARGE'
  | 'UNSUPPORTED_MEDIA_TYPE'
  | 'TOO_MANY_REQUESTS'
  | 'INSUFFICIENT_STORAGE'
  | 'SERVICE_UNAVAILABLE'
  | 'INTERNAL'

export interface FieldProblem {
  field: string
  problem: string
}

export class AppError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details?: FieldProblem[]
  ) {
    super(message)
    this.name = 'AppError'
  }
}

/** 400 with one field problem. */
export function invalid(field: string, problem: string): AppError {
  return new AppError('VALIDATION_ERROR', `Invalid request: ${field} ${problem}`, [{ field, problem }])
}

export function notFound(what: string): AppError {
  return new AppError('NOT_FOUND', `${what} not found`)
}

/** 429 that says when to try again (the HTTP face sends it as `Retry-After`). */
export class RetryLaterError extends AppError {
  constructor(
    message: string,
    /** Seconds to wait. */
    readonly retryAfterS: number,
    /** 429 by default; 503 for a worker that cannot be reached (api/forward.ts). */
    code: 'TOO_MANY_REQUESTS' | 'SERVICE_UNAVAILABLE' = 'TOO_MANY_REQUESTS'
  ) {
    super(code, message)
  }
}

/** 403 naming the permission the caller lacks (issue 27 §4). */
export function forbidden(permission: string, detail?: string): AppError {
  return new AppError('FORBIDDEN', `Forbidden: this needs the ${permission} permission${detail ? ` ${detail}` : ''}.`, [{ field: 'permission', problem: permission }])
}

export function conflict(message: string): AppError {
  return new AppError('CONFLICT', message)
}

/** HTTP status of each code (docs/design.md §4). */
export const HTTP_STATUS: Record<ErrorCode, number> = {
  VALIDATION_ERROR: 400,
  UNAUTHORIZED: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  CONFLICT: 409,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  TOO_MANY_REQUESTS: 429,
  INSUFFICIENT_STORAGE: 507,
  SERVICE_UNAVAILABLE: 503,
  INTERNAL: 500
}

/**
 * The error a client sees for a storage failure it can act on: a full disk (SQLite's SQLITE_FULL, or
 * ENOSPC from a file write) is a 507 `INSUFFICIENT_STORAGE` saying nothing was saved (WebDAV's status
 * for "unable to store the representation", RFC 4918 §11.5); a credential write fenced off because
 * another worker took the instance over (StaleLeaseError) is a 409; a database thread that died
 * under the request (SqliteThreadError) a 503 to retry. Undefined for anything else.
 */
export function storageAppError(err: unknown): AppError | undefined {
  // A worker whose lease moved (issue 26): its socket stopped, another worker runs the instance now.
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
