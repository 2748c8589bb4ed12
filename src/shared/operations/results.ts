/**
 * Schemas (and their types) of operation results that are not stored records: the app's info, views
 * the UI shows, and the seed's send results (docs/api-seed.md §2.11). Documented in the OpenAPI
 * document through the operation table; the types are what the runners answer.
 */
import Type, { type Static } from 'typebox'
import { Broadcast, ConnectionStatus, Contact, Instance, LoggedMessage, OutreachMessage, OutreachSettings, ScheduledMessage, SendLimitsSchema, SentBy, SurveyRun, WEEK_DAYS } from '../schemas/records'
import { AssistantReply } from '../schemas/assistant'

export const AppInfo = Type.Object({
  version: Type.String(),
  baseUrl: Type.String({ description: 'Base URL of the local HTTP API.' }),
  mode: Type.Union([Type.Literal('desktop'), Type.Literal('web')], { description: '`desktop` (Electron) or `web` (headless server).' }),
  defaultChannel: Type.Union([Type.Literal('baileys'), Type.Literal('sandbox')], { description: 'Channel of new instances by default.' })
})
export type AppInfoT = Static<typeof AppInfo>

/** A conversation of the inbox (docs/design.md §15): one chat of one instance. */
/** One entry of a conversation's timeline: who assigned it to whom, when. */
export const TimelineEntry = Type.Object({
  at: Type.String({ description: 'ISO 8601.' }),
  kind: Type.Literal('assigned'),
  by: SentBy,
  assigned_to: Type.Union([Type.Object({ id: Type.String(), name: Type.String() }), Type.Null()])
})
export type TimelineEntryT = Static<typeof TimelineEntry>

export const Conversation = Type.Object({
  instance_id: Type.String(),
  chatId: Type.String(),
  name: Type.Union([Type.String(), Type.Null()], { description: "The customer's push name (the latest), null when none was sent." }),
  phone: Type.Union([Type.String(), Type.Null()], { description: 'Digits of the phone number; null for groups and LID-only chats.' }),
  username: Type.Optional(Type.String({ description: 'The customer’s WhatsApp username (no "@"), when they write by LID with one: shown as "@name".' })),
  is_group: Type.Boolean(),
  last: Type.Object(
    {
      id: Type.String(),
      text: Type.String(),
      type: Type.String(),
      fromMe: Type.Boolean(),
      source: Type.String(),
      status: Type.String(),
      timestamp: Type.Integer({ description: 'Epoch ms.' }),
      sent_by: Type.Optional(SentBy)
    },
    { description: 'The newest message of the chat.' }
  ),
  unread: Type.Integer({ description: 'Customer messages after the last read mark and the last reply a person wrote.' }),
  unanswered: Type.Boolean({ description: "The last message is the customer's." }),
  labels: Type.Array(Type.String(), { description: "The customer's contact labels (none for groups)." }),
  status: Type.Union([Type.Literal('open'), Type.Literal('resolved')], { description: 'Resolved until the customer writes again.' }),
  paused_until: Type.Optional(
    Type.Union([Type.String({ format: 'date-time' }), Type.Null()], { description: 'The bot is paused for this chat (hand-off) until then; null: until resumed.' })
  ),
  assigned_to: Type.Union([Type.Object({ id: Type.String(), name: Type.String() }), Type.Null()], {
    description: 'The person the conversation is assigned to (a staff member, or `owner`), null when unassigned.'
  })
})
export type ConversationT = Static<typeof Conversation>

/** Activity of an instance over a period (docs/design.md §16 "Instances"). */
export const PeriodStats = Type.Object({
  messages_in: Type.Integer({ description: 'Customer messages.' }),
  messages_out: Type.Integer({ description: 'Messages sent: bot, desk, phone and scripts.' }),
  bot_answered: Type.Integer({ description: 'Customer messages the bot answered (intent, survey, default or away message).' }),
  bot_answer_rate: Type.Union([Type.Number(), Type.Null()], { description: 'bot_answered / messages_in, 0–1; null without customer messages.' }),
  failed_sends: Type.Integer({ description: 'Sent messages that ended in ERROR.' }),
  webhook_failures: Type.Integer({ description: 'Webhook deliveries that failed for good.' })
})
export type PeriodStatsT = Static<typeof PeriodStats>

