/**
 * A received Baileys `WAMessage` (messages.upsert) → the app's {@link InboundMessage}, or null for
 * what is not a message a person wrote. Pure.
 *
 * A CIPHERTEXT stub (a message that failed to decrypt; the library asks the sender for a retry and the
 * real message follows with the SAME id) becomes an `undecryptable` placeholder, which the app logs and
 * replaces when the real one arrives. Ignored (null): other stubs, protocol messages (revokes, edits'
 * envelopes, app-state key shares, history notifications), reactions, poll votes, pins,
 * keep-in-chat, bare sender-key distributions, and anything without an id or chat.
 *
 * Text: conversation, extended text, captions of image/video/document, the title and id of a
 * pressed button (buttons / template / native-flow replies) or list row, location name, contact
 * name, poll question. Wrappers (ephemeral, view-once, document-with-caption, edited) are unwrapped
 * with the library's `normalizeMessageContent` (lib/Utils/messages.js).
 *
 * Addressing (Baileys 7, docs/design.md §5): `chatId` is `key.remoteJid` as the network addressed it
 * (a phone-number JID, a LID or a group); the sender is `key.participant` in groups. The other form
 * comes in `key.remoteJidAlt` / `key.participantAlt`: both are returned as senderPn / senderLid.
 * Device suffixes are dropped (`1555…:12@s.whatsapp.net` → `1555…@s.whatsapp.net`).
 */
import { getContentType, normalizeMessageContent, WAMessageStubType, type proto, type WAMessage } from 'baileys'
import type { InboundMessage, InboundType } from '../types'

/** Message kinds that carry no content for the bot or the log. */
const IGNORED = new Set([
  'protocolMessage',
  'reactionMessage',
  'encReactionMessage',
  'pollUpdateMessage',
  'pinInChatMessage',
  'keepInChatMessage',
  'senderKeyDistributionMessage',
  'messageHistoryBundle',
  'messageHistoryNotice',
  'encEventResponseMessage',
  'secretEncryptedMessage',
  'placeholderMessage'
])

/** A user/LID JID without its device suffix; other JIDs unchanged. */
export function stripDevice(jid: string): string {
  const at = jid.indexOf('@')
  if (at < 0) return jid
  const server = jid.slice(at + 1)
  if (server !== 's.whatsapp.net' && server !== 'lid' && server !== 'c.us') return jid
  const user = jid.slice(0, at).split(':')[0]!
  return `${user}@${server === 'c.us' ? 's.whatsapp.net' : server}`
}

/** Seconds from a protobuf number, Long or numeric string; 0 when absent. */
export function toSeconds(value: unknown): number {
  if (typeof value === 'number') return value
  if (typeof value === 'string') return Number(value) || 0
  if (value && typeof value === 'object' && 'toNumber' in value && typeof (value).toNumber === 'function') {
    return (value as { toNumber(): number }).toNumber()
  }
  return 0
}

interface Extracted {
  type: InboundType
  text: string
  selectedId?: string
  media?: InboundMessage['media']
  location?: InboundMessage['location']
  poll?: InboundMessage['poll']
}

/** The coordinates of a (live) location message, when both are numbers. */
function coordinates(l: { degreesLatitude?: number | null; degreesLongitude?: number | null } | null | undefined): Pick<Extracted, 'location'> {
  return typeof l?.degreesLatitude === 'number' && typeof l.degreesLongitude === 'number' ? { location: { latitude: l.degreesLatitude, longitude: l.degreesLongitude } } : {}
}

function mediaInfo(m: { mimetype?: string | null; fileName?: string | null; fileLength?: unknown } | null | undefined, fallbackMime: string): InboundMessage['media'] {
  const size = toSeconds(m?.fileLength)
  return {
    mimetype: m?.mimetype || fallbackMime,
    ...(m?.fileName ? { fileName: m.fileName } : {}),
    ...(size ? { size } : {})
  }
}

/** The button id of a native-flow reply (`paramsJson` is `{"id": "…", …}`). */
function nativeFlowId(paramsJson: string | null | undefined): string | undefined {
  if (!paramsJson) return undefined
  try {
    const v = JSON.parse(paramsJson) as { id?: unknown }
    return typeof v.id === 'string' ? v.id : undefined
  } catch {
    return undefined
  }
}

