/**
 * The data dir and everything stored in it (`CHATAPP_DATA_DIR`), opened once at start:
 *
 * ```
 * chatapp.json + .journal   configuration: account, instances, intents, surveys, attachments, app settings
 * runtime.json + .journal   survey runs, bot activity and bot memory (change with traffic)
 * webhook-outbox.jsonl      webhook deliveries (docs/design.md §11; owned by webhooks/)
 * messages/<id>.jsonl       message log per instance (append-only)
 * attachments/<id>          attachment bytes
 * sessions/<id>/            channel credentials per instance
 * tmp/                      uploads in progress (emptied at start)
 * ```
 *
 * The documents are journaled (journaled-document.ts): a write costs one appended line, whatever the
 * number of records. Services reach them only through the repositories (repos/).
 */
import { mkdir, rm } from 'node:fs/promises'
import { join } from 'node:path'
import { JournaledDocument } from './journaled-document'
import { MessageLog, type BadLinesReport } from './message-log'
import { checkConfig, checkRuntime } from './record-check'
import { makeRepositories, type ConfigData, type Repositories, type RuntimeData } from './repos'
import { DIR_MODE } from './durable-file'

export { DataFileError } from './journaled-document'
export type { Account, AppSettings, ConfigData, Repositories, RuntimeData, SmtpSettings } from './repos'

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
  repos: Repositories
  /** Waits for pending writes and closes the files. */
  close(): Promise<void>
}

export interface StorageOptions {
  /** Newest log entries kept per instance. */
  messageLogLimit?: number
  /** Told when a message log had unreadable lines (skipped and kept aside). */
  reportBadLines?: BadLinesReport
}

const CONFIG_DEFAULTS: ConfigData = { version: 1, account: null, instances: [], intents: [], surveys: [], attachments: [], appSettings: { smtp: null }, quickReplies: [], contacts: [], contactGroups: [], schedules: [], labels: [] }
const RUNTIME_DEFAULTS: RuntimeData = { version: 1, surveyRuns: [], botActivity: [], bot: {}, chatPauses: [], chatStates: [], broadcasts: [], outreachSends: [] }

/** Opens every store of `dataDir`. Throws DataFileError on an unreadable or invalid file (nothing is written). */
export async function openStorage(dataDir: string, options: StorageOptions = {}): Promise<Storage> {
  const paths: DataPaths = {
    root: dataDir,
    messages: join(dataDir, 'messages'),
    attachments: join(dataDir, 'attachments'),
    sessions: join(dataDir, 'sessions'),
    tmp: join(dataDir, 'tmp'),
    webhookOutbox: join(dataDir, 'webhook-outbox.jsonl')
  }
  const config = await JournaledDocument.open<ConfigData>({ dir: dataDir, name: 'chatapp', defaults: CONFIG_DEFAULTS, validate: checkConfig })
  let runtime: JournaledDocument<RuntimeData>
  try {
    runtime = await JournaledDocument.open<RuntimeData>({ dir: dataDir, name: 'runtime', defaults: RUNTIME_DEFAULTS, validate: checkRuntime })
  } catch (err) {
    await config.close()
    throw err
  }
  await Promise.all([paths.messages, paths.attachments, paths.sessions].map((d) => mkdir(d, { recursive: true, mode: DIR_MODE })))
  await rm(paths.tmp, { recursive: true, force: true })
  await mkdir(paths.tmp, { recursive: true, mode: DIR_MODE })
  const messages = new MessageLog(paths.messages, options.messageLogLimit, options.reportBadLines)
  return {
    paths,
    repos: makeRepositories(config, runtime, messages),
    async close() {
      await Promise.all([config.close(), runtime.close(), messages.close()])
    }
  }
}
