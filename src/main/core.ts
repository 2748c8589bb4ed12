/**
 * The core: storage, channel sessions, services and the event bus, wired together with no Electron or
 * HTTP import (docs/architecture.md). The desktop app, the headless server and every test start it the
 * same way. It exposes services only: the faces (HTTP, IPC, /rpc) call them through the operation
 * table (src/main/operations), never storage or the session manager.
 */
import { mkdir } from 'node:fs/promises'
import type { Readable } from 'node:stream'
import { systemClock, systemTimers, type Clock } from './clock'
import { CoreEventBus } from './events'
import { silentLogger, type Logger } from './logger'
import { lockDataDir } from './store/data-dir-lock'
import { once } from './once'
import { openStorage, type DataPaths, type Storage } from './store/storage'
import { removeStaleParts } from './store/shared-files'
import type { AccountService } from './services/account-service'
import type { AppSettingsService } from './services/app-settings-service'
import type { AttachmentService } from './services/attachment-service'
import type { InboxService } from './services/inbox/inbox-service'
import type { AssignmentService } from './services/inbox/assignment-service'
import { InstanceHealth } from './services/health/instance-health'
import type { ContactService } from './services/contacts/contact-service'
import type { LabelService } from './services/contacts/label-service'
import type { BroadcastService } from './services/outreach/broadcast-service'
import type { ScheduleService } from './services/outreach/schedule-service'
import type { QuickReplyService } from './services/inbox/quick-reply-service'
import type { HandoffService } from './services/handoff-service'
import type { InboundPipeline } from './services/inbound-pipeline'
import type { InstanceConnection } from './services/instances/instance-connection'
import type { InstanceRegistry } from './services/instances/instance-registry'
import type { InstanceSettingsService } from './services/instances/instance-settings'
import { IntentService } from './services/intent-service'
import type { MessageQueries } from './services/messages/message-queries'
import type { CustomerDataService } from './services/history/customer-data-service'
import type { RetentionService } from './services/history/retention-service'
import type { PhoneHistoryService } from './services/history/phone-history-service'
import { restoreWithReload, type BackupDesk } from './services/backup'
import { BackupUnavailableError, type RestoreResult } from './store/backup'
import type { MessageChangeService } from './services/messages/message-changes'
import type { MessageService } from './services/messages/message-sender'
import type { SandboxService } from './services/sandbox-service'
import type { People } from './services/people'
import type { SessionManager } from './services/instances/session-manager'
import type { WorkerLeases } from './services/cluster/worker-leases'
import type { IdempotencyService } from './services/idempotency-service'
import type { ClusterView } from './services/cluster/cluster-view'
import type { EventChannel } from './store/db/event-channel'
import { SurveyService } from './services/survey-service'
import type { ActivityMonitor } from './services/activity'
import type { WebhookService } from './webhooks/webhook-service'
import type { BotEngine } from './bot/bot-engine'
import type { AssistantService } from './assistant/assistant-service'
import type { AssistantResponder } from './assistant/assistant-responder'
import type { IndexMerger } from './assistant/knowledge/index-merger'
import type { Embedder } from './assistant/knowledge/embedder'
import type { KnowledgeService } from './assistant/knowledge/knowledge-service'
import { DIR_MODE } from './store/config/durable-json-file'
import { secureDataDir } from './store/data-dir-modes'
import { DEFAULT_LIMITS, type CoreOptions, type Limits } from './wiring/options'
import { closeSteps, startSteps, type Step, type Wiring } from './wiring/steps'
import { wireWebhooks } from './wiring/webhooks'
import { wirePeople } from './wiring/people'
import { wireInstances } from './wiring/instances'
import { wireMessages } from './wiring/messages'
import { wireContacts } from './wiring/contacts'
import { wireInbox } from './wiring/inbox'
import { wireAssistant } from './wiring/assistant'
import { wireBot } from './wiring/bot'
import { wireOutreach } from './wiring/outreach'
import { wireHistory } from './wiring/history'
import { wireBackups } from './wiring/backups'
import { wireCluster } from './wiring/cluster'

