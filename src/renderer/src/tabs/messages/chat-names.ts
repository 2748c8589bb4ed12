/** How the inbox names chats: numbers for people, the chat id a typed number stands for, times of day. */
import type { Conversation } from '../../../../shared/contract'

/**
 * "+1 555 000 1111"-ish: the number as digits with a plus; "@name" for a customer who writes by LID
 * with a WhatsApp username (the LID itself means nothing to people); else the bare JID.
 */
export function displayNumber(c: Pick<Conversation, 'phone' | 'chatId'> & { username?: string }): string {
  if (c.phone) return `+${c.phone}`
  if (c.username) return `@${c.username}`
  return c.chatId.split('@')[0]!
}

/** A chat id's number for people: `+digits` for a person's chat, the id's first part otherwise (groups, LIDs). */
export function chatNumber(chatId: string): string {
  const [user, server] = chatId.split('@')
  return server === undefined || server === 's.whatsapp.net' ? `+${user!.replace(/^\+/, '').split(':')[0]}` : user!
}

/**
 * The chat id the core files a typed number under (`<digits>@s.whatsapp.net`), or the id as it is
 * when it already is one: live events name chats this way (the rule of main/channel/jid.ts).
 */
export function chatJid(value: string): string {
  const v = value.trim()
  return v.includes('@') ? v : `${v.replace(/\D/g, '')}@s.whatsapp.net`
}

/** The customer's number (digits) of a 1:1 chat, or null for a group or a LID chat. */
export function customerNumberOf(chatId: string): string | null {
  const m = /^(\d+)(?::\d+)?@s\.whatsapp\.net$/.exec(chatJid(chatId))
  return m ? m[1]! : null
}

/** A time for a list: the clock today, else the date. */
export function shortWhen(ms: number): string {
  const d = new Date(ms)
  return d.toDateString() === new Date().toDateString() ? d.toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' }) : d.toLocaleDateString()
}
