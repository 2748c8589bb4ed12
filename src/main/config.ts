/**
 * Headless configuration from the environment (DESIGN.md §2). Invalid values stop the start with a
 * message naming the variable. `CHATAPP_WA_WS_URL` / `CHATAPP_WA_ROOT_KEY` are the Baileys channel's
 * offline test seam (DESIGN.md §5): for tests only, unset in normal use.
 */
import { homedir } from 'node:os'
import { join } from 'node:path'
import type { ChannelKind } from './channel/types'
import { PRODUCT_NAME } from './version'

export interface ServeConfig {
  dataDir: string
  host: string
  /** 0 = any free port. */
  port: number
  apiToken?: string
  channel: ChannelKind
  logLevel: string
  /** `CHATAPP_WA_WS_URL`: Baileys' waWebSocketUrl. Tests only (a local protocol test server). */
  waWebSocketUrl?: string
  /** `CHATAPP_WA_ROOT_KEY`: Curve25519 public key replacing WA_CERT_DETAILS.PUBLIC_KEY. Tests only. */
  waRootKey?: Buffer
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
  return {
    ...(wsUrl ? { waWebSocketUrl: wsUrl } : {}),
    ...(waRootKey ? { waRootKey } : {}),
    dataDir: env.CHATAPP_DATA_DIR?.trim() || defaultDataDir(env),
    host: env.CHATAPP_HOST?.trim() || '127.0.0.1',
    port,
    apiToken: token || undefined,
    channel,
    logLevel: env.CHATAPP_LOG_LEVEL?.trim() || 'info'
  }
}
