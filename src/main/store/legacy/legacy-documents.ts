/**
 * The two documents of a 0.1 data dir, their shapes and the checks 0.1 ran on them when it opened
 * them (`src/main/store/repos/index.ts` and `record-check.ts` at commit 9aeed71):
 *
 * - `chatapp` (configuration): account, instances, intents, surveys, attachments, app settings,
 *   quick replies, contacts, contact groups, schedules, labels;
 * - `runtime`: survey runs, bot activity, bot memory (`bot.defaultMessageWindow`,
 *   `bot.awayMessageWindow`), chat pauses, chat states (the desk's read mark and resolve),
 *   broadcasts, outreach sends.
 *
 * Records are checked against today's record schemas (src/shared/schemas/records/), which are
 * those of 0.1; unknown extra fields pass, as in 0.1.
 */
import type { TSchema } from 'typebox'
import { makeAjv } from '../../validation'
import {
  Attachment,
  BotActivity,
  Broadcast,
  ChatPause,
  ChatState,
  Contact,
  ContactGroup,
  Instance,
  Intent,
  Label,
  OutreachSend,
  QuickReply,
  ScheduledMessage,
  Survey,
  SurveyRun,
  type Attachment as AttachmentT,
  type BotActivity as BotActivityT,
  type Broadcast as BroadcastT,
  type ChatPause as ChatPauseT,
  type ChatState as ChatStateT,
  type Contact as ContactT,
  type ContactGroup as ContactGroupT,
  type Instance as InstanceT,
  type Intent as IntentT,
  type Label as LabelT,
  type OutreachSend as OutreachSendT,
  type QuickReply as QuickReplyT,
  type ScheduledMessage as ScheduledMessageT,
  type Survey as SurveyT,
  type SurveyRun as SurveyRunT
} from '../../../shared/schemas/records'
import type { Account, AppSettings } from '../config/config-store'
import { readJournaledDocument, type LegacyDocument } from './journaled-document-reader'

/** `chatapp.json` + `chatapp.journal` of 0.1. */
export interface LegacyConfigData {
  version: 1
  account: Account | null
  instances: InstanceT[]
  intents: IntentT[]
  surveys: SurveyT[]
  attachments: AttachmentT[]
  appSettings: AppSettings
  quickReplies: QuickReplyT[]
  contacts: ContactT[]
  contactGroups: ContactGroupT[]
  schedules: ScheduledMessageT[]
  labels: LabelT[]
}

/** The bot's "at most once per window" memory as 0.1 saved it: `[instanceId, chatId, sentAtMs]`, oldest first. */
export interface LegacyMessageWindow {
  version: 1
  windowMs: number
  entries: Array<[string, string, number]>
}

/** `runtime.json` + `runtime.journal` of 0.1. */
export interface LegacyRuntimeData {
  version: 1
  surveyRuns: SurveyRunT[]
  botActivity: BotActivityT[]
  bot: { defaultMessageWindow?: LegacyMessageWindow; awayMessageWindow?: LegacyMessageWindow; [component: string]: unknown }
  chatPauses: ChatPauseT[]
  chatStates: ChatStateT[]
  broadcasts: BroadcastT[]
  outreachSends: OutreachSendT[]
}

const CONFIG_DEFAULTS: LegacyConfigData = { version: 1, account: null, instances: [], intents: [], surveys: [], attachments: [], appSettings: { smtp: null }, quickReplies: [], contacts: [], contactGroups: [], schedules: [], labels: [] }
const RUNTIME_DEFAULTS: LegacyRuntimeData = { version: 1, surveyRuns: [], botActivity: [], bot: {}, chatPauses: [], chatStates: [], broadcasts: [], outreachSends: [] }

const ajv = makeAjv(false)

/** A checker of one list: throws `<name>[i] (_id …): <field> <problem>` on the first bad record. */
function listCheck(name: string, schema: TSchema): (records: unknown) => void {
  const validate = ajv.compile(schema)
  return (records) => {
    if (!Array.isArray(records)) throw new Error(`${name} must be a list`)
    for (const [i, r] of records.entries()) {
      if (validate(r)) continue
      const e = validate.errors?.[0]
      const where = e?.instancePath ? e.instancePath.slice(1).replace(/\//g, '.') : '(record)'
      const id = r && typeof r === 'object' && '_id' in r ? ` (_id ${String((r as { _id: unknown })._id)})` : ''
      throw new Error(`${name}[${i}]${id}: ${where} ${e?.message ?? 'is invalid'}`)
    }
  }
}

const configChecks: Array<[keyof LegacyConfigData, (r: unknown) => void]> = [
  ['instances', listCheck('instances', Instance)],
  ['intents', listCheck('intents', Intent)],
  ['surveys', listCheck('surveys', Survey)],
  ['attachments', listCheck('attachments', Attachment)],
  ['quickReplies', listCheck('quickReplies', QuickReply)],
  ['contacts', listCheck('contacts', Contact)],
  ['contactGroups', listCheck('contactGroups', ContactGroup)],
  ['schedules', listCheck('schedules', ScheduledMessage)],
  ['labels', listCheck('labels', Label)]
]

const runtimeChecks: Array<[keyof LegacyRuntimeData, (r: unknown) => void]> = [
  ['surveyRuns', listCheck('surveyRuns', SurveyRun)],
  ['botActivity', listCheck('botActivity', BotActivity)],
  ['chatPauses', listCheck('chatPauses', ChatPause)],
  ['chatStates', listCheck('chatStates', ChatState)],
  ['broadcasts', listCheck('broadcasts', Broadcast)],
  ['outreachSends', listCheck('outreachSends', OutreachSend)]
]

function checkConfig(d: LegacyConfigData): void {
  for (const [key, check] of configChecks) check(d[key])
  if (d.account !== null && (typeof d.account !== 'object' || typeof d.account.api_token !== 'string')) throw new Error('account must be null or have an api_token')
  if (!d.appSettings || typeof d.appSettings !== 'object') throw new Error('appSettings must be an object')
}

function checkRuntime(d: LegacyRuntimeData): void {
  for (const [key, check] of runtimeChecks) check(d[key])
}

/** Reads 0.1's configuration document in `dataDir`. Throws DataFileError naming the bad file. */
export function readLegacyConfig(dataDir: string): Promise<LegacyDocument<LegacyConfigData>> {
  return readJournaledDocument(dataDir, 'chatapp', CONFIG_DEFAULTS, checkConfig)
}

/** Reads 0.1's runtime document in `dataDir`. Throws DataFileError naming the bad file. */
export function readLegacyRuntime(dataDir: string): Promise<LegacyDocument<LegacyRuntimeData>> {
  return readJournaledDocument(dataDir, 'runtime', RUNTIME_DEFAULTS, checkRuntime)
}

/**
 * The entries of a saved message window that 0.1 would restore (`DefaultMessageWindow.fromJSON`):
 * well-formed `[instanceId, chatId, atMs]` triples; anything else gives none (0.1 started empty).
 */
export function windowEntries(saved: unknown): Array<[string, string, number]> {
  const w = saved as Partial<LegacyMessageWindow> | null | undefined
  if (!w || w.version !== 1 || !Array.isArray(w.entries)) return []
  return w.entries.filter(
    (e): e is [string, string, number] => Array.isArray(e) && typeof e[0] === 'string' && typeof e[1] === 'string' && typeof e[2] === 'number' && Number.isFinite(e[2])
  )
}
