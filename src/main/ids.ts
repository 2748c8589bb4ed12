/** Identifiers and secrets. */
import { randomBytes, randomFillSync } from 'node:crypto'

let counter = randomBytes(3).readUIntBE(0, 3)

/**
 * Random bytes for identifiers, drawn from a pool refilled 4 KiB at a time: one OpenSSL call per
 * hundreds of ids instead of one per id (a call cost ~30 µs on the 2-core VM, a tenth of a send's CPU;
 * Node pools `randomUUID` the same way). Never used for secrets, which get their own `randomBytes`.
 */
const pool = Buffer.alloc(4096)
let poolOffset = pool.length

function pooledRandom(n: number): Buffer {
  if (poolOffset + n > pool.length) {
    randomFillSync(pool)
    poolOffset = 0
  }
  const out = pool.subarray(poolOffset, poolOffset + n)
  poolOffset += n
  return out
}

/** The ObjectId's 5-byte random value: one per process, as the ObjectId specification says. */
const processRandom = randomBytes(5)

/**
 * A 24-hex-digit id in MongoDB ObjectId layout (4-byte seconds, the process's 5 random bytes, 3-byte
 * counter), the shape the seed's records show. Within a process, ids sort in creation order (records
 * made in the same millisecond list in the order they were made).
 */
export function newObjectId(): string {
  const buf = Buffer.alloc(12)
  buf.writeUInt32BE(Math.floor(Date.now() / 1000), 0)
  processRandom.copy(buf, 4)
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
  return '3EB0' + pooledRandom(8).toString('hex').toUpperCase()
}

/**
 * A Standard Webhooks signing secret: `whsec_` and 32 random bytes in standard base64 (the form the
 * Standard Webhooks libraries decode; URL-safe base64 would not verify there). docs/design.md §11.
 */
export function newWebhookSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`
}
