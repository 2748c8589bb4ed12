/**
 * JID normalisation for `chatId` / `to` / group ids (docs/api-seed.md §4.5, issue "Sends").
 *
 * Accepted: a phone number (digits with optional `+`, spaces, dashes, dots, parentheses) → 
 * `digits@s.whatsapp.net`; a user JID (`@s.whatsapp.net`, legacy `@c.us`), a group JID (`@g.us`),
 * a LID (`@lid`), a newsletter (`@newsletter`) or `status@broadcast`. Device suffixes (`:12`) are
 * dropped from user JIDs.
 */

const PHONE = /^\+?[\d\s\-.()]{5,32}$/
const USER_JID = /^(\d{5,20})(?::\d+)?@(s\.whatsapp\.net|c\.us)$/
const GROUP_JID = /^(\d{5,20}(?:-\d{5,20})?)@g\.us$/
const LID_JID = /^(\d{5,25})(?::\d+)?@lid$/
const NEWSLETTER = /^\d{5,25}@newsletter$/

/** The JID for `input`, or null when it is neither a phone number nor a JID. */
export function toJid(input: string): string | null {
  const v = input.trim()
  if (!v) return null
  if (v === 'status@broadcast') return v
  let m = USER_JID.exec(v)
  if (m) return `${m[1]}@s.whatsapp.net`
  m = GROUP_JID.exec(v)
  if (m) return `${m[1]}@g.us`
  m = LID_JID.exec(v)
  if (m) return `${m[1]}@lid`
  if (NEWSLETTER.test(v)) return v
  if (PHONE.test(v)) {
    const digits = v.replace(/\D/g, '')
    if (digits.length >= 5 && digits.length <= 20) return `${digits}@s.whatsapp.net`
  }
  return null
}

/** A group JID from `120363…@g.us`, `120363…` or `1555…-1612…`; null otherwise. */
export function toGroupJid(input: string): string | null {
  const v = input.trim()
  const m = GROUP_JID.exec(v) ?? /^(\d{5,20}(?:-\d{5,20})?)$/.exec(v)
  return m ? `${m[1]}@g.us` : null
}

export function isGroupJid(jid: string): boolean {
  return jid.endsWith('@g.us')
}
