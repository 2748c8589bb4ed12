/**
 * The core: storage, channel sessions, services and the event bus, wired together with no Electron or
 * HTTP import (docs/architecture.md). The desktop app, the headless server and every test start it the
 * same way. It exposes services only: the faces (HTTP, IPC, /rpc) call them through the operation
 * table (src/main/operations), never storage or the session manager.
 */
import { mkdir } from 'node:fs/promises'
import { randomUUID } from 'node:crypto'
import { hostname } from 'node:os'
import type { Readable } from 'node:stream'
import type { ChannelFactory, ChannelKind } from './channel/types'
import { createSandboxSession } from './channel/sandbox-channel'
import { systemClock, systemTimers, type Clock, type Timers } from './clock'
import { CoreEventBus } from './events'
import { silentLogger, type Logger } from './logger'
import { lockDataDir } from './store/data-dir-lock'
import { once } from './once'
import { openStorage, type DataPaths, type Storage } from './store/storage'
import { removeStaleParts } from './store/shared-files'
import { AccountService } from './services/account-service'
import { LoginCodeFile } from './store/login-code-file'
import { AppSettingsService } from './services/app-settings-service'
import { AttachmentService } from './services/attachment-service'
import { InboxService } from './services/inbox/inbox-service'
import { AssignmentService } from './services/inbox/assignment-service'
import { InstanceHealth } from './services/health/instance-health'
import { ContactService } from './services/contacts/contact-service'
import { LabelService } from './services/contacts/label-service'
import { BroadcastService } from './services/outreach/broadcast-service'
import { OutreachGovernor } from './services/outreach/outreach-governor'
import { ScheduleService } from './services/outreach/schedule-service'
import { QuickReplyService } from './services/inbox/quick-reply-service'
import { HandoffService } from './services/handoff-service'
import { InboundPipeline } from './services/inbound-pipeline'
import { InstanceConnection } from './services/instance-connection'
import { InstanceRegistry } from './services/instance-registry'
import { InstanceSettingsService } from './services/instance-settings'
import { IntentService } from './services/intent-service'
import { MessageStatusService } from './services/message-status'
import { MessageQueries } from './services/messages/message-queries'
import { MediaFiles } from './services/messages/media-files'
import { CustomerDataService } from './services/history/customer-data-service'
import { RetentionService } from './services/history/retention-service'
import { PhoneHistoryService } from './services/history/phone-history-service'
import { BackupDesk, BackupService, restoreWithReload } from './services/backup'
import { BackupUnavailableError, type RestoreResult } from './store/backup'
import { MessageChangeService } from './services/messages/message-changes'
import { MessageService } from './services/messages/message-sender'
import { Outbound } from './services/messages/outbound'
import { RemoteFiles } from './services/messages/remote-file'
import { SandboxService } from './services/sandbox-service'
import { People } from './services/people'
import { SessionManager } from './services/session-manager'
import { WorkerLeases } from './services/cluster/worker-leases'
import { IdempotencyService } from './services/idempotency-service'
import { ClusterView } from './services/cluster/cluster-view'
import { DatabaseAlignedClock } from './services/cluster/database-clock'
import { receiveEvent, sendEvents } from './services/cluster/event-relay'
import { EventChannel } from './store/db/event-channel'
import { SurveyService } from './services/survey-service'
import { ActivityMonitor } from './services/activity'
import { WebhookService, type WebhookOptions } from './webhooks/webhook-service'
import { BotEngine, type BotEngineOptions } from './bot/bot-engine'
import { createSmtpMailer, type Mailer } from './bot/mailer'
import { DIR_MODE } from './store/config/durable-json-file'
import { AssistantService } from './assistant/assistant-service'
import { AssistantResponder, type AssistantResponderDeps } from './assistant/assistant-responder'
import { Circuits } from './assistant/circuits'
import { EndpointGuard } from './assistant/endpoint-guard'
import { Embedder } from './assistant/knowledge/embedder'
import { KnowledgeService } from './assistant/knowledge/knowledge-service'
import { Retriever } from './assistant/knowledge/retriever'
import { ModelClient } from './assistant/model-client'
import { ModelTurn } from './assistant/model-turn'
import { assistantSettingsOf } from './assistant/assistant-settings'
import { usageDay } from './assistant/shop-facts'
import { secureDataDir } from './store/data-dir-modes'

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
   * This process as a worker of the database (issue 26; used only with `databaseUrl`): its id and URL
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
   * Keep the lease clock in step with the database server's (services/cluster/database-clock.ts), so
   * every worker compares expiries on one time line. Default: yes, unless `clock` is given (a test's).
   */
  alignClock?: boolean
}

