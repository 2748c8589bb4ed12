/**
 * Password hashing with Node's scrypt (docs/design.md §21 "Staff"; OWASP Password Storage Cheat Sheet: scrypt with
 * N=2^17, r=8, p=1). The hash carries its parameters (`scrypt$<log2N>$<r>$<p>$<salt>$<hash>`, base64url),
 * so a later release can raise the cost and still check old hashes. No native module.
 */
import { randomBytes, scrypt, timingSafeEqual } from 'node:crypto'
import { promisify } from 'node:util'

const scryptAsync = promisify(scrypt) as (password: string, salt: Buffer, keylen: number, opts: { N: number; r: number; p: number; maxmem: number }) => Promise<Buffer>

/** scrypt's cost as log2(N); 17 by default (OWASP), lower only where tests pass a smaller one. */
export const DEFAULT_SCRYPT_LOG2N = 17
const KEY_BYTES = 32


async function derive(password: string, salt: Buffer, log2n: number, r: number, p: number): Promise<Buffer> {
  const N = 2 ** log2n
  // scrypt needs 128·N·r bytes; leave room above it (Node's default cap is 32 MiB).
  return scryptAsync(password.normalize('NFKC'), salt, KEY_BYTES, { N, r, p, maxmem: 128 * N * r + 16 * 1024 * 1024 })
}

/** The stored form of `password` (a new random salt each time). */
export async function hashPassword(password: string, log2n = DEFAULT_SCRYPT_LOG2N): Promise<string> {
  const salt = randomBytes(16)
  const key = await derive(password, salt, log2n, 8, 1)
  return ['scrypt', log2n, 8, 1, salt.toString('base64url'), key.toString('base64url')].join('$')
}

/** Whether `password` matches `stored` (constant-time); false for a hash of another shape. */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [alg, log2n, r, p, salt, hash] = stored.split('$')
  if (alg !== 'scrypt' || !salt || !hash) return false
  const expected = Buffer.from(hash, 'base64url')
  const key = await derive(password, Buffer.from(salt, 'base64url'), Number(log2n), Number(r), Number(p))
  return key.length === expected.length && timingSafeEqual(key, expected)
}
