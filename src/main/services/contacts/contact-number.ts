/** Phone numbers of contacts as people type them. */
import { invalid } from '../../errors'

/** Digits of a phone number as typed (`+39 333 123-4567`); throws 400 naming `number` otherwise. */
export function contactNumber(value: string): string {
  const digits = value.replace(/[\s\-().+]/g, '')
  if (!/^\d{6,16}$/.test(digits)) throw invalid('number', 'must be a phone number with its country code, e.g. +39 333 1234567')
  return digits
}

/**
 * The key of the customer a 1:1 JID names, as contacts are kept: a number's digits
 * (`…@s.whatsapp.net`, any device), or the LID itself (`<lid>@lid`, device dropped) for a customer
 * who hides the number behind a WhatsApp username (docs/baileys.md "Usernames"); undefined for
 * groups and anything else.
 */
export function contactKeyOf(jid: string): string | undefined {
  const m = /^(\d+)(?::\d+)?@(s\.whatsapp\.net|lid)$/.exec(jid)
  if (!m) return undefined
  return m[2] === 'lid' ? `${m[1]}@lid` : m[1]
}

/** How a contact with no name is called: `+<number>`, or for a LID key `@username` when known, else the LID. */
export function unnamedContact(key: string, username?: string | null): string {
  if (!key.endsWith('@lid')) return `+${key}`
  return username ? `@${username}` : key
}