export const InstanceStats = Type.Object({
  today: PeriodStats,
  last_7_days: PeriodStats,
  since: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], { description: 'The oldest kept log entry: counts cover the kept log (newest N messages).' })
})
export type InstanceStatsT = Static<typeof InstanceStats>

export const QrView = Type.Object({
  status: ConnectionStatus,
  qrDataUrl: Type.Union([Type.String(), Type.Null()], { description: '`data:image/png;base64,…` of the latest QR; null when none is showing.' })
})
export type QrViewT = Static<typeof QrView>

/** SMTP settings of the app (docs/design.md §10 send_notification): `pass` omitted keeps the stored one, '' removes it. */
export const SmtpInput = Type.Object(
  {
    host: Type.String({ minLength: 1, maxLength: 255 }),
    port: Type.Integer({ minimum: 1, maximum: 65535 }),
    secure: Type.Boolean(),
    user: Type.Optional(Type.String({ maxLength: 255 })),
    pass: Type.Optional(Type.String({ maxLength: 1024 })),
    from: Type.String({ format: 'email' })
  },
  { additionalProperties: false }
)
export type SmtpInputT = Static<typeof SmtpInput>

/** SMTP settings as answered: the password is never sent back, only whether one is stored. */
export const SmtpView = Type.Object({
  host: Type.String(),
  port: Type.Integer(),
  secure: Type.Boolean(),
  user: Type.Optional(Type.String()),
  from: Type.String(),
  hasPassword: Type.Boolean()
})
export type SmtpViewT = Static<typeof SmtpView>

/** A survey run as the responses list shows it (docs/design.md §9): one shape for the API, the UI and the CSV. */
export const SurveyResponse = Type.Object({
  ...Type.Pick(SurveyRun, ['_id', 'chatId', 'pushName', 'status', 'answers', 'startedAt', 'completedAt']).properties,
  phone: Type.String({ description: 'The customer’s number (+digits), or their chat id when WhatsApp hides it (a LID).' }),
  handled: Type.Boolean({ description: 'The owner marked this response as dealt with.' }),
  started_local: Type.String({ description: 'startedAt in the instance’s bot_timezone, YYYY-MM-DD HH:MM.' }),
  completed_local: Type.Union([Type.String(), Type.Null()], { description: 'completedAt in bot_timezone.' })
})
export type SurveyResponseT = Static<typeof SurveyResponse>

/** What a settings update did: whether anything changed, and the instance as it is now. */
export const SettingsChange = Type.Object({ modified: Type.Boolean(), instance: Instance })
export interface SettingsChangeT {
  modified: boolean
  instance: Readonly<Static<typeof Instance>>
}

const Key = Type.Object({ remoteJid: Type.String(), fromMe: Type.Boolean(), id: Type.String() })
/** docs/api-seed.md §2.11: the sent message as the network returns it. */
export const SentMessage = Type.Object({
  key: Key,
  message: Type.Object({}, { additionalProperties: true, description: 'e.g. imageMessage {url, mimetype, caption, fileSha256, fileLength, height, width, mediaKey, fileEncSha256, directPath, mediaKeyTimestamp, jpegThumbnail}' }),
  messageTimestamp: Type.String({ description: 'Epoch seconds.' }),
  status: Type.String({ examples: ['PENDING'] })
})
export interface SentMessageT {
  key: { remoteJid: string; fromMe: boolean; id: string }
  message: Record<string, unknown>
  messageTimestamp: string
  status: string
}

/** The text send's result (docs/api-seed.md §2.11). */
export const TextSendResult = Type.Object({
  message: Type.Union([SentMessage, Type.Null()]),
  attachment: Type.Array(Type.String(), { description: 'Ids of the attachments sent.' }),
  media: Type.Array(SentMessage, { description: 'The attachment messages, in order.' }),
  contact: Type.Union([Type.Object({}, { additionalProperties: true }), Type.Null()]),
  image: Type.Union([Type.Object({}, { additionalProperties: true }), Type.Null()]),
  buttons: Type.Null(),
  location: Type.Union([Type.Object({}, { additionalProperties: true }), Type.Null()])
})
export interface TextSendResultT {
  message: SentMessageT | null
  attachment: string[]
  media: SentMessageT[]
  contact: Record<string, unknown> | null
  image: Record<string, unknown> | null
  buttons: null
  location: Record<string, unknown> | null
}

