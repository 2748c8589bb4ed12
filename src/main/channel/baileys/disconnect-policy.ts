/**
 * What to do when a Baileys socket closes, and how long to wait before the next attempt. Pure.
 *
 * Input: the close code (`lastDisconnect.error.output.statusCode`, Baileys' `DisconnectReason` in
 * lib/Types/index.js) plus what the session knows (paired or not, QR shown on this socket, how many
 * closes in a row). Output: one {@link DisconnectAction}. Source: DESIGN.md §5 (states) and
 * shared/notes/baileys-facts.md "Close codes", checked against lib/Socket/socket.js:
 *
 * - 515 restart required: normal right after pairing → reconnect at once (a few times in a row at
 *   most, then back off, so a server that keeps asking cannot make us spin).
 * - 401 logged out, 403 forbidden, 419 → logged out: credentials are deleted, no reconnect.
 * - 440 connection replaced: another client took over these credentials; reconnecting would evict
 *   it and be evicted in turn, forever → stop, keep credentials, wait for the owner.
 * - 411 multi-device mismatch → fatal stop.
 * - 408 after a QR was shown on an unpaired socket (or "QR refs attempts ended") → the QR expired
 *   without a scan: stop and wait for a new init. Any other 408 is a network timeout (Baileys maps
 *   ENOTFOUND, ECONNREFUSED, ETIMEDOUT… to 408 in getCodeFromWSError) → back off.
 * - 500 bad session: also what Baileys reports for unknown stream errors, so it is retried with
 *   backoff; only {@link BAD_SESSION_LIMIT} in a row on a paired device count as a broken session
 *   → logged out (credentials reset, the owner links again).
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
/** 500s in a row on a paired device before the session counts as broken. */
export const BAD_SESSION_LIMIT = 5

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
  /** Consecutive 500 closes including this one, since the socket last reached open. */
  badSessionsInRow: number
}

export type DisconnectAction =
  | { kind: 'reconnect-now' }
  | { kind: 'backoff'; refreshVersion: boolean }
  | { kind: 'qr-expired' }
  | { kind: 'logged-out' }
  | { kind: 'replaced' }
  | { kind: 'fatal' }

export function decideDisconnect(info: CloseInfo): DisconnectAction {
  const code = info.statusCode
  switch (code) {
    case CloseCode.restartRequired:
      return info.restartsInRow < MAX_QUICK_RESTARTS ? { kind: 'reconnect-now' } : { kind: 'backoff', refreshVersion: false }
    case CloseCode.loggedOut:
    case CloseCode.forbidden:
    case CloseCode.accountLocked:
      return { kind: 'logged-out' }
    case CloseCode.connectionReplaced:
      return { kind: 'replaced' }
    case CloseCode.multideviceMismatch:
      return { kind: 'fatal' }
    case CloseCode.timedOut:
      if (!info.paired && (info.qrShown || /QR refs attempts ended/i.test(info.message))) return { kind: 'qr-expired' }
      return { kind: 'backoff', refreshVersion: false }
    case CloseCode.badSession:
      if (info.paired && info.badSessionsInRow >= BAD_SESSION_LIMIT) return { kind: 'logged-out' }
      return { kind: 'backoff', refreshVersion: false }
    case CloseCode.methodNotAllowed:
      return { kind: 'backoff', refreshVersion: true }
    default:
      return { kind: 'backoff', refreshVersion: false }
  }
}

export interface BackoffOptions {
  /** First delay (ms). */
  baseMs: number
  /** Cap of the exponential part (ms). */
  maxMs: number
  /** Relative jitter: 0.2 spreads each delay uniformly over ±20 %. */
  jitter: number
}

export const DEFAULT_BACKOFF: BackoffOptions = { baseMs: 1000, maxMs: 60_000, jitter: 0.2 }

/**
 * Delay before reconnect attempt `attempt` (1-based): base·2^(attempt−1) capped at maxMs, times a
 * uniform factor in [1−jitter, 1+jitter] so that many instances losing the network together do not
 * reconnect in lockstep. `random` returns [0, 1). Defaults: 1 s, 2 s, 4 s … 32 s, 60 s, 60 s …
 */
export function backoffDelayMs(attempt: number, random: () => number, opts: BackoffOptions = DEFAULT_BACKOFF): number {
  const n = Math.max(1, Math.floor(attempt))
  // 2^(n-1) overflows to Infinity for huge n; min() still caps it.
  const exp = Math.min(opts.maxMs, opts.baseMs * 2 ** (n - 1))
  const factor = 1 - opts.jitter + 2 * opts.jitter * random()
  return Math.max(0, Math.round(exp * factor))
}

/** The error text an owner can act on: Baileys' "WebSocket Error (…)" wrapper removed, code kept. */
export function describeClose(statusCode: number | undefined, message: string): string {
  const inner = /^WebSocket Error \((.*)\)$/s.exec(message)?.[1] ?? message
  const text = inner.trim() || 'connection closed'
  return statusCode ? `${text} (${statusCode})` : text
}

/** "4 s", "1.5 s", "800 ms" — delays as the owner reads them in logs and reasons. */
export function formatDelay(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`
  const s = ms / 1000
  return `${s < 10 && !Number.isInteger(s) ? s.toFixed(1) : Math.round(s)} s`
}
