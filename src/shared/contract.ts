/**
 * The typed UI contract (DESIGN.md §1, §12): every operation the desktop/web UI calls and every event
 * it listens to. Main implements it once (`src/main/ui-contract/handlers.ts`) by calling the core
 * services; two transports carry it — Electron IPC (preload) and HTTP (`POST /rpc/{method}` plus
 * server-sent events at `GET /rpc/events`). The renderer only sees {@link ContractClient}.
 *
 * Inputs are typebox schemas (validated at runtime by both transports, reusing the operation schemas
 * of `schemas/operations.ts`); outputs are TypeScript types only. The UI addresses instances by `_id`
 * (the local owner is trusted after the transport's own check), so no instance credentials travel.
 */
import Type, { type Static, type TSchema } from 'typebox'
import type { Attachment, BotActivity, Instance, Intent, LoggedMessage, SendLimits, Survey } from './schemas/records'
import { Action, RequestConfig } from './schemas/records'
import {
  CreateIntentBody,
  CreateSurveyBody,
  FileUrlFields,
  PairingCodeBody,
  SendButtonsBody,
  SendContactBody,
  SendListBody,
  SendMediaButtonBody,
  SendTextBody,
  SetWebhookBody,
  UpdateActionsBody,
  UpdateActiveDaysBody,
  UpdateActiveHoursBody,
  UpdateGeneralBody,
  UpdateIntentBody,
  UpdateSurveyBody,
  type DeleteResult,
  type UpdateResult
} from './schemas/operations'

/** One operation: its input schema and (phantom) output type. */
export interface OpDef<I extends TSchema, O> {
  input: I
  /** Never set; carries the output type. */
  readonly _output?: O
}

/** `op<Output>()(inputSchema)`: the curried form lets TypeScript infer the input schema. */
function op<O>() {
  return <I extends TSchema>(input: I): OpDef<I, O> => ({ input })
}

/** Copies an operation schema's properties minus the instance credentials (the UI names the instance by id). */
function withoutCredentials<P extends Record<string, TSchema>>(props: P): Omit<P, 'session_id' | 'access_token'> {
  const { session_id: _s, access_token: _a, ...rest } = props as P & { session_id?: unknown; access_token?: unknown }
  return rest as Omit<P, 'session_id' | 'access_token'>
}

const InstanceId = { instanceId: Type.String({ minLength: 1 }) }
const ById = Type.Object({ ...InstanceId, id: Type.String({ minLength: 1 }) })
const OnlyInstance = Type.Object(InstanceId)
const Empty = Type.Object({})

/** A webhook delivery as the delivery log shows it (provided by the webhook engine, issue 3). */
/** A webhook delivery as the outbox keeps it (DESIGN.md §11); one shape for the API and the UI. */
export type { WebhookDelivery } from './schemas/webhooks'
import type { WebhookDelivery } from './schemas/webhooks'

/** SMTP settings of the app (DESIGN.md §10 send_notification). The password is never sent back. */
export const SmtpInput = Type.Object(
  {
    host: Type.String({ minLength: 1, maxLength: 255 }),
    port: Type.Integer({ minimum: 1, maximum: 65535 }),
    secure: Type.Boolean(),
    user: Type.Optional(Type.String({ maxLength: 255 })),
    /** Omitted = keep the stored password. */
    pass: Type.Optional(Type.String({ maxLength: 1024 })),
    from: Type.String({ format: 'email' })
  },
  { additionalProperties: false }
)
export interface SmtpView {
  host: string
  port: number
  secure: boolean
  user?: string
  from: string
  hasPassword: boolean
}

/** A chat of the message log, for the conversation list. */
export interface ChatSummary {
  chatId: string
  name: string | null
  lastText: string
  lastAt: number
  count: number
}

export interface AppInfo {
  version: string
  /** Base URL of the local HTTP API. */
  baseUrl: string
  /** `desktop` (Electron) or `web` (headless server). */
  mode: 'desktop' | 'web'
  /** Channel of new instances by default. */
  defaultChannel: 'baileys' | 'sandbox'
}

export interface QrView {
  status: Instance['settings']['status']
  /** `data:image/png;base64,…` of the latest QR, null when none is showing. */
  qrDataUrl: string | null
}

const MediaKind = Type.Union([Type.Literal('image'), Type.Literal('video'), Type.Literal('audio'), Type.Literal('document')])

