/**
 * The configuration document (`<dataDir>/config.json`, docs/design.md §14): the account, the app's
 * settings and each instance's settings — what a person may read, diff and back up by hand, and
 * nothing that grows with use (that lives in the database). Kept by lowdb 7 over an adapter that
 * writes atomically and durably (./durable-json-file.ts).
 *
 * Reads are synchronous, from memory: every request authenticates against the instances. A change
 * is a recipe (immer) applied to a copy; the copy is written whole, and only once it is on disk do
 * readers see it, so a failed write (a full disk) leaves memory as it was and the caller gets the
 * error. Changes are written one after another, in the order asked.
 */
import { produce, type Draft } from 'immer'
import { Low } from 'lowdb'
import type { Instance } from '../../../shared/schemas/records'
import { checkConfig } from './config-check'
import { DurableJsonFile } from './durable-json-file'

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

/** The automatic backup (issue 25 §3). */
export interface BackupSettings {
  /** Make a backup once a day. */
  daily: boolean
  /** How many automatic backups are kept (the oldest go first). */
  keep: number
}

export const DEFAULT_BACKUP_SETTINGS: BackupSettings = { daily: true, keep: 7 }

export interface AppSettings {
  smtp: SmtpSettings | null
  backup?: BackupSettings
}

export interface ConfigData {
  /** The format of this document (0.1 kept its configuration in the journaled `chatapp.json`). */
  version: 1
  account: Account | null
  appSettings: AppSettings
  instances: Instance[]
}

export const CONFIG_DEFAULTS: ConfigData = { version: 1, account: null, appSettings: { smtp: null }, instances: [] }

export class ConfigStore {
  private chain: Promise<unknown> = Promise.resolve()

  private constructor(
    private readonly low: Low<ConfigData>,
    private committed: ConfigData
  ) {}

  /** Reads `file` (defaults when missing). Throws DataFileError when it cannot be read or checked. */
  static async open(file: string): Promise<ConfigStore> {
    const low = new Low<ConfigData>(new DurableJsonFile(file, checkConfig), structuredClone(CONFIG_DEFAULTS))
    await low.read()
    return new ConfigStore(low, Object.freeze(low.data))
  }

  /** The document as last written (frozen: change it through {@link update}). */
  get data(): Readonly<ConfigData> {
    return this.committed
  }

  /**
   * Applies `recipe` to a copy, writes it, then makes it the document; resolves with it. Nothing is
   * written when the recipe changes nothing. Rejects with the write's error, memory unchanged.
   */
  update(recipe: (draft: Draft<ConfigData>) => void): Promise<Readonly<ConfigData>> {
    const run = this.chain.then(async () => {
      const next = produce(this.committed, recipe)
      if (next === this.committed) return next
      this.low.data = next
      try {
        await this.low.write()
      } catch (err) {
        this.low.data = this.committed
        throw err
      }
      this.committed = next
      return next
    })
    this.chain = run.catch(() => {})
    return run
  }

  /** Waits for the writes asked for so far. */
  async close(): Promise<void> {
    await this.chain
  }
}
