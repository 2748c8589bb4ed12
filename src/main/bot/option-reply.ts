/**
 * Replies to buttons and lists sent as numbered text (docs/design.md §6, last paragraph): "a reply with
 * an option's number or title counts as pressing it". Pure; never throws.
 *
 * `resolveOptionReply(text, options)` takes the reply and the options of the last buttons/list
 * message the bot sent to that chat, in the order they were numbered (`1.` = `options[0]`), and
 * returns the chosen option object itself, or null. Accepted, after `normalizeText`:
 * - the number alone, optionally followed by `.` or `)` (`2`, `2.`, `2)`), also in Arabic-Indic,
 *   Devanagari and other native digits (fullwidth digits are already ASCII after NFKC);
 * - the title, whole (`menu` for `Menu`);
 * - the line as displayed, number then title (`2. Menu`, `2 menu`), in case the contact copies it.
 * A title that is itself a number (`10`) is matched as a title before being read as a position.
 * Text that merely contains a title ("I want the menu") is not a press: the message goes to the bot
 * engine as ordinary text, where intents may still match it.
 */
import { normalizeText } from '../../shared/domain/keywords'

export interface OptionChoice {
  title: string
  id?: string
}

/** Code points of the digit zero of decimal-digit blocks a phone keyboard may type. */
const DIGIT_ZEROS = [
  0x0660, 0x06f0, 0x07c0, 0x0966, 0x09e6, 0x0a66, 0x0ae6, 0x0b66, 0x0be6, 0x0c66, 0x0ce6, 0x0d66, 0x0de6, 0x0e50,
  0x0ed0, 0x0f20, 0x1040, 0x1090, 0x17e0, 0x1810, 0x1946, 0x19d0
]

function asciiDigits(s: string): string {
  return s.replace(/\p{Nd}/gu, (d) => {
    const cp = d.codePointAt(0)!
    for (const zero of DIGIT_ZEROS) if (cp >= zero && cp <= zero + 9) return String(cp - zero)
    return d
  })
}

const NUMBERED = /^(\d{1,3})\s*[.)]?(?:\s+(.*))?$/u

/** The option pressed by `text` (see module doc), or null. */
export function resolveOptionReply<O extends OptionChoice>(text: string, options: readonly O[]): O | null {
  if (options.length === 0) return null
  const reply = asciiDigits(normalizeText(text))
  if (!reply) return null
  const byTitle = options.find((o) => asciiDigits(normalizeText(o.title)) === reply)
  if (byTitle) return byTitle
  const m = NUMBERED.exec(reply)
  if (!m) return null
  const option = options[Number(m[1]) - 1]
  if (!option) return null
  if (m[2] === undefined || asciiDigits(normalizeText(option.title)) === m[2]) return option
  return null
}
