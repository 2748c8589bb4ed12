/**
 * The channel seam: one interface for a messaging-network session of one instance.
 *
 * Two implementations stand behind it: the sandbox channel (docs/design.md §6, no network) and the
 * Baileys channel (a real WhatsApp linked device). Services only ever talk to this interface, so the
 * bot engine, webhooks, message log and HTTP API behave the same on both.
 */
import type { Logger } from '../logger'
import type { ConnectionStatus } from '../../shared/schemas/records'
import type { ChannelAuthRepo } from '../store/repos/channel-auth-repo'
import type { WaMessageRepo } from '../store/repos/wa-message-repo'
import type { AppSettingsRepo } from '../store/repos/config-repos'

/** Connection states of docs/design.md §5: the one type, from the record schema's `settings.status`. */
export type ConnectionState = ConnectionStatus


/** Which implementation an instance runs on (`settings.channel`). */
export type ChannelKind = 'baileys' | 'sandbox'

/** The linked account, known once CONNECTED. `id` is a JID (`digits@s.whatsapp.net`). */
export interface LinkedAccount {
  id: string
  name: string
  /** Digits only, no `+`. */
  phone: string
  lid?: string
}

/** A state change reported by a channel session. */
export interface StateUpdate {
  state: ConnectionState
  /** Set with CONNECTED. */
  account?: LinkedAccount
  /** Human-readable reason for DISCONNECTED / CONNECTING-after-error / LOGGED_OUT. */
  reason?: string
}

/** A file on local disk to send. The channel reads (streams) it; it never deletes it. */
export interface MediaSource {
  path: string
  mimetype: string
  /** Bytes. */
  size: number
  fileName?: string
}

/**
 * Everything a channel can send. Buttons and lists are not here on purpose: docs/design.md §6 makes both
 * channels deliver them as text (or an image with a text caption), rendered above the channel.
 */
export type OutboundContent =
  | { kind: 'text'; text: string }
  | { kind: 'image'; media: MediaSource; caption?: string }
  | { kind: 'video'; media: MediaSource; caption?: string }
  | { kind: 'audio'; media: MediaSource; voiceNote?: boolean }
  | { kind: 'document'; media: MediaSource; fileName: string; caption?: string }
  | { kind: 'location'; latitude: number; longitude: number; name?: string; address?: string }
  | { kind: 'contact'; displayName: string; vcard: string }

/**
 * Where a sent message is (docs/design.md §13): PENDING (handed to the network) → SERVER_ACK (the
 * server took it) → DELIVERY_ACK (on the recipient's phone) → READ (PLAYED for a voice note), or
 * ERROR (the server refused it; the update carries its code). Baileys' `proto.WebMessageInfo.Status`.
 */
import type { DeliveryStatus } from '../domain/delivery-status'
export type { DeliveryStatus }

/** A status change of a message the instance sent, reported by a channel. */
export interface MessageStatusUpdate {
  /** The message id (`SentMessage.key.id`). */
  id: string
  status: DeliveryStatus
  /** The server's code with ERROR, e.g. '463' (no privacy token) or '479' (stale addressing). */
  errorCode?: string
}

/**
 * The result of a send, shaped like Baileys' `WAMessage` serialised to JSON (docs/api-seed.md §2.11): binary
 * fields are base64 strings, 64-bit numbers are decimal strings.
 */
export interface SentMessage {
  key: { remoteJid: string; fromMe: true; id: string }
  message: Record<string, unknown>
  /** Epoch seconds, as a decimal string. */
  messageTimestamp: string
  status: DeliveryStatus
}

/** The kinds of inbound message the rest of the app distinguishes. */
export type InboundType =
  | 'text'
  | 'image'
  | 'video'
  | 'audio'
  | 'document'
  | 'sticker'
  | 'location'
  | 'contact'
  | 'button_reply'
  | 'list_reply'
  | 'poll'
  | 'other'
  /**
   * A message that could not be decrypted (a placeholder): the network asks the sender for it
   * again, and the real message follows with the same id and replaces it.
   */
  | 'undecryptable'

