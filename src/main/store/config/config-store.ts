/**
 * The configuration document (docs/design.md §20): the account, the app's settings and each
 * instance's settings — what a person may read, diff and back up by hand, and nothing that grows with
 * use (that lives in the database). Kept by lowdb 7 over one of two adapters:
 *
 * - `<dataDir>/config.json`, written atomically and durably (./durable-json-file.ts): the default;
 * - in database mode (`CHATAPP_DATABASE_URL`, docs/design.md §22), one row of the database
 *   (./database-document.ts), shared by every worker on it: {@link ConfigStore.openInDatabase}.
 *
 * Reads are synchronous, from memory: every request authenticates against the instances. A change
 * is a recipe (immer) applied to a copy; the copy is written whole, and only once it is stored do
 * readers see it, so a failed write (a full disk) leaves memory as it was and the caller gets the
 * error. Changes are written one after another, in the order asked. In database mode another worker
 * may write between this one's read and its write: the write's transaction then locks the row, reads
 * the newer document and applies the same recipe to it (recipes are pure functions of the draft, so
 * running one again is safe; ./database-document.ts `change`): two workers' changes to different
 * instances both survive, and no change fails because others were written at once.
 */
import { produce, type Draft } from 'immer'
import { Low } from 'lowdb'
import type { DatabaseHandle } from '../db/database'
import { checkConfig } from './config-check'
import { CONFIG_DEFAULTS, type ConfigData } from './config-data'
import { listenLasting } from '../db/lasting-listen'
import { CONFIG_CHANNEL, ConfigConflictError, DatabaseDocument, type DocumentDatabase } from './database-document'

export { CONFIG_DEFAULTS, DEFAULT_BACKUP_SETTINGS, type Account, type AppSettings, type BackupSettings, type ConfigData, type SmtpSettings, type WaWebVersionRecord } from './config-data'
export { ConfigConflictError } from './database-document'
import { DurableJsonFile } from './durable-json-file'

/** A database that can tell this process of other workers' commits (PostgreSQL's LISTEN; ../db/database.ts). */
export type ListeningDatabase = DocumentDatabase & Partial<Pick<DatabaseHandle, 'listen'>>

export interface DatabaseConfigOptions {
  /**
   * The data dir's `config.json`: on the first start in database mode (no row yet) the document
   * starts from it when it exists, and the file is left as it is.
   */
  seedFile?: string
  /** Told when that copy was made. */
  log?: (message: string, fields: Record<string, unknown>) => void
}

export class ConfigStore {
  private chain: Promise<unknown> = Promise.resolve()
  private closed = false
  private unlisten: (() => Promise<void>) | null = null
  /**
   * Changes written ({@link update} calls that stored something), and of those, the ones another
   * worker's write came before, re-applied to its newer document (database mode; diagnostics,
   * benchmarks: `npm run bench -- config`).
   */
  readonly stats = { changes: 0, reapplied: 0 }

  private constructor(
    private readonly low: Low<ConfigData>,
    private committed: ConfigData,
    /** The database row's adapter in database mode, else null. */
    private readonly row: DatabaseDocument | null = null,
    private readonly database: ListeningDatabase | null = null
  ) {}

  /** Reads `file` (defaults when missing). Throws DataFileError when it cannot be read or checked. */
  static async open(file: string): Promise<ConfigStore> {
    const low = new Low<ConfigData>(new DurableJsonFile(file, checkConfig), structuredClone(CONFIG_DEFAULTS))
    await low.read()
    return new ConfigStore(low, Object.freeze(low.data))
  }

  /**
   * Database mode: the document is the row of `config_document` (./database-document.ts). When there
   * is none yet (the first start of the first worker), it starts from `options.seedFile` if that file
   * exists (copied once; the file is then left as it is and no longer read), else from the defaults,
   * and is written at once so every worker starts from the same row. Throws DataFileError for a row
   * (or a seed file) that fails the document's checks; nothing is overwritten then.
   */
  static async openInDatabase(database: ListeningDatabase, options: DatabaseConfigOptions = {}): Promise<ConfigStore> {
    const row = new DatabaseDocument(database)
    const low = new Low<ConfigData>(row, structuredClone(CONFIG_DEFAULTS))
    await low.read()
    if (row.version === null) {
      const seed = options.seedFile ? await new DurableJsonFile(options.seedFile, checkConfig).read() : null
      low.data = seed ?? structuredClone(CONFIG_DEFAULTS)
      try {
        await low.write()
        if (seed) options.log?.('The configuration now lives in the database: config.json was copied into it and is no longer read or written (it was left as it is).', { file: options.seedFile, database: row.where })
      } catch (err) {
        // Another worker started first and wrote its document: that one is the desk's.
        if (!(err instanceof ConfigConflictError)) throw err
        await low.read()
      }
    }
    return new ConfigStore(low, Object.freeze(low.data), row, database)
  }

  /** The document as last written (frozen: change it through {@link update}). */
  get data(): Readonly<ConfigData> {
    return this.committed
  }

