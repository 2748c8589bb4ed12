/**
 * What a send request means as channel messages, decided before anything is sent. Pure.
 *
 * The seed's text send (docs/api-seed.md §4.5) is a plan of steps in a fixed order: the text, then
 * each attachment (as the kind its type calls for), then a location, then a contact card. Media
 * kinds map to the channel's content shapes.
 */
import type { MediaSource, OutboundContent } from '../../channel/types'
import { buildVCard } from '../../channel/vcard'
import { kindOfMime, type MediaKind } from '../../media/media-inspect'

/** Extras of a media message. */
export interface MediaExtras {
  caption?: string
  fileName?: string
  voiceNote?: boolean
}

/** The channel content for a media file of `kind`. */
export function mediaContent(kind: MediaKind, media: MediaSource, extra: MediaExtras): OutboundContent {
  switch (kind) {
    case 'image':
      return { kind, media, caption: extra.caption }
    case 'video':
      return { kind, media, caption: extra.caption }
    case 'audio':
      return { kind, media, voiceNote: extra.voiceNote }
    case 'document':
      return { kind, media, fileName: extra.fileName || media.fileName || 'file', caption: extra.caption }
  }
}

/** One step of a text send: what to send, and which field of the seed's result it fills. */
export type TextSendStep =
  | { fills: 'message'; content: OutboundContent }
  | { fills: 'media'; attachmentId: string; kind: MediaKind; content: OutboundContent }
  | { fills: 'location'; content: OutboundContent }
  | { fills: 'contact'; content: OutboundContent }

export interface TextSendRequest {
  message?: string
  /** The attachments named, already checked: their stored file. */
  attachments: Array<{ _id: string; media: MediaSource }>
  location?: { lat: string; lng: string; name?: string }
  /** The contact card: its JID (a number), already resolved, and the name to show (default: the number). */
  contact?: { jid: string; name?: string }
}

/** The steps of a text send, in the seed's order. */
export function planTextSend(req: TextSendRequest): TextSendStep[] {
  const steps: TextSendStep[] = []
  if (req.message) steps.push({ fills: 'message', content: { kind: 'text', text: req.message } })
  for (const a of req.attachments) {
    const kind = kindOfMime(a.media.mimetype)
    steps.push({ fills: 'media', attachmentId: a._id, kind, content: mediaContent(kind, a.media, {}) })
  }
  if (req.location) {
    steps.push({ fills: 'location', content: { kind: 'location', latitude: Number(req.location.lat), longitude: Number(req.location.lng), name: req.location.name } })
  }
  if (req.contact) {
    const digits = req.contact.jid.split('@')[0]!
    const name = req.contact.name ?? `+${digits}`
    steps.push({ fills: 'contact', content: { kind: 'contact', displayName: name, vcard: buildVCard({ fullName: name, phoneNumber: digits }) } })
  }
  return steps
}