export { DEFAULT_LEASE_TTL_MS, DEFAULT_LIMITS, type CoreOptions, type Limits, type WorkerOptions } from './wiring/options'

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
  /** The knowledge search index's merge after changes (tests, benchmarks: `idle()`). */
  indexMerger: IndexMerger
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
 * once an hour old (./store/shared-files.ts). The shared media folder (docs/deploy.md "A shared media
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

/**
 * Starts the services on the data dir (already locked); their events go to `faces` too. Each domain's
 * wiring module (./wiring/) makes its services in the order below, then the one list of steps starts
 * them in its order and closes them in the reverse one (./wiring/steps.ts).
 */
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
  // Database mode: an instance's background jobs run on the worker holding its lease (docs/design.md
  // §22); the lease loop is made last, so the services ask through this.
  let workersRef: WorkerLeases | null = null
  const mine = opts.databaseUrl ? (instanceId: string) => workersRef?.holds(instanceId) ?? false : undefined
  const w: Wiring = {
    opts,
    logger,
    clock,
    timers: opts.timers ?? systemTimers,
    events: new CoreEventBus(faces),
    faces,
    store,
    repos: store.repos,
    paths: store.paths,
    limits: { ...DEFAULT_LIMITS, ...opts.limits },
    ...(mine ? { mine } : {})
  }
  const { repos, events } = w
  let webhooks: Awaited<ReturnType<typeof wireWebhooks>>
  try {
    webhooks = await wireWebhooks(w)
  } catch (err) {
    await store.close()
    throw err
  }
  const people = await wirePeople(w)
  const instances = wireInstances(w, { accountId: () => people.account.id, webhooks: webhooks.webhooks })
  const messages = wireMessages(w, instances)
  const contacts = wireContacts(w)
  const inbox = wireInbox(w, { sessions: instances.sessions, handoff: messages.handoff, contacts: contacts.contacts })
  const assistant = wireAssistant(w, { sessions: instances.sessions, messages: messages.messages, handoff: messages.handoff, bot: () => bot.bot })
  const bot = wireBot(w, {
    inbound: instances.inbound,
    messages: messages.messages,
    attachments: messages.attachments,
    handoff: messages.handoff,
    appSettings: people.appSettings,
    contacts: contacts.contacts,
    responder: assistant.responder,
    assignments: inbox.assignments
  })
  const outreach = wireOutreach(w, { sessions: instances.sessions, messages: messages.messages })
  const history = wireHistory(w, { media: messages.media })
  const backups = wireBackups(w, restore)
  const cluster = await wireCluster(w, { sessions: instances.sessions })
  workersRef = cluster.workers
  // Started top to bottom, closed bottom to top. Each close waits for what runs on the parts below
  // it: the sessions close after everything that sends through them or hears them; the webhooks
  // after the sessions (their last state changes are queued); storage last.
  const steps: Step[] = [
    { name: 'storage', close: () => store.close() },
    assistant.endpoint,
    messages.step,
    cluster.relayStep,
    webhooks.step,
    instances.step,
    cluster.leases,
    bot.mail,
    bot.engine,
    assistant.answers,
    contacts.step,
    inbox.step,
    outreach.sends,
    history.step,
    outreach.timers,
    backups.step,
    cluster.claim
  ]
  const core: Core = {
    events,
    logger,
    limits: w.limits,
    clock,
    account: people.account,
    appSettings: people.appSettings,
    instances: instances.instances,
    connection: instances.connection,
    settings: instances.settings,
    intents: new IntentService(repos, events, clock),
    surveys: new SurveyService(repos, events, clock),
    attachments: messages.attachments,
    messages: messages.messages,
    changes: messages.changes,
    handoff: messages.handoff,
    log: messages.log,
    phoneHistory: instances.phoneHistory,
    customers: history.customers,
    retention: history.retention,
    inbox: inbox.inbox,
    assignments: inbox.assignments,
    quickReplies: inbox.quickReplies,
    health: new InstanceHealth({ messages: repos.messages, deliveries: repos.webhookDeliveries, clock }),
    contacts: contacts.contacts,
    labels: contacts.labels,
    broadcasts: outreach.broadcasts,
    schedules: outreach.schedules,
    bot: bot.bot,
    assistant: assistant.assistant,
    knowledge: assistant.knowledge,
    sandbox: messages.sandbox,
    webhooks: webhooks.webhooks,
    backups: backups.backups,
    people: people.people,
    sessions: instances.sessions,
    cluster: cluster.cluster,
    idempotency: cluster.idempotency,
    restore,
    activity: messages.activity,
    isRestoring: () => false,
    setOwnApiPort: (port) => {
      webhooks.webhooks.setOwnApiPort(port)
      assistant.guard.setOwnApiPort(port)
    },
    close: once(() => closeSteps(steps))
  }
  await startSteps(steps)
  return {
    core,
    internals: {
      storage: store,
      sessions: instances.sessions,
      inbound: instances.inbound,
      workers: cluster.workers,
      relay: cluster.relay,
      responder: assistant.responder,
      embedder: assistant.embedder,
      indexMerger: assistant.indexMerger
    }
  }
}