/**
 * Default lease time to live, ms. A killed worker's instances run elsewhere after at most the TTL, one
 * loop period (TTL/3) and a connect: 15 s + 5 s + the connect, within the 30 s.
 */
export const DEFAULT_LEASE_TTL_MS = 15_000

/** What the channel sessions can tell about an instance (diagnostics, tests); nothing here changes them. */
export type SessionsView = Pick<SessionManager, 'get' | 'latestQr' | 'stateReason' | 'hasCredentials' | 'limits' | 'restored'>

export interface Core {
  events: CoreEventBus
  logger: Logger
  limits: Limits
  clock: Clock
  account: AccountService
  appSettings: AppSettingsService
  /** The instances: create, list, credentials, delete. */
  instances: InstanceRegistry
  /** An instance's connection: init, QR, pairing code, health, logout. */
  connection: InstanceConnection
  /** An instance's bot settings. */
  settings: InstanceSettingsService
  intents: IntentService
  surveys: SurveyService
  attachments: AttachmentService
  /** Every send kind, through the single outbound path. */
  messages: MessageService
  /** Edits, deletions, reactions and poll votes on logged messages; the shop's reactions. */
  changes: MessageChangeService
  /** Hand-off: chats where the bot is paused for a person. */
  handoff: HandoffService
  /** The message log: pages, search, inbound media. */
  log: MessageQueries
  /** Older messages of a chat from the phone, and the history the phone sends, stored once. */
  phoneHistory: PhoneHistoryService
  /** One customer's data: export and erasure. */
  customers: CustomerDataService
  /** How long each instance keeps its history (the daily run). */
  retention: RetentionService
  /** The desk's inbox: conversations of every instance, read marks and receipts, resolve. */
  inbox: InboxService
  /** Who answers a conversation: assignment by hand or round-robin, and its timeline. */
  assignments: AssignmentService
  /** The desk's saved snippets. */
  quickReplies: QuickReplyService
  /** Activity counts per instance. */
  health: InstanceHealth
  /** Contacts and contact groups. */
  contacts: ContactService
  /** Labels (name, colour) of contacts and conversations. */
  labels: LabelService
  /** Broadcasts, behind the send governor. */
  broadcasts: BroadcastService
  /** Scheduled messages (each run starts a broadcast). */
  schedules: ScheduleService
  bot: BotEngine
  /** The assistant's settings, dry run and usage (docs/assistant.md). */
  assistant: AssistantService
  /** The shop's knowledge the assistant answers from. */
  knowledge: KnowledgeService
  sandbox: SandboxService
  /** Webhook deliveries (docs/design.md §11): outbox, dispatcher, list and retry. */
  webhooks: WebhookService
  /** Backups: the daily ones, on demand, downloads, restores (docs/storage.md "Backup and restore"). */
  backups: BackupDesk
  /** The people at the desk: staff, their sessions, API keys, the audit log, and who a request is. */
  people: People
  sessions: SessionsView
  /**
   * Restores a backup archive (a file, or a stream such as a request body) into the running app: it
   * is verified while the app serves, then the services stop, the data is swapped and they start on
   * the restored data. Throws BackupArchiveError (nothing changed), RestoreBusyError, RestoreStartError.
   */
  restore(archive: string | Readable): Promise<RestoreResult>
  /** True while a restore swaps the data (the faces answer 503 meanwhile), not while it checks the archive. */
  isRestoring(): boolean
  /** Tells the webhooks the app's own API port (never a webhook target); kept across a restore. */
  setOwnApiPort(port: number): void
  /** What is running now (broadcasts, surveys, sends in flight), for the desktop updater. */
  activity: Pick<ActivityMonitor, 'snapshot' | 'sendsIdle'>
  /** The workers sharing the database and the owner of each instance (`GET /cluster`). */
  cluster: ClusterView
  /** `Idempotency-Key` on sends: the first answers, for retries (the HTTP face stores and replays them). */
  idempotency: IdempotencyService
  /** Stops sessions and waits for every pending write; releases the data-dir lock. Once: a second call waits for the first. */
  close(): Promise<void>
}

