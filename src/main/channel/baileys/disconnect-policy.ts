import type { BackoffOptions } from '../../../shared/domain/backoff'

/**
 * What to do when a Baileys socket closes, and how long to wait before the next attempt. Pure.
 *
 * Input: the close code (`lastDisconnect.error.output.statusCode`, Baileys' `DisconnectReason` in
 * lib/Types/index.js) plus what the session knows (paired or not, QR shown on this socket, how many
 * closes in a row, whether a 440 came recently). Output: one {@link DisconnectAction}. Source:
 * docs/design.md §5 and §13 ("credentials never disappear on their own"), docs/baileys.md "Close
 * codes", checked against lib/Socket/socket.js and lib/Utils/generics.js:
 *
 * - 515 restart required: normal right after pairing → reconnect at once (a few times in a row at
 *   most, then back off, so a server that keeps asking cannot make us spin).
 * - 401 logged out, 403 forbidden, 419 → logged out: the only codes that delete credentials.
 * - 440 connection replaced (`<conflict type="replaced">`): another client took over these
 *   credentials. Reconnect once after a pause (the other client may be gone: a browser tab closed);
 *   a second 440 within the window means two clients would evict each other in a loop → stop, keep
 *   the credentials, and say so.
 * - 411 multi-device mismatch → fatal stop (credentials kept).
 * - 408 after a QR was shown on an unpaired socket (or "QR refs attempts ended") → the QR expired
 *   without a scan: stop and wait for a new init. Any other 408 is a network timeout (Baileys maps
 *   ENOTFOUND, ECONNREFUSED, ETIMEDOUT… to 408 in getCodeFromWSError) → back off.
 * - 500: what Baileys reports for ANY unknown stream error (getErrorCodeFromStreamError), so a
 *   server hiccup during login looks like a "bad session". Deleting the credentials for it unlinked
 *   working devices for good; now it is retried on the slower server-error schedule, with the reason
 *   shown, never logged out.
 * - 405: usually an outdated WA Web version → back off and refresh the version first.
 * - 428, 503, anything else or no code → back off.
 */

/** Close codes, as `DisconnectReason` numbers them. */
export const CloseCode = {
  connectionClosed: 428,
  timedOut: 408,
  connectionReplaced: 440,
  loggedOut: 401,
  forbidden: 403,
  /** Not in DisconnectReason; sent by the server for locked/blocked accounts. */
  accountLocked: 419,
  badSession: 500,
  restartRequired: 515,
  multideviceMismatch: 411,
  methodNotAllowed: 405,
  unavailableService: 503
} as const

/** 515s in a row (without reaching open) that are retried at once. */
export const MAX_QUICK_RESTARTS = 3

export interface CloseInfo {
  statusCode: number | undefined
  /** The error message, as Baileys gives it. */
  message: string
  /** The credentials belong to a linked device (`creds.account` set by pair-success). */
  paired: boolean
  /** A QR was shown on the socket that closed. */
  qrShown: boolean
  /** Consecutive 515 closes before this one, since the socket last reached open. */
  restartsInRow: number
  /** A 440 already came within the replaced window before this close. */
  replacedRecently: boolean
}

/** Which retry schedule a backoff follows: the normal one, or the slower one for server errors (500). */
export type BackoffSchedule = 'normal' | 'server-error'

export type DisconnectAction =
  | { kind: 'reconnect-now' }
  | { kind: 'backoff'; refreshVersion: boolean; schedule: BackoffSchedule }
  | { kind: 'replaced-retry' }
  | { kind: 'qr-expired' }
  | { kind: 'logged-out' }
  | { kind: 'replaced' }
  | { kind: 'fatal' }

const backoff = (schedule: BackoffSchedule = 'normal', refreshVersion = false): DisconnectAction => ({ kind: 'backoff', refreshVersion, schedule })

export function decideDisconnect(info: CloseInfo): DisconnectAction {
  const code = info.statusCode
  switch (code) {
    case CloseCode.restartRequired:
      return info.restartsInRow < MAX_QUICK_RESTARTS ? { kind: 'reconnect-now' } : backoff()
    case CloseCode.loggedOut:
    case CloseCode.forbidden:
    case CloseCode.accountLocked:
      return { kind: 'logged-out' }
    case CloseCode.connectionReplaced:
      return info.replacedRecently ? { kind: 'replaced' } : { kind: 'replaced-retry' }
    case CloseCode.multideviceMismatch:
      return { kind: 'fatal' }
    case CloseCode.timedOut:
      if (!info.paired && (info.qrShown || /QR refs attempts ended/i.test(info.message))) return { kind: 'qr-expired' }
      return backoff()
    case CloseCode.badSession:
      return backoff('server-error')
    case CloseCode.methodNotAllowed:
      return backoff('normal', true)
    default:
      return backoff()
  }
}

export type { BackoffOptions } from '../../../shared/domain/backoff'

/** Reconnects after a network loss: 1 s, 2 s, 4 s … 32 s, then every 60 s (±20 %). */
export const DEFAULT_BACKOFF: BackoffOptions = { baseMs: 1000, maxMs: 60_000, jitter: 0.2 }

/** Reconnects after server errors (500): slower, 5 s doubling to 5 min (±20 %), so a sick server is not hammered. */
export const SERVER_ERROR_BACKOFF: BackoffOptions = { baseMs: 5000, maxMs: 5 * 60_000, jitter: 0.2 }

/** Pause before reconnecting after a 440 (another client took over): it may have been a closed browser tab. */
export const REPLACED_RETRY_MS = 30_000

/** A second 440 within this window stops the session: two clients would evict each other forever. */
export const REPLACED_WINDOW_MS = 10 * 60_000

/**
 * How long a connection must stay open before the backoff starts again from its first delay. A
 * server that drops every connection soon after login would otherwise get a full login about once
 * a second (each short open reset the schedule).
 */
export const STABLE_OPEN_MS = 60_000

/** The error text an owner can act on: Baileys' "WebSocket Error (…)" wrapper removed, code kept. */
export function describeClose(statusCode: number | undefined, message: string): string {
  const inner = /^WebSocket Error \((.*)\)$/s.exec(message)?.[1] ?? message
  const text = inner.trim() || 'connection closed'
  return statusCode ? `${text} (${statusCode})` : text
}

/** "4 s", "1.5 s", "800 ms", "10 min" — delays as the owner reads them in logs and reasons. */
export function formatDelay(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`
  if (ms >= 60_000) {
    const min = ms / 60_000
    return `${Number.isInteger(min) || min >= 10 ? Math.round(min) : min.toFixed(1)} min`
  }
  const s = ms / 1000
  return `${s < 10 && !Number.isInteger(s) ? s.toFixed(1) : Math.round(s)} s`
}
