/**
 * The core: storage, channel sessions, services and the event bus, wired together with no Electron or
 * HTTP import (docs/architecture.md). The desktop app, the headless server and every test start it the
 * same way. It exposes services only: the faces (HTTP, IPC, /rpc) call them through the operation
 * table (src/main/operations), never storage or the session manager.
 */
import { mkdir } from 'node:fs/promises'
import type { ChannelFactory, ChannelKind } from './channel/types'
import { createSandboxSession } from './channel/sandbox-channel'
import { systemClock, systemTimers, type Clock, type Timers } from './clock'
import { CoreEventBus } from './events'
import { silentLogger, type Logger } from './logger'
import { lockDataDir } from './store/data-dir-lock'
import { openStorage, type Storage } from './store/storage'
import { AccountService } from './services/account-service'
import { AppSettingsService } from './services/app-settings-service'
import { AttachmentService } from './services/attachment-service'
import { InboxService } from './services/inbox/inbox-service'
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
import { MessageService } from './services/messages/message-sender'
import { Outbound } from './services/messages/outbound'
import { RemoteFiles } from './services/messages/remote-file'
import { SandboxService } from './services/sandbox-service'
import { SessionManager } from './services/session-manager'
import { SurveyService } from './services/survey-service'
import { ActivityMonitor } from './services/activity'
import { WebhookService, type WebhookOptions } from './webhooks/webhook-service'
import { BotEngine, type BotEngineOptions } from './bot/bot-engine'
import { createSmtpMailer, type Mailer } from './bot/mailer'
import { DIR_MODE } from './store/durable-file'
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
  /** Channel of new instances without an explicit one (`CHATAPP_CHANNEL`). */
  defaultChannel?: ChannelKind
  /** Fixed bearer token (`CHATAPP_API_TOKEN`). */
  apiToken?: string
  logger?: Logger
  /** Channel implementations; the sandbox is always there. */
  factories?: Partial<Record<ChannelKind, ChannelFactory>>
  limits?: Partial<Limits>
  messageLogLimit?: number
  /** Take the data-dir lock (default true). */
  lock?: boolean
  /** Reconnect instances that were connected (default true). */
  restoreSessions?: boolean
  bot?: BotEngineOptions
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
}

/** What the channel sessions can tell about an instance (diagnostics, tests); nothing here changes them. */
export type SessionsView = Pick<SessionManager, 'get' | 'latestQr' | 'stateReason' | 'authDir' | 'limits' | 'restored'>

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
  /** Hand-off: chats where the bot is paused for a person. */
  handoff: HandoffService
  /** The message log: entries, inbound media. */
  log: MessageQueries
  /** The desk's inbox: conversations of every instance, read marks and receipts, resolve. */
  inbox: InboxService
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
  sandbox: SandboxService
  /** Webhook deliveries (docs/design.md §11): outbox, dispatcher, list and retry. */
  webhooks: WebhookService
  sessions: SessionsView
  /** What is running now (broadcasts, surveys, sends in flight), for the desktop updater. */
  activity: Pick<ActivityMonitor, 'snapshot' | 'sendsIdle'>
  /** Stops sessions and waits for every pending write; releases the data-dir lock. */
  close(): Promise<void>
}

/** The parts tests reach into (documented test seam; faces never use it). */
export interface CoreInternals {
  storage: Storage
  sessions: SessionManager
  inbound: InboundPipeline
}

const internals = new WeakMap<Core, CoreInternals>()

/** Test seam: storage, the session manager and the inbound pipeline of a core. */
export function internalsOf(core: Core): CoreInternals {
  const i = internals.get(core)
  if (!i) throw new Error('not a core made by startCore')
  return i
}

/**
 * Opens the data dir and starts the core. Throws DataDirLockedError when another process owns the
 * dir and DataFileError when a data file is unreadable (nothing is overwritten).
 */