/** The parts tests reach into (documented test seam; faces never use it). */
export interface CoreInternals {
  storage: Storage
  sessions: SessionManager
  inbound: InboundPipeline
  /** Database mode: the lease loop (tests: `halt()` stands for a killed worker). */
  workers: WorkerLeases | null
  /** Database mode on PostgreSQL: the events sent to and heard from the other workers. */
  relay: EventChannel | null
  /** The assistant's answers to customers (tests: `idle()` waits for those under way). */
  responder: AssistantResponder
  /** The knowledge's background embeddings (tests: `idle()`). */
  embedder: Embedder
}

const internals = new WeakMap<Core, () => CoreInternals>()

/** Test seam: storage, the session manager and the inbound pipeline of a core (the running ones). */
export function internalsOf(core: Core): CoreInternals {
  const i = internals.get(core)
  if (!i) throw new Error('not a core made by startCore')
  return i()
}

/**
 * Opens the data dir and starts the core. Throws DataDirLockedError when another process owns the
 * dir, DataFileError when a data file is unreadable, CorruptDatabaseError for a damaged database
 * (nothing is overwritten).
 *
 * The core answered is the app's for as long as it runs, across a restore: `restore()` stops the
 * services, swaps the data dir's contents and starts them again on the restored data while the data-dir
 * lock stays held, and every property of the core (each service) is the running one's at the time it is
 * read. The faces' event bus (`events`) stays the same, so their subscriptions outlive a restore.
 */
export async function startCore(opts: CoreOptions): Promise<Core> {
  const logger = opts.logger ?? silentLogger()
  await mkdir(opts.dataDir, { recursive: true, mode: DIR_MODE })
  const release =
    opts.lock === false ? async () => {} : await lockDataDir(opts.dataDir, (err) => logger.error({ err }, 'data dir lock compromised'))
  const faces = new CoreEventBus()
  let running: Running
  try {
    running = await startServices(opts, logger, faces, (archive) => restore(archive))
  } catch (err) {
    await release()
    throw err
  }
  let restoring = false
  let ownApiPort: number | null = null
  const restore = async (archive: string | Readable): Promise<RestoreResult> => {
    // A backup holds a SQLite file: restoring it beside a PostgreSQL database would bring back the
    // configuration without the data it belongs to (docs/storage.md, "PostgreSQL": not yet).
    if (opts.databaseUrl) throw new BackupUnavailableError('Restoring a backup is not available when the database is PostgreSQL (CHATAPP_DATABASE_URL): restore the database with pg_restore (docs/deploy.md "Backups"). Nothing was changed.')
    // The restore's journal swaps folders of the data dir only; the attachments would stay the current ones.
    if (opts.mediaDir) throw new BackupUnavailableError('Restoring a backup is not available while the attachments are in CHATAPP_MEDIA_DIR: restore without it, then move the data dir\'s attachments/ and media/ into that folder (docs/deploy.md). Nothing was changed.')
    try {
      return await restoreWithReload(archive, {
        dataDir: opts.dataDir,
        logger,
        clock: opts.clock,
        // The archive is verified while the app serves; only the swap (stop, move, start) answers 503.
        stop: () => {
          restoring = true
          return running.core.close()
        },
        start: async () => {
          running = await startServices(opts, logger, faces, (archive) => restore(archive))
          if (ownApiPort !== null) running.core.setOwnApiPort(ownApiPort)
        }
      })
    } finally {
      restoring = false
    }
  }
  const own: Partial<Core> = {
    events: faces,
    restore,
    isRestoring: () => restoring,
    setOwnApiPort(port) {
      ownApiPort = port
      running.core.setOwnApiPort(port)
    },
    close: once(async () => {
      await running.core.close()
      await release()
    })
  }
  // Every other property is the running services' (a Proxy: a restore replaces them all at once).
  const core = new Proxy(own as Core, {
    get: (_target, key) => (key in own ? own[key as keyof Core] : running.core[key as keyof Core])
  })
  internals.set(core, () => running.internals)
  return core
}

