/**
 * Backups of the running app (docs/design.md §20, docs/storage.md "Backup and restore"): the archive of `GET /backup`
 * ({@link BackupService.download}), backups on demand and once a day into the data dir's backups/
 * folder, keeping the newest N ({@link BackupService.backupNow}, the daily timer). Settings:
 * `appSettings.backup = {daily, keep}` in the configuration document; after a change, call
 * {@link BackupService.reschedule}.
 *
 * The schedule: a backup is due a day after the newest one in backups/ (at the first start: a minute
 * after it); a start never runs one at once, but at least {@link START_DELAY_MS} later, so it does not
 * compete with the start itself. A failed backup (a full disk) is logged, leaves no file, and is tried
 * again an hour later. Time and timers come from the core's clock (tests: a manual clock).
 */
import type { Readable } from 'node:stream'
import { finished } from 'node:stream'
import { join } from 'node:path'
import type { Clock, Timers } from '../../clock'
import type { Logger } from '../../logger'
import type { BackupSettings } from '../../store/config/config-store'
import { BackupUnavailableError, createBackup, stageBackup, storageSource, type BackupManifest } from '../../store/backup'
import type { Storage } from '../../store/storage'
import { backupName, backupTime, listBackups, pruneBackups, type StoredBackup } from './stored-backups'

export const DAY_MS = 24 * 60 * 60 * 1000
/** How soon after a start the first due backup runs at the earliest. */
export const START_DELAY_MS = 60 * 1000
/** How long after a failed automatic backup it is tried again. */
export const RETRY_MS = 60 * 60 * 1000

export interface BackupServiceDeps {
  /** The app's storage: what is backed up, and where (backups/, tmp/). */
  storage: Pick<Storage, 'paths' | 'config' | 'database'>
  /** The automatic backup's settings (the app settings repository). */
  settings: { backup(): BackupSettings }
  clock: Clock
  timers: Timers
  logger: Logger
  /** Put media/ in the backups too (default false: docs/storage.md "Backup and restore"). */
  includeMedia?: boolean
}

export interface BackupStatus {
  /** A backup is being written now. */
  running: boolean
  /** When the next automatic backup is due (ISO), or null when they are off. */
  nextAt: string | null
  /** The last automatic or on-demand backup's failure, cleared by the next success. */
  lastError: string | null
}

/** A fresh archive to send (GET /backup): its file name, manifest, and bytes (send once). */
export interface BackupDownload {
  filename: string
  manifest: BackupManifest
  stream: Readable
}

export class BackupService {
  private timer: unknown = null
  private nextAt: number | null = null
  private running: Promise<StoredBackup> | null = null
  private lastError: string | null = null
  private closed = false

  constructor(private readonly deps: BackupServiceDeps) {}

  /** Arms the daily backup (see the module doc). */
  async start(): Promise<void> {
    await this.reschedule(true)
  }

  /** Disarms the timer and waits for a backup being written. */
  async close(): Promise<void> {
    this.closed = true
    this.disarm()
    await this.running?.catch(() => {})
  }

  status(): BackupStatus {
    return { running: this.running !== null, nextAt: this.nextAt === null ? null : new Date(this.nextAt).toISOString(), lastError: this.lastError }
  }

  /** The backups kept in backups/, newest first. */
  list(): Promise<StoredBackup[]> {
    return listBackups(this.deps.storage.paths.backups)
  }

  /** Path of the kept backup `name` (for a download or a restore of it), or null when there is none by that name. */
  async file(name: string): Promise<string | null> {
    if (backupTime(name) === null) return null
    return (await this.list()).some((b) => b.name === name) ? join(this.deps.storage.paths.backups, name) : null
  }

  /**
   * Writes a backup into backups/ now and prunes the folder to the newest `keep`; resolves with it.
   * One at a time: a call while one is being written gets that one. Rejects with StorageFullError on
   * a full disk (no file is left) or the failure's own error.
   */
  backupNow(): Promise<StoredBackup> {
    this.running ??= this.write().finally(() => (this.running = null))
    return this.running
  }

  /**
   * A fresh archive for a download (GET /backup): staged first (so a full disk fails before anything
   * is sent), then streamed; its staged files are removed when the stream ends or is abandoned.
   */
  async download(): Promise<BackupDownload> {
    const now = this.deps.clock.now()
    const staged = await stageBackup(storageSource(this.deps.storage), { clock: this.deps.clock, includeMedia: this.deps.includeMedia })
    const stream = staged.stream()
    finished(stream, () => void staged.dispose())
    return { filename: backupName(now), manifest: staged.manifest, stream }
  }

  /** Re-reads the settings and re-arms the daily timer (call after `appSettings.backup` changed). */
  async reschedule(atStart = false): Promise<void> {
    this.disarm()
    if (this.closed || !this.deps.settings.backup().daily) return
    const newest = (await this.list())[0]
    const now = this.deps.clock.now()
    const due = newest ? Date.parse(newest.created_at) + DAY_MS : now + START_DELAY_MS
    this.arm(atStart ? Math.max(due - now, START_DELAY_MS) : Math.max(due - now, 0))
  }

  private async write(): Promise<StoredBackup> {
    const { paths } = this.deps.storage
    const name = backupName(this.deps.clock.now())
    try {
      await createBackup(storageSource(this.deps.storage), join(paths.backups, name), { clock: this.deps.clock, includeMedia: this.deps.includeMedia, partialDir: paths.tmp })
    } catch (err) {
      this.lastError = (err as Error).message
      throw err
    }
    this.lastError = null
    const removed = await pruneBackups(paths.backups, this.deps.settings.backup().keep)
    const made = (await this.list()).find((b) => b.name === name)
    this.deps.logger.info({ backup: name, size: made?.size, removed }, 'backup written')
    // The next automatic one is due a day after this one, however it was made.
    if (!this.closed) await this.reschedule()
    return made ?? { name, size: 0, created_at: new Date(backupTime(name)!).toISOString() }
  }

  private arm(delayMs: number): void {
    this.nextAt = this.deps.clock.now() + delayMs
    this.timer = this.deps.timers.setTimeout(() => void this.daily(), delayMs)
  }

  private disarm(): void {
    if (this.timer !== null) this.deps.timers.clearTimeout(this.timer)
    this.timer = null
    this.nextAt = null
  }

  /**
   * The daily timer: a backup, then the next one a day later (or a retry an hour later). A backup the
   * app does not make here (PostgreSQL: BackupUnavailableError) is not retried: it would fail the same
   * way every hour on every worker; the status keeps the reason (`last_error`) until a restart.
   */
  private async daily(): Promise<void> {
    this.timer = null
    this.nextAt = null
    if (this.closed || !this.deps.settings.backup().daily) return
    try {
      await this.backupNow()
    } catch (err) {
      if (err instanceof BackupUnavailableError) {
        this.deps.logger.warn({ reason: err.message }, 'automatic backups are off: the app does not back up this database')
        return
      }
      this.deps.logger.error({ err }, 'automatic backup failed; trying again in an hour')
      if (!this.closed && this.deps.settings.backup().daily) this.arm(RETRY_MS)
    }
  }
}
