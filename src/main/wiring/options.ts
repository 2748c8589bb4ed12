/**
 * What a core is started with (`startCore`'s options) and the defaults of its limits and leases. Here,
 * not in core.ts, so the wiring modules read them without importing the core they are wired into;
 * core.ts exports them again for the faces.
 */
import type { ChannelFactory, ChannelKind } from '../channel/types'
import type { Clock, Timers } from '../clock'
import type { Logger } from '../logger'
import type { BotEngineOptions } from '../bot/bot-engine'
import type { Mailer } from '../bot/mailer'
import type { WebhookOptions } from '../webhooks/webhook-service'
import type { AssistantResponderDeps } from '../assistant/assistant-responder'

/** Size and time limits (docs/design.md §4); bytes and milliseconds. */
export interface Limits {
  fileBytes: number
  jsonBytes: number
  downloadTimeoutMs: number
}

export const DEFAULT_LIMITS: Limits = { fileBytes: 64 * 1024 * 1024, jsonBytes: 1024 * 1024, downloadTimeoutMs: 30_000 }

export interface CoreOptions {
  dataDir: string
  /** A PostgreSQL database for what grows, instead of the data dir's SQLite file (`CHATAPP_DATABASE_URL`). */
  databaseUrl?: string
  /**
   * `CHATAPP_MEDIA_DIR`: attachments and downloaded media in `<mediaDir>/attachments` and
   * `<mediaDir>/media`, a folder every worker mounts, instead of the data dir (docs/deploy.md).
   */
  mediaDir?: string
  /** Channel of new instances without an explicit one (`CHATAPP_CHANNEL`). */
  defaultChannel?: ChannelKind
  /** Fixed bearer token (`CHATAPP_API_TOKEN`). */
  apiToken?: string
  logger?: Logger
  /**
   * Told when the database cannot be used any more (a SQLite thread that cannot be started again,
   * docs/storage.md "Threads"): the app then stops cleanly. Logged in any case.
   */
  onDatabaseFailed?: (err: Error) => void
  /** Channel implementations; the sandbox is always there. */
  factories?: Partial<Record<ChannelKind, ChannelFactory>>
  limits?: Partial<Limits>
  /** Take the data-dir lock (default true). */
  lock?: boolean
  /** Reconnect instances that were connected (default true). */
  restoreSessions?: boolean
  bot?: BotEngineOptions
  /** The assistant's observers (the benchmark: each answer's own time and the model's). */
  assistant?: Pick<AssistantResponderDeps, 'onAnswered'>
  /** The clock of every service (tests: a manual one). */
  clock?: Clock
  /** Timers of broadcasts and scheduled messages (tests: the manual clock). */
  timers?: Timers
  /** Random source of the send governor's gaps and spintax in broadcasts (tests: seeded). */
  random?: () => number
  /** Mail transport for notifications (default: SMTP from the app settings). */
  mailer?: Mailer
  /** Private or local addresses, ranges or host names files may be fetched from (`CHATAPP_FETCH_ALLOW`). */
  fetchAllow?: readonly string[]
  /** Webhook tunables and test seams (fetch, clock, random, retry policy). */
  webhooks?: WebhookOptions
  /** scrypt's cost for staff passwords, log2(N) (default 17; tests pass a small one). */
  passwordCostLog2?: number
  /**
   * This process as a worker of the database (docs/design.md §22; used only with `databaseUrl`): its id and URL
   * (`CHATAPP_WORKER_ID`, `CHATAPP_WORKER_URL`; default `<hostname>:<pid>` and none), the most
   * instances it may own (`CHATAPP_WORKER_MAX_INSTANCES`; null: no limit) and the leases' time to live
   * (`CHATAPP_LEASE_TTL_MS`, default {@link DEFAULT_LEASE_TTL_MS}).
   */
  worker?: WorkerOptions
}

/** A worker's identity and lease settings (see {@link CoreOptions.worker}). */
export interface WorkerOptions {
  id?: string
  url?: string
  maxInstances?: number | null
  leaseTtlMs?: number
  /**
   * The leases' clock and timers (tests), real by default: NOT the core's `clock`, which tests move by
   * hours to run schedules; lease times must follow real time, as the other workers' do.
   */
  clock?: Clock
  timers?: Timers
  /**
   * Keep the lease clock in step with the database server's (../services/cluster/database-clock.ts), so
   * every worker compares expiries on one time line. Default: yes, unless `clock` is given (a test's).
   */
  alignClock?: boolean
}

/**
 * Default lease time to live, ms. A killed worker's instances run elsewhere after at most the TTL, one
 * loop period (TTL/3) and a connect: 15 s + 5 s + the connect, within the 30 s.
 */
export const DEFAULT_LEASE_TTL_MS = 15_000
