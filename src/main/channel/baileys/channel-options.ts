/**
 * Options of the Baileys channel (one set per app, shared by its sessions) and the defaults every
 * session derives from them.
 */
import { release } from 'node:os'
import type { WABrowserDescription, WAVersion } from 'baileys'
import { pino } from 'pino'
import type { Logger } from '../../logger'
import { PRODUCT_NAME } from '../../version'
import type { BackoffOptions } from './disconnect-policy'
import type { SocketFactory } from './socket'
import type { Timers } from './timers'
import type { VersionFetcher, WaVersionSource } from './wa-version'

export interface BaileysChannelOptions {
  /** Makes the socket; default Baileys' makeWASocket. Tests pass a fake. */
  socketFactory?: SocketFactory
  /** `CHATAPP_WA_WS_URL` (tests only): a local protocol test server instead of WhatsApp. */
  waWebSocketUrl?: string
  /**
   * The linked-device description [name, browser, version]: the phone lists the device by its first
   * part (DeviceProps.os); pairing codes show `<browser> (<this PC's OS>)` (pairing.ts).
   */
  browser?: WABrowserDescription
  /** WA Web version to fall back on; default the one bundled with the library. */
  version?: WAVersion
  /**
   * Fetches the current WA Web version (once per app start, again after a 405). Default: the
   * library's, 5 s timeout; null never fetches (the test server).
   */
  fetchVersion?: VersionFetcher | null
  /** The version source shared by the sessions of one channel (createBaileysChannel makes it). */
  versions?: WaVersionSource
  timers?: Timers
  /** [0, 1); jitter of the backoff and the send pacing. */
  random?: () => number
  /** Reconnect schedule after network losses (disconnect-policy.ts DEFAULT_BACKOFF). */
  backoff?: Partial<BackoffOptions>
  /** Reconnect schedule after server errors, 500 (SERVER_ERROR_BACKOFF). */
  serverErrorBackoff?: Partial<BackoffOptions>
  /** Pause before reconnecting after a 440, and the window in which a second 440 stops the session (ms). */
  replacedRetryMs?: number
  replacedWindowMs?: number
  /** How long a connection must stay open before the backoff starts over (ms; STABLE_OPEN_MS). */
  stableOpenMs?: number
  /** Minimum gap and random extra between two sends (ms). */
  sendPacing?: { minIntervalMs?: number; jitterMs?: number }
  /** How long "typing…" shows before a send with `composing` (ms). */
  composingMs?: number
  /** How long a pairing-code request waits for the socket to be ready (ms). */
  pairingWaitMs?: number
  /** How long a history request waits for the phone's answer (ms; DEFAULT_HISTORY_WAIT_MS). */
  historyWaitMs?: number
  /** Recent messages kept in memory for retries, media download and echo detection. */
  messageStoreSize?: number
  /** Longest wait for a socket to close on stop/logout (ms); it finishes closing in the background. */
  closeTimeoutMs?: number
  /** Longest wait for the server to confirm a logout (ms). */
  logoutTimeoutMs?: number
}

/** The product's name in Linked devices; Chrome as the browser (accepted for pairing codes). */
export const DEFAULT_BROWSER: WABrowserDescription = [PRODUCT_NAME, 'Chrome', release()]

/** Level of the library's logger: `warn`, or the app's level when that is stricter. */
export function libraryLogger(logger: Logger): Logger {
  const warn = pino.levels.values.warn!
  const level = logger.levelVal > warn ? logger.level : 'warn'
  return logger.child({ lib: 'baileys' }, { level })
}
