/**
 * The chat's latest messages as the model reads them (docs/assistant.md "Privacy"): the
 * customer's as `user` turns, the shop's (the bot, a person at the desk, the phone, outreach) as
 * `assistant` turns; media without a caption as a short note of its kind. Pure.
 */
import type { LoggedMessage } from '../../shared/schemas/records'
import type { Turn } from './prompt'

/** A message's text for the model: its text, or what it was (`(a voice note)`), or null to leave out. */
export function turnText(m: Pick<LoggedMessage, 'type' | 'text'>): string | null {
  if (m.type === 'undecryptable') return null
  if (m.text.trim()) return m.text
  if (m.type === 'audio') return '(a voice note)'
  if (m.type === 'image' || m.type === 'video' || m.type === 'sticker') return `(${m.type === 'image' ? 'an image' : m.type === 'video' ? 'a video' : 'a sticker'})`
  if (m.type === 'document') return '(a document)'
  if (m.type === 'location') return '(a location)'
  return null
}

/** Log entries (oldest first) as turns; entries without text or kind to show are left out. */
export function turnsOf(log: readonly LoggedMessage[]): Turn[] {
  return log.flatMap((m) => {
    const text = turnText(m)
    return text === null ? [] : [{ role: m.fromMe ? ('assistant' as const) : ('user' as const), text }]
  })
}
