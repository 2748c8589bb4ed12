/**
 * Outbound shapes, both ways. Pure.
 *
 * - {@link toMessageContent}: the app's {@link OutboundContent} → Baileys' `AnyMessageContent` for
 *   `sock.sendMessage` (lib/Utils/messages.js `generateWAMessageContent`). Media go as
 *   `{url: <local path>}`: the library streams the file (lib/Utils/messages-media.js `getStream`,
 *   type 'file') and never deletes it. Buttons and lists never reach this point: docs/design.md §6 has
 *   them rendered as text above the channel.
 * - {@link toSentMessage}: the `WAMessage` `sendMessage` resolves with → the docs/api-seed.md §2.11 result
 *   ({@link SentMessage}), via protobuf's JSON form (`WebMessageInfo.toJSON`): binary fields as
 *   base64, 64-bit numbers as decimal strings, `status` as its enum name ('PENDING' …).
 *   `message.messageContextInfo` is left out: the library adds a random per-message
 *   `messageSecret` there (used to encrypt reactions/poll votes), which is neither content nor
 *   anything a script or webhook should receive; docs/api-seed.md §2.11 and the sandbox have no such field.
 */
import { proto, type AnyMessageContent, type WAMessage } from 'baileys'
import type { OutboundContent, SentMessage } from '../types'

/** The MIME type WhatsApp needs on a voice note (an Ogg/Opus file). */
export const VOICE_NOTE_MIME = 'audio/ogg; codecs=opus'

export function toMessageContent(content: OutboundContent): AnyMessageContent {
  switch (content.kind) {
    case 'text':
      return { text: content.text }
    case 'image':
      return { image: { url: content.media.path }, mimetype: content.media.mimetype, ...(content.caption ? { caption: content.caption } : {}) }
    case 'video':
      return { video: { url: content.media.path }, mimetype: content.media.mimetype, ...(content.caption ? { caption: content.caption } : {}) }
    case 'audio': {
      // A voice note must be Ogg/Opus; other formats go as a voice note anyway with their own type
      // (there is no transcoder here), which phones usually still play.
      const ogg = /^audio\/ogg\b/.test(content.media.mimetype)
      const ptt = content.voiceNote === true
      return { audio: { url: content.media.path }, mimetype: ptt && ogg ? VOICE_NOTE_MIME : content.media.mimetype, ptt }
    }
    case 'document':
      return {
        document: { url: content.media.path },
        mimetype: content.media.mimetype,
        fileName: content.fileName,
        ...(content.caption ? { caption: content.caption } : {})
      }
    case 'location':
      return {
        location: {
          degreesLatitude: content.latitude,
          degreesLongitude: content.longitude,
          ...(content.name ? { name: content.name } : {}),
          ...(content.address ? { address: content.address } : {})
        }
      }
    case 'contact':
      return { contacts: { displayName: content.displayName, contacts: [{ displayName: content.displayName, vcard: content.vcard }] } }
  }
}

const STATUSES: ReadonlySet<SentMessage['status']> = new Set(['PENDING', 'SERVER_ACK', 'DELIVERY_ACK', 'READ', 'ERROR'])

function toStatus(value: unknown): SentMessage['status'] {
  if (typeof value === 'string') {
    if (STATUSES.has(value as SentMessage['status'])) return value as SentMessage['status']
    if (value === 'PLAYED') return 'READ'
  }
  return 'PENDING'
}

/** The docs/api-seed.md §2.11 result for a sent message. `nowSeconds` fills a missing timestamp. */
export function toSentMessage(msg: WAMessage, nowSeconds: number): SentMessage {
  const json = proto.WebMessageInfo.fromObject(msg).toJSON() as {
    key?: { remoteJid?: string; id?: string }
    message?: Record<string, unknown>
    messageTimestamp?: string | number
    status?: string
  }
  const { messageContextInfo: _secret, ...message } = json.message ?? {}
  return {
    key: { remoteJid: json.key?.remoteJid ?? msg.key.remoteJid ?? '', fromMe: true, id: json.key?.id ?? msg.key.id ?? '' },
    message,
    messageTimestamp: String(json.messageTimestamp ?? nowSeconds),
    status: toStatus(json.status)
  }
}
