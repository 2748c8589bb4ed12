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
import { checkConfig } from './config-check'
import { CONFIG_DEFAULTS, type ConfigData } from './config-data'

export { CONFIG_DEFAULTS, DEFAULT_BACKUP_SETTINGS, type Account, type AppSettings, type BackupSettings, type ConfigData, type SmtpSettings, type WaWebVersionRecord } from './config-data'
import { DurableJsonFile } from './durable-json-file'

export class ConfigStore {
  private chain: Promise<unknown> = Promise.resolve()
  private closed = false

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
   * written when the recipe changes nothing. Rejects with the write's error, memory unchanged, and
   * after {@link close}.
   */
  update(recipe: (draft: Draft<ConfigData>) => void): Promise<Readonly<ConfigData>> {
    // A writer that outlives the store (a WA Web version fetch finishing during a restore) would
    // write this whole, older document over the file now in its place.
    if (this.closed) return Promise.reject(new Error('the configuration document is closed'))
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

  /** Waits for the writes asked for so far; later changes are refused. */
  async close(): Promise<void> {
    this.closed = true
    await this.chain
  }
}
