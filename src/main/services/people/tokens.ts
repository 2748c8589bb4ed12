/**
 * The bearer tokens of people and scripts, told apart by a prefix so the authenticator knows where to
 * look without trying each store: `cas_<secret>` a web session, `cak_<keyId>_<secret>` an API key.
 * Only their sha256 is stored: they are 192-bit random values, so a fast digest cannot be reversed.
 */
import { createHash } from 'node:crypto'
import { newObjectId, newSecret } from '../../ids'

export const SESSION_PREFIX = 'cas_'
export const KEY_PREFIX = 'cak_'

/** Hex sha256 of a token, as stored. */
export function tokenHash(token: string): string {
  return createHash('sha256').update(token).digest('hex')
}

export function newSessionToken(): string {
  return SESSION_PREFIX + newSecret(24)
}

/** A new API key and its id (the id is also in the key, so a check reads one row). */
export function newApiKey(): { id: string; key: string } {
  const id = newObjectId()
  return { id, key: `${KEY_PREFIX}${id}_${newSecret(24)}` }
}

/** The key id inside an API key, or undefined when `token` is not one. */
export function keyIdOf(token: string): string | undefined {
  if (!token.startsWith(KEY_PREFIX)) return undefined
  const rest = token.slice(KEY_PREFIX.length)
  const cut = rest.indexOf('_')
  return cut > 0 ? rest.slice(0, cut) : undefined
}

/** Whether `token` is a session or key token (by its prefix), not the account token. */
export function isPeopleToken(token: string): boolean {
  return token.startsWith(SESSION_PREFIX) || token.startsWith(KEY_PREFIX)
}