interface Running {
  core: Core
  internals: CoreInternals
}

/**
 * The attachments and media folders at start: the temporary files of writes a crash cut short removed
 * once an hour old (../store/shared-files.ts). The shared media folder (docs/deploy.md "A shared media
 * folder"): its folders and files made 0700/0600 like the data dir's (a failure, e.g. a mount that
 * refuses chmod, is logged, not fatal); and in database mode without one, a warning: the attachments
 * and media are this worker's, so an instance taken over by another worker cannot send or serve them
 * there. Not refused: one worker on PostgreSQL (or several that never move an instance with
 * attachments) needs no shared folder.
 */
async function checkMediaDir(opts: CoreOptions, paths: DataPaths, logger: Logger): Promise<void> {
  // File times are real time whatever the core's clock (tests move that one by hours).
  const stale = (await removeStaleParts(paths.attachments, Date.now())) + (await removeStaleParts(paths.media, Date.now()))
  if (stale > 0) logger.info({ removed: stale }, 'removed temporary files an interrupted write left in attachments/ and media/')
  if (opts.mediaDir) {
    for (const dir of [paths.attachments, paths.media]) {
      try {
        const changed = await secureDataDir(dir)
        if (changed > 0) logger.warn({ dir, changed }, 'media dir: folders set to 0700 and files to 0600 (they were readable by others)')
      } catch (err) {
        logger.warn({ err, dir }, 'media dir: could not make its folders 0700 and files 0600')
      }
    }
  } else if (opts.databaseUrl) {
    logger.warn(
      { attachments: paths.attachments, media: paths.media },
      'CHATAPP_MEDIA_DIR is not set: attachments and downloaded media stay in this worker\'s data dir, and an instance another worker takes over cannot send or serve them there. Set CHATAPP_MEDIA_DIR to a folder every worker mounts (docs/deploy.md).'
    )
  }
}

