/** The configuration document's shape (./config-store.ts keeps it; ./config-check.ts checks it). */
import type { Instance } from '../../../shared/schemas/records'

export interface Account {
  _id: string
  api_token: string
  createdAt: string
}

export interface SmtpSettings {
  host: string
  port: number
  secure: boolean
  user?: string
  pass?: string
  from: string
}

/** The automatic backup (docs/storage.md "Backup and restore"). */
export interface BackupSettings {
  /** Make a backup once a day. */
  daily: boolean
  /** How many automatic backups are kept (the oldest go first). */
  keep: number
}

export const DEFAULT_BACKUP_SETTINGS: BackupSettings = { daily: true, keep: 7 }

/**
 * The last WA Web version fetched that WhatsApp's page said was the current one (docs/baileys.md
 * "The WA Web version"). Not a choice of the person: the app keeps it here so a restart while the
 * fetch fails connects with it rather than with the older one bundled with the library.
 */
export interface WaWebVersionRecord {
  /** `[2, 3000, <client_revision>]`. */
  version: [number, number, number]
  /** ISO time of the fetch. */
  fetchedAt: string
}

export interface AppSettings {
  smtp: SmtpSettings | null
  backup?: BackupSettings
  waWebVersion?: WaWebVersionRecord
}

export interface ConfigData {
  /** The format of this document (0.1 kept its configuration in the journaled `chatapp.json`). */
  version: 1
  account: Account | null
  appSettings: AppSettings
  instances: Instance[]
}

export const CONFIG_DEFAULTS: ConfigData = { version: 1, account: null, appSettings: { smtp: null }, instances: [] }
