/** Who wrote a message, in the viewer's words (pure: the bubble, the search hits and the inbox rows use it). */
import type { MeViewT } from '../../../shared/operations/table/people'
import type { LoggedMessage } from '../../../shared/schemas/records'

/** Whether `sentBy` names the person looking (`me`: the signed-in caller): their own sends read "You". */
export function isMine(sentBy: LoggedMessage['sent_by'], me: Pick<MeViewT, 'kind' | 'id'> | null | undefined): boolean {
  if (!sentBy || !me) return false
  return sentBy.kind === me.kind && (me.kind === 'owner' || sentBy.id === me.id)
}

/**
 * Who wrote a message, in the viewer's words: who sent it (`sent_by`: a person, a key, the bot…) when
 * known, "You" for the viewer's own sends (`me`).
 */
export function senderLabel(m: Pick<LoggedMessage, 'source' | 'pushName' | 'sent_by'>, me?: Pick<MeViewT, 'kind' | 'id'> | null): string {
  if (m.sent_by && m.source !== 'inbound') return isMine(m.sent_by, me) ? 'You' : m.sent_by.name
  switch (m.source) {
    case 'bot':
      return 'Bot'
    case 'desk':
      return 'You (desk)'
    case 'phone':
      return 'You (phone)'
    case 'api':
      return 'Script (API)'
    case 'broadcast':
      return 'Broadcast'
    case 'schedule':
      return 'Scheduled message'
    case 'inbound':
      return m.pushName ?? 'Customer'
  }
}
