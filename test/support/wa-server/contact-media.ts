/**
 * Media as the fake peers of the protocol test server see it (test code): reading what the linked
 * client sent (fetch the blob from the media host, check and decrypt it) and building media messages
 * the way a phone does (encrypt, store on the media host, reference it in the message).
 * Formats: media-crypto.ts; message fields: WAProto `ImageMessage`, `VideoMessage`, `AudioMessage`,
 * `DocumentMessage`, `StickerMessage` (node_modules/baileys/WAProto).
 */
import type { MediaType, proto } from 'baileys'
import { decryptMedia, encryptMedia } from './media-crypto'
import type { MediaHost } from './media-host'

export type MediaKind = 'image' | 'video' | 'audio' | 'document' | 'sticker'

type AnyMediaMessage = proto.Message.IImageMessage &
  proto.Message.IVideoMessage &
  proto.Message.IAudioMessage &
  proto.Message.IDocumentMessage &
  proto.Message.IStickerMessage

const KINDS: readonly MediaKind[] = ['image', 'video', 'audio', 'document', 'sticker']

/** The media part of a message (wrappers such as `documentWithCaptionMessage` unwrapped), or undefined. */
export function mediaPartOf(message: proto.IMessage): { kind: MediaKind; media: AnyMediaMessage } | undefined {
  const inner = message.documentWithCaptionMessage?.message ?? message.ephemeralMessage?.message ?? message.viewOnceMessage?.message
  if (inner) return mediaPartOf(inner)
  for (const kind of KINDS) {
    const media = message[`${kind}Message`] as AnyMediaMessage | null | undefined
    if (media) return { kind, media }
  }
  return undefined
}

/**
 * The plaintext of a media message the client sent: its blob read from `host` at `directPath` (which
 * must be the same file as `url`, on that host), checked and decrypted (see media-crypto.ts).
 * Throws when the message has no media, points elsewhere, or any check fails.
 */
export async function readMedia(host: MediaHost, message: proto.IMessage): Promise<Buffer> {
  const part = mediaPartOf(message)
  if (!part) throw new Error(`not a media message: ${Object.keys(message).join(', ')}`)
  const { kind, media } = part
  if (!media.url || !media.directPath) throw new Error(`the ${kind}Message has no url or directPath`)
  const url = new URL(media.url)
  if (url.host !== host.host) throw new Error(`the ${kind}Message url points at ${url.host}, not the media host ${host.host}`)
  const blob = host.get(media.directPath)
  if (!blob) throw new Error(`the media host has nothing at ${media.directPath}`)
  if (host.get(media.url) !== blob) throw new Error('url and directPath name different files')
  // Voice notes are encrypted with the audio keys (MEDIA_HKDF_KEY_MAPPING ptt → Audio).
  return decryptMedia(blob, media, kind as MediaType)
}

/** Fields a sender sets besides the file (`caption`, `mimetype`, `fileName`, `ptt`, `width`, …). */
export type MediaExtras = Omit<AnyMediaMessage, 'url' | 'directPath' | 'mediaKey' | 'fileSha256' | 'fileEncSha256' | 'fileLength'>

/**
 * A media message as a phone sends it: `bytes` encrypted and stored on `host`, the message carrying
 * url (https://127.0.0.1:PORT/…), directPath, mediaKey, mediaKeyTimestamp, the hashes, fileLength and `extras`.
 */
export async function buildMediaMessage(host: MediaHost, kind: MediaKind, bytes: Buffer, extras: MediaExtras = {}): Promise<proto.IMessage> {
  const enc = await encryptMedia(bytes, kind)
  const { url, directPath } = host.put(kind, enc.blob)
  return {
    [`${kind}Message`]: {
      ...extras,
      url,
      directPath,
      mediaKey: enc.mediaKey,
      mediaKeyTimestamp: Math.floor(Date.now() / 1000),
      fileSha256: enc.fileSha256,
      fileEncSha256: enc.fileEncSha256,
      fileLength: enc.fileLength
    }
  }
}
