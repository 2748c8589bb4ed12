/** Operations of messages: attachments, every kind of send, inbound media, the message log. */
import Type, { type TObject, type TProperties } from 'typebox'
import { Attachment, MessageLogRecord, type Attachment as AttachmentT, type MessageLogRecord as MessageLogRecordT } from '../../schemas/records'
import {
  AudioFields,
  DeleteResult,
  DocFields,
  FileUrlFields,
  MediaFields,
  SendButtonsBody,
  SendContactBody,
  SendListBody,
  SendMediaButtonBody,
  ReactionBody,
  SendTextBody,
  SendTextDeprecatedBody,
  type DeleteResult as DeleteResultT
} from '../../schemas/operations'
import { op, withoutCredentials } from '../define'
import {
  MessageEntry,
  PhoneHistoryResult,
  ReactionResult,
  SentMessage,
  TextSendResult,
  type MessageEntryT,
  type PhoneHistoryResultT,
  type ReactionResultT,
  type SentMessageT,
  type TextSendResultT
} from '../results'
import { HISTORY_FETCH_MAX } from '../../domain/phone-history'
import { deleted, Id, items, Page, type PagedT } from './common'

const sentId = (s: SentMessageT) => ({ id: s.key.id })
const SENT = 'Message sent successfully'
const SEND_ERRORS = { 409: 'Instance not connected, or WhatsApp limits sends to new chats now' }
const MEDIA_ERRORS = { ...SEND_ERRORS, 413: 'File over the limit', 415: 'File content does not fit the endpoint' }
const MediaKind = Type.Union([Type.Literal('image'), Type.Literal('video'), Type.Literal('audio'), Type.Literal('document')])
/** The bytes of an upload, as the HTTP face hands them over (not a JSON field). */
export const UploadedFile = Type.Object({ path: Type.String(), filename: Type.String(), size: Type.Integer(), sha256: Type.String(), declaredMimetype: Type.Optional(Type.String()) })

