/**
 * Pure: what the tray shows (a one-line summary of the instances' states) and when a native
 * notification is due (an instance that was connected got disconnected or logged out; a customer
 * asked for a person).
 */
import type { ChatPause, Instance } from '../../shared/schemas/records'
import type { Notice } from '../../shared/domain/state-notice'

export { stateNotice, type Notice } from '../../shared/domain/state-notice'

/** e.g. "2 connected · 1 waiting for a scan · 1 offline"; "No instances" when empty. */
export function traySummary(instances: readonly Instance[]): string {
  if (instances.length === 0) return 'No instances'
  const count = (pred: (s: string) => boolean) => instances.filter((i) => pred(i.settings.status)).length
  const parts: Array<[number, string]> = [
    [count((s) => s === 'CONNECTED'), 'connected'],
    [count((s) => s === 'QR'), 'waiting for a scan'],
    [count((s) => s === 'CONNECTING'), 'connecting'],
    [count((s) => s === 'DISCONNECTED' || s === 'LOGGED_OUT'), 'offline']
  ]
  return parts
    .filter(([n]) => n > 0)
    .map(([n, label]) => `${n} ${label}`)
    .join(' · ')
}

/**
 * The notification for a hand-off, or null: only a customer asking for a person (the hand-off
 * keyword) or the assistant handing a chat over needs the owner; pauses the owner made themselves do
 * not notify.
 */
export function handoffNotice(pause: Pick<ChatPause, 'reason' | 'chatId'> | null, botName: string): Notice | null {
  if (pause?.reason !== 'keyword' && pause?.reason !== 'assistant') return null
  const who = pause.chatId.endsWith('@s.whatsapp.net') ? `+${pause.chatId.split('@')[0]}` : pause.chatId.split('@')[0]
  if (pause.reason === 'assistant') return { title: `${who} needs a person`, body: `${botName}'s assistant handed this chat over. Open the inbox to answer.` }
  return { title: `${who} asks for a person`, body: `${botName} paused the bot for this chat. Open the inbox to answer.` }
}
