/**
 * The repositories of the configuration document (../config/config-store.ts): the account, the
 * app's settings and the instances. Reads are synchronous (from memory); writes resolve once the
 * document is on disk.
 */
import { produce, type Draft } from 'immer'
import type { Instance } from '../../../shared/schemas/records'
import { DEFAULT_BACKUP_SETTINGS, type Account, type BackupSettings, type ConfigStore, type SmtpSettings, type WaWebVersionRecord } from '../config/config-store'
import type { Stored } from './record-table'

export class AccountRepo {
  constructor(private readonly config: ConfigStore) {}

  get(): Stored<Account> | null {
    return this.config.data.account
  }

  async set(account: Account): Promise<void> {
    await this.config.update((d) => void (d.account = account))
  }

  /**
   * Stores `account` unless there is one already; answers the account stored. Workers sharing one
   * database (docs/design.md §22) may start at once: the one whose write comes second re-applies this change to
   * the first one's document (../config/config-store.ts), and keeps its account and token.
   */
  async createIfNone(account: Account): Promise<Stored<Account>> {
    const data = await this.config.update((d) => void (d.account ??= account))
    return data.account!
  }
}

export class AppSettingsRepo {
  constructor(private readonly config: ConfigStore) {}

  smtp(): Stored<SmtpSettings> | null {
    return this.config.data.appSettings.smtp
  }

  async setSmtp(smtp: SmtpSettings | null): Promise<void> {
    await this.config.update((d) => void (d.appSettings.smtp = smtp))
  }

  backup(): BackupSettings {
    return { ...DEFAULT_BACKUP_SETTINGS, ...this.config.data.appSettings.backup }
  }

  async setBackup(backup: BackupSettings): Promise<void> {
    await this.config.update((d) => void (d.appSettings.backup = backup))
  }

  /**
   * The last good WA Web version (`appSettings.waWebVersion`), or null when none was kept or the
   * document holds something else there (a hand edit): a bad value must not stop the start, the
   * channel then falls back on the bundled version.
   */
  waWebVersion(): WaWebVersionRecord | null {
    const r = this.config.data.appSettings.waWebVersion
    const ok = r && Array.isArray(r.version) && r.version.length === 3 && r.version.every((n) => Number.isSafeInteger(n) && n >= 0) && typeof r.fetchedAt === 'string'
    return ok ? r : null
  }

  /** Keeps `record` as the last good WA Web version; resolves once it is on disk. */
  async setWaWebVersion(record: WaWebVersionRecord): Promise<void> {
    await this.config.update((d) => void (d.appSettings.waWebVersion = { version: [...record.version], fetchedAt: record.fetchedAt }))
  }
}

export class InstanceRepo {
  /** `session_id` → instance, for the list it was built from (the document is replaced, never changed, on a write). */
  private sessionIndex: { list: readonly Stored<Instance>[]; byId: Map<string, Stored<Instance>> } | null = null

  constructor(private readonly config: ConfigStore) {}

  /** Every instance, in creation order. */
  all(): readonly Stored<Instance>[] {
    return this.config.data.instances
  }

  find(id: string): Stored<Instance> | undefined {
    return this.config.data.instances.find((i) => i._id === id)
  }

  /**
   * The instance whose `session_id` is `sessionId`, through an index rebuilt only when the instances
   * change: every instance-scoped request asks. The session id names the instance; the secret is the
   * access token (compare it in constant time).
   */
  bySession(sessionId: string): Stored<Instance> | undefined {
    const list = this.all()
    if (this.sessionIndex?.list !== list) this.sessionIndex = { list, byId: new Map(list.map((i) => [i.session_id, i])) }
    return this.sessionIndex.byId.get(sessionId)
  }

  /** Stores a new instance, or replaces the one with its `_id`. */
  async put(instance: Instance): Promise<Stored<Instance>> {
    await this.config.update((d) => {
      const i = d.instances.findIndex((x) => x._id === instance._id)
      if (i >= 0) d.instances[i] = instance
      else d.instances.push(instance)
    })
    return this.find(instance._id)!
  }

  /** Changes an instance through `recipe`; answers it, or undefined when there is none with that id. */
  async update(id: string, recipe: (draft: Draft<Instance>) => void): Promise<Stored<Instance> | undefined> {
    const current = this.find(id)
    if (!current) return undefined
    if (produce(current, recipe) === current) return current
    await this.config.update((d) => {
      const draft = d.instances.find((x) => x._id === id)
      if (draft) recipe(draft)
    })
    return this.find(id)
  }

  async remove(id: string): Promise<boolean> {
    if (!this.find(id)) return false
    await this.config.update((d) => void (d.instances = d.instances.filter((x) => x._id !== id)))
    return true
  }
}
