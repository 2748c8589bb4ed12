/**
 * Every operation of the app, defined once (docs/architecture.md "Operations"): the HTTP API
 * (docs/api-seed.md, docs/design.md), the UI contract (IPC and `/rpc`) and the OpenAPI document are
 * generated from this table; each operation's service call is its runner in
 * src/main/operations/runners.ts. The keys are the operation names, and the UI contract's method names.
 *
 * To add an operation: a definition here, a runner there, the service method, and the UI that calls it.
 */
import Type, { type TObject, type TProperties } from 'typebox'
import { Action, Attachment, AwaySettings, BotActivity, ChatPause, HandoffSettings, Instance, Intent, LoggedMessage, RequestConfig, SendLimitsSchema, Survey, SurveyAnswer } from '../schemas/records'
import {
  AudioFields,
  CreateIntentBody,
  CreateSurveyBody,
  DeleteResult,
  DocFields,
  FileUrlFields,
  InitBody,
  MediaFields,
  PairingCodeBody,
  SandboxInboundBody,
  SendButtonsBody,
  SendContactBody,
  SendListBody,
  SendMediaButtonBody,
  SendTextBody,
  SendTextDeprecatedBody,
  SetWebhookBody,
  UpdateActionsBody,
  UpdateActiveDaysBody,
  UpdateActiveHoursBody,
  UpdateGeneralBody,
  UpdateIntentBody,
  UpdateResult,
  UpdateSurveyBody,
  type DeleteResult as DeleteResultT,
  type UpdateResult as UpdateResultT
} from '../schemas/operations'
import { DeliveryStatus, WebhookDelivery } from '../schemas/webhooks'
import { op, withoutCredentials } from './define'
import { UPDATE_OPERATIONS } from './updates'
import { Contact, ContactGroup, Label, MessageLogRecord, OpeningHours, OptOutSettings, OutreachMessage, OutreachSettings, QuickReply, ScheduledMessage } from '../schemas/records'
import type { Attachment as AttachmentT, AwaySettings as AwaySettingsT, BotActivity as BotActivityT, ChatPause as ChatPauseT, QuickReply as QuickReplyT, HandoffSettings as HandoffSettingsT, Instance as InstanceT, Intent as IntentT, LoggedMessage as LoggedMessageT, MessageLogRecord as MessageLogRecordT, Contact as ContactT, ContactGroup as ContactGroupT, OpeningHours as OpeningHoursT, OptOutSettings as OptOutSettingsT, OutreachSettings as OutreachSettingsT, Label as LabelT, ScheduledMessage as ScheduledMessageT, SendLimits, Survey as SurveyT } from '../schemas/records'
import type { WebhookDelivery as WebhookDeliveryT } from '../schemas/webhooks'
import {
  AppInfo,
  Conversation,
  InstanceStats,
  QrView,
  SentMessage,
  SettingsChange,
  SmtpInput,
  SmtpView,
  SurveyResponse,
  TextSendResult,
  type AppInfoT,
  type ConversationT,
  type InstanceStatsT,
  type QrViewT,
  type SentMessageT,
  type SettingsChangeT,
  type SmtpViewT,
  type SurveyResponseT,
  type TextSendResultT,
  BroadcastView,
  type BroadcastViewT,
  ImportReport,
  type ImportReportT,
  OutreachStatus,
  type OutreachStatusT,
  ScheduleFields
} from './results'

const Id = Type.String({ minLength: 1 })
const Empty = Type.Object({})
/** What a contact is made of, as the API takes it (issue 14 §1). */
const ContactFields = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 100 }),
  number: Type.String({ minLength: 3, maxLength: 32, description: 'Phone number with country code; spaces, dashes and + are ignored.' }),
  group_id: Type.Optional(Type.Union([Type.String({ minLength: 1 }), Type.Null()])),
  labels: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 40 }), { maxItems: 20 })),
  notes: Type.Optional(Type.String({ maxLength: 2000 })),
  opted_out: Type.Optional(Type.Boolean())
})
/** Paging of the list routes: up to `limit` records after `offset` (default: the first 1,000, so small lists come whole, as the seed answers them). */
const Page = Type.Object({
  offset: Type.Optional(Type.Integer({ minimum: 0, default: 0, description: 'Records to skip.' })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, default: 1000, description: 'Records to answer (the total is in X-Total-Count).' }))
})
/** A page of a list: its records and how many there are in all. */
export interface PagedT<R> {
  items: R[]
  total: number
}
const items = (p: { items: unknown[] }): unknown[] => p.items
const deleted = (): DeleteResultT => ({ n: 1, ok: 1, deletedCount: 1 })
const updateResult = (c: SettingsChangeT): UpdateResultT => ({ acknowledged: true, modifiedCount: c.modified ? 1 : 0, upsertedId: null, upsertedCount: 0, matchedCount: 1 })
const sentId = (s: SentMessageT) => ({ id: s.key.id })
const SETTINGS_UPDATED = 'Chatapp settings updated successfully!'
const SENT = 'Message sent successfully'
const SEND_ERRORS = { 409: 'Instance not connected, or WhatsApp limits sends to new chats now' }
const MEDIA_ERRORS = { ...SEND_ERRORS, 413: 'File over the limit', 415: 'File content does not fit the endpoint' }
const MediaKind = Type.Union([Type.Literal('image'), Type.Literal('video'), Type.Literal('audio'), Type.Literal('document')])
/** The bytes of an upload, as the HTTP face hands them over (not a JSON field). */
const UploadedFile = Type.Object({ path: Type.String(), filename: Type.String(), size: Type.Integer(), sha256: Type.String(), declaredMimetype: Type.Optional(Type.String()) })

