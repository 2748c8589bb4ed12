/**
 * When a scheduled message runs (docs/design.md §18). Pure. Times are wall-clock times in
 * the instance's zone, turned into instants by luxon, so a daily 10:00 stays 10:00 across DST changes:
 * a time that does not exist that day (spring forward) runs at the first minute after the gap, one that
 * happens twice (fall back) runs the first time.
 */
import { DateTime } from 'luxon'
import { WEEK_DAYS, type ScheduledMessage } from '../../../shared/schemas/records'

type Timing = Pick<ScheduledMessage, 'repeat' | 'start_at' | 'days'>

/** The first run as an instant (epoch ms); throws RangeError on a bad `start_at` or zone. */
export function firstRun(t: Pick<Timing, 'start_at'>, timezone: string): number {
  const dt = DateTime.fromISO(t.start_at, { zone: timezone })
  if (!dt.isValid) throw new RangeError(`${t.start_at} in ${timezone}: ${dt.invalidExplanation ?? dt.invalidReason}`)
  return dt.toMillis()
}

/** The weekdays a weekly schedule runs on (Monday = 1, luxon's numbering): its `days`, else the start's. */
function weekdaysOf(t: Timing, start: DateTime): Set<number> {
  return new Set(t.days.length > 0 ? t.days.map((d) => WEEK_DAYS.indexOf(d) + 1) : [start.weekday])
}

/**
 * The first run strictly after `after` (epoch ms), or null when there is none (a one-off already past).
 * Monthly runs on the start's day of the month, or the month's last day when it is shorter.
 */
export function nextRun(t: Timing, timezone: string, after: number): number | null {
  const start = DateTime.fromISO(t.start_at, { zone: timezone })
  if (!start.isValid) throw new RangeError(`${t.start_at} in ${timezone}: ${start.invalidExplanation ?? start.invalidReason}`)
  if (start.toMillis() > after) return start.toMillis()
  if (t.repeat === 'none') return null
  const at = (d: DateTime) => DateTime.fromObject({ year: d.year, month: d.month, day: d.day, hour: start.hour, minute: start.minute }, { zone: timezone })
  const from = DateTime.fromMillis(after, { zone: timezone }).startOf('day')
  if (t.repeat === 'monthly') {
    for (let m = 0; m <= 13; m++) {
      const month = from.startOf('month').plus({ months: m })
      const run = at(month.set({ day: Math.min(start.day, month.daysInMonth ?? 28) }))
      if (run.toMillis() > after) return run.toMillis()
    }
    return null
  }
  const days = t.repeat === 'weekly' ? weekdaysOf(t, start) : null
  for (let i = 0; i <= 8; i++) {
    const day = from.plus({ days: i })
    if (days && !days.has(day.weekday)) continue
    const run = at(day)
    if (run.toMillis() > after) return run.toMillis()
  }
  return null
}
