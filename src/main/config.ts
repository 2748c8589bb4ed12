/**
 * Headless configuration from the environment (docs/design.md §2). Invalid values stop the start with a
 * message naming the variable. `CHATAPP_WA_WS_URL` / `CHATAPP_WA_ROOT_KEY` are the Baileys channel's
 * offline test seam (docs/design.md §5): for tests only, unset in normal use.
 */
import { homedir, hostname } from 'node:os'
import { isAbsolute, join } from 'node:path'
import type { ChannelKind } from './channel/types'
import { PRODUCT_NAME } from './version'
import { addressPolicy } from './media/address-policy'

export interface ServeConfig {
  dataDir: string
  /**
   * `CHATAPP_DATABASE_URL`: a PostgreSQL database (`postgres://user:password@host:5432/db`) for
   * everything that grows, instead of the data dir's SQLite file (docs/storage.md, "PostgreSQL").
   */
  databaseUrl?: string
  /**
   * `CHATAPP_MEDIA_DIR`: an absolute folder every worker mounts, holding `attachments/` and `media/`
   * instead of the data dir (docs/deploy.md "A shared media folder").
   */
  mediaDir?: string
  /**
   * `CHATAPP_TRUST_PROXY`: the reverse proxy's addresses (comma-separated IPs or CIDRs, or `loopback`,
   * `uniquelocal` for the private ranges): requests from them are taken as from the client in
   * `X-Forwarded-For`, over the scheme in `X-Forwarded-Proto` (the session cookie is `Secure` when
   * that is https). Unset: no proxy is trusted (the address is the socket's, the scheme http).
   */
  trustProxy?: string
  host: string
  /** 0 = any free port. */
  port: number
  apiToken?: string
  channel: ChannelKind
  logLevel: string
  /** `CHATAPP_FETCH_ALLOW`: private or local addresses, CIDR ranges or host names files may be fetched from (comma-separated). */
  fetchAllow: string[]
  /** `CHATAPP_WA_WS_URL`: Baileys' waWebSocketUrl. Tests only (a local protocol test server). */
  waWebSocketUrl?: string
  /** `CHATAPP_WA_ROOT_KEY`: Curve25519 public key replacing WA_CERT_DETAILS.PUBLIC_KEY. Tests only. */
  waRootKey?: Buffer
  tuning: Tuning
  /** This process as one of several workers on one database (docs/design.md §22; used with `databaseUrl` only). */
  worker: WorkerConfig
}

/** A worker's identity and lease settings (docs/design.md §22). */
export interface WorkerConfig {
  /** `CHATAPP_WORKER_ID`: unique among the workers of a database; default `<hostname>:<port>` (with port 0: `<hostname>:<pid>`). */
  id: string
  /** `CHATAPP_WORKER_URL`: where the other workers reach this one; default `http://<host>:<port>` (none with port 0). */
  url: string
  /** `CHATAPP_WORKER_MAX_INSTANCES`: the most instances this worker runs at once; null (unset): no limit. */
  maxInstances: number | null
  /**
   * `CHATAPP_LEASE_TTL_MS`: how long a lease holds without a renewal, ms (default 15 000; 1 000 to
   * 120 000). A killed worker's instances run elsewhere after at most TTL + TTL/3 + a connect.
   */
  leaseTtlMs: number
}

/** Limits and pacing the owner may change (docs/design.md §4, §7, §9, §10). */
export interface Tuning {
  /** `CHATAPP_MAX_FILE_MB`: uploads and downloads, bytes (default 64 MiB). */
  fileBytes: number
  /** `CHATAPP_MAX_JSON_KB`: JSON bodies, bytes (default 1 MiB). */
  jsonBytes: number
  /** `CHATAPP_SURVEY_IDLE_MIN`: a survey run expires after this idle time, ms (default 30 min). */
  surveyIdleMs: number
  /** `CHATAPP_DEFAULT_MSG_WINDOW_H`: one default message per contact per window, ms (default 24 h). */
  defaultMessageWindowMs: number
  /** `CHATAPP_SEND_INTERVAL_MS` / `CHATAPP_SEND_JITTER_MS`: pacing of WhatsApp sends per instance. */
  sendPacing: { minIntervalMs: number; jitterMs: number }
}