  /**
   * Applies `recipe` to a copy, writes it, then makes it the document; resolves with it. Nothing is
   * written when the recipe changes nothing. In database mode, when another worker wrote first,
   * `recipe` runs again on the newer document in the write's transaction (it must be a pure function
   * of the draft), and that is the document resolved. Rejects with the write's error (a full disk; in
   * database mode a newer row that fails the checks: DataFileError), memory unchanged, and after
   * {@link close}.
   */
  update(recipe: (draft: Draft<ConfigData>) => void): Promise<Readonly<ConfigData>> {
    // A writer that outlives the store (a WA Web version fetch finishing during a restore) would
    // write this whole, older document over the file now in its place.
    if (this.closed) return Promise.reject(new Error('the configuration document is closed'))
    const run = this.chain.then(async () => {
      const next = produce(this.committed, recipe)
      if (next === this.committed) return next
      if (this.row) {
        const stored = await this.row.change(next, (current) => produce(current, recipe))
        this.low.data = stored.data
        this.committed = Object.freeze(stored.data)
        this.stats.changes++
        if (stored.reapplied) this.stats.reapplied++
        return this.committed
      }
      this.low.data = next
      try {
        await this.low.write()
      } catch (err) {
        this.low.data = this.committed
        throw err
      }
      this.committed = next
      this.stats.changes++
      return next
    })
    this.chain = run.catch(() => {})
    return run
  }

  /**
   * Reads the stored document again (database mode: another worker may have written it) and makes it
   * the one readers see; resolves with it. Runs after the writes asked before it. Rejects with
   * DataFileError for a stored document that fails the checks (memory unchanged); a closed store
   * resolves with what it holds.
   */
  refresh(): Promise<Readonly<ConfigData>> {
    return this.refreshUnless(null)
  }

  /**
   * {@link refresh}, skipped when by its turn the held document is version `version` or newer: a burst
   * of other workers' writes, each notified, is read once, not once per write.
   */
  private refreshUnless(version: number | null): Promise<Readonly<ConfigData>> {
    const run = this.chain.then(async () => {
      const held = this.row?.version ?? null
      if (!this.closed && (version === null || held === null || held < version)) await this.reread()
      return this.committed
    })
    this.chain = run.catch(() => {})
    return run
  }

  /**
   * Database mode on PostgreSQL: LISTENs on `chatapp_config` (one connection of the pool, held until
   * {@link close}) and refreshes the document whenever another worker commits a write of it; each
   * refresh's outcome is handed to `onRefresh` (an error: the document as it was, the next
   * notification tries again). A listening connection that breaks is opened again (backoff from
   * `relistenMs.min` to `relistenMs.max`, lasting-listen.ts's defaults: 200 ms to 5 s) and the document read once it listens,
   * since writes may have been missed meanwhile. Resolves once listening. Does nothing elsewhere (the
   * file, SQLite): there no other process writes the document while the app runs.
   */
  async subscribe(onRefresh: (err: Error | null, data: Readonly<ConfigData>) => void = () => {}, relistenMs?: { min: number; max: number }): Promise<void> {
    if (!this.row || !this.database?.listen || this.unlisten || this.closed) return
    const row = this.row
    const listen = this.database.listen
    // Never rejects: the outcome goes to onRefresh.
    const refreshed = (version: number | null = null): void =>
      void this.refreshUnless(version).then(
        (data) => onRefresh(null, data),
        (err: unknown) => onRefresh(err instanceof Error ? err : new Error(String(err)), this.committed)
      )
    const onNotify = (payload: string) => {
      // This worker's own writes are notified too: nothing newer to read then.
      const version = Number(payload)
      if (row.version !== null && Number.isSafeInteger(version) && version <= row.version) return
      refreshed(Number.isSafeInteger(version) ? version : null)
    }
    // Writes made while the connection was down were not notified: read the document once it listens again.
    this.unlisten = await listenLasting(listen, CONFIG_CHANNEL, onNotify, { onRelisten: () => refreshed(), ...(relistenMs ? { relistenMs } : {}) })
  }

  /** Database mode: the version of the document this worker holds (null: the data dir's file, or no row yet). */
  get version(): number | null {
    return this.row?.version ?? null
  }

  /**
   * Database mode: reads the document again when the one held here is older than `version` (another
   * worker's, told with one of its events — docs/design.md §22 "Events across workers" — or with a
   * request it forwards, api/forward.ts); resolves at once otherwise. Rejects as {@link refresh} does.
   */
  async atLeast(version: number): Promise<void> {
    if (!this.row || (this.row.version !== null && this.row.version >= version)) return
    await this.refresh()
  }

  /** Reads the stored document into memory (lowdb keeps the old data when the read throws). */
  private async reread(): Promise<void> {
    await this.low.read()
    if (this.low.data !== this.committed) this.committed = Object.freeze(this.low.data)
  }

  /** Waits for the writes asked for so far; later changes are refused. */
  async close(): Promise<void> {
    this.closed = true
    const unlisten = this.unlisten
    this.unlisten = null
    await unlisten?.()
    await this.chain
  }
}