/** Every operation of the contract. */
export const CONTRACT = {
  'app.info': op<AppInfo>()(Empty),

  'instances.list': op<Instance[]>()(Empty),
  'instances.create': op<Instance>()(Type.Object({ channel: Type.Optional(Type.Union([Type.Literal('baileys'), Type.Literal('sandbox')])) })),
  'instances.delete': op<DeleteResult>()(OnlyInstance),
  'instances.init': op<{ status: string }>()(OnlyInstance),
  'instances.logout': op<{ status: string }>()(OnlyInstance),
  /** Why the instance is in its state, and WhatsApp's outreach limits on its number. */
  'instances.health': op<{ reason: string | null; limits: SendLimits | null }>()(OnlyInstance),

  'pairing.qr': op<QrView>()(OnlyInstance),
  'pairing.code': op<{ pairingCode: string }>()(Type.Object({ ...InstanceId, phone: PairingCodeBody.properties.phone })),
  'pairing.sandboxScan': op<{ bot_number: string }>()(OnlyInstance),

  'settings.updateGeneral': op<UpdateResult>()(Type.Object({ ...InstanceId, ...withoutCredentials(UpdateGeneralBody.properties) })),
  'settings.updateActions': op<UpdateResult>()(Type.Object({ ...InstanceId, ...withoutCredentials(UpdateActionsBody.properties) })),
  'settings.updateActiveDays': op<UpdateResult>()(Type.Object({ ...InstanceId, ...withoutCredentials(UpdateActiveDaysBody.properties) })),
  'settings.updateActiveHours': op<UpdateResult>()(Type.Object({ ...InstanceId, ...withoutCredentials(UpdateActiveHoursBody.properties) })),
  'settings.setWebhook': op<{ webhook_url: string | null; events: string[]; secret: string }>()(
    Type.Object({ ...InstanceId, ...withoutCredentials(SetWebhookBody.properties), requestConfig: Type.Optional(RequestConfig) })
  ),

  'webhookDeliveries.list': op<WebhookDelivery[]>()(OnlyInstance),
  'webhookDeliveries.retry': op<WebhookDelivery>()(Type.Object({ ...InstanceId, deliveryId: Type.String({ minLength: 1 }) })),

  'intents.list': op<Intent[]>()(OnlyInstance),
  'intents.create': op<Intent>()(Type.Object({ ...InstanceId, ...withoutCredentials(CreateIntentBody.properties) })),
  'intents.update': op<Intent>()(Type.Object({ ...InstanceId, id: Type.String({ minLength: 1 }), ...withoutCredentials(UpdateIntentBody.properties) })),
  'intents.delete': op<DeleteResult>()(ById),

  'surveys.list': op<Survey[]>()(OnlyInstance),
  'surveys.create': op<Survey>()(Type.Object({ ...InstanceId, ...withoutCredentials(CreateSurveyBody.properties) })),
  'surveys.update': op<Survey>()(Type.Object({ ...InstanceId, id: Type.String({ minLength: 1 }), ...withoutCredentials(UpdateSurveyBody.properties) })),
  'surveys.delete': op<DeleteResult>()(ById),
  /** Gives the steps of one survey sort_ids 1..n in the order given. */
  'surveys.reorder': op<Survey[]>()(Type.Object({ ...InstanceId, stepIds: Type.Array(Type.String({ minLength: 1 }), { minItems: 1 }) })),
  'surveys.responses': op<SurveyResponseView[]>()(ById),
  /** The same runs as CSV (the API's `?format=csv`): one row per run, one column per question. */
  'surveys.responsesCsv': op<{ fileName: string; csv: string }>()(ById),

  'attachments.list': op<Attachment[]>()(OnlyInstance),
  /** The file's bytes as base64 (both transports carry JSON-safe values). */
  'attachments.upload': op<Attachment>()(
    Type.Object({ ...InstanceId, filename: Type.String({ minLength: 1, maxLength: 255 }), mimetype: Type.Optional(Type.String()), dataBase64: Type.String() })
  ),
  'attachments.delete': op<DeleteResult>()(ById),

  'messages.list': op<LoggedMessage[]>()(
    Type.Object({ ...InstanceId, chatId: Type.Optional(Type.String()), limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000 })), before: Type.Optional(Type.Integer({ minimum: 0 })) })
  ),
  'messages.chats': op<ChatSummary[]>()(OnlyInstance),
  'messages.sendText': op<{ sent: number }>()(Type.Object({ ...InstanceId, ...withoutCredentials(SendTextBody.properties) })),
  'messages.sendMedia': op<{ id: string }>()(
    Type.Object({
      ...InstanceId,
      chatId: SendTextBody.properties.chatId,
      kind: MediaKind,
      attachmentId: Type.String({ minLength: 1 }),
      caption: Type.Optional(Type.String({ maxLength: 4096 })),
      voiceNote: Type.Optional(Type.Boolean())
    })
  ),
  'messages.sendButtons': op<{ id: string }>()(Type.Object({ ...InstanceId, ...withoutCredentials(SendButtonsBody.properties) })),
  'messages.sendList': op<{ id: string }>()(Type.Object({ ...InstanceId, ...withoutCredentials(SendListBody.properties) })),
  'messages.sendContact': op<{ id: string }>()(Type.Object({ ...InstanceId, ...withoutCredentials(SendContactBody.properties) })),
  'messages.sendFileUrl': op<{ id: string }>()(Type.Object({ ...InstanceId, ...withoutCredentials(FileUrlFields.properties) })),
  'messages.sendMediaButtons': op<{ id: string }>()(Type.Object({ ...InstanceId, ...withoutCredentials(SendMediaButtonBody.properties) })),

  /** What the bot's actions did, newest last (failures included). */
  'bot.activity': op<BotActivity[]>()(OnlyInstance),

  /** Test chat: a customer writes to a sandbox instance. Answers the logged inbound message. */
  'sandbox.inbound': op<{ message: LoggedMessage | null }>()(
    Type.Object({
      ...InstanceId,
      chatId: SendTextBody.properties.chatId,
      message: Type.String({ minLength: 1, maxLength: 65536 }),
      pushName: Type.Optional(Type.String({ maxLength: 100 }))
    })
  ),

  'apiToken.get': op<{ token: string; fixed: boolean }>()(Empty),
  'apiToken.regenerate': op<{ token: string }>()(Empty),

  'appSettings.get': op<{ smtp: SmtpView | null }>()(Empty),
  'appSettings.setSmtp': op<{ smtp: SmtpView | null }>()(Type.Object({ smtp: Type.Union([SmtpInput, Type.Null()]) }))
} as const

