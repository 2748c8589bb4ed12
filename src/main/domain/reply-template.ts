/**
 * Rendering of reply texts: intent `reply`, survey questions, `default_msg` (docs/design.md §10 "Texts",
 * docs/api-seed.md §2.7). Pure; never throws.
 *
 * `renderReply(template, {name, number}, random?)` expands spintax first (see spintax.ts), then
 * replaces every `[name]` (any letter case: `[Name]`, `[NAME]`) with the contact's push name, or
 * with their number when the push name is missing or blank. A number given as a JID
 * (`15551234567@s.whatsapp.net`, `…:12@…` device suffix) is shown as its user part.
 *
 * Order matters: the push name is chosen by the contact, so it is substituted after spintax and
 * never interpreted (a name like `{a|b}` or `$&` is inserted verbatim).
 */
import { expandSpintax } from './spintax'

export interface ReplyContact {
  /** The contact's push name; null/undefined/blank when they have none. */
  name?: string | null
  /** Phone number (or JID) of the contact. */
  number: string
}

const NAME_PLACEHOLDER = /\[name\]/gi

/** The name `[name]` stands for (see module doc). */
export function displayName(contact: ReplyContact): string {
  const name = contact.name?.trim()
  if (name) return name
  const at = contact.number.indexOf('@')
  const user = at >= 0 ? contact.number.slice(0, at) : contact.number
  const colon = user.indexOf(':')
  return colon >= 0 ? user.slice(0, colon) : user
}

/**
 * Spintax, then `[name]` (see module doc), then `fill` (more placeholders whose values the contact
 * controls, such as survey answers: like the name, inserted after spintax and never interpreted).
 */
export function renderReply(template: string, contact: ReplyContact, random: () => number = Math.random, fill: (text: string) => string = (t) => t): string {
  const expanded = expandSpintax(template, random)
  const name = displayName(contact)
  return fill(expanded.replace(NAME_PLACEHOLDER, () => name))
}
