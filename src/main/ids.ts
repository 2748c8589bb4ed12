/** Identifiers and secrets. */
import { randomBytes } from 'node:crypto'

let counter = randomBytes(3).readUIntBE(0, 3)

/**
 * A 24-hex-digit id in MongoDB ObjectId layout (4-byte seconds, 5 random bytes, 3-byte counter), the
 * shape the seed's records show. Sorts roughly by creation time.
 */
export function newObjectId(): string {
  const buf = Buffer.alloc(12)
  buf.writeUInt32BE(Math.floor(Date.now() / 1000), 0)
  randomBytes(5).copy(buf, 4)
  counter = (counter + 1) % 0xffffff
  buf.writeUIntBE(counter, 9, 3)
  return buf.toString('hex')
}

/** A URL-safe random secret of `bytes` bytes (default 24 = 192 bits). */
export function newSecret(bytes = 24): string {
  return randomBytes(bytes).toString('base64url')
}

/** A network-style message id (uppercase hex, like WhatsApp's `3EB0…`). */
export function newMessageId(): string {
  return '3EB0' + randomBytes(8).toString('hex').toUpperCase()
}

/**
 * A Standard Webhooks signing secret: `whsec_` and 32 random bytes in standard base64 (the form the
 * Standard Webhooks libraries decode; URL-safe base64 would not verify there). docs/design.md §11.
 */
export function newWebhookSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`
}
