/**
 * The typed UI contract (docs/design.md §1, §12): the operations the desktop/web UI calls and the
 * events it listens to. The methods are the operations of the table (./operations/table/) that have
 * an `rpc` facet, under the same names and schemas; main runs them through the same runners as the
 * HTTP face (src/main/ui-contract/handlers.ts). Two transports carry the contract — Electron IPC
 * (preload) and HTTP (`POST /rpc/{method}` plus server-sent events at `GET /rpc/events`). The
 * renderer only sees {@link ContractClient}.
 */
import Type, { type Static, type TObject } from 'typebox'
import type { BotActivity, ChatPause, Instance, LoggedMessage, SendLimits } from './schemas/records'
import { Action } from './schemas/records'
import { OPERATIONS, type OperationName, type Operations } from './operations/table'
import type { WebhookDelivery } from './schemas/webhooks'
import type { UpdateStatusT } from './operations/updates'
import type { Caller } from './access'

export type { WebhookDelivery } from './schemas/webhooks'
export type { AppInfoT as AppInfo, ConversationT as Conversation, QrViewT as QrView, SmtpViewT as SmtpView, SurveyResponseT as SurveyResponseView } from './operations/results'
export { SmtpInput } from './operations/results'

/** The operations the UI calls: those of the table with an `rpc` facet. */
export type ContractMethod = { [N in OperationName]: Operations[N]['rpc'] extends undefined ? never : N }[OperationName]

const InstanceId = Type.String({ minLength: 1 })

/**
 * The contract input schema of an operation: its input, plus `instanceId` for instance-scoped ones
 * (the UI names the instance by id; the local owner is trusted after the transport's own check).
 */
export function contractInputSchema(name: OperationName): TObject {
  const def = OPERATIONS[name]
  return def.scope === 'instance' ? Type.Object({ ...def.input.properties, instanceId: InstanceId }) : def.input
}

export const CONTRACT_METHODS = (Object.keys(OPERATIONS) as OperationName[]).filter((n) => OPERATIONS[n].rpc !== undefined) as ContractMethod[]

export type ContractInput<M extends ContractMethod> = Static<Operations[M]['input']> & (Operations[M]['scope'] extends 'instance' ? { instanceId: string } : unknown)
export type ContractOutput<M extends ContractMethod> = Exclude<Operations[M]['_rpcOutput'], undefined>

/** Who calls over a transport that authenticates people (`/rpc`); IPC is the desktop app's owner. */
export interface CallOrigin {
  caller: Caller
  ip?: string | null
  sessionToken?: string
}

/** What main implements (once) and both transports call. */
export type ContractHandlers = { [M in ContractMethod]: (input: ContractInput<M>, origin?: CallOrigin) => Promise<ContractOutput<M>> }

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
  /** Messages of the phone's history were stored in `chatIds` (`added` new ones): reload those chats. */
  | { type: 'history'; instanceId: string; chatIds: string[]; added: number }
  /** A sent message's delivery status changed: `message` is the updated log entry (same id). */
  | { type: 'status'; instanceId: string; message: LoggedMessage }
  /** A logged message was edited, deleted for everyone, reacted to or voted on: `message` is the entry now (same id). */
  | { type: 'messageChanged'; instanceId: string; message: LoggedMessage }
  | { type: 'changed'; instanceId: string; what: 'instance' | 'intents' | 'surveys' | 'attachments' | 'deleted' | 'contacts' | 'broadcasts' | 'schedules' }
  | { type: 'delivery'; instanceId: string; delivery: WebhookDelivery }
  | { type: 'activity'; instanceId: string; entry: BotActivity }
  /** The bot was paused for a chat (a person handles it), or handed back (`pause` null). */
  | { type: 'handoff'; instanceId: string; chatId: string; pause: ChatPause | null }
  /** A conversation was resolved, reopened (a person, or the customer writing again) or read at the desk. */
  | { type: 'chatStatus'; instanceId: string; chatId: string; status: 'open' | 'resolved' | 'read' }
  /** A conversation was assigned to a person, or unassigned. */
  | { type: 'assignment'; instanceId: string; chatId: string; assigned_to: { id: string; name: string } | null }
  /** The desk's quick replies changed. */
  | { type: 'quickReplies' }
  /** The labels (names, colours) changed. */
  | { type: 'labels' }
  /** Which worker runs an instance changed (a worker claimed or lost its lease): reload `cluster.get`. */
  | { type: 'cluster'; instanceId: string }
  /** The desktop app's update status changed (checking, downloading, downloaded, …): never from the core. */
  | { type: 'update'; status: UpdateStatusT }
  /**
   * Reload what is shown: sent by the event stream when it reconnected and the events it missed are no
   * longer kept, and by a worker whose connection hearing the other workers' events broke (a gap).
   */
  | { type: 'resync' }

/** The error both transports carry: docs/design.md §4 codes, a message for the owner, field details. */
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

export { ipcChannel, IPC_EVENT_CHANNEL } from './ipc-channels'

/** What the preload exposes on `window.chatappIpc`. */
export interface PreloadBridge {
  call(method: string, input: unknown): Promise<ContractResult<unknown>>
  onEvent(listener: (event: ContractEvent) => void): () => void
}

// `Action` is re-exported for the intent/survey action editors.
export { Action }