export const OPERATIONS = {
  /* ---------- the app (UI only) ---------- */

  'app.info': op<AppInfoT>()({ summary: 'Version, API base URL and mode of the app', tags: ['app'], scope: 'account', input: Empty, output: AppInfo, rpc: true }),
  'apiToken.get': op<{ token: string; fixed: boolean }>()({
    summary: 'The API bearer token (and whether the environment fixes it)',
    tags: ['app'],
    scope: 'account',
    input: Empty,
    output: Type.Object({ token: Type.String(), fixed: Type.Boolean() }),
    rpc: true
  }),
  'apiToken.regenerate': op<{ token: string }>()({ summary: 'A new API bearer token', tags: ['app'], scope: 'account', input: Empty, output: Type.Object({ token: Type.String() }), rpc: true }),
  'appSettings.get': op<{ smtp: SmtpViewT | null }>()({
    summary: 'App settings (the SMTP server; the password is never answered)',
    tags: ['app'],
    scope: 'account',
    input: Empty,
    output: Type.Object({ smtp: Type.Union([SmtpView, Type.Null()]) }),
    rpc: true
  }),
  'appSettings.setSmtp': op<{ smtp: SmtpViewT | null }>()({
    summary: 'Set (or clear) the SMTP server of notification e-mails',
    tags: ['app'],
    scope: 'account',
    input: Type.Object({ smtp: Type.Union([SmtpInput, Type.Null()]) }),
    output: Type.Object({ smtp: Type.Union([SmtpView, Type.Null()]) }),
    rpc: true
  }),

  'auth.login': op<{ token: string }>()({
    summary: 'Exchange a one-time login code for the API token',
    description:
      'The headless server prints a login link with a code at each start; the web UI trades it here once. Failed attempts count toward the per-address throttle (429).',
    tags: ['app'],
    scope: 'public',
    input: Type.Object({ code: Type.String({ minLength: 1, maxLength: 100 }) }),
    output: Type.Object({ token: Type.String() }),
    http: { method: 'POST', path: '/auth/login', message: 'Logged in', errors: { 401: 'Unknown, used or expired code', 429: 'Too many failed attempts from this address' } }
  }),

  /* ---------- instances (docs/api-seed.md §4.4, docs/design.md §5) ---------- */

  'instances.create': op<InstanceT>()({
    summary: 'Create an instance',
    description: 'Body may be empty; `channel` picks `baileys` or `sandbox` (default: CHATAPP_CHANNEL); `name` names it (its bot_name, default "Chatapp Bot").',
    tags: ['instances'],
    scope: 'account',
    input: Type.Object({
      channel: Type.Optional(Type.Union([Type.Literal('baileys'), Type.Literal('sandbox')])),
      name: Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: 'The instance’s name: its bot_name (extension).' }))
    }),
    output: Instance,
    http: { method: 'POST', path: '/chatapp/createNewChatapp', message: 'Chatapp created successfully!', bodyOptional: true },
    rpc: true
  }),
  'instances.list': op<PagedT<InstanceT>, InstanceT[]>()({
    summary: 'List all instances',
    tags: ['instances'],
    scope: 'account',
    input: Page,
    output: Type.Array(Instance),
    http: { method: 'GET', path: '/chatapp', message: 'Chatapp fetched successfully!', query: ['offset', 'limit'], respond: 'paged' },
    rpc: { output: items }
  }),
  'instances.delete': op<void, DeleteResultT>()({
    summary: 'Delete an instance and everything it owns',
    tags: ['instances'],
    scope: 'account',
    input: Type.Object({ instanceId: Id }),
    output: DeleteResult,
    http: { method: 'DELETE', path: '/chatapp/:instance_id', params: { instance_id: 'instanceId' }, message: 'Chatapp deleted successfully!', wire: deleted, errors: { 404: 'Unknown instance' } },
    rpc: { output: deleted }
  }),
  'instances.init': op<{ status: string }>()({
    summary: 'Start the session (idempotent)',
    tags: ['instances'],
    scope: 'instance',
    input: withoutCredentials(InitBody),
    output: Type.Object({ status: Type.String() }),
    http: { method: 'POST', path: '/chatapp/init', message: 'Chatapp initialised successfully!', bodyOptional: true, errors: { 409: 'Channel unavailable' } },
    rpc: true
  }),
  'instances.stop': op<{ status: string }>()({
    summary: 'Stop the session (credentials kept; /chatapp/init starts it again)',
    description: 'For an instance stuck connecting or one to pause: no reconnect attempts until init.',
    tags: ['instances'],
    scope: 'instance',
    input: Type.Object({}),
    output: Type.Object({ status: Type.String() }),
    http: { method: 'POST', path: '/chatapp/stop', message: 'Chatapp stopped successfully!', bodyOptional: true },
    rpc: true
  }),
  'instances.stats': op<InstanceStatsT>()({
    summary: 'Activity counts for today and the last 7 days',
    description: 'Messages in and out, customer messages the bot answered (and the rate), failed sends and failed webhook deliveries; "today" in bot_timezone. Counted over the kept message log (`since`).',
    tags: ['instances'],
    scope: 'instance',
    input: Type.Object({}),
    output: InstanceStats,
    http: { method: 'GET', path: '/chatapp/stats', message: 'Stats fetched successfully!', bodyOptional: true },
    rpc: true
  }),
  'instances.scan': op<{ qr: string; status: string }>()({
    summary: 'The current pairing QR code',
    description: 'A PNG image, or with `format=base64text` the JSON envelope with a data URL. 409 when connected or not started.',
    tags: ['instances'],
    scope: 'instance',
    input: Type.Object({ format: Type.Optional(Type.String({ description: '`base64text` for the JSON form; otherwise a PNG image.' })) }),
    output: Type.Object({ qrcode: Type.String(), status: Type.String() }),
    http: { method: 'GET', path: '/chatapp/scan', query: ['format'], message: 'QR code fetched successfully', respond: 'qrImage', errors: { 409: 'Connected or not started' } }
  }),
  'pairing.qr': op<QrViewT>()({ summary: 'The QR the instance shows now, as an image (UI)', tags: ['instances'], scope: 'instance', input: Empty, output: QrView, rpc: true }),
  'pairing.code': op<{ pairingCode: string; status: string }>()({
    summary: 'Pair by phone number (extension)',
    description: 'Answers a code to type on the phone (Linked devices → Link with phone number) once WhatsApp registered it; 409 with WhatsApp’s reason when it refuses. Needs init first.',
    tags: ['instances'],
    scope: 'instance',
    input: withoutCredentials(PairingCodeBody),
    output: Type.Object({ pairingCode: Type.String(), status: Type.String() }),
    http: { method: 'POST', path: '/chatapp/pairingCode', message: 'Pairing code generated successfully', errors: { 409: 'Not started, already linked, or refused by WhatsApp' } },
    rpc: true
  }),
  'instances.info': op<{ instance: InstanceT; reason: string | null; limits: SendLimits | null }>()({
    summary: 'Instance info',
    tags: ['instances'],
    scope: 'instance',
    input: Type.Object({ format: Type.Optional(Type.String({ description: 'Accepted for compatibility (the seed sends base64).' })) }),
    output: Type.Object({
      error: Type.Boolean(),
      message: Type.String(),
      instance_data: Type.Object({
        instance_key: Type.String(),
        phone_connected: Type.Boolean(),
        webhookUrl: Type.Union([Type.String(), Type.Null()]),
        user: Type.Object({ id: Type.String(), name: Type.String() }),
        status: Type.String(),
        status_reason: Type.Union([Type.String(), Type.Null()], { description: 'Why it is in that state (e.g. the last connection error).' }),
        limits: Type.Union([SendLimitsSchema, Type.Null()], {
          description:
            "WhatsApp's outreach limits on the number: capping of messages to people who have not answered, and the reach-out time lock. While either holds, messages to people who never wrote are refused with 409."
        })
      })
    }),
    http: {
      method: 'GET',
      path: '/chatapp/instance',
      query: ['format'],
      message: 'Status checked successfully',
      wire: ({ instance: inst, reason, limits }) => ({
        error: false,
        message: 'Instance fetched successfully',
        instance_data: {
          instance_key: inst.session_id,
          phone_connected: inst.settings.status === 'CONNECTED',
          webhookUrl: inst.settings.webhook.url,
          user: inst.settings.user ?? { id: '', name: '' },
          status: inst.settings.status,
          status_reason: reason,
          limits
        }
      })
    }
  }),
  'instances.health': op<{ reason: string | null; limits: SendLimits | null }>()({
    summary: 'Why the instance is in its state, and WhatsApp’s outreach limits (UI)',
    tags: ['instances'],
    scope: 'instance',
    input: Empty,
    output: Type.Object({ reason: Type.Union([Type.String(), Type.Null()]), limits: Type.Union([SendLimitsSchema, Type.Null()]) }),
    rpc: true
  }),
  'instances.logout': op<{ status: string }>()({
    summary: 'Log out (unlink the device, delete its credentials)',
    tags: ['instances'],
    scope: 'instance',
    input: Type.Object({ instanceId: Type.Optional(Id) }),
    output: Type.Object({ status: Type.String() }),
    http: {
      method: 'GET',
      path: '/chatapp/instance/logout/:instance_id',
      params: { instance_id: 'instanceId' },
      message: 'Logged out successfully',
      errors: { 404: 'The credentials do not belong to this instance' }
    },
    rpc: true
  }),

  /* ---------- instance settings (docs/api-seed.md §4.3) ---------- */

  'settings.updateGeneral': op<SettingsChangeT, UpdateResultT>()({
    summary: 'Bot name, time zone, language, default message',
    tags: ['instance settings'],
    scope: 'instance',
    input: withoutCredentials(UpdateGeneralBody),
    output: SettingsChange,
    http: { method: 'PUT', path: '/chatapp/updateGeneral', message: SETTINGS_UPDATED, soleInstanceWithoutCredentials: true, wire: updateResult, data: UpdateResult },
    rpc: { output: updateResult }
  }),
  'settings.updateActions': op<SettingsChangeT, UpdateResultT>()({
    summary: 'Behaviour flags',
    tags: ['instance settings'],
    scope: 'instance',
    input: withoutCredentials(UpdateActionsBody),
    output: SettingsChange,
    http: { method: 'PUT', path: '/chatapp/updateActions', message: SETTINGS_UPDATED, soleInstanceWithoutCredentials: true, wire: updateResult, data: UpdateResult },
    rpc: { output: updateResult }
  }),
  'settings.updateActiveDays': op<SettingsChangeT, UpdateResultT>()({
    summary: 'Days the bot answers',
    tags: ['instance settings'],
    scope: 'instance',
    input: withoutCredentials(UpdateActiveDaysBody),
    output: SettingsChange,
    http: { method: 'PUT', path: '/chatapp/updateActiveDays', message: SETTINGS_UPDATED, soleInstanceWithoutCredentials: true, wire: updateResult, data: UpdateResult },
    rpc: { output: updateResult }
  }),
  'settings.updateActiveHours': op<SettingsChangeT, UpdateResultT>()({
    summary: 'Hours the bot answers',
    description: '`H:MM`/`HH:MM` or `always` (both). `from` later than `to` is an overnight window.',
    tags: ['instance settings'],
    scope: 'instance',
    input: withoutCredentials(UpdateActiveHoursBody),
    output: SettingsChange,
    http: { method: 'PUT', path: '/chatapp/updateActiveHours', message: SETTINGS_UPDATED, soleInstanceWithoutCredentials: true, wire: updateResult, data: UpdateResult },
    rpc: { output: updateResult }
  }),
  'settings.setWebhook': op<SettingsChangeT, { webhook_url: string | null; events: string[]; requestConfig: Record<string, unknown>; secret: string; send_webhook: boolean }>()({
    summary: 'Webhook URL, events and request options',
    description: 'Deliveries are signed with the Standard Webhooks scheme using the answered `secret`. actions.send_webhook switches sending on or off.',
    tags: ['instance settings'],
    scope: 'instance',
    input: Type.Object({ ...withoutCredentials(SetWebhookBody).properties, requestConfig: Type.Optional(RequestConfig) }),
    output: SettingsChange,
    http: {
      method: 'PUT',
      path: '/chatapp/setWebhook',
      message: SETTINGS_UPDATED,
      wire: (c) => webhookView(c),
      data: Type.Object({ webhook_url: Type.String(), events: Type.Array(Type.String()), requestConfig: RequestConfig, secret: Type.String(), send_webhook: Type.Boolean() })
    },
    rpc: { output: webhookView }
  }),

  /* ---------- intents (docs/api-seed.md §4.2) ---------- */

  'intents.create': op<IntentT>()({
    summary: 'Create an intent',
    tags: ['intents'],
    scope: 'instance',
    input: withoutCredentials(CreateIntentBody),
    output: Intent,
    http: { method: 'POST', path: '/intent', message: 'Intent created successfully!' },
    rpc: true
  }),
  'intents.list': op<PagedT<IntentT>, IntentT[]>()({
    summary: "The instance's intents",
    tags: ['intents'],
    scope: 'instance',
    input: Page,
    output: Type.Array(Intent),
    http: { method: 'GET', path: '/intent', message: 'Intent fetched successfully!', query: ['offset', 'limit'], respond: 'paged' },
    rpc: { output: items }
  }),
  'intents.get': op<IntentT>()({
    summary: 'One intent',
    tags: ['intents'],
    scope: 'instance',
    input: Type.Object({ id: Id }),
    output: Intent,
    http: { method: 'GET', path: '/intent/:intent_id', params: { intent_id: 'id' }, message: 'Intent fetched successfully!', errors: { 404: 'Unknown intent (or another instance’s)' } }
  }),
  'intents.update': op<IntentT>()({
    summary: 'Update an intent',
    tags: ['intents'],
    scope: 'instance',
    input: Type.Object({ id: Id, ...withoutCredentials(UpdateIntentBody).properties }),
    output: Intent,
    http: { method: 'PUT', path: '/intent/:intent_id', params: { intent_id: 'id' }, message: 'Intent updated successfully!', errors: { 404: 'Unknown intent (or another instance’s)' } },
    rpc: true
  }),
  'intents.delete': op<void, DeleteResultT>()({
    summary: 'Delete an intent',
    tags: ['intents'],
    scope: 'instance',
    input: Type.Object({ id: Id }),
    output: DeleteResult,
    http: { method: 'DELETE', path: '/intent/:intent_id', params: { intent_id: 'id' }, message: 'Intent deleted successfully!', wire: deleted, errors: { 404: 'Unknown intent (or another instance’s)' } },
    rpc: { output: deleted }
  }),

  /* ---------- surveys (docs/api-seed.md §4.1, docs/design.md §9) ---------- */

  'surveys.create': op<SurveyT>()({
    summary: 'Create a survey step',
    description: 'Steps with the same title form one survey, ordered by sort_id. The first step’s keyword lists its triggers; a later step’s non-empty keyword lists the answers it accepts.',
    tags: ['surveys'],
    scope: 'instance',
    input: withoutCredentials(CreateSurveyBody),
    output: Survey,
    http: { method: 'POST', path: '/survey', message: 'Survey created successfully!' },
    rpc: true
  }),
  'surveys.list': op<PagedT<SurveyT>, SurveyT[]>()({
    summary: "The instance's survey steps, grouped by title, in order",
    tags: ['surveys'],
    scope: 'instance',
    input: Page,
    output: Type.Array(Survey),
    http: { method: 'GET', path: '/survey', message: 'Survey fetched successfully!', query: ['offset', 'limit'], respond: 'paged' },
    rpc: { output: items }
  }),
  'surveys.get': op<SurveyT>()({
    summary: 'One survey step',
    tags: ['surveys'],
    scope: 'instance',
    input: Type.Object({ id: Id }),
    output: Survey,
    http: { method: 'GET', path: '/survey/:survey_id', params: { survey_id: 'id' }, message: 'Survey fetched successfully!', errors: { 404: 'Unknown survey step (or another instance’s)' } }
  }),
  'surveys.update': op<SurveyT>()({
    summary: 'Update a survey step',
    tags: ['surveys'],
    scope: 'instance',
    input: Type.Object({ id: Id, ...withoutCredentials(UpdateSurveyBody).properties }),
    output: Survey,
    http: { method: 'PUT', path: '/survey/:survey_id', params: { survey_id: 'id' }, message: 'Survey updated successfully!', errors: { 404: 'Unknown survey step (or another instance’s)' } },
    rpc: true
  }),
  'surveys.delete': op<void, DeleteResultT>()({
    summary: 'Delete a survey step',
    tags: ['surveys'],
    scope: 'instance',
    input: Type.Object({ id: Id }),
    output: DeleteResult,
    http: { method: 'DELETE', path: '/survey/:survey_id', params: { survey_id: 'id' }, message: 'Survey deleted successfully!', wire: deleted, errors: { 404: 'Unknown survey step (or another instance’s)' } },
    rpc: { output: deleted }
  }),
  'surveys.reorder': op<SurveyT[]>()({
    summary: 'Gives the steps of one survey sort_ids 1..n in the order given (UI)',
    tags: ['surveys'],
    scope: 'instance',
    input: Type.Object({ stepIds: Type.Array(Id, { minItems: 1 }) }),
    output: Type.Array(Survey),
    rpc: true
  }),
  'surveys.markHandled': op<SurveyResponseT>()({
    summary: 'Mark a survey response as handled (or not)',
    tags: ['surveys'],
    scope: 'instance',
    input: Type.Object({ run_id: Id, handled: Type.Boolean() }),
    output: SurveyResponse,
    http: { method: 'PUT', path: '/survey/response/:run_id', params: { run_id: 'run_id' }, message: 'Survey response updated successfully!', errors: { 404: 'Unknown response (or another instance’s)' } },
    rpc: true
  }),
  'surveys.responses': op<SurveyResponseT[] | { fileName: string; csv: string }, SurveyResponseT[]>()({
    summary: 'Runs of the survey a step belongs to (format=csv for a spreadsheet)',
    tags: ['surveys'],
    scope: 'instance',
    input: Type.Object({ id: Id, format: Type.Optional(Type.Union([Type.Literal('json'), Type.Literal('csv')])) }),
    output: Type.Array(SurveyResponse),
    http: {
      method: 'GET',
      path: '/survey/:survey_id/responses',
      params: { survey_id: 'id' },
      query: ['format'],
      message: 'Survey responses fetched successfully!',
      respond: 'csvWhenAsked',
      errors: { 404: 'Unknown survey step (or another instance’s)' }
    },
    rpc: { output: responsesOnly }
  }),
  'surveys.responsesCsv': op<{ fileName: string; csv: string }>()({
    summary: 'The same runs as CSV: one row per run, one column per question (UI)',
    tags: ['surveys'],
    scope: 'instance',
    input: Type.Object({ id: Id }),
    output: Type.Object({ fileName: Type.String(), csv: Type.String() }),
    rpc: true
  }),

  /* ---------- attachments (docs/design.md §8) ---------- */

  'attachments.uploadFile': op<AttachmentT>()({
    summary: 'Upload a file',
    tags: ['attachments'],
    scope: 'instance',
    input: Type.Object({ file: UploadedFile }),
    output: Attachment,
    http: { method: 'POST', path: '/attachment', multipart: { file: 'required' }, message: 'Attachment uploaded successfully!', errors: { 413: 'File over the limit' } }
  }),
  'attachments.upload': op<AttachmentT>()({
    summary: 'Upload a file given as base64 (UI: both transports carry JSON)',
    tags: ['attachments'],
    scope: 'instance',
    input: Type.Object({ filename: Type.String({ minLength: 1, maxLength: 255 }), mimetype: Type.Optional(Type.String()), dataBase64: Type.String() }),
    output: Attachment,
    rpc: true
  }),
  'attachments.list': op<PagedT<AttachmentT>, AttachmentT[]>()({
    summary: "The instance's attachments",
    tags: ['attachments'],
    scope: 'instance',
    input: Page,
    output: Type.Array(Attachment),
    http: { method: 'GET', path: '/attachment', message: 'Attachment fetched successfully!', query: ['offset', 'limit'], respond: 'paged' },
    rpc: { output: items }
  }),
  'attachments.get': op<AttachmentT>()({
    summary: 'One attachment record',
    tags: ['attachments'],
    scope: 'instance',
    input: Type.Object({ id: Id }),
    output: Attachment,
    http: { method: 'GET', path: '/attachment/:attachment_id', params: { attachment_id: 'id' }, message: 'Attachment fetched successfully!', errors: { 404: 'Unknown attachment (or another instance’s)' } }
  }),
  'attachments.file': op<{ attachment: AttachmentT; path: string }>()({
    summary: 'The attachment bytes',
    tags: ['attachments'],
    scope: 'instance',
    input: Type.Object({ id: Id }),
    output: Type.String({ format: 'binary' }),
    http: { method: 'GET', path: '/attachment/:attachment_id/file', params: { attachment_id: 'id' }, message: '', respond: 'attachmentFile', errors: { 404: 'Unknown attachment (or another instance’s)' } }
  }),
  'attachments.delete': op<void, DeleteResultT>()({
    summary: 'Delete an attachment',
    tags: ['attachments'],
    scope: 'instance',
    input: Type.Object({ id: Id }),
    output: DeleteResult,
    http: { method: 'DELETE', path: '/attachment/:attachment_id', params: { attachment_id: 'id' }, message: 'Attachment deleted successfully!', wire: deleted, errors: { 404: 'Unknown attachment (or another instance’s)' } },
    rpc: { output: deleted }
  }),

  /* ---------- messages (docs/api-seed.md §4.5, docs/design.md §6–§7) ---------- */

  'messages.sendText': op<TextSendResultT, { sent: number }>()({
    summary: 'Send a text (with attachments, location, contact)',
    tags: ['messages'],
    scope: 'instance',
    input: withoutCredentials(SendTextBody),
    output: TextSendResult,
    http: { method: 'POST', path: '/chatapp/message', message: SENT, errors: SEND_ERRORS },
    rpc: { output: sentCount }
  }),
  'messages.sendImage': mediaOperation('/chatapp/message/image', MediaFields, 'Send an image'),
  'messages.sendVideo': mediaOperation('/chatapp/message/video', MediaFields, 'Send a video'),
  'messages.sendAudio': mediaOperation('/chatapp/message/audio', AudioFields, 'Send audio (ptt=true for a voice note)'),
  'messages.sendDocument': mediaOperation('/chatapp/message/doc', DocFields, 'Send a document'),
  'messages.sendMedia': op<SentMessageT, { id: string }>()({
    summary: 'Send a stored attachment as an image, video, audio or document message (UI)',
    tags: ['messages'],
    scope: 'instance',
    input: Type.Object({
      chatId: SendTextBody.properties.chatId,
      kind: MediaKind,
      attachmentId: Id,
      caption: Type.Optional(Type.String({ maxLength: 4096 })),
      voiceNote: Type.Optional(Type.Boolean())
    }),
    output: SentMessage,
    rpc: { output: sentId }
  }),
  'messages.sendFileUrl': op<SentMessageT, { id: string }>()({
    summary: 'Send a file downloaded from a URL',
    description: 'Multipart form (or JSON). The file is downloaded with a timeout and the file size limit.',
    tags: ['messages'],
    scope: 'instance',
    input: withoutCredentials(FileUrlFields),
    output: SentMessage,
    http: { method: 'POST', path: '/chatapp/message/fileurl', multipart: { file: 'none', alsoJson: true }, message: SENT, errors: MEDIA_ERRORS },
    rpc: { output: sentId }
  }),
  'messages.sendButtons': op<SentMessageT, { id: string }>()({
    summary: 'Send buttons (delivered as numbered text)',
    tags: ['messages'],
    scope: 'instance',
    input: withoutCredentials(SendButtonsBody),
    output: SentMessage,
    http: { method: 'POST', path: '/chatapp/message/button', message: SENT, errors: SEND_ERRORS },
    rpc: { output: sentId }
  }),
  'messages.sendContact': op<SentMessageT, { id: string }>()({
    summary: 'Send a contact card (vCard)',
    tags: ['messages'],
    scope: 'instance',
    input: withoutCredentials(SendContactBody),
    output: SentMessage,
    http: { method: 'POST', path: '/chatapp/message/contact', message: SENT, errors: SEND_ERRORS },
    rpc: { output: sentId }
  }),
  'messages.sendList': op<SentMessageT, { id: string }>()({
    summary: 'Send a list (delivered as numbered text)',
    tags: ['messages'],
    scope: 'instance',
    input: withoutCredentials(SendListBody),
    output: SentMessage,
    http: { method: 'POST', path: '/chatapp/message/list', message: SENT, errors: SEND_ERRORS },
    rpc: { output: sentId }
  }),
  'messages.sendMediaButtons': op<SentMessageT, { id: string }>()({
    summary: 'Send an image with buttons (the buttons as its caption)',
    tags: ['messages'],
    scope: 'instance',
    input: withoutCredentials(SendMediaButtonBody),
    output: SentMessage,
    http: { method: 'POST', path: '/chatapp/message/MediaButton', message: SENT, errors: MEDIA_ERRORS },
    rpc: { output: sentId }
  }),
  'messages.sendTextDeprecated': op<SentMessageT>()({
    summary: 'Send a text (deprecated; use /chatapp/message)',
    tags: ['messages'],
    scope: 'instance',
    input: withoutCredentials(SendTextDeprecatedBody),
    output: Type.String({ description: 'Id of the sent message.' }),
    http: { method: 'POST', path: '/chatapp/message/sendText', aliases: ['/chatapp/sendText'], deprecated: true, message: SENT, wire: (s) => s.key.id, errors: SEND_ERRORS }
  }),
  'messages.media': op<{ data: Uint8Array; mimetype: string; fileName?: string }>()({
    summary: 'The file of an inbound media message (downloaded on demand)',
    tags: ['messages'],
    scope: 'instance',
    input: Type.Object({ id: Id }),
    output: Type.String({ format: 'binary' }),
    http: {
      method: 'GET',
      path: '/chatapp/messages/:message_id/media',
      params: { message_id: 'id' },
      message: '',
      respond: 'mediaFile',
      errors: { 404: 'No such message, no media, or no longer available', 409: 'Instance not started' }
    }
  }),
  'messageLog.list': op<PagedT<MessageLogRecordT>, MessageLogRecordT[]>()({
    summary: 'The message log, newest first, a page at a time (the original service’s shape)',
    description: '`type=all`: every instance of the account; else this instance. `page` from 1, `limit` 1–100 (default 10). `X-Total-Count` holds the number of entries.',
    tags: ['messages'],
    scope: 'instance',
    input: Type.Object({
      type: Type.Optional(Type.Literal('all')),
      page: Type.Optional(Type.Integer({ minimum: 1, default: 1 })),
      limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 10 }))
    }),
    output: Type.Array(MessageLogRecord),
    http: { method: 'GET', path: '/message-log', query: ['type', 'page', 'limit'], message: 'Message log fetched successfully!', respond: 'paged' },
    rpc: { output: items }
  }),
  'messageLog.get': op<MessageLogRecordT>()({
    summary: 'One message log entry (the original service’s shape)',
    description: 'An entry of any instance of the account.',
    tags: ['messages'],
    scope: 'instance',
    input: Type.Object({ id: Id }),
    output: MessageLogRecord,
    http: { method: 'GET', path: '/message-log/:message_id', params: { message_id: 'id' }, message: 'Message log fetched successfully!', errors: { 404: 'No such message in the log' } },
    rpc: true
  }),
  'messages.preview': op<{ dataUrl: string | null }>()({
    summary: 'A small JPEG preview of an inbound image (UI)',
    tags: ['messages'],
    scope: 'instance',
    input: Type.Object({ id: Id }),
    output: Type.Object({ dataUrl: Type.Union([Type.String(), Type.Null()], { description: '`data:image/jpeg;base64,…`, ≤ 320 px wide; null for other media.' }) }),
    rpc: true
  }),
  'messages.list': op<LoggedMessageT[]>()({
    summary: 'The message log (extension), newest last',
    tags: ['messages'],
    scope: 'instance',
    input: Type.Object({
      chatId: Type.Optional(Type.String()),
      limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, default: 100 })),
      before: Type.Optional(Type.Integer({ minimum: 0, description: 'Epoch ms: entries older than this.' }))
    }),
    output: Type.Array(LoggedMessage),
    http: { method: 'GET', path: '/chatapp/messages', query: ['chatId', 'limit', 'before'], message: 'Messages fetched successfully!' },
    rpc: true
  }),

  /* ---------- contacts and contact groups (issue 14 §1–2, the original service's shapes) ---------- */

  'contacts.create': op<ContactT>()({
    summary: 'Create a contact',
    tags: ['contacts'],
    scope: 'instance',
    input: ContactFields,
    output: Contact,
    http: { method: 'POST', path: '/contact', message: 'Contact created successfully!' },
    rpc: true
  }),
  'contacts.list': op<PagedT<ContactT>, ContactT[]>()({
    summary: 'The contacts of this instance (`type=all`: of the account)',
    tags: ['contacts'],
    scope: 'instance',
    input: Type.Object({ type: Type.Optional(Type.Literal('all')), ...Page.properties }),
    output: Type.Array(Contact),
    http: { method: 'GET', path: '/contact', query: ['type', 'offset', 'limit'], message: 'Contact fetched successfully!', respond: 'paged' },
    rpc: { output: items }
  }),
  'contacts.get': op<ContactT>()({
    summary: 'One contact',
    tags: ['contacts'],
    scope: 'instance',
    input: Type.Object({ id: Id }),
    output: Contact,
    http: { method: 'GET', path: '/contact/:contact_id', params: { contact_id: 'id' }, message: 'Contact fetched successfully!', errors: { 404: 'Unknown contact' } },
    rpc: true
  }),
  'contacts.update': op<ContactT>()({
    summary: 'Change a contact',
    tags: ['contacts'],
    scope: 'instance',
    input: Type.Object({ id: Id, ...Type.Partial(ContactFields).properties }),
    output: Contact,
    http: { method: 'PUT', path: '/contact/:contact_id', params: { contact_id: 'id' }, message: 'Contact updated successfully!', errors: { 404: 'Unknown contact' } },
    rpc: true
  }),
  'contacts.delete': op<void, DeleteResultT>()({
    summary: 'Delete a contact',
    tags: ['contacts'],
    scope: 'instance',
    input: Type.Object({ id: Id }),
    output: DeleteResult,
    http: { method: 'DELETE', path: '/contact/:contact_id', params: { contact_id: 'id' }, message: 'Contact deleted successfully!', wire: deleted, errors: { 404: 'Unknown contact' } },
    rpc: { output: deleted }
  }),
  'contacts.import': op<ImportReportT>()({
    summary: 'Import contacts from a CSV file (with a column mapping; refused rows say why)',
    description:
      'The first line names the columns; `,` or `;` separated. Columns are found by their usual names (name, number/phone/mobile, labels/tags, notes) unless `mapping` names them. Numbers already saved are left as they are (`existing`); each refused row comes back with its line number and the reason. `group_id` puts every imported contact in that group.',
    tags: ['contacts'],
    scope: 'instance',
    input: Type.Object({
      csv: Type.String({ minLength: 1, maxLength: 5_000_000, description: 'The file’s text (UTF-8).' }),
      mapping: Type.Optional(Type.Object({ name: Type.Optional(Type.String()), number: Type.Optional(Type.String()), labels: Type.Optional(Type.String()), notes: Type.Optional(Type.String()) }, { additionalProperties: false })),
      group_id: Type.Optional(Type.Union([Id, Type.Null()]))
    }, { examples: [{ csv: 'name,phone\nAda,+39 333 1234567\nBo,+39 333 7654321', mapping: { number: 'phone' } }] }),
    output: ImportReport,
    http: { method: 'POST', path: '/contact/import', message: 'Contacts imported successfully!', bodyLimit: 'file' },
    rpc: true
  }),
  'contacts.export': op<{ fileName: string; csv: string }>()({
    summary: 'The contacts as a CSV file (`type=all`: of the account)',
    tags: ['contacts'],
    scope: 'instance',
    input: Type.Object({ type: Type.Optional(Type.Literal('all')) }),
    output: Type.Object({ fileName: Type.String(), csv: Type.String() }),
    http: { method: 'GET', path: '/contact/export', query: ['type'], message: 'Contacts exported successfully!', respond: 'csvWhenAsked' },
    rpc: true
  }),
  'labels.list': op<readonly LabelT[]>()({
    summary: 'The labels (name and colour) of contacts and conversations',
    tags: ['contacts'],
    scope: 'account',
    input: Empty,
    output: Type.Array(Label),
    http: { method: 'GET', path: '/label', message: 'Labels fetched successfully!' },
    rpc: true
  }),
  'labels.create': op<LabelT>()({
    summary: 'Make a label',
    tags: ['contacts'],
    scope: 'account',
    input: Type.Object({ name: Label.properties.name, color: Type.Optional(Label.properties.color) }),
    output: Label,
    http: { method: 'POST', path: '/label', message: 'Label created successfully!', errors: { 409: 'A label with that name exists' } },
    rpc: true
  }),
  'labels.update': op<LabelT>()({
    summary: 'Rename (on every contact too) or recolour a label',
    tags: ['contacts'],
    scope: 'account',
    input: Type.Object({ id: Id, name: Type.Optional(Label.properties.name), color: Type.Optional(Label.properties.color) }),
    output: Label,
    http: { method: 'PUT', path: '/label/:label_id', params: { label_id: 'id' }, message: 'Label updated successfully!', errors: { 404: 'Unknown label', 409: 'A label with that name exists' } },
    rpc: true
  }),
  'labels.delete': op<void, DeleteResultT>()({
    summary: 'Delete a label (it comes off every contact)',
    tags: ['contacts'],
    scope: 'account',
    input: Type.Object({ id: Id }),
    output: DeleteResult,
    http: { method: 'DELETE', path: '/label/:label_id', params: { label_id: 'id' }, message: 'Label deleted successfully!', wire: deleted, errors: { 404: 'Unknown label' } },
    rpc: { output: deleted }
  }),
  'contactGroups.create': op<ContactGroupT>()({
    summary: 'Create a contact group',
    tags: ['contacts'],
    scope: 'instance',
    input: Type.Object({ title: Type.String({ minLength: 1, maxLength: 100 }) }),
    output: ContactGroup,
    http: { method: 'POST', path: '/contact_groups', message: 'ContactGroup group created successfully!' },
    rpc: true
  }),
  'contactGroups.list': op<readonly ContactGroupT[]>()({
    summary: 'The contact groups of this instance (`type=all`: of the account)',
    tags: ['contacts'],
    scope: 'instance',
    input: Type.Object({ type: Type.Optional(Type.Literal('all')) }),
    output: Type.Array(ContactGroup),
    http: { method: 'GET', path: '/contact_groups', query: ['type'], message: 'ContactGroup group fetched successfully!' },
    rpc: true
  }),
  'contactGroups.get': op<ContactGroupT>()({
    summary: 'One contact group',
    tags: ['contacts'],
    scope: 'instance',
    input: Type.Object({ id: Id }),
    output: ContactGroup,
    http: { method: 'GET', path: '/contact_groups/:group_id', params: { group_id: 'id' }, message: 'ContactGroup group fetched successfully!', errors: { 404: 'Unknown contact group' } },
    rpc: true
  }),
  'contactGroups.update': op<ContactGroupT>()({
    summary: 'Rename a contact group',
    tags: ['contacts'],
    scope: 'instance',
    input: Type.Object({ id: Id, title: Type.String({ minLength: 1, maxLength: 100 }) }),
    output: ContactGroup,
    http: { method: 'PUT', path: '/contact_groups/:group_id', params: { group_id: 'id' }, message: 'ContactGroup group updated successfully!', errors: { 404: 'Unknown contact group' } },
    rpc: true
  }),
  'contactGroups.delete': op<void, DeleteResultT>()({
    summary: 'Delete a contact group (its contacts stay, in no group)',
    tags: ['contacts'],
    scope: 'instance',
    input: Type.Object({ id: Id }),
    output: DeleteResult,
    http: { method: 'DELETE', path: '/contact_groups/:group_id', params: { group_id: 'id' }, message: 'ContactGroup group deleted successfully!', wire: deleted, errors: { 404: 'Unknown contact group' } },
    rpc: { output: deleted }
  }),

  /* ---------- the inbox (issue 13 §1, docs/design.md §15) ---------- */

  'inbox.list': op<ConversationT[]>()({
    summary: 'Conversations of every instance (or one), newest activity first',
    description:
      'Each with the customer’s name and number, the last message, the unread count, whether it is unanswered (the last message is the customer’s), open or resolved, and the hand-off pause if the bot is paused for it. `q` searches names, numbers and the text of kept messages.',
    tags: ['inbox'],
    scope: 'account',
    input: Type.Object({
      instance_id: Type.Optional(Type.String({ minLength: 1, description: 'Only this instance (default: every instance).' })),
      status: Type.Optional(Type.Union([Type.Literal('open'), Type.Literal('resolved'), Type.Literal('all')], { default: 'all' })),
      unanswered: Type.Optional(Type.Boolean({ description: 'Only chats waiting for an answer.' })),
      q: Type.Optional(Type.String({ maxLength: 200 })),
      label: Type.Optional(Type.String({ maxLength: 40, description: 'Only chats whose contact has this label.' })),
      limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 500, default: 100 }))
    }),
    output: Type.Array(Conversation),
    http: { method: 'GET', path: '/chatapp/inbox', query: ['instance_id', 'status', 'unanswered', 'q', 'label', 'limit'], message: 'Conversations fetched successfully!', bodyOptional: true, errors: { 404: 'Unknown instance_id' } },
    rpc: true
  }),
  'inbox.labels': op<ContactT>()({
    summary: 'Put labels on a conversation (its customer’s contact; made if needed)',
    description: 'Replaces the labels of the 1:1 chat’s contact; labels that do not exist yet are made with the next colour.',
    tags: ['inbox'],
    scope: 'instance',
    input: Type.Object({ chatId: Type.String({ minLength: 1 }), labels: Type.Array(Type.String({ minLength: 1, maxLength: 40 }), { maxItems: 20 }) }),
    output: Contact,
    http: { method: 'PUT', path: '/chatapp/inbox/labels', message: 'Conversation labels updated', errors: { 400: 'Not a 1:1 chat with a phone number' } },
    rpc: true
  }),
  'inbox.read': op<{ chatId: string; read: number; receipts: boolean }>()({
    summary: 'Mark a conversation read (sends read receipts)',
    description:
      'Clears the unread count and sends WhatsApp read receipts for the customer’s unread messages (blue ticks, if the account shares read receipts). `receipts` is false when the instance was not connected: the chat is still marked read here.',
    tags: ['inbox'],
    scope: 'instance',
    input: Type.Object({ chatId: Type.String({ minLength: 1 }) }),
    output: Type.Object({ chatId: Type.String(), read: Type.Integer({ description: 'Messages newly marked read.' }), receipts: Type.Boolean() }),
    http: { method: 'POST', path: '/chatapp/inbox/read', message: 'Conversation marked as read.', errors: { 404: 'No messages with this chat' } },
    rpc: true
  }),
  'inbox.resolve': op<ConversationT>()({
    summary: 'Resolve a conversation (the bot answers it again)',
    description: 'Resolved until the customer writes again. Ends a hand-off pause of the chat.',
    tags: ['inbox'],
    scope: 'instance',
    input: Type.Object({ chatId: Type.String({ minLength: 1 }) }),
    output: Conversation,
    http: { method: 'POST', path: '/chatapp/inbox/resolve', message: 'Conversation resolved.', errors: { 404: 'No messages with this chat' } },
    rpc: true
  }),
  'inbox.reopen': op<ConversationT>()({
    summary: 'Reopen a resolved conversation',
    tags: ['inbox'],
    scope: 'instance',
    input: Type.Object({ chatId: Type.String({ minLength: 1 }) }),
    output: Conversation,
    http: { method: 'POST', path: '/chatapp/inbox/reopen', message: 'Conversation reopened.', errors: { 404: 'No messages with this chat' } },
    rpc: true
  }),
  'quickReplies.list': op<readonly QuickReplyT[]>()({
    summary: 'The desk’s quick replies, by shortcut',
    tags: ['inbox'],
    scope: 'account',
    input: Empty,
    output: Type.Array(QuickReply),
    http: { method: 'GET', path: '/quick-reply', message: 'Quick replies fetched successfully!', bodyOptional: true },
    rpc: true
  }),
  'quickReplies.create': op<QuickReplyT>()({
    summary: 'Save a quick reply',
    description: 'Typing `/shortcut` in the desk’s composer inserts `text`. Shortcuts are unique.',
    tags: ['inbox'],
    scope: 'account',
    input: Type.Pick(QuickReply, ['shortcut', 'text']),
    output: QuickReply,
    http: { method: 'POST', path: '/quick-reply', message: 'Quick reply created successfully!', errors: { 409: 'That shortcut is taken' } },
    rpc: true
  }),
  'quickReplies.update': op<QuickReplyT>()({
    summary: 'Change a quick reply',
    tags: ['inbox'],
    scope: 'account',
    input: Type.Object({ id: Id, ...Type.Partial(Type.Pick(QuickReply, ['shortcut', 'text'])).properties }),
    output: QuickReply,
    http: { method: 'PUT', path: '/quick-reply/:quick_reply_id', params: { quick_reply_id: 'id' }, message: 'Quick reply updated successfully!', errors: { 404: 'Unknown quick reply', 409: 'That shortcut is taken' } },
    rpc: true
  }),
  'quickReplies.delete': op<void, DeleteResultT>()({
    summary: 'Delete a quick reply',
    tags: ['inbox'],
    scope: 'account',
    input: Type.Object({ id: Id }),
    output: DeleteResult,
    http: { method: 'DELETE', path: '/quick-reply/:quick_reply_id', params: { quick_reply_id: 'id' }, message: 'Quick reply deleted successfully!', wire: deleted, errors: { 404: 'Unknown quick reply' } },
    rpc: { output: deleted }
  }),

  /* ---------- outreach: broadcasts, scheduled messages, the send governor (issue 14 §3–5, docs/design.md §18) ---------- */

  'broadcasts.create': op<BroadcastViewT>()({
    summary: 'Send one message to many people, behind the send governor',
    description:
      '`send_type` `individual` with `to` a comma-separated list of numbers, or `group` with `to` (or `group_id`) a contact group id. `message.text` takes spintax ({Hi|Hello}) and [name]. Opted-out contacts and numbers not on WhatsApp are skipped with the reason; each recipient gets it at most once, also across restarts.',
    tags: ['broadcasts'],
    scope: 'instance',
    input: Type.Object(
      {
        send_type: Type.Union([Type.Literal('individual'), Type.Literal('group')]),
        to: Type.Optional(Type.String({ minLength: 1, maxLength: 200_000 })),
        group_id: Type.Optional(Id),
        message: OutreachMessage
      },
      { examples: [{ send_type: 'individual', to: '2348179803743,2349048988056', message: { text: '{Hi|Hello} [name], our new menu is out!' } }] }
    ),
    output: BroadcastView,
    http: { method: 'POST', path: '/broadcast', message: 'Broadcast group created successfully!' },
    rpc: true
  }),
  'broadcasts.list': op<BroadcastViewT[]>()({
    summary: 'The broadcasts of this instance, newest first, with their progress',
    tags: ['broadcasts'],
    scope: 'instance',
    input: Empty,
    output: Type.Array(BroadcastView),
    http: { method: 'GET', path: '/broadcast', message: 'Broadcast fetched successfully!' },
    rpc: true
  }),
  'broadcasts.get': op<BroadcastViewT>()({
    summary: 'One broadcast and its progress',
    tags: ['broadcasts'],
    scope: 'instance',
    input: Type.Object({ id: Id }),
    output: BroadcastView,
    http: { method: 'GET', path: '/broadcast/:broadcast_id', params: { broadcast_id: 'id' }, message: 'Broadcast fetched successfully!', errors: { 404: 'Unknown broadcast' } },
    rpc: true
  }),
  'broadcasts.delete': op<void, { deleted: true }>()({
    summary: 'Delete a broadcast (what is pending is never sent); answers 204',
    tags: ['broadcasts'],
    scope: 'instance',
    input: Type.Object({ id: Id }),
    output: Type.Null(),
    http: { method: 'DELETE', path: '/broadcast/:broadcast_id', params: { broadcast_id: 'id' }, message: 'Broadcast deleted successfully!', respond: 'noContent', errors: { 404: 'Unknown broadcast' } },
    rpc: { output: () => ({ deleted: true }) }
  }),
  'broadcasts.pause': broadcastControl('pause', 'Pause a sending broadcast', 'Broadcast paused', 'Done or cancelled'),
  'broadcasts.resume': broadcastControl('resume', 'Resume a paused broadcast (it pauses again while WhatsApp still caps the number)', 'Broadcast resumed', 'Done or cancelled'),
  'broadcasts.cancel': broadcastControl('cancel', 'Cancel a broadcast: what is pending is never sent', 'Broadcast cancelled', 'Already done'),
  'schedules.create': op<ScheduledMessageT>()({
    summary: 'Schedule a message: once, daily, weekly or monthly, at a local time',
    description:
      '`target`: `{type: "contact"|"group"|"chat", id}`. `start_at` is local wall-clock time in bot_timezone (`YYYY-MM-DDTHH:MM`); recurring runs keep its time of day across DST changes (weekly: on `days`, default its weekday; monthly: its day of the month, or the last day of shorter months). Each run starts a broadcast, so the send governor and quiet hours apply.',
    tags: ['scheduled messages'],
    scope: 'instance',
    input: Type.Object(ScheduleFields.properties, {
      examples: [{ title: 'Weekend menu', target: { type: 'group', id: '64ac311eee05a1a2c27fbdb5' }, message: { text: 'Hi [name], this weekend: {pizza|pasta} night!' }, repeat: 'weekly', start_at: '2026-11-27T10:00', days: ['friday'] }]
    }),
    output: ScheduledMessage,
    http: { method: 'POST', path: '/schedule', message: 'Scheduled message created successfully!' },
    rpc: true
  }),
  'schedules.list': op<readonly ScheduledMessageT[]>()({
    summary: 'The scheduled messages of this instance, soonest first',
    tags: ['scheduled messages'],
    scope: 'instance',
    input: Empty,
    output: Type.Array(ScheduledMessage),
    http: { method: 'GET', path: '/schedule', message: 'Scheduled messages fetched successfully!' },
    rpc: true
  }),
  'schedules.update': op<ScheduledMessageT>()({
    summary: 'Change a scheduled message (`active: false` pauses it)',
    tags: ['scheduled messages'],
    scope: 'instance',
    input: Type.Object({ id: Id, ...Type.Partial(ScheduleFields).properties }),
    output: ScheduledMessage,
    http: { method: 'PUT', path: '/schedule/:schedule_id', params: { schedule_id: 'id' }, message: 'Scheduled message updated successfully!', errors: { 404: 'Unknown scheduled message' } },
    rpc: true
  }),
  'schedules.delete': op<void, DeleteResultT>()({
    summary: 'Delete a scheduled message',
    tags: ['scheduled messages'],
    scope: 'instance',
    input: Type.Object({ id: Id }),
    output: DeleteResult,
    http: { method: 'DELETE', path: '/schedule/:schedule_id', params: { schedule_id: 'id' }, message: 'Scheduled message deleted successfully!', wire: deleted, errors: { 404: 'Unknown scheduled message' } },
    rpc: { output: deleted }
  }),
  'outreach.status': op<OutreachStatusT>()({
    summary: 'The send governor of this number: its settings, what it counted, and when the next outreach message may leave',
    tags: ['broadcasts'],
    scope: 'instance',
    input: Empty,
    output: OutreachStatus,
    http: { method: 'GET', path: '/chatapp/outreach', message: 'Outreach status fetched successfully!' },
    rpc: true
  }),
  'settings.outreach': op<OutreachSettingsT>()({
    summary: 'The send governor’s settings: quotas, random gaps, quiet hours, the number’s age, cooldown',
    description: 'Applies to broadcasts and scheduled messages only; bot and owner replies are never held. Defaults and their sources: docs/design.md §18.',
    tags: ['broadcasts'],
    scope: 'instance',
    input: Type.Partial(OutreachSettings),
    output: OutreachSettings,
    http: { method: 'PUT', path: '/chatapp/outreach', message: SETTINGS_UPDATED, errors: { 400: 'A bad value, or min_gap_seconds above max_gap_seconds' } },
    rpc: true
  }),

  /* ---------- sandbox (docs/design.md §6) ---------- */

  'pairing.sandboxScan': op<{ status: string; bot_number: string; user: { id: string; name: string } }>()({
    summary: 'Simulate the phone scanning the QR code',
    tags: ['sandbox'],
    scope: 'instance',
    input: Empty,
    output: Type.Object({ status: Type.String(), bot_number: Type.String(), user: Type.Object({ id: Type.String(), name: Type.String() }) }),
    http: { method: 'POST', path: '/chatapp/sandbox/scan', message: 'Sandbox device linked successfully!', bodyOptional: true, errors: { 409: 'Not a sandbox instance, not started, or already linked' } },
    rpc: true
  }),
  'sandbox.removeDevice': op<{ status: string }>()({
    summary: 'Simulate the phone removing this linked device',
    description: 'As the owner tapping Log out under Linked devices: the instance ends LOGGED_OUT with WhatsApp’s reason (notifications and the UI banner follow).',
    tags: ['sandbox'],
    scope: 'instance',
    input: Empty,
    output: Type.Object({ status: Type.String() }),
    http: { method: 'POST', path: '/chatapp/sandbox/removeDevice', message: 'Sandbox device removed.', bodyOptional: true, errors: { 409: 'Not a connected sandbox instance' } },
    rpc: true
  }),
  'sandbox.network': op<{ status: string }>()({
    summary: 'What the simulated WhatsApp says: numbers not on WhatsApp, the account’s outreach limits',
    description: 'Sends to a number in `notOnWhatsApp` fail as on the real network; `limits` is reported as WhatsApp’s `message-capping.update` or reach-out lock would be.',
    tags: ['sandbox'],
    scope: 'instance',
    input: Type.Object({ notOnWhatsApp: Type.Optional(Type.Array(Type.String(), { maxItems: 1000 })), limits: Type.Optional(SendLimitsSchema) }),
    output: Type.Object({ status: Type.String() }),
    http: { method: 'POST', path: '/chatapp/sandbox/network', message: 'Sandbox network updated.', errors: { 409: 'Not a started sandbox instance' } },
    rpc: true
  }),
  'sandbox.inbound': op<{ message: LoggedMessageT | null; replies: LoggedMessageT[] }>()({
    summary: 'Deliver an inbound message to a sandbox instance',
    description: 'Answers once the message is logged and the bot has handled it, with the bot’s replies to that chat.',
    tags: ['sandbox'],
    scope: 'instance',
    input: withoutCredentials(SandboxInboundBody),
    output: Type.Object({ message: LoggedMessage, replies: Type.Array(LoggedMessage) }),
    http: { method: 'POST', path: '/chatapp/sandbox/inbound', message: 'Message received successfully', errors: { 409: 'Not a sandbox instance or not connected' } },
    rpc: true
  }),

  /* ---------- the bot and webhooks ---------- */

  'handoff.list': op<ChatPauseT[]>()({
    summary: 'Chats where the bot is paused for a person, newest first',
    description: 'A reply from the desk or the phone pauses the bot for that chat (settings.handoff.pause_minutes); a customer’s hand-off keyword pauses it until resumed.',
    tags: ['hand-off'],
    scope: 'instance',
    input: Type.Object({}),
    output: Type.Array(ChatPause),
    http: { method: 'GET', path: '/chatapp/handoff', message: 'Paused chats fetched successfully!', bodyOptional: true },
    rpc: true
  }),
  'handoff.pause': op<ChatPauseT>()({
    summary: 'Pause the bot for a chat (a person takes over)',
    description: '`minutes` (1–10080) or omitted: until resumed by hand.',
    tags: ['hand-off'],
    scope: 'instance',
    input: Type.Object({ chatId: Type.String({ minLength: 1 }), minutes: Type.Optional(Type.Integer({ minimum: 1, maximum: 10_080 })) }),
    output: ChatPause,
    http: { method: 'POST', path: '/chatapp/handoff/pause', message: 'The bot is paused for this chat.' },
    rpc: true
  }),
  'handoff.resume': op<{ resumed: boolean }>()({
    summary: 'Hand a chat back to the bot',
    tags: ['hand-off'],
    scope: 'instance',
    input: Type.Object({ chatId: Type.String({ minLength: 1 }) }),
    output: Type.Object({ resumed: Type.Boolean({ description: 'False when the chat was not paused.' }) }),
    http: { method: 'POST', path: '/chatapp/handoff/resume', message: 'The bot answers this chat again.' },
    rpc: true
  }),
  'settings.away': op<AwaySettingsT>()({
    summary: 'The away message sent outside active days and hours',
    description: 'At most once per contact per default-message window. `[name]` is the contact, `[next_open]` when the bot answers again (e.g. "tomorrow at 9:00", in bot_timezone).',
    tags: ['instance settings'],
    scope: 'instance',
    input: Type.Partial(AwaySettings),
    output: AwaySettings,
    http: { method: 'PUT', path: '/chatapp/away', message: SETTINGS_UPDATED },
    rpc: true
  }),
  'settings.openingHours': op<OpeningHoursT>()({
    summary: 'Several windows a day and holidays (beyond active_days / active_hours)',
    description:
      'Per weekday a list of windows `{from, to}` (H:MM, an overnight window like 19:00–2:00 belongs to the day it starts on); a day with an empty list uses `active_hours`. `holidays`: local dates (YYYY-MM-DD, in bot_timezone) when the bot treats itself as closed (the away message answers). `active_days` still decides which days are open.',
    tags: ['instance settings'],
    scope: 'instance',
    input: Type.Partial(OpeningHours, {
      examples: [{ ranges: { monday: [{ from: '9:00', to: '13:00' }, { from: '15:00', to: '19:00' }], friday: [{ from: '19:00', to: '2:00' }] }, holidays: ['2026-12-25'] }]
    }),
    output: OpeningHours,
    http: { method: 'PUT', path: '/chatapp/openingHours', message: SETTINGS_UPDATED },
    rpc: true
  }),
  'settings.optOut': op<OptOutSettingsT>()({
    summary: 'The words a customer writes to opt out of (or back in to) broadcasts, and the replies',
    description: 'The whole message must be one of the words (any case), in a 1:1 chat; it works at any hour and while the bot is paused. The contact is marked `opted_out`. Default STOP/UNSUBSCRIBE and START/SUBSCRIBE.',
    tags: ['contacts'],
    scope: 'instance',
    input: Type.Partial(OptOutSettings),
    output: OptOutSettings,
    http: { method: 'PUT', path: '/chatapp/optout', message: SETTINGS_UPDATED },
    rpc: true
  }),
  'handoff.settings': op<HandoffSettingsT>()({
    summary: 'How long a person’s reply pauses the bot, and the customer’s hand-off keyword',
    description: '`pause_minutes` 0 = a reply never pauses the bot. `keyword`: comma-separated words a customer writes to ask for a person (empty = none).',
    tags: ['hand-off'],
    scope: 'instance',
    input: Type.Partial(HandoffSettings),
    output: HandoffSettings,
    http: { method: 'PUT', path: '/chatapp/handoff/settings', message: SETTINGS_UPDATED },
    rpc: true
  }),

  'bot.activity': op<readonly BotActivityT[]>()({
    summary: 'Actions the bot ran (newest last), with the outcome of each',
    tags: ['bot'],
    scope: 'instance',
    input: Type.Object({ limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 500, default: 100 })) }),
    output: Type.Array(BotActivity),
    http: { method: 'GET', path: '/chatapp/bot/activity', query: ['limit'], message: 'Bot activity fetched successfully!' },
    rpc: true
  }),
  'webhookDeliveries.list': op<WebhookDeliveryT[]>()({
    summary: "The instance's webhook deliveries, newest first (extension)",
    description:
      'Pending (queued or waiting for a retry), delivered (kept: the newest 50) and failed ones (4xx, or 24 h of retries; kept for a manual retry). `status` filters, `limit` caps (default 50).',
    tags: ['webhooks'],
    scope: 'instance',
    input: Type.Object({ status: Type.Optional(DeliveryStatus), limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 500, default: 50 })) }),
    output: Type.Array(WebhookDelivery),
    http: { method: 'GET', path: '/chatapp/webhook/deliveries', query: ['status', 'limit'], message: 'Webhook deliveries fetched successfully!' },
    rpc: true
  }),
  'webhookDeliveries.retry': op<WebhookDeliveryT>()({
    summary: 'Send a failed or pending webhook delivery again now (extension)',
    description: "Requeues the delivery for an attempt now, to the instance's current webhook URL. A delivery past its 24 h window gets one attempt.",
    tags: ['webhooks'],
    scope: 'instance',
    input: Type.Object({ deliveryId: Id }),
    output: WebhookDelivery,
    http: {
      method: 'POST',
      path: '/chatapp/webhook/deliveries/:delivery_id/retry',
      params: { delivery_id: 'deliveryId' },
      message: 'Webhook delivery queued for retry',
      bodyOptional: true,
      errors: { 404: 'Unknown delivery (or one of another instance)', 409: 'Already delivered' }
    },
    rpc: true
  }),

  /* ---------- About and updates (UI only; issue 28, ./updates.ts) ---------- */
  ...UPDATE_OPERATIONS
} as const

