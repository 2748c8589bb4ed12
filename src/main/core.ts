/**
 * The core: storage, channel sessions, services and the event bus, wired together with no Electron
 * import. The desktop app, the headless server and every test start it the same way.
 */
import type { ChannelFactory, ChannelKind } from './channel/types'
import { createSandboxSession } from './channel/sandbox-channel'
import { CoreEventBus } from './events'
import { silentLogger, type Logger } from './logger'
import { lockDataDir } from './store/data-dir-lock'
import { openStorage, type Storage } from './store/storage'
import { AccountService } from './services/account-service'
import { AttachmentService } from './services/attachment-service'
import { InboundPipeline } from './services/inbound-pipeline'
import { InstanceService } from './services/instance-service'
import { IntentService } from './services/intent-service'
import { MessageService } from './services/message-service'
import { MessageStatusService } from './services/message-status'
import { SessionManager } from './services/session-manager'
import { SandboxService } from './services/sandbox-service'
import { SurveyService } from './services/survey-service'
import { WebhookService, type WebhookOptions } from './webhooks/webhook-service'
import { mkdir } from 'node:fs/promises'
import { BotEngine, type BotEngineOptions } from './bot/bot-engine'
import { createSmtpMailer, type Mailer } from './bot/mailer'

/** Size and time limits (DESIGN.md §4); bytes and milliseconds. */
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
  /** Clock of the bot engine (tests). */
  clock?: () => Date
  /** Mail transport for notifications (default: SMTP from the app settings). */
  mailer?: Mailer
  /** Webhook tunables and test seams (fetch, clock, random, retry policy). */
  webhooks?: WebhookOptions
}

export interface Core {
  storage: Storage
  events: CoreEventBus
  logger: Logger
  limits: Limits
  account: AccountService
  sessions: SessionManager
  inbound: InboundPipeline
  instances: InstanceService
  intents: IntentService
  surveys: SurveyService
  attachments: AttachmentService
  messages: MessageService
  bot: BotEngine
  sandbox: SandboxService
  /** Webhook deliveries (DESIGN.md §11): outbox, dispatcher, list and retry. */
  webhooks: WebhookService
  /** Stops sessions and waits for every pending write; releases the data-dir lock. */
  close(): Promise<void>
}

/**
 * Opens the data dir and starts the core. Throws DataDirLockedError when another process owns the
 * dir and DataFileError when a data file is unreadable (nothing is overwritten).
 */
export async function startCore(opts: CoreOptions): Promise<Core> {
  const logger = opts.logger ?? silentLogger()
  await mkdir(opts.dataDir, { recursive: true })
  const release =
    opts.lock === false ? async () => {} : await lockDataDir(opts.dataDir, (err) => logger.error({ err }, 'data dir lock compromised'))
  let storage: Storage
  try {
    storage = await openStorage(opts.dataDir, { messageLogLimit: opts.messageLogLimit })
  } catch (err) {
    await release()
    throw err
  }
  const limits: Limits = { ...DEFAULT_LIMITS, ...opts.limits }
  const events = new CoreEventBus()
  let webhooks: WebhookService
  try {
    webhooks = await WebhookService.open({ storage, events, logger, ...opts.webhooks })
  } catch (err) {
    await storage.close()
    await release()
    throw err
  }
  const account = new AccountService(storage, opts.apiToken)
  await account.ensure()
  const inbound = new InboundPipeline({ storage, events, logger })
  const statuses = new MessageStatusService({ storage, events, logger })
  const sessions = new SessionManager({
    storage,
    events,
    logger,
    factories: { sandbox: createSandboxSession, ...opts.factories },
    onInbound: (id, msg) => inbound.process(id, msg),
    onMessageStatus: (id, update) => statuses.report(id, update),
    onChatIdentity: (id, identity) => inbound.identity(id, identity)
  })
  const attachments = new AttachmentService({ storage, events })
  const messages = new MessageService({ storage, sessions, events, attachments, limits, statuses })
  const mailer = opts.mailer ?? createSmtpMailer(() => storage.config.data.appSettings.smtp)
  const bot = new BotEngine({ storage, events, logger, messages, attachments, mailer, clock: opts.clock, options: opts.bot })
  inbound.use(async (instanceId, message) => {
    await bot.handle(instanceId, message)
  })
  inbound.useIdentity((instanceId, identity) => bot.rekeyContact(instanceId, identity))
  const core: Core = {
    storage,
    events,
    logger,
    limits,
    account,
    sessions,
    inbound,
    instances: new InstanceService({ storage, sessions, events, defaultChannel: opts.defaultChannel ?? 'baileys' }),
    intents: new IntentService({ storage, events }),
    surveys: new SurveyService({ storage, events }),
    attachments,
    messages,
    bot,
    sandbox: new SandboxService({ storage, events, sessions, messages, attachments }),
    webhooks,
    async close() {
      bot.close()
      mailer.close()
      await sessions.closeAll()
      // After the sessions, so their last state changes are queued; before storage, which it reads.
      await webhooks.close()
      await storage.close()
      await release()
    }
  }
  // Before the restore, so the reconnects' state changes reach onConnection subscribers.
  await webhooks.start()
  if (opts.restoreSessions !== false) await sessions.restore()
  return core
}
