/**
 * `sent_by` of an outbound message whose sender is known by its source (docs/design.md §21 "`sent_by`"):
 * the bot, outreach and the owner on the phone. Entries logged by the API or the desk before messages
 * named their sender were the owner's (the account token was the only one). Pure.
 */
import type { LoggedMessage } from '../schemas/records'

/** `{sent_by}` for `source`, or nothing for an inbound one. */
export function sentByOfSource(source: string): Pick<LoggedMessage, 'sent_by'> {
  switch (source) {
    case 'bot':
      return { sent_by: { kind: 'bot', name: 'Bot' } }
    case 'broadcast':
      return { sent_by: { kind: 'broadcast', name: 'Broadcast' } }
    case 'schedule':
      return { sent_by: { kind: 'schedule', name: 'Scheduled message' } }
    case 'phone':
      return { sent_by: { kind: 'phone', name: 'Phone' } }
    case 'api':
    case 'desk':
      return { sent_by: { kind: 'owner', name: 'Owner' } }
    default:
      return {}
  }
}
