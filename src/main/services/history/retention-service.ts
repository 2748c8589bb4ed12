/**
 * Retention (docs/design.md §20): once a day (and at start), each instance with a
 * retention period loses its messages older than `days`, and its downloaded media files of messages
 * older than `media_days`. Deletes go in slices of a few ms of the writer's time, each its own
 * transaction, so a large first run never holds the database for long (docs/storage.md "Heavy jobs in
 * slices"). Keeping forever (the default) costs nothing. The audit log follows
 * the longest retention of any instance.
 */
import { IDEMPOTENCY_TTL_MS } from '../idempotency-service'
import type { Clock, Timers } from '../../clock'
import type { Logger } from '../../logger'
import type { Repositories } from '../../store/repos'
import { DEFAULT_RETENTION, type Instance } from '../../../shared/schemas/records'
import type { MediaFiles } from '../messages/media-files'

const DAY_MS = 86_400_000
/** Media files looked at per page. */
const BATCH = 5000

export interface RetentionDeps {
  repos: Pick<Repositories, 'instances' | 'customerData' | 'audit' | 'sessions' | 'idempotency'>
  media: MediaFiles
  clock: Clock
  timers: Timers
  logger: Logger
}

/** What one run deleted, per instance. */
export interface RetentionRun {
  instanceId: string
  messages: number
  mediaFiles: number
}

export class RetentionService {
  private timer: unknown = null
  private running: Promise<RetentionRun[]> | null = null
  private closed = false

  constructor(private readonly deps: RetentionDeps) {}

  /** Runs now, then every day; answers the stop. */
  start(): () => void {
    const tick = (): void => {
      if (this.closed) return
      this.run().catch((err: unknown) => this.deps.logger.error({ err }, 'retention run failed'))
      this.timer = this.deps.timers.setTimeout(tick, DAY_MS)
    }
    tick()
    return () => {
      this.closed = true
      if (this.timer !== null) this.deps.timers.clearTimeout(this.timer)
    }
  }

  /** Applies every instance's retention now (one run at a time); answers what went. */
  run(): Promise<RetentionRun[]> {
    this.running ??= this.runAll().finally(() => (this.running = null))
    return this.running
  }

  /** Resolves when no run is going on (shutdown). */
  async idle(): Promise<void> {
    await this.running?.catch(() => {})
  }

  private async runAll(): Promise<RetentionRun[]> {
    const out: RetentionRun[] = []
    for (const inst of this.deps.repos.instances.all()) {
      const r = await this.apply(inst)
      if (r.messages > 0 || r.mediaFiles > 0) {
        out.push(r)
        this.deps.logger.info(r, 'retention: old messages and media deleted')
      }
    }
    await this.applyToAudit()
    return out
  }

  /**
   * The audit log keeps the history's rule (docs/design.md §21 "Audit"): entries older than the longest retention of
   * any instance go; while one instance keeps everything (or there is none), every entry stays.
   * Expired web sessions and idempotency keys older than a day go too.
   */
  private async applyToAudit(): Promise<void> {
    const now = this.deps.clock.now()
    await this.deps.repos.sessions.purgeExpired(now)
    // Idempotency keys are good for a day whatever the history's rule.
    await this.deps.repos.idempotency.purgeBefore(now - IDEMPOTENCY_TTL_MS)
    const days = this.deps.repos.instances.all().map((i) => ({ ...DEFAULT_RETENTION, ...i.settings.retention }).days)
    if (days.length === 0 || days.some((d) => d === null)) return
    const longest = Math.max(...(days as number[]))
    const gone = await this.deps.repos.audit.purgeBefore(now - longest * DAY_MS)
    if (gone > 0) this.deps.logger.info({ entries: gone, days: longest }, 'retention: old audit entries deleted')
  }

  private async apply(inst: Instance): Promise<RetentionRun> {
    const { days, media_days } = { ...DEFAULT_RETENTION, ...inst.settings.retention }
    const now = this.deps.clock.now()
    const result: RetentionRun = { instanceId: inst._id, messages: 0, mediaFiles: 0 }
    if (media_days !== null) {
      let after = 0
      for (;;) {
        if (this.closed) return result
        const page = await this.deps.repos.customerData.mediaBefore(inst._id, now - media_days * DAY_MS, after, BATCH)
        result.mediaFiles += await this.deps.media.remove(inst._id, page.map((m) => m.id))
        if (page.length < BATCH) break
        after = page[page.length - 1]!.seq
      }
    }
    if (days !== null) {
      result.messages = await this.deps.repos.customerData.deleteAllBefore(
        inst._id,
        now - days * DAY_MS,
        async (ids) => void (result.mediaFiles += await this.deps.media.remove(inst._id, ids)),
        () => this.closed
      )
    }
    return result
  }
}