/** What a contacts import did (docs/design.md §18 "Contacts CSV"). */
export const ImportReport = Type.Object({
  imported: Type.Integer({ description: 'Contacts made.' }),
  existing: Type.Integer({ description: 'Rows whose number was already a contact (left as it was).' }),
  refused: Type.Array(Type.Object({ row: Type.Integer({ description: 'Line of the file (the header is 1).' }), reason: Type.String() }))
})
export type ImportReportT = Static<typeof ImportReport>

/** A broadcast and where it stands (docs/design.md §18 "Broadcasts"). */
export const BroadcastView = Type.Object({
  ...Broadcast.properties,
  progress: Type.Object({
    total: Type.Integer(),
    sent: Type.Integer(),
    failed: Type.Integer(),
    skipped: Type.Integer(),
    pending: Type.Integer(),
    expected_finish: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], { description: 'When the governor expects the last message out (average gaps, quotas and quiet hours).' }),
    waiting: Type.Union([Type.String(), Type.Null()], { description: 'Why the next message waits (quiet hours, a quota, the random gap…).' })
  })
})
export type BroadcastViewT = Static<typeof BroadcastView>

/** What a scheduled message is made of, as the API takes it (docs/design.md §18 "Scheduled messages"). */
export const ScheduleFields = Type.Object({
  title: Type.Optional(Type.String({ maxLength: 100 })),
  target: ScheduledMessage.properties.target,
  message: OutreachMessage,
  repeat: ScheduledMessage.properties.repeat,
  start_at: ScheduledMessage.properties.start_at,
  days: Type.Optional(Type.Array(Type.Enum(WEEK_DAYS), { uniqueItems: true })),
  active: Type.Optional(Type.Boolean())
})

/** The send governor of a number now (docs/design.md §18 "The send governor"). */
export const OutreachStatus = Type.Object({
  settings: OutreachSettings,
  daily_quota: Type.Integer({ description: 'Today’s daily limit after the warm-up ramp.' }),
  number_age_days: Type.Union([Type.Integer(), Type.Null()], { description: 'From number_since; null when not declared (treated as new).' }),
  sent_last_hour: Type.Integer(),
  sent_last_24h: Type.Integer(),
  next_slot: Type.String({ format: 'date-time', description: 'The earliest moment the next outreach message may leave.' }),
  waiting: Type.Union([Type.String(), Type.Null()]),
  blocked: Type.Union([Type.String(), Type.Null()], { description: 'WhatsApp’s capping or reach-out lock, when it holds.' }),
  limits: Type.Union([SendLimitsSchema, Type.Null()])
})
export type OutreachStatusT = Static<typeof OutreachStatus>

/** A message log entry as `GET /chatapp/messages` lists it; a search (`q`) adds where the terms matched. */
/** What `POST /chatapp/message/reaction` answers: the reaction, and the message as it now stands. */
export const ReactionResult = Type.Object({
  chatId: Type.String({ description: 'The chat’s JID.' }),
  messageId: Type.String(),
  emoji: Type.String(),
  message: LoggedMessage
})
export type ReactionResultT = Static<typeof ReactionResult>

export const MessageEntry = Type.Object({
  ...LoggedMessage.properties,
  snippet: Type.Optional(Type.String({ description: 'Search only: the text around the first match (at most 120 characters, … where cut).' })),
  highlights: Type.Optional(
    Type.Array(Type.Tuple([Type.Integer(), Type.Integer()]), { description: 'Search only: [start, end) of each match in `snippet` (UTF-16 offsets).' })
  )
})
export type MessageEntryT = Static<typeof MessageEntry>

/** Everything the app keeps of one customer (docs/design.md §20 "A customer's data"). */
/** An instance an export or erasure covered: its id, name and number. */
const CoveredInstance = {
  instance_id: Type.String(),
  name: Type.String({ description: 'The instance’s bot_name.' }),
  bot_number: Type.Union([Type.String(), Type.Null()], { description: 'Its WhatsApp number, once linked.' })
}

