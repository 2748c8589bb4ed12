/**
 * The data dir and everything stored in it (`CHATAPP_DATA_DIR`):
 *
 * ```
 * chatapp.json          configuration: account, instances, intents, surveys, attachments, app settings
 * runtime.json          survey runs and bot memory (changes with traffic, kept apart from the config)
 * webhook-outbox.json   webhook deliveries: pending, recent delivered, failed (DESIGN.md §11; owned by webhooks/)
 * messages/<id>.jsonl   message log per instance (append-only)
 * attachments/<id>      attachment bytes
 * sessions/<id>/        channel credentials per instance
 * tmp/                  uploads in progress (emptied at start)
 * ```
 */
import { mkdir, rm } from 'node:fs/promises'
import { join } from 'node:path'
import type { Attachment, BotActivity, Instance, Intent, Survey, SurveyRun } from '../../shared/schemas/records'
import { JsonDocument } from './json-document'
import { MessageLog } from './message-log'

export interface Account {
  _id: string
  api_token: string
  createdAt: string
}

export interface SmtpSettings {
  host: string
  port: number
  secure: boolean
  user?: string
  pass?: string
  from: string
}

export interface AppSettings {
  smtp: SmtpSettings | null
}

export interface ConfigData {
  version: 1
  account: Account | null
  instances: Instance[]
  intents: Intent[]
  surveys: Survey[]
  attachments: Attachment[]
  appSettings: AppSettings
}

export interface RuntimeData {
  version: 1
  surveyRuns: SurveyRun[]
  /** Bot actions run, newest last, bounded per instance. */
  botActivity: BotActivity[]
  /** Opaque state of bot components (e.g. the default-message window), by component name. */
  bot: Record<string, unknown>
}

export interface DataPaths {
  root: string
  messages: string
  attachments: string
  sessions: string
  tmp: string
  /** The webhook outbox file; opened by the webhook service, not here. */
  webhookOutbox: string
}

export interface Storage {
  paths: DataPaths
  config: JsonDocument<ConfigData>
  runtime: JsonDocument<RuntimeData>
  messages: MessageLog
  close(): Promise<void>
}

export interface StorageOptions {
  /** Newest log entries kept per instance. */
  messageLogLimit?: number
}

/** Opens every store of `dataDir`. Throws DataFileError on an unreadable file (nothing is written). */
export async function openStorage(dataDir: string, options: StorageOptions = {}): Promise<Storage> {
  const paths: DataPaths = {
    root: dataDir,
    messages: join(dataDir, 'messages'),
    attachments: join(dataDir, 'attachments'),
    sessions: join(dataDir, 'sessions'),
    tmp: join(dataDir, 'tmp'),
    webhookOutbox: join(dataDir, 'webhook-outbox.json')
  }
  const config = await JsonDocument.open<ConfigData>(join(dataDir, 'chatapp.json'), {
    version: 1,
    account: null,
    instances: [],
    intents: [],
    surveys: [],
    attachments: [],
    appSettings: { smtp: null }
  })
  const runtime = await JsonDocument.open<RuntimeData>(join(dataDir, 'runtime.json'), {
    version: 1,
    surveyRuns: [],
    botActivity: [],
    bot: {}
  })
  await Promise.all([paths.messages, paths.attachments, paths.sessions].map((d) => mkdir(d, { recursive: true })))
  await rm(paths.tmp, { recursive: true, force: true })
  await mkdir(paths.tmp, { recursive: true })
  const messages = new MessageLog(paths.messages, options.messageLogLimit)
  return {
    paths,
    config,
    runtime,
    messages,
    async close() {
      await Promise.all([config.close(), runtime.close(), messages.close()])
    }
  }
}