/** A number from the environment within [min, max]; `fallback` when unset. Throws ConfigError. */
function envNumber(env: NodeJS.ProcessEnv, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name]?.trim()
  if (raw === undefined || raw === '') return fallback
  const n = Number(raw)
  if (!Number.isFinite(n) || n < min || n > max) throw new ConfigError(`${name} must be a number from ${min} to ${max}, got "${raw}"`)
  return n
}

/** Reads the tunables (defaults as documented in the README). */
export function readTuning(env: NodeJS.ProcessEnv = process.env): Tuning {
  return {
    fileBytes: Math.round(envNumber(env, 'CHATAPP_MAX_FILE_MB', 64, 1, 2048) * 1024 * 1024),
    jsonBytes: Math.round(envNumber(env, 'CHATAPP_MAX_JSON_KB', 1024, 16, 65536) * 1024),
    surveyIdleMs: envNumber(env, 'CHATAPP_SURVEY_IDLE_MIN', 30, 1, 7 * 24 * 60) * 60_000,
    defaultMessageWindowMs: envNumber(env, 'CHATAPP_DEFAULT_MSG_WINDOW_H', 24, 0.01, 24 * 365) * 3_600_000,
    sendPacing: {
      minIntervalMs: envNumber(env, 'CHATAPP_SEND_INTERVAL_MS', 1000, 0, 60_000),
      jitterMs: envNumber(env, 'CHATAPP_SEND_JITTER_MS', 500, 0, 60_000)
    }
  }
}

/** A configuration problem; the message names the variable. */
export class ConfigError extends Error {}

/** What Electron's `app.getPath('userData')` gives for this app, computed without Electron. */
export function defaultDataDir(env: NodeJS.ProcessEnv = process.env, platform = process.platform): string {
  const home = homedir()
  if (platform === 'win32') return join(env.APPDATA ?? join(home, 'AppData', 'Roaming'), PRODUCT_NAME)
  if (platform === 'darwin') return join(home, 'Library', 'Application Support', PRODUCT_NAME)
  return join(env.XDG_CONFIG_HOME || join(home, '.config'), PRODUCT_NAME)
}

