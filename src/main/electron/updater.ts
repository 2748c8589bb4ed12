/**
 * The desktop app's updates (docs/design.md §19) over electron-updater's generic provider: the feed's
 * `latest*.yml` names the newer version, its installer and that installer's sha512; electron-updater
 * downloads it and refuses a file whose sha512 differs. This controller decides when (the rules are in
 * ./update-policy.ts): a check shortly after start and then daily; the download by itself unless the
 * owner turned that off; the install when the owner clicks "Restart to update" or, unattended, at
 * night when nothing runs; in both cases only once no message is on its way out.
 *
 * It imports nothing from Electron: the shell hands it electron-updater's updater for the installed
 * package and the function that quits and installs. Tests run it in plain Node against a loopback feed.
 *
 * The owner's choice (automatic download) lives in `update-settings.json` in the user-data folder.
 */
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises'
import { dirname } from 'node:path'
import type { AppUpdater, ProgressInfo, UpdateInfo } from 'electron-updater'
import type { Logger } from '../logger'
import type { ActivitySnapshot } from '../services/activity'
import type { UpdateStatusT, UpdatesPort } from '../../shared/operations/updates'
import type { ResolvedFeed } from './update-feed'
import {
  AUTO_INSTALL_POLL_MS,
  autoInstallDue,
  installOnQuit,
  installsUnattended,
  nextCheckIn,
  restartDecision,
  type InstallKind
} from './update-policy'

/** The part of electron-updater's updater this controller drives (AppUpdater; `install` on every BaseUpdater). */
export type UpdaterEngine = Pick<AppUpdater, 'checkForUpdates' | 'downloadUpdate' | 'setFeedURL' | 'on'> & {
  autoDownload: boolean
  autoInstallOnAppQuit: boolean
  logger: AppUpdater['logger']
  install?: (isSilent?: boolean, isForceRunAfter?: boolean) => boolean
}

export interface UpdateControllerOptions {
  updater: UpdaterEngine
  feed: ResolvedFeed
  kind: InstallKind
  currentVersion: string
  /** `<userData>/update-settings.json`. */
  settingsFile: string
  activity: { snapshot(): Promise<ActivitySnapshot>; sendsIdle(): Promise<void> }
  /** Quits the app and installs the downloaded update (`silent`: unattended, no installer window). */
  quitAndInstall(silent: boolean): void
  /** A new version is downloaded and ready (the shell notifies the owner). */
  onDownloaded?(version: string): void
  logger: Logger
  /** Epoch ms (tests: a fixed time). */
  now?: () => number
  /** The PC's local hour 0–23 (tests: fixed). */
  localHour?: () => number
}

interface Settings {
  autoDownload: boolean
}

/** Plain text of electron-updater's release notes (a string, or one note per version; HTML tags dropped). */
export function releaseNotesText(notes: UpdateInfo['releaseNotes']): string | null {
  if (notes == null) return null
  const text = typeof notes === 'string' ? notes : notes.map((n) => `${n.version}: ${n.note ?? ''}`).join('\n\n')
  const plain = text
    .replace(/<br\s*\/?>/gi, '\n')
    .replace(/<\/(p|li|h\d)>/gi, '\n')
    .replace(/<[^>]*>/g, '')
    .trim()
  return plain || null
}

/** What the owner reads when a check or download fails. */
export function describeUpdateError(err: unknown): string {
  const e = err as { code?: string; message?: string; statusCode?: number }
  if (e?.code === 'ERR_CHECKSUM_MISMATCH') return 'The downloaded update did not match the sha512 its feed announced, so it was discarded. It will be tried again at the next check.'
  if (e?.code === 'ERR_UPDATER_NO_CHECKSUM') return 'The update feed names no sha512 for the installer, so it was not downloaded.'
  if (e?.code === 'ERR_UPDATER_CHANNEL_FILE_NOT_FOUND' || e?.statusCode === 404) return 'The update feed has no update information for this system.'
  if (e?.code && /^E(CONNREFUSED|NOTFOUND|AI_AGAIN|CONNRESET|TIMEDOUT|HOSTUNREACH|NETUNREACH)$/.test(e.code)) return `Could not reach the update feed (${e.code}).`
  const first = String(e?.message ?? err).split('\n')[0]!
  return first.length > 300 ? `${first.slice(0, 300)}…` : first
}

export class UpdateController implements UpdatesPort {
  private settings: Settings = { autoDownload: true }
  private state: UpdateStatusT['state'] = 'idle'
  private available: UpdateStatusT['available'] = null
  private progress: UpdateStatusT['progress'] = null
  private lastCheckAt: number | null = null
  private error: string | null = null
  private waitingFor: UpdateStatusT['blockers'] = []
  private downloadedVersion: string | null = null
  private checking: Promise<UpdateStatusT> | null = null
  private installStarted = false
  private revision = 0
  private readonly listeners = new Set<(s: UpdateStatusT) => void>()
  private readonly now: () => number
  private readonly localHour: () => number

