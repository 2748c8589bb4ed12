/**
 * Whether WhatsApp's outreach limits (docs/baileys.md "Platform signals") hold a send back. Pure.
 * While the number is capped (messages to people who have not answered, Baileys #2445) or reach-out
 * locked, a message to someone who never wrote counts against the number and may get it restricted;
 * replies to people who wrote are not affected.
 */
import type { SendLimits } from '../../shared/schemas/records'
import { formatLocal } from './active-window'

/** `iso` as the owner reads it: local wall-clock time in `timezone` and the zone's name. */
function when(iso: string, timezone: string): string {
  try {
    return `${formatLocal(new Date(iso), timezone)} (${timezone})`
  } catch {
    return iso
  }
}

/**
 * Why a send to someone who never wrote must wait now (`now` epoch ms; times said in `timezone`), or null when it may go. Capped (until the cycle
 * ends) or reach-out locked (until the lock ends): WhatsApp counts such messages against the number.
 */
export function outreachBlocked(limits: SendLimits | undefined, now: number, timezone = 'UTC'): string | null {
  const c = limits?.capping
  if (c?.status === 'CAPPED' && (!c.until || Date.parse(c.until) > now)) {
    const quota = c.used !== undefined && c.total !== undefined ? ` (${c.used} of ${c.total} used${c.until ? ` until ${when(c.until, timezone)}` : ''})` : ''
    return `WhatsApp caps new chats for this number${quota}: messages to people who have not written to you are paused; replies to people who have written to you still go out.`
  }
  const l = limits?.reachout_lock
  if (l?.active && (!l.until || Date.parse(l.until) > now)) {
    return `WhatsApp has locked this number from reaching out to new people${l.until ? ` until ${when(l.until, timezone)}` : ''}: messages to people who have not written to you are paused.`
  }
  return null
}