export async function startCore(opts: CoreOptions): Promise<Core> {
  const logger = opts.logger ?? silentLogger()
  const clock = opts.clock ?? systemClock
  await mkdir(opts.dataDir, { recursive: true, mode: DIR_MODE })
  const release =
    opts.lock === false ? async () => {} : await lockDataDir(opts.dataDir, (err) => logger.error({ err }, 'data dir lock compromised'))
  let store: Storage
  try {
    const opened = await secureDataDir(opts.dataDir)
    if (opened > 0) logger.warn({ dataDir: opts.dataDir, changed: opened }, 'data dir: folders set to 0700 and files to 0600 (they were readable by others)')
    store = await openStorage(opts.dataDir, {
      messageLogLimit: opts.messageLogLimit,
      reportBadLines: (instanceId, lines, file) => logger.warn({ instanceId, lines, file }, 'message log lines could not be read: skipped and kept aside')
    })
  } catch (err) {
    await release()
    throw err
  }
  const { repos, paths } = store
  const limits: Limits = { ...DEFAULT_LIMITS, ...opts.limits }
  const events = new CoreEventBus()
  let webhooks: WebhookService
  try {
    webhooks = await WebhookService.open({ instances: repos.instances, outboxFile: paths.webhookOutbox, events, logger, ...opts.webhooks })
  } catch (err) {
    await store.close()
    await release()
    throw err
  }
  const account = new AccountService(repos.account, clock, opts.apiToken)
  await account.ensure()
  const appSettings = new AppSettingsService(repos.appSettings)
  const inbound = new InboundPipeline({ repos, events, logger })
  const statuses = new MessageStatusService({ messages: repos.messages, events, logger })
  const sessions = new SessionManager({
    instances: repos.instances,
    sessionsDir: paths.sessions,
    clock,
    events,
    logger,
    factories: { sandbox: createSandboxSession, ...opts.factories },
    onInbound: (id, msg) => inbound.process(id, msg),
    onMessageStatus: (id, update) => statuses.report(id, update),
    onChatIdentity: (id, identity) => inbound.identity(id, identity)
  })
  const attachments = new AttachmentService({ repos, events, clock, dir: paths.attachments, tmpDir: paths.tmp, maxBytes: limits.fileBytes })
  const handoff = new HandoffService({ repos, events, clock })
  const activity = new ActivityMonitor({ repos, clock, surveyIdleMs: opts.bot?.surveyIdleMs })
  const outbound = new Outbound({ repos, sessions, events, clock, statuses, onHumanReply: (id, chatId) => handoff.humanReplied(id, chatId, 'desk'), inFlight: activity })
  const remoteFiles = new RemoteFiles({ tmpDir: paths.tmp, maxBytes: limits.fileBytes, timeoutMs: limits.downloadTimeoutMs, allow: opts.fetchAllow })
  const messages = new MessageService(outbound, attachments, remoteFiles, (instanceId, id) => repos.contacts.owned(instanceId, id))
  const mailer = opts.mailer ?? createSmtpMailer(() => appSettings.smtpSecret())
  const labels = new LabelService({ repos, events, clock })
  const contacts = new ContactService({ repos, events, clock, labels })
  const stopContacts = contacts.start()
  const bot = new BotEngine({ repos, events, logger, messages, attachments, mailer, clock, handoff, contacts, options: opts.bot })
  inbound.use((instanceId, message) => bot.decide(instanceId, message))
  inbound.useIdentity((instanceId, identity) => bot.rekeyContact(instanceId, identity))
  const instances = new InstanceRegistry({
    repos,
    sessions,
    events,
    clock,
    defaultChannel: opts.defaultChannel ?? 'baileys',
    attachmentsDir: paths.attachments,
    accountId: () => account.id
  })
  const inbox = new InboxService({ repos, handoff, sessions, contacts, events, clock, logger })
  const timers = opts.timers ?? systemTimers
  const governor = new OutreachGovernor({ repos, clock, random: opts.random })
  const broadcasts = new BroadcastService({ repos, messages, sessions, governor, events, clock, timers, logger, random: opts.random })
  const schedules = new ScheduleService({ repos, broadcasts, events, clock, timers, logger })
  const stopInbox = inbox.start()
  const settings = new InstanceSettingsService(repos.instances, events, clock, (url, field) => webhooks.checkTarget(url, field))
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
    handoff,
    log: new MessageQueries(repos.messages, sessions),
    inbox,
    quickReplies: new QuickReplyService({ repos, events, clock }),
    health: new InstanceHealth({ messages: repos.messages, webhooks, clock }),
    contacts,
    labels,
    broadcasts,
    schedules,
    bot,
    sandbox: new SandboxService({ log: repos.messages, events, sessions, attachments }),
    webhooks,
    sessions,
    activity,
    async close() {
      stopSchedules()
      stopBroadcasts()
      await broadcasts.idle()
      stopInbox()
      stopContacts()
      bot.close()
      mailer.close()
      await sessions.closeAll()
      // After the sessions, so their last state changes are queued; before storage, which it reads.
      await webhooks.close()
      await remoteFiles.close()
      await store.close()
      await release()
    }
  }
  internals.set(core, { storage: store, sessions, inbound })
  // Before the restore, so the reconnects' state changes reach onConnection subscribers.
  await webhooks.start()
  // Before the restore, so a resumed broadcast hears its instance reach CONNECTED.
  const stopBroadcasts = await broadcasts.start()
  const stopSchedules = await schedules.start()
  if (opts.restoreSessions !== false) await sessions.restore()
  return core
}