export const MESSAGE_OPERATIONS = {
  /* ---------- attachments (docs/design.md §8) ---------- */

  'attachments.uploadFile': op<AttachmentT>()({
    summary: 'Upload a file',
    tags: ['attachments'],
    scope: 'instance',
    permission: 'bot:write',
    input: Type.Object({ file: UploadedFile }),
    output: Attachment,
    http: { method: 'POST', path: '/attachment', multipart: { file: 'required' }, message: 'Attachment uploaded successfully!', errors: { 413: 'File over the limit' } }
  }),
  'attachments.upload': op<AttachmentT>()({
    summary: 'Upload a file given as base64 (UI: both transports carry JSON)',
    tags: ['attachments'],
    scope: 'instance',
    permission: 'bot:write',
    input: Type.Object({ filename: Type.String({ minLength: 1, maxLength: 255 }), mimetype: Type.Optional(Type.String()), dataBase64: Type.String() }),
    output: Attachment,
    rpc: true
  }),
  'attachments.list': op<PagedT<AttachmentT>, AttachmentT[]>()({
    summary: "The instance's attachments",
    tags: ['attachments'],
    scope: 'instance',
    permission: 'bot:read',
    input: Page,
    output: Type.Array(Attachment),
    http: { method: 'GET', path: '/attachment', message: 'Attachment fetched successfully!', query: ['offset', 'limit'], respond: 'paged' },
    rpc: { output: items }
  }),
  'attachments.get': op<AttachmentT>()({
    summary: 'One attachment record',
    tags: ['attachments'],
    scope: 'instance',
    permission: 'bot:read',
    input: Type.Object({ id: Id }),
    output: Attachment,
    http: { method: 'GET', path: '/attachment/:attachment_id', params: { attachment_id: 'id' }, message: 'Attachment fetched successfully!', errors: { 404: 'Unknown attachment (or another instance’s)' } }
  }),
  'attachments.file': op<{ attachment: AttachmentT; path: string }>()({
    summary: 'The attachment bytes',
    tags: ['attachments'],
    scope: 'instance',
    permission: 'bot:read',
    input: Type.Object({ id: Id }),
    output: Type.String({ format: 'binary' }),
    http: { method: 'GET', path: '/attachment/:attachment_id/file', params: { attachment_id: 'id' }, message: '', respond: 'attachmentFile', errors: { 404: 'Unknown attachment (or another instance’s)' } }
  }),
  'attachments.delete': op<void, DeleteResultT>()({
    summary: 'Delete an attachment',
    tags: ['attachments'],
    scope: 'instance',
    permission: 'bot:write',
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
    permission: 'messages:send',
    input: withoutCredentials(SendTextBody),
    output: TextSendResult,
    http: { method: 'POST', path: '/chatapp/message', message: SENT, errors: SEND_ERRORS },
    rpc: { output: sentCount }
  }),
  'messages.react': op<ReactionResultT>()({
    summary: 'React to a message',
    description:
      'Sends a reaction (one emoji) on a message of the chat, as WhatsApp shows it under the bubble: one per person, so a new one replaces the shop’s earlier reaction and "" removes it. The message shows it in the log (`reactions`) and an onMessageReaction webhook follows. 404 when the chat has no message with that id.',
    tags: ['messages'],
    scope: 'instance',
    permission: 'messages:send',
    input: withoutCredentials(ReactionBody),
    output: ReactionResult,
    http: { method: 'POST', path: '/chatapp/message/reaction', message: 'Reaction sent successfully', errors: { ...SEND_ERRORS, 404: 'No message with that id in the chat' } },
    rpc: true
  }),
  'messages.sendImage': mediaOperation('/chatapp/message/image', MediaFields, 'Send an image'),
  'messages.sendVideo': mediaOperation('/chatapp/message/video', MediaFields, 'Send a video'),
  'messages.sendAudio': mediaOperation('/chatapp/message/audio', AudioFields, 'Send audio (ptt=true for a voice note)'),
  'messages.sendDocument': mediaOperation('/chatapp/message/doc', DocFields, 'Send a document'),
  'messages.sendMedia': op<SentMessageT, { id: string }>()({
    summary: 'Send a stored attachment as an image, video, audio or document message (UI)',
    tags: ['messages'],
    scope: 'instance',
    permission: 'messages:send',
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
    permission: 'messages:send',
    input: withoutCredentials(FileUrlFields),
    output: SentMessage,
    http: { method: 'POST', path: '/chatapp/message/fileurl', multipart: { file: 'none', alsoJson: true }, message: SENT, errors: MEDIA_ERRORS },
    rpc: { output: sentId }
  }),
  'messages.sendButtons': op<SentMessageT, { id: string }>()({
    summary: 'Send buttons (delivered as numbered text)',
    tags: ['messages'],
    scope: 'instance',
    permission: 'messages:send',
    input: withoutCredentials(SendButtonsBody),
    output: SentMessage,
    http: { method: 'POST', path: '/chatapp/message/button', message: SENT, errors: SEND_ERRORS },
    rpc: { output: sentId }
  }),
  'messages.sendContact': op<SentMessageT, { id: string }>()({
    summary: 'Send a contact card (vCard)',
    tags: ['messages'],
    scope: 'instance',
    permission: 'messages:send',
    input: withoutCredentials(SendContactBody),
    output: SentMessage,
    http: { method: 'POST', path: '/chatapp/message/contact', message: SENT, errors: SEND_ERRORS },
    rpc: { output: sentId }
  }),
  'messages.sendList': op<SentMessageT, { id: string }>()({
    summary: 'Send a list (delivered as numbered text)',
    tags: ['messages'],
    scope: 'instance',
    permission: 'messages:send',
    input: withoutCredentials(SendListBody),
    output: SentMessage,
    http: { method: 'POST', path: '/chatapp/message/list', message: SENT, errors: SEND_ERRORS },
    rpc: { output: sentId }
  }),
  'messages.sendMediaButtons': op<SentMessageT, { id: string }>()({
    summary: 'Send an image with buttons (the buttons as its caption)',
    tags: ['messages'],
    scope: 'instance',
    permission: 'messages:send',
    input: withoutCredentials(SendMediaButtonBody),
    output: SentMessage,
    http: { method: 'POST', path: '/chatapp/message/MediaButton', message: SENT, errors: MEDIA_ERRORS },
    rpc: { output: sentId }
  }),
  'messages.sendTextDeprecated': op<SentMessageT>()({
    summary: 'Send a text (deprecated; use /chatapp/message)',
    tags: ['messages'],
    scope: 'instance',
    permission: 'messages:send',
    input: withoutCredentials(SendTextDeprecatedBody),
    output: Type.String({ description: 'Id of the sent message.' }),
    http: { method: 'POST', path: '/chatapp/message/sendText', aliases: ['/chatapp/sendText'], deprecated: true, message: SENT, wire: (s) => s.key.id, errors: SEND_ERRORS }
  }),
  'messages.media': op<{ data: Uint8Array; mimetype: string; fileName?: string }>()({
    summary: 'The file of an inbound media message (downloaded on demand)',
    tags: ['messages'],
    scope: 'instance',
    permission: 'messages:read',
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
    permission: 'messages:read',
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
    permission: 'messages:read',
    input: Type.Object({ id: Id }),
    output: MessageLogRecord,
    http: { method: 'GET', path: '/message-log/:message_id', params: { message_id: 'id' }, message: 'Message log fetched successfully!', errors: { 404: 'No such message in the log' } },
    rpc: true
  }),
  'messages.preview': op<{ dataUrl: string | null }>()({
    summary: 'A small JPEG preview of an inbound image (UI)',
    tags: ['messages'],
    scope: 'instance',
    permission: 'messages:read',
    input: Type.Object({ id: Id }),
    output: Type.Object({ dataUrl: Type.Union([Type.String(), Type.Null()], { description: '`data:image/jpeg;base64,…`, ≤ 320 px wide; null for other media.' }) }),
    rpc: true
  }),
  'messages.list': op<MessageEntryT[]>()({
    summary: 'The message log (extension): a page newest last, or a search newest first',
    description:
      'Every message is kept (or for the instance’s retention period). Pages: the newest `limit` (default 100, at most 1,000), or those before/after a cursor — the `id` of an entry of the page before (stable while messages arrive); a number is still read as epoch ms for older scripts. With `q`: the entries whose text, sender name or number contain every term (any case and accents, also inside words and in scripts without spaces), newest first, each with a `snippet` and its `highlights`; page back with `before` = the last entry’s id.',
    tags: ['messages'],
    scope: 'instance',
    permission: 'messages:read',
    input: Type.Object({
      chatId: Type.Optional(Type.String()),
      limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, default: 100 })),
      before: Type.Optional(Type.Union([Type.String({ minLength: 1 }), Type.Integer({ minimum: 0 })], { description: 'An entry’s id: entries older than it (a number: epoch ms).' })),
      after: Type.Optional(Type.Union([Type.String({ minLength: 1 }), Type.Integer({ minimum: 0 })], { description: 'An entry’s id: entries newer than it, oldest first (a number: epoch ms).' })),
      q: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'Search terms.' }))
    }),
    output: Type.Array(MessageEntry),
    http: { method: 'GET', path: '/chatapp/messages', query: ['chatId', 'limit', 'before', 'after', 'q'], message: 'Messages fetched successfully!', errors: { 400: 'A cursor that names no message of this instance' } },
    rpc: true
  }),
  'messages.fetchHistory': op<PhoneHistoryResultT>()({
    summary: 'Load older messages of a chat from the phone',
    description:
      'Asks the linked phone for up to `count` messages of the chat older than the oldest one the log holds (WhatsApp’s on-demand history, at most 50 at a time), waits up to 20 s for its answer and stores what it sends once: messages the log already has are not stored again. Call again to go further back. The phone must be online; some never answer (then `answered` is false, and a late answer is still stored). WhatsApp instances only.',
    tags: ['messages'],
    scope: 'instance',
    permission: 'messages:read',
    input: Type.Object({
      chatId: Type.String({ minLength: 1, description: 'A phone number or a JID.' }),
      count: Type.Optional(Type.Integer({ minimum: 1, maximum: HISTORY_FETCH_MAX, default: HISTORY_FETCH_MAX }))
    }),
    output: PhoneHistoryResult,
    http: {
      method: 'POST',
      path: '/chatapp/messages/fetch-history',
      message: 'Older messages requested from the phone.',
      errors: { 400: 'The chat has no message to start from', 409: 'The instance is not connected, or is a sandbox (no phone)' }
    },
    rpc: true
  })
} as const

/** The kind a media operation sends (the multipart routes of the table). */
export const MEDIA_KIND = {
  'messages.sendImage': 'image',
  'messages.sendVideo': 'video',
  'messages.sendAudio': 'audio',
  'messages.sendDocument': 'document'
} as const

/** How many messages a text send sent (the UI's answer). */
function sentCount(r: TextSendResultT): { sent: number } {
  return { sent: (r.message ? 1 : 0) + r.media.length + (r.location ? 1 : 0) + (r.contact ? 1 : 0) }
}

/** A multipart media send (docs/api-seed.md §4.5); its kind is {@link MEDIA_KIND}'s. */
function mediaOperation<P extends TProperties>(path: string, fields: TObject<P>, summary: string) {
  return op<SentMessageT>()({
    summary,
    tags: ['messages'],
    scope: 'instance',
    permission: 'messages:send',
    input: Type.Object({ ...withoutCredentials(fields).properties, file: UploadedFile }),
    output: SentMessage,
    http: { method: 'POST', path, multipart: { file: 'required' }, message: SENT, errors: MEDIA_ERRORS }
  })
}
