/** Pure: the conversation list of the Messages tab from message log entries (oldest first in). */
import type { LoggedMessage } from '../../../shared/schemas/records'
import type { ChatSummary } from '../../../shared/contract'

/**
 * One row per chat, most recent first; `name` is the latest push name a contact sent. Timestamps
 * have second precision, so ties go to the chat logged last.
 */
export function summariseChats(entries: LoggedMessage[]): ChatSummary[] {
  const byChat = new Map<string, ChatSummary>()
  const lastIndex = new Map<string, number>()
  for (const [i, m] of entries.entries()) {
    lastIndex.set(m.chatId, i)
    const row = byChat.get(m.chatId) ?? { chatId: m.chatId, name: null, lastText: '', lastAt: 0, count: 0 }
    row.count += 1
    if (m.timestamp >= row.lastAt) {
      row.lastAt = m.timestamp
      row.lastText = m.text || `(${m.type})`
    }
    if (!m.fromMe && m.pushName) row.name = m.pushName
    byChat.set(m.chatId, row)
  }
  return [...byChat.values()].sort((a, b) => b.lastAt - a.lastAt || lastIndex.get(b.chatId)! - lastIndex.get(a.chatId)!)
}