export function readServeConfig(env: NodeJS.ProcessEnv = process.env): ServeConfig {
  const port = Number(env.CHATAPP_PORT ?? '3210')
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new ConfigError(`CHATAPP_PORT must be a port number (0-65535), got "${env.CHATAPP_PORT}"`)
  }
  const channel = (env.CHATAPP_CHANNEL ?? 'baileys').trim()
  if (channel !== 'baileys' && channel !== 'sandbox') {
    throw new ConfigError(`CHATAPP_CHANNEL must be baileys or sandbox, got "${channel}"`)
  }
  const token = env.CHATAPP_API_TOKEN?.trim()
  if (token !== undefined && token !== '' && token.length < 16) {
    throw new ConfigError('CHATAPP_API_TOKEN must be at least 16 characters long')
  }
  const wsUrl = env.CHATAPP_WA_WS_URL?.trim()
  if (wsUrl && !/^wss?:\/\/[^\s]+$/.test(wsUrl)) {
    throw new ConfigError(`CHATAPP_WA_WS_URL must be a ws:// or wss:// URL (tests only), got "${wsUrl}"`)
  }
  const rootKey = env.CHATAPP_WA_ROOT_KEY?.trim()
  let waRootKey: Buffer | undefined
  if (rootKey) {
    waRootKey = Buffer.from(rootKey, 'base64')
    const ok = /^[A-Za-z0-9+/_-]+=*$/.test(rootKey) && (waRootKey.length === 32 || (waRootKey.length === 33 && waRootKey[0] === 5))
    if (!ok) throw new ConfigError('CHATAPP_WA_ROOT_KEY must be the base64 of a Curve25519 public key, 32 bytes (tests only)')
  }
  const fetchAllow = (env.CHATAPP_FETCH_ALLOW ?? '')
    .split(',')
    .map((e) => e.trim())
    .filter(Boolean)
  try {
    addressPolicy(fetchAllow)
  } catch (err) {
    throw new ConfigError((err as Error).message)
  }
  const databaseUrl = env.CHATAPP_DATABASE_URL?.trim()
  if (databaseUrl && !/^postgres(ql)?:\/\/\S+$/.test(databaseUrl)) {
    throw new ConfigError('CHATAPP_DATABASE_URL must be a postgres:// (or postgresql://) URL')
  }
  const mediaDir = readMediaDir(env)
  const host = env.CHATAPP_HOST?.trim() || '127.0.0.1'
  const trustProxy = env.CHATAPP_TRUST_PROXY?.trim()
  if (trustProxy !== undefined && trustProxy !== '' && !/^[\w.:/\s,-]+$/.test(trustProxy)) {
    throw new ConfigError('CHATAPP_TRUST_PROXY must list the proxy\'s addresses: IPs or CIDRs separated by commas, or loopback, uniquelocal')
  }
  return {
    ...(mediaDir ? { mediaDir } : {}),
    ...(trustProxy ? { trustProxy } : {}),
    ...(wsUrl ? { waWebSocketUrl: wsUrl } : {}),
    ...(databaseUrl ? { databaseUrl } : {}),
    ...(waRootKey ? { waRootKey } : {}),
    dataDir: env.CHATAPP_DATA_DIR?.trim() || defaultDataDir(env),
    host,
    port,
    apiToken: token || undefined,
    channel,
    logLevel: env.CHATAPP_LOG_LEVEL?.trim() || 'info',
    fetchAllow,
    tuning: readTuning(env),
    worker: readWorker(env, host, port)
  }
}

/**
 * `CHATAPP_MEDIA_DIR`, or undefined when unset. Must be an absolute path: each worker may start in
 * another working directory, and a relative one would name a different folder on each. Throws ConfigError.
 */
export function readMediaDir(env: NodeJS.ProcessEnv): string | undefined {
  const dir = env.CHATAPP_MEDIA_DIR?.trim()
  if (!dir) return undefined
  if (!isAbsolute(dir)) throw new ConfigError(`CHATAPP_MEDIA_DIR must be an absolute path (a folder every worker mounts), got "${dir}"`)
  return dir
}

/** The worker variables (docs/design.md §22), validated; defaults from the host and port. Throws ConfigError. */
export function readWorker(env: NodeJS.ProcessEnv, host: string, port: number): WorkerConfig {
  const id = env.CHATAPP_WORKER_ID?.trim() || `${hostname()}:${port === 0 ? process.pid : port}`
  if (id.length > 200 || /\s/.test(id)) throw new ConfigError(`CHATAPP_WORKER_ID must be at most 200 characters with no spaces, got "${id}"`)
  const shown = host.includes(':') ? `[${host}]` : host
  const url = env.CHATAPP_WORKER_URL?.trim() || (port === 0 ? '' : `http://${shown}:${port}`)
  if (url && !/^https?:\/\/[^\s/]+(\/\S*)?$/.test(url)) throw new ConfigError(`CHATAPP_WORKER_URL must be an http:// or https:// URL, got "${url}"`)
  const rawMax = env.CHATAPP_WORKER_MAX_INSTANCES?.trim()
  let maxInstances: number | null = null
  if (rawMax) {
    maxInstances = Number(rawMax)
    if (!Number.isInteger(maxInstances) || maxInstances < 1) throw new ConfigError(`CHATAPP_WORKER_MAX_INSTANCES must be a whole number of at least 1, got "${rawMax}"`)
  }
  const leaseTtlMs = envNumber(env, 'CHATAPP_LEASE_TTL_MS', 15_000, 1_000, 120_000)
  return { id, url, maxInstances, leaseTtlMs: Math.round(leaseTtlMs) }
}
