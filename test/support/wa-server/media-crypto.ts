/**
 * WhatsApp media encryption, both ways, for the fake peers of the protocol test server (test code).
 *
 * The format (node_modules/baileys/lib/Utils/messages-media.js `encryptedStream` and
 * `downloadEncryptedContent`): a random 32-byte `mediaKey` is expanded with HKDF-SHA256 to 112 bytes
 * (info `WhatsApp <Image|Video|Audio|Document> Keys`, Baileys' exported `getMediaKeys`):
 * iv = bytes 0–16, cipherKey = 16–48, macKey = 48–80. The blob on the media host is
 * AES-256-CBC(cipherKey, iv, plaintext) ‖ mac, mac = the first 10 bytes of
 * HMAC-SHA256(macKey, iv ‖ ciphertext). The message carries `fileSha256` (of the plaintext),
 * `fileEncSha256` (of the whole blob, mac included) and `fileLength` (plaintext bytes).
 */
import { createCipheriv, createDecipheriv, createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto'
import { getMediaKeys, type MediaType } from 'baileys'

/** What an encrypted upload puts in the message, with the blob to store. */
export interface EncryptedMedia {
  /** Ciphertext ‖ 10-byte mac: what the media host stores and serves. */
  blob: Buffer
  mediaKey: Buffer
  fileSha256: Buffer
  fileEncSha256: Buffer
  /** Plaintext length in bytes. */
  fileLength: number
}

/** The fields of a media message (`imageMessage`, `audioMessage`, …) the decryption checks. */
export interface MediaFields {
  mediaKey?: Uint8Array | null
  fileSha256?: Uint8Array | null
  fileEncSha256?: Uint8Array | null
  fileLength?: number | { toNumber(): number } | null
}

const sha256 = (data: Buffer): Buffer => createHash('sha256').update(data).digest()

/** iv, cipherKey and macKey of `mediaKey` for `mediaType` (Baileys types macKey as optional; it is always set). */
async function keysOf(mediaKey: Uint8Array, mediaType: MediaType): Promise<{ iv: Buffer; cipherKey: Buffer; macKey: Buffer }> {
  const { iv, cipherKey, macKey } = await getMediaKeys(mediaKey, mediaType)
  if (!macKey) throw new Error('getMediaKeys gave no macKey')
  return { iv: Buffer.from(iv), cipherKey: Buffer.from(cipherKey), macKey: Buffer.from(macKey) }
}

/** Encrypts `plain` as WhatsApp does for `mediaType` (`image`, `video`, `audio`, `ptt`, `document`, `sticker`). */
export async function encryptMedia(plain: Buffer, mediaType: MediaType): Promise<EncryptedMedia> {
  const mediaKey = randomBytes(32)
  const { iv, cipherKey, macKey } = await keysOf(mediaKey, mediaType)
  const aes = createCipheriv('aes-256-cbc', cipherKey, iv)
  const ciphertext = Buffer.concat([aes.update(plain), aes.final()])
  const mac = createHmac('sha256', macKey).update(iv).update(ciphertext).digest().subarray(0, 10)
  const blob = Buffer.concat([ciphertext, mac])
  return { blob, mediaKey, fileSha256: sha256(plain), fileEncSha256: sha256(blob), fileLength: plain.length }
}

/**
 * Checks and decrypts a blob with the keys of a media message: `fileEncSha256`, the mac, then after
 * decryption `fileSha256` and `fileLength`. Throws an Error naming the first check that fails.
 */
export async function decryptMedia(blob: Buffer, media: MediaFields, mediaType: MediaType): Promise<Buffer> {
  if (!media.mediaKey?.length) throw new Error('the media message has no mediaKey')
  if (!media.fileEncSha256 || !sha256(blob).equals(Buffer.from(media.fileEncSha256))) throw new Error('fileEncSha256 does not match the stored blob')
  if (blob.length < 10 + 16) throw new Error(`the blob is too short (${blob.length} bytes)`)
  const { iv, cipherKey, macKey } = await keysOf(media.mediaKey, mediaType)
  const ciphertext = blob.subarray(0, -10)
  const mac = createHmac('sha256', macKey).update(iv).update(ciphertext).digest().subarray(0, 10)
  if (!timingSafeEqual(mac, blob.subarray(-10))) throw new Error(`the mac does not match (wrong mediaKey or media type ${mediaType}?)`)
  const aes = createDecipheriv('aes-256-cbc', cipherKey, iv)
  const plain = Buffer.concat([aes.update(ciphertext), aes.final()])
  if (!media.fileSha256 || !sha256(plain).equals(Buffer.from(media.fileSha256))) throw new Error('fileSha256 does not match the decrypted file')
  const length = typeof media.fileLength === 'object' && media.fileLength ? media.fileLength.toNumber() : Number(media.fileLength)
  if (length !== plain.length) throw new Error(`fileLength ${length} is not the decrypted size ${plain.length}`)
  return plain
}
