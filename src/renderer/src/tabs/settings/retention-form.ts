/** The History section's form (./HistorySection.tsx): retention settings to form values and back, and what they mean in words. */
import type { RetentionSettings } from '../../../../shared/schemas/records'

/** The form's values: a choice and a number for each period (the number is kept while "forever" is picked). */
export interface HistoryValues extends Record<string, unknown> {
  messages: 'forever' | 'days'
  days: number | string
  media: 'with-message' | 'days'
  media_days: number | string
}

export function historyValues(r: RetentionSettings): HistoryValues {
  return { messages: r.days === null ? 'forever' : 'days', days: r.days ?? 365, media: r.media_days === null ? 'with-message' : 'days', media_days: r.media_days ?? 30 }
}

export function retentionOf(v: HistoryValues): RetentionSettings {
  return { days: v.messages === 'forever' ? null : Number(v.days), media_days: v.media === 'with-message' ? null : Number(v.media_days) }
}

/** What the settings do, in the owner's words. */
export function explain({ days, media_days }: RetentionSettings): string {
  if (days === null && media_days === null) return 'This instance keeps every message and file until you erase a customer’s data.'
  const messages =
    days === null
      ? 'Messages stay until you erase a customer’s data.'
      : `Once a day (and when the app starts), this instance’s messages older than ${days} day${days === 1 ? '' : 's'} are deleted for good, with their files: they leave the inbox, search and exports.`
  const media =
    media_days === null
      ? ''
      : ` Files downloaded from messages older than ${media_days} day${media_days === 1 ? '' : 's'} are deleted once a day; the message and its text stay, and the file can be downloaded again while WhatsApp still has it.`
  return `${messages}${media} Contacts and settings are not touched.`
}