  private constructor(private readonly opts: UpdateControllerOptions) {
    this.now = opts.now ?? Date.now
    this.localHour = opts.localHour ?? (() => new Date(this.now()).getHours())
  }

  /**
   * Reads the owner's settings and configures electron-updater: the feed as a generic provider, and
   * no download or install of its own (this controller owns both, their errors included).
   */
  static async open(opts: UpdateControllerOptions): Promise<UpdateController> {
    const c = new UpdateController(opts)
    c.settings = await readSettings(opts.settingsFile)
    const u = opts.updater
    u.autoDownload = false
    c.applyQuitRule()
    u.logger = { info: (m) => opts.logger.info({ updater: m }, 'updater'), warn: (m) => opts.logger.warn({ updater: m }, 'updater'), error: (m) => opts.logger.error({ updater: m }, 'updater') }
    if (opts.feed.ok) u.setFeedURL({ provider: 'generic', url: opts.feed.url })
    u.on('download-progress', (p: ProgressInfo) => {
      c.progress = { percent: Math.round(p.percent * 10) / 10, transferred: p.transferred, total: p.total, bytesPerSecond: Math.round(p.bytesPerSecond) }
      c.emit()
    })
    // Check and download failures reach their callers. An install that failed (the password prompt
    // cancelled, dpkg refusing) is reported only here: the app keeps running the old version.
    u.on('error', (err: Error) => {
      if (c.state !== 'installing') return
      c.installStarted = false
      c.set({ state: 'downloaded', error: `The update could not be installed: ${describeUpdateError(err)}` })
    })
    return c
  }

  /**
   * Squirrel.Mac installs a handed-over update at quit by itself, so on macOS electron-updater's own
   * rule is the policy's; elsewhere the shell's quit path installs, after the core has closed.
   */
  private applyQuitRule(): void {
    this.opts.updater.autoInstallOnAppQuit = this.opts.kind === 'mac' && installOnQuit(this.opts.kind, this.settings.autoDownload)
  }

  /** Schedules the checks (soon, then daily) and the unattended install; answers the stop function. */
  start(): () => void {
    let checkTimer: NodeJS.Timeout | undefined
    const scheduleCheck = () => {
      checkTimer = setTimeout(() => void this.check().finally(scheduleCheck), nextCheckIn(this.lastCheckAt, this.now()))
      checkTimer.unref()
    }
    if (this.opts.feed.ok) scheduleCheck()
    const poll = setInterval(() => void this.maybeInstallUnattended(), AUTO_INSTALL_POLL_MS)
    poll.unref()
    return () => {
      clearTimeout(checkTimer)
      clearInterval(poll)
    }
  }

  status(): UpdateStatusT {
    const feed = this.opts.feed
    return {
      supported: feed.ok,
      reason: feed.ok ? null : feed.reason,
      currentVersion: this.opts.currentVersion,
      feed: feed.ok ? feed.url : null,
      autoDownload: this.settings.autoDownload,
      state: this.state,
      available: this.available,
      progress: this.state === 'downloading' ? this.progress : null,
      lastCheckAt: this.lastCheckAt === null ? null : new Date(this.lastCheckAt).toISOString(),
      error: this.error,
      blockers: this.waitingFor,
      needsPassword: !installsUnattended(this.opts.kind),
      installsOnQuit: installOnQuit(this.opts.kind, this.settings.autoDownload),
      revision: this.revision
    }
  }

  subscribe(listener: (s: UpdateStatusT) => void): () => void {
    this.listeners.add(listener)
    return () => this.listeners.delete(listener)
  }

  check(): Promise<UpdateStatusT> {
    // During a download the feed was just read; a second download of the same file would start.
    if (!this.opts.feed.ok || this.busy() || this.state === 'downloading') return Promise.resolve(this.status())
    this.checking ??= this.runCheck().finally(() => (this.checking = null))
    return this.checking
  }

  /** Starts the download of the offered version; progress and the outcome arrive as status changes. */
  async download(): Promise<UpdateStatusT> {
    if (!this.available || this.busy() || this.state === 'downloading' || this.state === 'downloaded') return this.status()
    this.set({ state: 'downloading', error: null })
    this.progress = { percent: 0, transferred: 0, total: 0, bytesPerSecond: 0 }
    const version = this.available.version
    this.opts.updater.downloadUpdate().then(
      () => {
        this.downloadedVersion = version
        this.set({ state: 'downloaded' })
        this.opts.onDownloaded?.(version)
      },
      (err: unknown) => {
        this.opts.logger.warn({ err: describeUpdateError(err) }, 'update download failed')
        this.set({ state: 'error', error: describeUpdateError(err) })
      }
    )
    return this.status()
  }

  async setAutoDownload(enabled: boolean): Promise<UpdateStatusT> {
    this.settings = { ...this.settings, autoDownload: enabled }
    await writeSettings(this.opts.settingsFile, this.settings)
    this.applyQuitRule()
    this.emit()
    if (enabled && this.state === 'available') return this.download()
    return this.status()
  }