export const CustomerExport = Type.Object({
  number: Type.String({ description: 'The customer’s number (digits), or their LID (…@lid) when WhatsApp gives no number (a customer known by username).' }),
  username: Type.Optional(Type.String({ description: 'The WhatsApp username asked for (no "@"), when the customer was named by "@name".' })),
  exported_at: Type.String({ format: 'date-time' }),
  instances: Type.Array(
    Type.Object({ ...CoveredInstance, contact: Type.Boolean({ description: 'It holds a contact record of theirs.' }), messages: Type.Integer(), survey_runs: Type.Integer() }),
    { description: 'The instances searched (`type=all`: every instance the caller may reach) and what each holds.' }
  ),
  contact: Type.Union([Contact, Type.Null()], { description: 'Their contact record (the first instance’s that has one).' }),
  contacts: Type.Optional(Type.Array(Contact, { description: 'Every instance’s contact record of theirs.' })),
  messages: Type.Array(Type.Intersect([LoggedMessage, Type.Object({ instance_id: Type.Optional(Type.String()) })]), { description: 'Their chats’ messages and their messages in groups, oldest first, each with its instance.' }),
  survey_runs: Type.Array(SurveyRun),
  assistant_replies: Type.Array(AssistantReply, { description: 'The assistant’s answers in their chats: what it was asked, what it answered, the model, tokens and knowledge used.' })
})
export type CustomerExportT = Static<typeof CustomerExport>

/** What an erasure deleted (docs/design.md §20 "A customer's data"). */
const ErasureCounts = Type.Object({
  messages: Type.Integer(),
  conversations: Type.Integer(),
  survey_runs: Type.Integer(),
  contacts: Type.Integer(),
  webhook_deliveries: Type.Integer(),
  broadcast_recipients: Type.Integer(),
  assistant_replies: Type.Integer(),
  media_files: Type.Integer()
})

export const ErasureResult = Type.Object({
  number: Type.String({ description: 'As in the export: digits, or the LID of a customer known by username.' }),
  username: Type.Optional(Type.String({ description: 'The WhatsApp username asked for (no "@").' })),
  erased_at: Type.String({ format: 'date-time' }),
  deleted: ErasureCounts,
  instances: Type.Optional(Type.Array(Type.Object({ ...CoveredInstance, deleted: ErasureCounts }), { description: 'The instances it was erased from (`type=all`: every instance the caller may reach), with what went from each.' }))
})
export type ErasureResultT = Static<typeof ErasureResult>

/** A backup kept in the data dir's backups/ folder. */
export const StoredBackup = Type.Object({
  name: Type.String({ description: 'File name in backups/.' }),
  size: Type.Integer({ description: 'Bytes.' }),
  created_at: Type.String({ format: 'date-time' })
})
export type StoredBackupT = Static<typeof StoredBackup>

/** The backups: settings, the automatic schedule, what is kept. */
export const BackupStatus = Type.Object({
  daily: Type.Boolean({ description: 'A backup is made once a day into backups/.' }),
  keep: Type.Integer({ description: 'How many backups backups/ keeps (the oldest go first).' }),
  running: Type.Boolean({ description: 'A backup is being written now.' }),
  next_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], { description: 'When the next automatic backup is due; null when they are off.' }),
  last_error: Type.Union([Type.String(), Type.Null()], { description: 'Why the last backup failed, until one succeeds.' }),
  backups: Type.Array(StoredBackup, { description: 'Newest first.' }),
  folder: Type.String({ description: 'Where the backups are kept (the data dir’s backups/).' })
})
export type BackupStatusT = Static<typeof BackupStatus>

/** What a restore put in place. */
export const RestoreView = Type.Object({
  restored: Type.Object({
    created_at: Type.String({ format: 'date-time', description: 'When the backup was made.' }),
    app_version: Type.String({ description: 'The release that made it.' }),
    database_version: Type.Integer()
  }),
  replaced_dir: Type.String({ description: 'Where the data in place before went (a folder in the data dir; delete it once the restored data is checked).' })
})
export type RestoreViewT = Static<typeof RestoreView>

/** What a request for older messages from the phone came to (`POST /chatapp/messages/fetch-history`). */
export const PhoneHistoryResult = Type.Object({
  chatId: Type.String({ description: 'The chat, as a JID.' }),
  requested: Type.Integer({ description: 'How many older messages were asked for.' }),
  anchor_id: Type.String({ description: 'The message the request started from: the oldest the log held of the chat.' }),
  request_id: Type.String({ description: "The request's message id; the phone names it in its answer." }),
  answered: Type.Boolean({ description: 'The phone answered within the wait (20 s). When false, its answer is stored whenever it comes.' }),
  received: Type.Integer({ description: 'Messages the answer held.' }),
  stored: Type.Integer({ description: 'Of those, the ones the log did not have yet (each message is stored once).' })
})
export type PhoneHistoryResultT = Static<typeof PhoneHistoryResult>
