/**
 * Headless configuration from the environment (DESIGN.md §2). Invalid values stop the start with a
 * message naming the variable.
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
  return {
    dataDir: env.CHATAPP_DATA_DIR?.trim() || defaultDataDir(env),
    host: env.CHATAPP_HOST?.trim() || '127.0.0.1',
    port,
    apiToken: token || undefined,
    channel,
    logLevel: env.CHATAPP_LOG_LEVEL?.trim() || 'info'
  }
}
