/**
 * Errors across the thread boundary: a repository call run in a SQLite thread (./host.ts) that throws
 * is answered with the error's class name, message and fields, and the main thread throws the same
 * class again (the services tell a full disk, a fenced-off credential write or an unknown cursor by
 * their class). An error of another class comes back as an Error with node:sqlite's fields
 * (`code`, `errcode`, `errstr`), so ../errors.ts still reads SQLite's result code from it.
 */
import { CorruptDatabaseError, StaleLeaseError, StorageFullError } from '../errors'
import { UnknownCursorError } from '../../repos/message-repo'
import type { ThreadError } from './protocol'

/** A repository call that needs the writer was sent to a reader (it answers this; the call goes to the writer). */
export class ReadOnlyCallError extends Error {
  constructor() {
    super('This call writes: it runs on the writer.')
    this.name = 'ReadOnlyCallError'
  }
}

/** `err` as it crosses to the main thread (./protocol.ts ThreadError, plus the fields of the known classes). */
export function describeError(err: unknown): ThreadError {
  const e = err as Record<string, unknown> | null
  const out: ThreadError = { name: typeof e?.name === 'string' ? e.name : 'Error', message: typeof e?.message === 'string' ? e.message : String(err) }
  for (const key of ['code', 'errstr', 'file', 'instanceId', 'worker', 'id'] as const) if (typeof e?.[key] === 'string') out[key] = e[key]
  for (const key of ['errcode', 'token'] as const) if (typeof e?.[key] === 'number') out[key] = e[key]
  const cause = e?.cause as Record<string, unknown> | undefined
  if (cause && typeof cause === 'object') out.cause = describeError(cause)
  return out
}

/** The error `e` describes, of its class when it is one the services tell apart. */
export function reviveError(e: ThreadError): Error {
  const cause = e.cause ? reviveError(e.cause) : undefined
  switch (e.name) {
    case 'StorageFullError':
      return new StorageFullError(e.file ?? '', cause)
    case 'CorruptDatabaseError':
      return Object.assign(new CorruptDatabaseError(e.file ?? '', cause), { message: e.message })
    case 'StaleLeaseError':
      return new StaleLeaseError(e.instanceId ?? '', e.worker ?? '', e.token ?? 0)
    case 'UnknownCursorError':
      return new UnknownCursorError(e.id ?? '')
    case 'ReadOnlyCallError':
      return new ReadOnlyCallError()
  }
  const err = new Error(e.message, cause ? { cause } : undefined) as Error & Partial<ThreadError>
  err.name = e.name
  if (e.code !== undefined) err.code = e.code
  if (e.errcode !== undefined) err.errcode = e.errcode
  if (e.errstr !== undefined) err.errstr = e.errstr
  return err
}