/** An inbound message as every channel delivers it to the app. */
export interface InboundMessage {
  /** Network message id (`key.id`); the dedupe key across reconnects. */
  id: string
  /** The chat: a user JID, a group JID (`…@g.us`), a LID (`…@lid`) or `status@broadcast`. */
  chatId: string
  /** Who wrote it: the participant in groups, else the chat itself. */
  senderId: string
  /** The sender's phone-number JID, when the network gives it (v7 may address by LID). */
  senderPn?: string
  /** The sender's LID, when the network gives it. */
  senderLid?: string
  /** True for messages the linked account sent itself (from the phone or another device). */
  fromMe: boolean
  pushName?: string
  type: InboundType
  /** Text, caption, or the title of a pressed button / list row; '' when none. */
  text: string
  /** Payload / rowId of a pressed button or list row. */
  selectedId?: string
  /** Epoch seconds. */
  timestamp: number
  /** True when it arrived while the instance was offline (backlog delivered on reconnect). */
  offline: boolean
  media?: { mimetype: string; fileName?: string; size?: number }
  /** A location message's coordinates (degrees). */
  location?: { latitude: number; longitude: number }
  /** A poll: its options and how many a voter may choose (0: any). */
  poll?: { options: string[]; selectable: number }
  /** The sender's WhatsApp username (without "@"), when the network told it. */
  username?: string
}

/**
 * Something done to a message already in a chat (docs/baileys.md "Edits, deletions, reactions and
 * polls"): an edit, a deletion for everyone, a reaction (added, changed, or removed with `emoji: ''`)
 * or a vote on a poll. `id` is the message it is about; `chatId`, `senderId`, `senderPn`, `senderLid`,
 * `fromMe` and `timestamp` (epoch seconds) describe who did it, where and when, as for an
 * {@link InboundMessage}. The app checks the author and the chat against its log.
 */
export type MessageChange = MessageChangeBase &
  (
    | { kind: 'edit'; text: string }
    | { kind: 'delete' }
    | { kind: 'reaction'; emoji: string }
    /** `selected`: the option names the voter chose now (none: the vote was withdrawn). */
    | { kind: 'poll_vote'; selected: string[] }
  )

export interface MessageChangeBase {
  /** The message the change is about. */
  id: string
  /** The change's own message id (the reaction's, the edit's). */
  changeId: string
  chatId: string
  senderId: string
  senderPn?: string
  senderLid?: string
  username?: string
  fromMe: boolean
  /** Epoch seconds. */
  timestamp: number
  offline: boolean
}

/** What a reaction is sent on: a message of `chatId` (`fromMe`: the shop wrote it; `participant`: its group author). */
export interface ReactionTarget {
  chatId: string
  id: string
  fromMe: boolean
  participant?: string
}

/**
 * A LID the network revealed to belong to a phone number (both user JIDs without device:
 * `…@lid`, `…@s.whatsapp.net`). The app files the LID's chat under the number from then on.
 */
export interface ChatIdentity {
  lid: string
  pn: string
}

/**
 * Limits WhatsApp put on the account's outreach (docs/baileys.md "Platform signals", Baileys
 * #2445): the cap on messages to people who have not answered, and the reach-out time lock. A
 * report carries the parts that changed. One shape for channels, the API and the UI.
 */
export type { SendLimits } from '../../shared/schemas/records'
import type { SendLimits } from '../../shared/schemas/records'

/**
 * Which history sync a batch came in (Baileys' `HistorySync.HistorySyncType`): `initial` (the
 * bootstrap after a link), `recent`, `full`, `on_demand` (the phone's answer to
 * {@link ChannelSession.fetchHistory}), `other`.
 */
export type HistorySyncKind = 'initial' | 'recent' | 'full' | 'on_demand' | 'other'