/** A survey run as the responses table shows it (DESIGN.md §9). */
export interface SurveyResponseView {
  _id: string
  chatId: string
  pushName: string | null
  status: 'in_progress' | 'completed' | 'expired'
  answers: Array<{ step_id: string; question: string; answer: string; at: string }>
  startedAt: string
  completedAt: string | null
}

export type ContractMethod = keyof typeof CONTRACT
export const CONTRACT_METHODS = Object.keys(CONTRACT) as ContractMethod[]
export type ContractInput<M extends ContractMethod> = Static<(typeof CONTRACT)[M]['input']>
export type ContractOutput<M extends ContractMethod> = NonNullable<(typeof CONTRACT)[M]['_output']>

/** What main implements (once) and both transports call. */
export type ContractHandlers = { [M in ContractMethod]: (input: ContractInput<M>) => Promise<ContractOutput<M>> }

/** What the renderer calls; same shape, whatever the transport. */
export interface ContractClient {
  call<M extends ContractMethod>(method: M, input: ContractInput<M>): Promise<ContractOutput<M>>
  /** Subscribes to every event; returns the unsubscribe function. */
  subscribe(listener: (event: ContractEvent) => void): () => void
}

/** Events pushed to the UI. */
export type ContractEvent =
  | { type: 'state'; instanceId: string; state: Instance['settings']['status']; previous: string; reason?: string }
  | { type: 'qr'; instanceId: string; qrDataUrl: string }
  | { type: 'message'; instanceId: string; message: LoggedMessage }
  /** WhatsApp changed the instance's outreach limits (capping, reach-out lock). */
  | { type: 'limits'; instanceId: string; limits: SendLimits }
  /** A LID chat is now filed under its phone number: its messages moved from chat `from` to `to`. */
  | { type: 'chatMerged'; instanceId: string; from: string; to: string }
  /** A sent message's delivery status changed: `message` is the updated log entry (same id). */
  | { type: 'status'; instanceId: string; message: LoggedMessage }
  | { type: 'changed'; instanceId: string; what: 'instance' | 'intents' | 'surveys' | 'attachments' | 'deleted' }
  | { type: 'delivery'; instanceId: string; delivery: WebhookDelivery }
  | { type: 'activity'; instanceId: string; entry: BotActivity }
  /** Sent by a transport (never by main) after its event stream reconnected: events may have been missed, reload. */
  | { type: 'resync' }

/** The error both transports carry: DESIGN.md §4 codes, a message for the owner, field details. */
export interface ContractErrorShape {
  code: string
  message: string
  details?: Array<{ field: string; problem: string }>
}

/** The envelope a transport answers with (IPC cannot carry custom error properties). */
export type ContractResult<T> = { ok: true; data: T } | { ok: false; error: ContractErrorShape }

/** A failed call as the renderer sees it. */
export class ContractError extends Error implements ContractErrorShape {
  readonly code: string
  readonly details?: Array<{ field: string; problem: string }>
  constructor(shape: ContractErrorShape) {
    super(shape.message)
    this.name = 'ContractError'
    this.code = shape.code
    this.details = shape.details
  }
}

/** IPC channel of one method: each method is its own `ipcMain.handle` channel (preload and main agree). */
export function ipcChannel(method: ContractMethod): string {
  return `chatapp:rpc:${method}`
}
/** IPC channel main pushes events on. */
export const IPC_EVENT_CHANNEL = 'chatapp:event'

/** What the preload exposes on `window.chatappIpc`. */
export interface PreloadBridge {
  call(method: string, input: unknown): Promise<ContractResult<unknown>>
  onEvent(listener: (event: ContractEvent) => void): () => void
}

// `Action` is re-exported for the intent/survey action editors.
export { Action }