/** Type and text of a normalised message content; null when it is not a message to handle. */
export function extractContent(content: proto.IMessage): Extracted | null {
  const kind = getContentType(content)
  if (!kind || IGNORED.has(kind)) return null
  switch (kind) {
    case 'conversation':
      return { type: 'text', text: content.conversation ?? '' }
    case 'extendedTextMessage':
      return { type: 'text', text: content.extendedTextMessage?.text ?? '' }
    case 'imageMessage':
      return { type: 'image', text: content.imageMessage?.caption ?? '', media: mediaInfo(content.imageMessage, 'image/jpeg') }
    case 'videoMessage':
      return { type: 'video', text: content.videoMessage?.caption ?? '', media: mediaInfo(content.videoMessage, 'video/mp4') }
    case 'ptvMessage':
      return { type: 'video', text: content.ptvMessage?.caption ?? '', media: mediaInfo(content.ptvMessage, 'video/mp4') }
    case 'audioMessage':
      return { type: 'audio', text: '', media: mediaInfo(content.audioMessage, 'audio/ogg') }
    case 'documentMessage':
      return { type: 'document', text: content.documentMessage?.caption ?? '', media: mediaInfo(content.documentMessage, 'application/octet-stream') }
    case 'stickerMessage':
      return { type: 'sticker', text: '', media: mediaInfo(content.stickerMessage, 'image/webp') }
    case 'locationMessage': {
      const l = content.locationMessage
      return { type: 'location', text: l?.name || l?.address || l?.comment || '', ...coordinates(l) }
    }
    case 'liveLocationMessage':
      return { type: 'location', text: content.liveLocationMessage?.caption ?? '', ...coordinates(content.liveLocationMessage) }
    case 'contactMessage':
      return { type: 'contact', text: content.contactMessage?.displayName ?? '' }
    case 'contactsArrayMessage':
      return { type: 'contact', text: content.contactsArrayMessage?.displayName ?? '' }
    case 'buttonsResponseMessage': {
      const r = content.buttonsResponseMessage
      return { type: 'button_reply', text: r?.selectedDisplayText ?? '', selectedId: r?.selectedButtonId ?? undefined }
    }
    case 'templateButtonReplyMessage': {
      const r = content.templateButtonReplyMessage
      return { type: 'button_reply', text: r?.selectedDisplayText ?? '', selectedId: r?.selectedId ?? undefined }
    }
    case 'interactiveResponseMessage': {
      const r = content.interactiveResponseMessage
      return { type: 'button_reply', text: r?.body?.text ?? '', selectedId: nativeFlowId(r?.nativeFlowResponseMessage?.paramsJson) }
    }
    case 'listResponseMessage': {
      const r = content.listResponseMessage
      return { type: 'list_reply', text: r?.title ?? '', selectedId: r?.singleSelectReply?.selectedRowId ?? undefined }
    }
    case 'pollCreationMessage':
    case 'pollCreationMessageV2':
    case 'pollCreationMessageV3': {
      const p = content[kind]
      return { type: 'poll', text: p?.name ?? '', poll: { options: (p?.options ?? []).map((o) => o.optionName ?? ''), selectable: p?.selectableOptionsCount ?? 0 } }
    }
    case 'groupInviteMessage':
      return { type: 'other', text: content.groupInviteMessage?.caption ?? '' }
    default:
      return { type: 'other', text: '' }
  }
}

export interface InboundContext {
  /** Delivered as offline backlog (see baileys-session: before receivedPendingNotifications, or an 'append' upsert). */
  offline: boolean
  /** Epoch seconds used when the message has no timestamp. */
  nowSeconds: number
}

/** The inbound message for `msg`, or null when it is not one (see the module doc). */
export function toInboundMessage(msg: WAMessage, ctx: InboundContext): InboundMessage | null {
  const key = msg.key
  const id = key?.id
  const remoteJid = key?.remoteJid
  if (!id || !remoteJid) return null
  let extracted: Extracted | null
  if (msg.messageStubType === WAMessageStubType.CIPHERTEXT) {
    extracted = { type: 'undecryptable', text: '' }
  } else if (msg.messageStubType) {
    return null
  } else {
    const content = normalizeMessageContent(msg.message)
    extracted = content ? extractContent(content) : null
  }
  if (!extracted) return null

  const chatId = stripDevice(remoteJid)
  const isGroup = chatId.endsWith('@g.us')
  const sender = isGroup ? key.participant : remoteJid
  const senderAlt = isGroup ? key.participantAlt : key.remoteJidAlt
  const senderId = sender ? stripDevice(sender) : chatId
  const forms = [sender, senderAlt].filter((j): j is string => Boolean(j)).map(stripDevice)
  const senderPn = forms.find((j) => j.endsWith('@s.whatsapp.net'))
  const senderLid = forms.find((j) => j.endsWith('@lid'))

  const timestamp = toSeconds(msg.messageTimestamp) || ctx.nowSeconds
  const username = (isGroup ? key.participantUsername : key.remoteJidUsername) || undefined
  return {
    id,
    chatId,
    senderId,
    ...(senderPn ? { senderPn } : {}),
    ...(senderLid ? { senderLid } : {}),
    fromMe: Boolean(key.fromMe),
    ...(msg.pushName ? { pushName: msg.pushName } : {}),
    type: extracted.type,
    text: extracted.text,
    ...(extracted.selectedId ? { selectedId: extracted.selectedId } : {}),
    timestamp,
    offline: ctx.offline,
    ...(extracted.media ? { media: extracted.media } : {}),
    ...(extracted.location ? { location: extracted.location } : {}),
    ...(extracted.poll ? { poll: extracted.poll } : {}),
    ...(username && !key.fromMe ? { username } : {})
  }
}

/** Who wrote `msg` and where, as {@link toInboundMessage} names them (device suffixes dropped). */
export function authorOf(msg: WAMessage): Pick<InboundMessage, 'chatId' | 'senderId' | 'senderPn' | 'senderLid' | 'fromMe' | 'username'> | null {
  const key = msg.key
  if (!key?.remoteJid) return null
  const chatId = stripDevice(key.remoteJid)
  const isGroup = chatId.endsWith('@g.us')
  const sender = isGroup ? key.participant : key.remoteJid
  const forms = [sender, isGroup ? key.participantAlt : key.remoteJidAlt].filter((j): j is string => Boolean(j)).map(stripDevice)
  const senderPn = forms.find((j) => j.endsWith('@s.whatsapp.net'))
  const senderLid = forms.find((j) => j.endsWith('@lid'))
  const username = (isGroup ? key.participantUsername : key.remoteJidUsername) || undefined
  return {
    chatId,
    senderId: sender ? stripDevice(sender) : chatId,
    ...(senderPn ? { senderPn } : {}),
    ...(senderLid ? { senderLid } : {}),
    fromMe: Boolean(key.fromMe),
    ...(username && !key.fromMe ? { username } : {})
  }
}