/** Messages of chats the phone sent its linked device (a history sync), not live messages. */
export interface HistoryBatch {
  kind: HistorySyncKind
  /** The on-demand request this answers (its message id, echoed by the phone), when it is one. */
  requestId?: string
  /** Filed under their stable chat ids, as inbound messages are; `offline` is true. */
  messages: InboundMessage[]
}

/** The oldest message the app holds of a chat: what a history request starts from. */
export interface HistoryAnchor {
  chatId: string
  id: string
  fromMe: boolean
  /** Epoch ms. */
  timestamp: number
  /** In a group: who wrote it. */
  participant?: string
}

/** What came of a history request ({@link ChannelSession.fetchHistory}). */
export interface HistoryFetchResult {
  /** The request's message id (the phone names it in its answer). */
  requestId: string
  /** The phone's answer arrived within the wait. */
  answered: boolean
  /** Messages the answer held (0 when not answered). */
  received: number
  /** Of those, how many the app had not stored yet. */
  added: number
}

/** Callbacks a session reports to. They never throw. */
export interface ChannelHooks {
  onState(update: StateUpdate): void
  /** A new pairing QR payload (the string to encode in the QR image). Rotates. */
  onQr(qr: string): void
  /**
   * An inbound message. Resolves once the app has logged it and the bot has handled it; channels
   * need not wait for it (it never rejects).
   */
  onMessage(message: InboundMessage): Promise<void>
  /**
   * A sent message's status changed (server ack, receipts, a refusal). May come before the send's
   * promise resolved, and more than once for one status; the app keeps the furthest.
   */
  onMessageStatus(update: MessageStatusUpdate): void
  /**
   * A LID belongs to a phone number (docs/design.md §13 "One chat per customer"). Reported before the
   * inbound message that revealed it, and again whenever seen; the app re-keys that LID's chat once.
   */
  onChatIdentity(identity: ChatIdentity): void
  /**
   * An edit, deletion, reaction or poll vote on a message (never an inbound message of its own).
   * Resolves once the app applied it; never rejects. Delivered in order with {@link onMessage}.
   */
  onMessageChange(change: MessageChange): Promise<void>
  /** WhatsApp changed the account's outreach limits (capping, reach-out lock). */
  onLimits(update: SendLimits): void
  /**
   * The phone sent messages of its history (a history sync, or the answer to a history request).
   * Resolves once the app stored them, with how many it did not have yet; never rejects.
   */
  onHistory(batch: HistoryBatch): Promise<{ added: number }>
}

/**
 * Where channels keep what must outlive a restart, in the core's database (docs/design.md §20): the
 * core owns it and hands it to every session; a session reads and writes only its instance's rows
 * (`ChannelContext.instanceId`).
 */
export interface ChannelStore {
  /** Credentials: the pairing (Baileys' creds, the sandbox's pairing) and the Signal keys. */
  auth: ChannelAuthRepo
  /** The real channel's recent messages, for retries and media downloads. */
  messages: WaMessageRepo
  /** The app-wide last good WA Web version, kept across restarts (the real channel, wa-version.ts). */
  waWebVersion: WaWebVersionMemory
}

/** Where the last good WA Web version is kept (the configuration document's `appSettings.waWebVersion`). */
export type WaWebVersionMemory = Pick<AppSettingsRepo, 'waWebVersion' | 'setWaWebVersion'>

/** What a factory needs to build a session for one instance. */
export interface ChannelContext {
  instanceId: string
  /** The instance's stored credentials and recent messages; a logout deletes them. */
  store: ChannelStore
  hooks: ChannelHooks
  logger: Logger
  /** The app's clock (epoch ms). The sandbox stamps its messages with it; the real network has its own time. */
  now?: () => number
}

/** Result of adding participants to a group. */
export interface GroupAddResult {
  jid: string
  /** '200' on success, else the network's status code. */
  status: string
}

/** Options of one send. */
export interface ChannelSendOptions {
  /** Show "typing…" in the chat for a moment before the message (bot replies). Channels may ignore it. */
  composing?: boolean
}

