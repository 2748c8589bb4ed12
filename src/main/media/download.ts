/**
 * Downloads a file by URL to a local temp path (docs/api-seed.md §4.5 fileurl, MediaButton), with a timeout and a
 * size limit, through the address policy's dispatcher (./address-policy.ts: no private or local
 * addresses unless allowed, checked at every redirect hop). Only http and https. Errors are
 * {@link AppError}s naming the `url` field.
 */
import { createWriteStream } from 'node:fs'
import { rm } from 'node:fs/promises'
import { basename } from 'node:path'
import { Readable, Transform } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import { fetch as undiciFetch, type Dispatcher, type Response as UndiciResponse } from 'undici'
import { AppError } from '../errors'
import { BlockedAddressError } from './address-policy'

export interface DownloadOptions {
  /** Bytes. */
  maxBytes: number
  /** Milliseconds for the whole download. */
  timeoutMs: number
  /** The dispatcher every connection (each redirect hop) goes through: the address policy. */
  dispatcher: Dispatcher
}

export interface Downloaded {
  path: string
  size: number
  /** Content-Type the server declared, without parameters. */
  contentType?: string
  /** Last path segment of the URL, decoded. */
  fileName: string
}

function tooLarge(maxBytes: number): AppError {
  return new AppError('PAYLOAD_TOO_LARGE', `The file at url is larger than the limit of ${maxBytes} bytes.`, [
    { field: 'url', problem: `file is larger than ${maxBytes} bytes` }
  ])
}

/** Fetches `url` into `dest`. Throws 400 (bad URL, network error, HTTP error, timeout) or 413. */
export async function downloadToFile(url: string, dest: string, opts: DownloadOptions, field = 'url'): Promise<Downloaded> {
  let parsed: URL
  try {
    parsed = new URL(url)
  } catch {
    throw new AppError('VALIDATION_ERROR', `Invalid request: ${field} is not a valid URL`, [{ field, problem: 'is not a valid URL' }])
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw new AppError('VALIDATION_ERROR', `Invalid request: ${field} must be an http or https URL`, [
      { field, problem: 'must be an http or https URL' }
    ])
  }
  const fail = (problem: string) =>
    new AppError('VALIDATION_ERROR', `Could not download ${field}: ${problem}`, [{ field, problem: `could not be downloaded: ${problem}` }])
  let res: UndiciResponse
  const signal = AbortSignal.timeout(opts.timeoutMs)
  try {
    res = await undiciFetch(parsed, { signal, redirect: 'follow', dispatcher: opts.dispatcher })
  } catch (err) {
    const cause = (err as Error).cause
    if (cause instanceof BlockedAddressError) throw fail(cause.message)
    throw fail(signal.aborted ? `no answer within ${opts.timeoutMs} ms` : (err as Error).message)
  }
  if (!res.ok || !res.body) {
    await res.body?.cancel().catch(() => {})
    throw fail(`the server answered HTTP ${res.status}`)
  }
  const declaredLength = Number(res.headers.get('content-length') ?? NaN)
  if (declaredLength > opts.maxBytes) {
    await res.body.cancel().catch(() => {})
    throw tooLarge(opts.maxBytes)
  }
  let size = 0
  const limiter = new Transform({
    transform(chunk: Buffer, _enc, cb) {
      size += chunk.length
      if (size > opts.maxBytes) cb(tooLarge(opts.maxBytes))
      else cb(null, chunk)
    }
  })
  try {
    await pipeline(Readable.fromWeb(res.body), limiter, createWriteStream(dest, { mode: 0o600 }))
  } catch (err) {
    await rm(dest, { force: true })
    if (err instanceof AppError) throw err
    throw fail(signal.aborted ? `no answer within ${opts.timeoutMs} ms` : (err as Error).message)
  }
  const contentType = res.headers.get('content-type')?.split(';')[0]?.trim() || undefined
  const fileName = decodeURIComponent(basename(parsed.pathname)) || 'file'
  return { path: dest, size, contentType, fileName }
}