/** Starts the services on the data dir (already locked); their events go to `faces` too. */
async function startServices(opts: CoreOptions, logger: Logger, faces: CoreEventBus, restore: (archive: string | Readable) => Promise<RestoreResult>): Promise<Running> {
  const clock = opts.clock ?? systemClock
  const opened = await secureDataDir(opts.dataDir)
  if (opened > 0) logger.warn({ dataDir: opts.dataDir, changed: opened }, 'data dir: folders set to 0700 and files to 0600 (they were readable by others)')
  const store = await openStorage(opts.dataDir, {
    logger,
    ...(opts.databaseUrl ? { databaseUrl: opts.databaseUrl } : {}),
    ...(opts.mediaDir ? { mediaDir: opts.mediaDir } : {}),
    ...(opts.onDatabaseFailed ? { onDatabaseFailed: opts.onDatabaseFailed } : {})
  })
  await checkMediaDir(opts, store.paths, logger)
  const { repos, paths } = store
  const limits: Limits = { ...DEFAULT_LIMITS, ...opts.limits }
  const events = new CoreEventBus(faces)
  let webhooks: WebhookService
  // Database mode: an instance's background jobs run on the worker holding its lease (docs/design.md
  // §22); the lease loop is made further down, so the services ask through this.
  let workersRef: WorkerLeases | null = null
  const mine = opts.databaseUrl ? (instanceId: string) => workersRef?.holds(instanceId) ?? false : undefined
  try {
    webhooks = await WebhookService.open({ instances: repos.instances, deliveries: repos.webhookDeliveries, events, logger, ...opts.webhooks, ...(mine ? { mine } : {}) })
  } catch (err) {
    await store.close()
    throw err
  }
  const account = new AccountService(repos.account, clock, opts.apiToken, events, LoginCodeFile.in(opts.dataDir))
  await account.ensure()
  const appSettings = new AppSettingsService(repos.appSettings)
  const inbound = new InboundPipeline({ repos, events, logger })
  const statuses = new MessageStatusService({ messages: repos.messages, events, logger })
  // The service asks the sessions for a history request; the sessions hand it what the phone sends.
  const phoneHistory: PhoneHistoryService = new PhoneHistoryService({ repos, sessions: { get: (id: string) => sessions.get(id) }, events, logger })
  const sessions: SessionManager = new SessionManager({
    instances: repos.instances,
    channelStore: { auth: repos.channelAuth, messages: repos.waMessages, waWebVersion: repos.appSettings },
    clock,
    events,
    logger,
    factories: { sandbox: createSandboxSession, ...opts.factories },
    onInbound: (id, msg) => inbound.process(id, msg),
    onMessageStatus: (id, update) => statuses.report(id, update),
    onChatIdentity: (id, identity) => inbound.identity(id, identity),
    onMessageChange: (id, change) => inbound.change(id, change),
    onHistory: (id, batch) => phoneHistory.store(id, batch)
  })
  const attachments = new AttachmentService({ repos, events, clock, dir: paths.attachments, tmpDir: paths.tmp, maxBytes: limits.fileBytes })
  const handoff = new HandoffService({ repos, events, clock })
  const activity = new ActivityMonitor({ repos, clock, surveyIdleMs: opts.bot?.surveyIdleMs })
  const outbound = new Outbound({ repos, sessions, events, clock, statuses, onHumanReply: (id, chatId, sentBy) => handoff.humanReplied(id, chatId, 'desk', undefined, sentBy), inFlight: activity })
  const remoteFiles = new RemoteFiles({ tmpDir: paths.tmp, maxBytes: limits.fileBytes, timeoutMs: limits.downloadTimeoutMs, allow: opts.fetchAllow })
  const messages = new MessageService(outbound, attachments, remoteFiles, (instanceId, id) => repos.contacts.owned(instanceId, id))
  const mailer = opts.mailer ?? createSmtpMailer(() => appSettings.smtpSecret())
  const labels = new LabelService({ repos, events, clock })
  const contacts = new ContactService({ repos, events, clock, labels })
  const stopContacts = contacts.start()
  const assignments = new AssignmentService({ repos, events, clock, logger })
  // The assistant (docs/assistant.md): its calls go through the endpoint guard's dispatcher.
  const guard = new EndpointGuard()
  const modelClient = new ModelClient(() => guard.dispatcher())
  const circuits = new Circuits()
  const embedder: Embedder = new Embedder({
    knowledge: repos.knowledge,
    assistant: repos.assistant,
    model: modelClient,
    logger,
    config: async (id) => {
      const stored = await repos.assistant.settings(id)
      if (!stored || !repos.instances.find(id)) return null
      const settings = assistantSettingsOf(stored.settings)
      return settings.base_url ? { settings, endpoint: { baseUrl: settings.base_url, apiKey: await repos.assistant.key(id) } } : null
    },
    day: (id) => {
      const inst = repos.instances.find(id)
      return inst ? usageDay(inst, clock.now()) : new Date(clock.now()).toISOString().slice(0, 10)
    }
  })
  const retriever = new Retriever({ knowledge: repos.knowledge, model: modelClient, logger, onMissingEmbeddings: (id) => embedder.kick(id) })
  const turn = new ModelTurn({ assistant: repos.assistant, retriever, model: modelClient, clock })
  const assistant = new AssistantService({ repos, guard, turn, embedder, circuits, clock, logger, random: opts.random })
  const knowledge = new KnowledgeService({ knowledge: repos.knowledge, clock, onChange: (id) => embedder.kick(id) })
  // The responder's ports reach the bot engine made just below (called only once messages flow).
  const responder = new AssistantResponder({
    repos,
    service: assistant,
    turn,
    model: modelClient,
    circuits,
    clock,
    logger,
    random: opts.random,
    ...opts.assistant,
    ports: {
      send: async (inst, chatId, text) => void (await messages.send(inst, chatId, { kind: 'text', text }, { source: 'bot' })),
      typing: async (id, chatId, on) => sessions.get(id)?.setTyping?.(chatId, on),
      media: async (id, messageId) => (await sessions.get(id)?.downloadMedia?.(messageId)) ?? null,
      handOver: (inst, ctx) => bot.handOver(inst, ctx, 'assistant'),
      sendAway: (inst, msg) => bot.sendAway(inst, msg),
      paused: async (id, chatId) => (await handoff.activePause(id, chatId)) !== null,
      recordActivity: (entry) => bot.recordActivity(entry)
    }
  })
  const bot: BotEngine = new BotEngine({
    repos,
    events,
    logger,
    messages,
    attachments,
    mailer,
    clock,
    handoff,
    contacts,
    assistant: responder,
    assign: (id, chatId, by) => assignments.handOver(id, chatId, by),
    options: opts.bot,
    ...(mine ? { mine } : {})
  })
  const stopAssistantEvents = events.on('changed', (e) => {
    if (e.what !== 'deleted') return
    retriever.forget(e.instanceId)
    circuits.reset(e.instanceId)
  })
  inbound.use((instanceId, message) => bot.decide(instanceId, message))
  const media = new MediaFiles(paths.media)
  const changes = new MessageChangeService({ messages: repos.messages, media, outbound, events, clock, logger })
  inbound.useChanges((instanceId, change) => changes.apply(instanceId, change))
  inbound.useIdentity((instanceId, identity) => bot.rekeyContact(instanceId, identity))
  const instances = new InstanceRegistry({
    repos,
    sessions,
    events,
    clock,
    defaultChannel: opts.defaultChannel ?? 'baileys',
    attachmentsDir: paths.attachments,
    mediaDir: paths.media,
    accountId: () => account.id
  })
  const inbox = new InboxService({ repos, handoff, sessions, contacts, events, clock, logger })
  const timers = opts.timers ?? systemTimers
  const governor = new OutreachGovernor({ repos, clock, random: opts.random })
  const broadcasts = new BroadcastService({ repos, messages, sessions, governor, events, clock, timers, logger, random: opts.random, ...(mine ? { mine } : {}) })
  const schedules = new ScheduleService({ repos, broadcasts, events, clock, timers, logger, ...(mine ? { mine } : {}) })
  const stopInbox = inbox.start()
  const stopAssignments = assignments.start()
  const settings = new InstanceSettingsService(repos.instances, events, clock, (url, field) => webhooks.checkTarget(url, field))
  const retention = new RetentionService({ repos, media, clock, timers, logger })
  const customers = new CustomerDataService({ repos, media, events, clock, logger })
  const backups = new BackupService({ storage: store, settings: repos.appSettings, clock, timers, logger })
  const people = new People({ repos, account, clock, events, scryptLog2n: opts.passwordCostLog2 })
  const leaseTtlMs = opts.worker?.leaseTtlMs ?? DEFAULT_LEASE_TTL_MS
  // Lease expiries are compared across workers: each worker's lease clock follows the database's.
  const aligned =
    opts.databaseUrl && (opts.worker?.alignClock ?? !opts.worker?.clock) ? new DatabaseAlignedClock(opts.worker?.clock ?? systemClock, () => repos.leases.databaseNow()) : null
  if (aligned) {
    const offset = await aligned.sync()
    if (Math.abs(offset) > 1000) logger.warn({ offsetMs: Math.round(offset) }, 'this machine\'s clock differs from the database server\'s by more than a second; lease times follow the database\'s (keep the clocks in step with NTP)')
  }
  const leaseClock = aligned ?? opts.worker?.clock ?? systemClock
  const worker = {
    id: opts.worker?.id || `${hostname()}:${process.pid}`,
    url: opts.worker?.url ?? '',
    startedAt: leaseClock.now(),
    maxInstances: opts.worker?.maxInstances ?? null
  }
  // Database mode: several workers share the instances; each runs those it holds a lease on.
  const workers = opts.databaseUrl
    ? new WorkerLeases({
        leases: repos.leases,
        sessions,
        worker,
        ttlMs: leaseTtlMs,
        wanted: () => repos.instances.all().filter((i) => i.settings.status === 'CONNECTED' || i.settings.status === 'CONNECTING').map((i) => i._id),
        pairing: () => repos.instances.all().filter((i) => i.settings.status === 'QR').map((i) => i._id),
        clock: leaseClock,
        ...(aligned ? { syncClock: () => aligned.sync() } : {}),
        timers: opts.worker?.timers ?? systemTimers,
        logger: logger.child({ worker: worker.id }),
        onLease: (instanceId, held) => events.emit('lease', { instanceId, held })
      })
    : null
  workersRef = workers
  if (workers) sessions.useLeases(workers)
  // Database mode on PostgreSQL: this worker's events reach the UIs connected to the others, and
  // theirs reach this one's, on the faces' bus only (docs/design.md §22 "Events across workers").
  const relayLogger = logger.child({ worker: worker.id })
  const relay = workers
    ? await EventChannel.open({
        database: store.database,
        worker: worker.id,
        config: store.config,
        logger: relayLogger,
        onEvent: (type, payload, from) => receiveEvent(faces, type, payload, from, relayLogger),
        onResync: (reason) => faces.emit('resync', { reason })
      })
    : null
  const stopRelay = relay ? sendEvents(events, (type, payload) => relay.publish(type, payload)) : () => {}
  // A request made with a key notes who took it, so a retry can tell a dead attempt from a running one:
  // the lease's fence in database mode, else this process's run.
  const runId = `run:${randomUUID()}`
  const idempotency = new IdempotencyService({
    repo: repos.idempotency,
    clock,
    taker: (instanceId) => workers?.fenceOf(instanceId) ?? { worker: workers ? worker.id : runId, token: null },
    alive: async (instanceId, taker) => {
      if (!workers || taker.token === null) return taker.worker === (workers ? worker.id : runId)
      return workers.holdsFence(instanceId, { worker: taker.worker, token: taker.token })
    }
  })
  const cluster = new ClusterView({
    instances: repos.instances,
    clock: leaseClock,
    worker,
    ttlMs: leaseTtlMs,
    ...(workers ? { leases: repos.leases } : {}),
    running: (id) => sessions.has(id),
    takingOverHere: (id) => sessions.takingOver(id),
    config: store.config
  })
  const core: Core = {
    events,
    logger,
    limits,
    clock,
    account,
    appSettings,
    instances,
    connection: new InstanceConnection(instances, settings, sessions),
    settings,
    intents: new IntentService(repos, events, clock),
    surveys: new SurveyService(repos, events, clock),
    attachments,
    messages,
    changes,
    handoff,
    log: new MessageQueries(repos.messages, sessions, media),
    phoneHistory,
    customers,
    retention,
    inbox,
    assignments,
    quickReplies: new QuickReplyService({ repos, events, clock }),
    health: new InstanceHealth({ messages: repos.messages, webhooks, clock }),
    contacts,
    labels,
    broadcasts,
    schedules,
    bot,
    assistant,
    knowledge,
    sandbox: new SandboxService({ log: repos.messages, events, sessions, attachments }),
    webhooks,
    backups: new BackupDesk({ backups, settings: repos.appSettings, restore, backupsDir: paths.backups, tmpDir: paths.tmp }),
    people,
    sessions,
    cluster,
    idempotency,
    restore,
    activity,
    isRestoring: () => false,
    setOwnApiPort: (port) => {
      webhooks.setOwnApiPort(port)
      guard.setOwnApiPort(port)
    },
    close: once(async () => {
      await backups.close()
      stopSchedules()
      stopBroadcasts()
      stopRetention()
      await retention.idle()
      await customers.close()
      await broadcasts.idle()
      stopInbox()
      stopAssignments()
      stopContacts()
      stopAssistantEvents()
      // The answers under way go out (or fall back) while the sessions are still up.
      await responder.close()
      await embedder.close()
      bot.close()
      mailer.close()
      // Database mode: sockets stop, then the leases go at once, so other workers claim right away.
      await workers?.stop()
      await sessions.closeAll()
      // After the sessions, so their last state changes are queued; before storage, which it reads.
      await webhooks.close()
      // After the sessions too, so their last events reach the other workers.
      stopRelay()
      await relay?.close()
      await remoteFiles.close()
      await guard.close()
      await store.close()
    })
  }
  // Before the restore, so the reconnects' state changes reach onConnection subscribers.
  await webhooks.start()
  // Before the restore, so a resumed broadcast hears its instance reach CONNECTED.
  const stopBroadcasts = await broadcasts.start()
  const stopSchedules = await schedules.start()
  const stopRetention = retention.start()
  // Erasures a crash cut short are finished (their customers are hidden meanwhile).
  customers.resumeErasures()
  await backups.start()
  if (opts.restoreSessions !== false) {
    await sessions.restore()
    // The lease loop's first round claims this worker's share of the instances saved as connected.
    if (workers) await workers.start()
  }
  return { core, internals: { storage: store, sessions, inbound, workers, relay, responder, embedder } }
}
