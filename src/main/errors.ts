/**
 * Errors the services raise, with the stable codes of docs/design.md §4. The HTTP layer maps a code to its
 * status; the UI shows the message. Messages are written for the owner, never stack traces. Imports
 * nothing: media, validation and every service stand on it (storage failures become AppErrors in
 * storage-app-error.ts, above the store).
 */
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

/** 403 naming the permission the caller lacks (docs/design.md §21 "Permissions"). */
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