/** The pause / resume / cancel operations of a broadcast (one shape, three verbs). */
function broadcastControl(verb: 'pause' | 'resume' | 'cancel', summary: string, message: string, conflict: string) {
  return op<BroadcastViewT>()({
    summary,
    tags: ['broadcasts'],
    scope: 'instance',
    input: Type.Object({ id: Id }),
    output: BroadcastView,
    http: { method: 'POST', path: `/broadcast/:broadcast_id/${verb}`, params: { broadcast_id: 'id' }, message, bodyOptional: true, errors: { 404: 'Unknown broadcast', 409: conflict } },
    rpc: true
  })
}

/** How many messages a text send sent (the UI's answer). */
function sentCount(r: TextSendResultT): { sent: number } {
  return { sent: (r.message ? 1 : 0) + r.media.length + (r.location ? 1 : 0) + (r.contact ? 1 : 0) }
}

/** The JSON form of the survey responses (the CSV form is the HTTP face's). */
function responsesOnly(r: SurveyResponseT[] | { fileName: string; csv: string }): SurveyResponseT[] {
  return Array.isArray(r) ? r : []
}

/** The webhook settings as setWebhook answers them. */
function webhookView(c: SettingsChangeT): { webhook_url: string | null; events: string[]; requestConfig: Record<string, unknown>; secret: string; send_webhook: boolean } {
  const s = c.instance.settings
  return { webhook_url: s.webhook.url, events: [...s.webhook.events], requestConfig: s.webhook.requestConfig, secret: s.webhook.secret, send_webhook: s.actions.send_webhook }
}

/** A multipart media send (docs/api-seed.md §4.5); its kind is {@link MEDIA_KIND}'s. */
function mediaOperation<P extends TProperties>(path: string, fields: TObject<P>, summary: string) {
  return op<SentMessageT>()({
    summary,
    tags: ['messages'],
    scope: 'instance',
    input: Type.Object({ ...withoutCredentials(fields).properties, file: UploadedFile }),
    output: SentMessage,
    http: { method: 'POST', path, multipart: { file: 'required' }, message: SENT, errors: MEDIA_ERRORS }
  })
}

export type Operations = typeof OPERATIONS
export type OperationName = keyof Operations

/** The kind a media operation sends (the multipart routes of the table). */
export const MEDIA_KIND = {
  'messages.sendImage': 'image',
  'messages.sendVideo': 'video',
  'messages.sendAudio': 'audio',
  'messages.sendDocument': 'document'
} as const

export { Action, SurveyAnswer }
