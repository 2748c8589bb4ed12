/**
 * Pure: quick-reply insertion in the composer. A `/word` being typed at the end of the message
 * (at the start or after a space) offers the quick replies whose shortcut starts with `word`; picking
 * one puts its text in place of the `/word`.
 */

export interface ShortcutQuery {
  /** What follows the slash (may be empty: every quick reply). */
  prefix: string
  /** Where the `/` is in the message. */
  at: number
}

/** The `/word` at the end of `text`, or null when none is being typed. */
export function shortcutBeingTyped(text: string): ShortcutQuery | null {
  const m = /(^|\s)\/([a-z0-9_-]*)$/.exec(text)
  return m ? { prefix: m[2]!, at: m.index + m[1]!.length } : null
}

/** The quick replies a `/prefix` offers, by shortcut. */
export function matchingReplies<Q extends { shortcut: string }>(replies: readonly Q[], query: ShortcutQuery): Q[] {
  return replies.filter((r) => r.shortcut.startsWith(query.prefix)).sort((a, b) => a.shortcut.localeCompare(b.shortcut))
}

/** `text` with the `/word` at `query.at` replaced by the quick reply's text. */
export function insertReply(text: string, query: ShortcutQuery, replyText: string): string {
  return text.slice(0, query.at) + replyText
}
