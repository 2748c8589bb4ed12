/**
 * Pure: an instance's activity counts for today and the last 7 days (docs/design.md §16 "Instances"): messages in and
 * out, how many customer messages the bot answered, failed sends and failed webhook deliveries.
 * Counted over what is kept (a retention period may have dropped older messages; `since` says from
 * when), "today" in the instance's time zone.
 */
import type { LoggedMessage } from '../../../shared/schemas/records'
import type { InstanceStatsT, PeriodStatsT } from '../../../shared/operations/results'

/** Decisions that sent the customer something. */
const ANSWERED = new Set(['intent', 'survey', 'default', 'away', 'option'])

function count(entries: readonly LoggedMessage[], webhookFailures: readonly number[], from: number): PeriodStatsT {
  let messagesIn = 0
  let answered = 0
  let messagesOut = 0
  let failed = 0
  for (const m of entries) {
    if (m.timestamp < from) continue
    if (m.source === 'inbound') {
      if (m.type === 'undecryptable') continue
      messagesIn++
      if (m.bot && ANSWERED.has(m.bot.action)) answered++
    } else {
      messagesOut++
      if (m.status === 'ERROR') failed++
    }
  }
  return {
    messages_in: messagesIn,
    messages_out: messagesOut,
    bot_answered: answered,
    bot_answer_rate: messagesIn === 0 ? null : Math.round((answered / messagesIn) * 100) / 100,
    failed_sends: failed,
    webhook_failures: webhookFailures.filter((t) => t >= from).length
  }
}

/**
 * Counts of `entries` (the instance's log of the last 7 days at least, oldest first) and of failed
 * webhook deliveries (their creation times, epoch ms). `startOfToday`: local midnight of today as
 * epoch ms; `now` epoch ms; `oldest`: the time of the oldest kept message (epoch ms) or null.
 */
export function instanceStats(entries: readonly LoggedMessage[], webhookFailures: readonly number[], now: number, startOfToday: number, oldest: number | null): InstanceStatsT {
  return {
    today: count(entries, webhookFailures, startOfToday),
    last_7_days: count(entries, webhookFailures, now - 7 * 86_400_000),
    since: oldest !== null ? new Date(oldest).toISOString() : null
  }
}