  async restart(force: boolean): Promise<UpdateStatusT> {
    if (this.state !== 'downloaded') return this.status()
    const activity = await this.opts.activity.snapshot()
    const decision = restartDecision(activity, force)
    if (decision.action === 'confirm') {
      this.set({ blockers: decision.blockers })
      return this.status()
    }
    // The answer already says 'installing'; the install itself waits for sends in flight.
    void this.installWhenSendsSettle(false, activity.sends)
    return this.status()
  }

  /**
   * At quit, after the core closed: installs a downloaded update when the rule allows (the next start
   * runs the new version). Answers whether it did.
   */
  installOnQuit(): boolean {
    if (this.state !== 'downloaded' || this.installStarted || !installOnQuit(this.opts.kind, this.settings.autoDownload) || !this.opts.updater.install) return false
    this.installStarted = true
    return this.opts.updater.install(true, false)
  }

  /** At night with nothing running, installs and restarts by itself (packages that need no password). */
  async maybeInstallUnattended(): Promise<boolean> {
    if (this.state !== 'downloaded') return false
    const due = async () =>
      autoInstallDue({ activity: await this.opts.activity.snapshot(), kind: this.opts.kind, automatic: this.settings.autoDownload, localHour: this.localHour() })
    if (!(await due())) return false
    return this.installWhenSendsSettle(true, (await this.opts.activity.snapshot()).sends, due)
  }

  /** Goes to 'installing' at once (`sendsNow` > 0: says it waits for sends), installs once they settle. */
  private async installWhenSendsSettle(unattended: boolean, sendsNow: number, stillDue: () => Promise<boolean> = async () => true): Promise<boolean> {
    this.set({ state: 'installing', blockers: sendsNow > 0 ? ['sends'] : [] })
    await this.opts.activity.sendsIdle()
    // Unattended: something may have started meanwhile; then it waits for the next quiet moment.
    if (!(await stillDue())) {
      this.set({ state: 'downloaded', blockers: [] })
      return false
    }
    this.set({ blockers: [] })
    this.installStarted = true
    this.opts.logger.info({ version: this.downloadedVersion, unattended }, 'installing the update and restarting')
    // After the answer to the UI's call has gone out.
    setImmediate(() => this.opts.quitAndInstall(unattended))
    return true
  }

  private busy(): boolean {
    return this.state === 'checking' || this.state === 'installing'
  }

  private async runCheck(): Promise<UpdateStatusT> {
    const wasDownloaded = this.state === 'downloaded'
    this.set({ state: 'checking', error: null })
    try {
      const result = await this.opts.updater.checkForUpdates()
      this.lastCheckAt = this.now()
      if (!result) throw new Error('The updater is not active in this build.')
      if (!result.isUpdateAvailable) {
        this.available = null
        this.set({ state: 'up-to-date' })
        return this.status()
      }
      const info = result.updateInfo
      this.available = { version: info.version, releaseNotes: releaseNotesText(info.releaseNotes), releaseDate: info.releaseDate || null }
      if (wasDownloaded && this.downloadedVersion === info.version) {
        this.set({ state: 'downloaded' })
        return this.status()
      }
      this.set({ state: 'available' })
      if (this.settings.autoDownload) return await this.download()
      return this.status()
    } catch (err) {
      this.lastCheckAt = this.now()
      this.opts.logger.warn({ err: describeUpdateError(err) }, 'update check failed')
      this.set({ state: wasDownloaded ? 'downloaded' : 'error', error: describeUpdateError(err) })
      return this.status()
    }
  }

  private set(change: Partial<{ state: UpdateStatusT['state']; error: string | null; blockers: UpdateStatusT['blockers'] }>): void {
    if (change.state !== undefined) this.state = change.state
    if (change.error !== undefined) this.error = change.error
    if (change.blockers !== undefined) this.waitingFor = change.blockers
    // A new state clears a stale question about what runs.
    if (change.state !== undefined && change.blockers === undefined && change.state !== 'installing') this.waitingFor = []
    this.emit()
  }

  private emit(): void {
    this.revision++
    const s = this.status()
    for (const l of this.listeners) l(s)
  }
}

async function readSettings(file: string): Promise<Settings> {
  try {
    const raw = JSON.parse(await readFile(file, 'utf8')) as Partial<Settings>
    return { autoDownload: raw.autoDownload !== false }
  } catch {
    // First start, or an unreadable file: the defaults (automatic download on).
    return { autoDownload: true }
  }
}

async function writeSettings(file: string, settings: Settings): Promise<void> {
  await mkdir(dirname(file), { recursive: true })
  const tmp = `${file}.${process.pid}.tmp`
  await writeFile(tmp, JSON.stringify(settings) + '\n', { mode: 0o600 })
  await rename(tmp, file)
}