/** The bytes of an inbound message's media, fetched on demand. */
export interface DownloadedMedia {
  data: Buffer
  mimetype: string
  fileName?: string
}

/** One live session of one instance. */
export { OWN_LOGOUT_REASON } from '../../shared/domain/state-notice'

/** A received message to mark read: its id, chat and, in a group, the member who sent it. */
export interface ReadKey {
  id: string
  chatId: string
  participant?: string
}

export interface ChannelSession {
  readonly kind: ChannelKind
  /** Starts connecting (idempotent). Resolves once the attempt is under way, not when connected. */
  start(): Promise<void>
  /** Closes the connection, keeps the credentials. Idempotent. */
  stop(): Promise<void>
  /** Unlinks the device and deletes the credentials; ends in LOGGED_OUT. */
  logout(): Promise<void>
  /** Pairing by phone number (digits). Needs the session started and not yet paired. */
  requestPairingCode(phone: string): Promise<string>
  /** Sends one message. Throws when not connected. */
  send(jid: string, content: OutboundContent, options?: ChannelSendOptions): Promise<SentMessage>
  /**
   * Sends read receipts for received messages (WhatsApp's blue ticks, when the account's privacy
   * setting shares them). Throws {@link ChannelError} `NOT_CONNECTED` when not connected.
   */
  markRead(keys: ReadKey[]): Promise<void>
  /** Adds users to a group; throws {@link ChannelError} `NOT_GROUP_ADMIN` when not an admin. */
  addToGroup(groupJid: string, participants: string[]): Promise<GroupAddResult[]>
  /**
   * The media of a recent inbound message (by `InboundMessage.id`), downloaded on demand. Optional:
   * channels without real media leave it out. Throws {@link ChannelError} `MEDIA_UNAVAILABLE` when
   * the message is unknown (too old), has no media, or the download fails.
   */
  downloadMedia?(messageId: string): Promise<DownloadedMedia>
  /**
   * Reacts with `emoji` (`''` takes the shop's reaction back) to a message. Optional: channels without
   * reactions leave it out. Throws {@link ChannelError} `NOT_CONNECTED` when not connected.
   */
  react?(target: ReactionTarget, emoji: string): Promise<void>
  /**
   * The LID (`…@lid`) of the WhatsApp account with `username` (lower case, no "@"), or undefined when
   * none is. Optional: channels without usernames leave it out. Throws {@link ChannelError}
   * `NOT_CONNECTED` when not connected.
   */
  resolveUsername?(username: string): Promise<string | undefined>
  /**
   * Asks the phone for up to `count` (1–50) messages of `anchor.chatId` older than `anchor`, and waits
   * a bounded time for its answer, which goes through {@link ChannelHooks.onHistory} (also when it comes
   * after the wait). Optional: channels without a phone leave it out. Throws {@link ChannelError}
   * `NOT_CONNECTED` when not connected.
   */
  fetchHistory?(anchor: HistoryAnchor, count: number): Promise<HistoryFetchResult>
  /**
   * Shows "typing…" in a chat (`true`) or stops showing it (`false`), while something slower than a
   * keyword answer is being written (the assistant's model). WhatsApp drops the indicator by itself
   * after about 25 s; callers repeat it. Optional; throws {@link ChannelError} `NOT_CONNECTED`.
   */
  setTyping?(jid: string, typing: boolean): Promise<void>
}

export type ChannelFactory = (ctx: ChannelContext) => ChannelSession

/** An error raised by a channel with a stable code the services map to HTTP answers. */
export class ChannelError extends Error {
  constructor(
    readonly code: 'NOT_CONNECTED' | 'NOT_GROUP_ADMIN' | 'ALREADY_PAIRED' | 'NOT_STARTED' | 'PAIRING_REFUSED' | 'NOT_ON_WHATSAPP' | 'SEND_FAILED' | 'MEDIA_UNAVAILABLE',
    message: string
  ) {
    super(message)
    this.name = 'ChannelError'
  }
}
