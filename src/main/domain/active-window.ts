/**
 * The bot's opening hours (docs/design.md §10 step 1 "outside active_days / active_hours in
 * bot_timezone", docs/api-seed.md §2.7). Pure; the only state is a cache of time zones.
 *
 * `isWithinActiveWindow(now, timezone, days, hours)`:
 * - `timezone` is what `parseTimeZone` accepts: an IANA name (local wall time comes from luxon, as
 *   in outreach, so DST is right on both sides of a transition) or a fixed offset (`+05:30`,
 *   `UTC+5:30`, `GMT-3`, `UTC`), added to UTC as minutes.
 * - `hours.from`/`hours.to` are `H:MM`/`HH:MM` or `always`. Windows are half-open, [from, to), at
 *   minute resolution (seconds ignored).
 *   - both `always`, or `from == to`: the whole day.
 *   - only one `always`: it stands for that end of the day (`always`–`18:00` = [0:00, 18:00),
 *     `09:00`–`always` = [9:00, 24:00)).
 *   - `from < to`: same-day window.
 *   - `from > to`: overnight window, e.g. 22:00–06:00.
 * - The day checked against `days` is the local weekday of the day the window STARTED on. For an
 *   overnight window the hours after midnight belong to the previous day: with Friday on and
 *   Saturday off, 22:00–06:00 answers Friday 23:00 and Saturday 02:00 but not Saturday 23:00, and
 *   with Friday off, Saturday 02:00 is closed. That is how a shop describes "open Friday night".
 * - On a DST day the wall clock decides: a window starting in the skipped hour (02:30 on a
 *   spring-forward day) opens at the first wall time at or after it; in the repeated hour both
 *   passes are inside or outside alike.
 *
 * - A {@link Schedule} adds to `days` and `hours` (docs/design.md §16): per-day `ranges`
 *   (several windows a day, e.g. 9:00–13:00 and 15:00–19:00; a day without its own ranges uses
 *   `hours`) and `holidays` (local `YYYY-MM-DD` dates closed all day). Each range follows the rules
 *   above; an overnight range belongs to the day it started on, so a holiday closes the night that
 *   starts on it, not the one that ends on it.
 *
 * Throws RangeError on a timezone `parseTimeZone` rejects and on a bound that is neither a time of
 * day nor `always` (settings are validated on input, so this means corrupt data).
 */
import { WEEK_DAYS, type ActiveDays, type ActiveHours, type InstanceSettings, type OpeningHours, type WeekDay } from '../../shared/schemas/records'
import { isTimeOfDay, minutesOfDay, parseTimeZone } from '../../shared/formats'
import { DateTime, FixedOffsetZone, IANAZone, type Zone } from 'luxon'

const DAY_MINUTES = 24 * 60

/** Local weekday (0 = Monday, as in WEEK_DAYS), minutes after local midnight and the local date. */
export interface LocalTime {
  weekday: number
  minutes: number
  /** `YYYY-MM-DD`. */
  date: string
}

/** When the bot answers: open days, the default hours, and the optional per-day ranges and holidays. */
export interface Schedule {
  days: ActiveDays
  hours: ActiveHours
  ranges?: OpeningHours['ranges']
  holidays?: OpeningHours['holidays']
}

const zones = new Map<string, Zone>()

/** The luxon zone of a `bot_timezone` (cached: settings hold a handful of distinct zones). */
function zoneOf(timezone: string): Zone {
  let z = zones.get(timezone)
  if (!z) {
    const parsed = parseTimeZone(timezone)
    if (!parsed) throw new RangeError(`active window: not a time zone: ${JSON.stringify(timezone)}`)
    z = parsed.kind === 'offset' ? FixedOffsetZone.instance(parsed.minutes) : IANAZone.create(parsed.name)
    // The cap only guards against unbounded input.
    if (zones.size > 1000) zones.clear()
    zones.set(timezone, z)
  }
  return z
}

/** `now` on the wall clock of `timezone` (throws like `isWithinActiveWindow`). */
function wallClock(now: Date, timezone: string): DateTime<true> {
  const local = DateTime.fromJSDate(now, { zone: zoneOf(timezone) })
  if (!local.isValid) throw new RangeError(`active window: ${now.toISOString()} in ${timezone}: ${local.invalidExplanation ?? local.invalidReason}`)
  return local
}

/**
 * Wall-clock readings kept per zone and minute: a reading holds for its whole minute (zones change
 * their offset on whole minutes), and each customer message asks for several (the hours, the
 * assistant's facts and its usage day), each a luxon DateTime built through `Intl` otherwise.
 */
const readings = new Map<string, { local: LocalTime; formatted?: string }>()
/** Readings kept: the current minute of each zone in use, and a walk over coming days' minutes. */
const READINGS = 256

function reading(now: Date, timezone: string): { local: LocalTime; formatted?: string } {
  const minute = Math.floor(now.getTime() / 60_000)
  const key = `${timezone}\n${minute}`
  let r = readings.get(key)
  if (!r) {
    const local = wallClock(new Date(minute * 60_000), timezone)
    r = { local: Object.freeze({ weekday: local.weekday - 1, minutes: local.hour * 60 + local.minute, date: local.toISODate() }) }
    if (readings.size >= READINGS) readings.delete(readings.keys().next().value!)
    readings.set(key, r)
  }
  return r
}

/** The wall-clock weekday and minute of `now` in `timezone` (throws like `isWithinActiveWindow`). */
export function localTime(now: Date, timezone: string): LocalTime {
  return reading(now, timezone).local
}

/** The calendar day before `date` (`YYYY-MM-DD`). */
function dayBefore(date: string): string {
  return new Date(Date.parse(`${date}T00:00:00Z`) - 86_400_000).toISOString().slice(0, 10)
}

function bound(value: string, ifAlways: number): number {
  if (value === 'always') return ifAlways
  if (!isTimeOfDay(value)) throw new RangeError(`active window: not a time of day: ${JSON.stringify(value)}`)
  return minutesOfDay(value)
}

function dayOn(days: ActiveDays, weekday: number): boolean {
  return days[WEEK_DAYS[weekday] as WeekDay] === true
}

/** True when the bot answers at `now` with only open days and one daily window (see module doc). */
export function isWithinActiveWindow(now: Date, timezone: string, days: ActiveDays, hours: ActiveHours): boolean {
  return isOpen(now, timezone, { days, hours })
}

/** The schedule of an instance's settings (opening_hours absent on older instances: the seed's window). */
export function scheduleOf(s: Pick<InstanceSettings, 'active_days' | 'active_hours' | 'opening_hours'>): Schedule {
  return { days: s.active_days, hours: s.active_hours, ranges: s.opening_hours?.ranges, holidays: s.opening_hours?.holidays }
}

/** The windows of a weekday: its own ranges, else the default hours. */
function rangesOf(s: Schedule, weekday: number): readonly ActiveHours[] {
  const own = s.ranges?.[WEEK_DAYS[weekday] as WeekDay]
  return own && own.length > 0 ? own : [s.hours]
}

/** True when the bot answers at `now` under `schedule` (see module doc for the rules). */
export function isOpen(now: Date, timezone: string, schedule: Schedule): boolean {
  const { weekday, minutes, date } = localTime(now, timezone)
  const yesterday = (weekday + 6) % 7
  const openOn = (day: number, on: string) => dayOn(schedule.days, day) && !schedule.holidays?.includes(on)
  for (const r of rangesOf(schedule, weekday)) {
    const from = bound(r.from.trim(), 0)
    const to = bound(r.to.trim(), DAY_MINUTES)
    const whole = from === to || (from === 0 && to === DAY_MINUTES)
    if ((whole || (from < to ? minutes >= from && minutes < to : minutes >= from)) && openOn(weekday, date)) return true
  }
  // The small hours of an overnight window that started yesterday.
  for (const r of rangesOf(schedule, yesterday)) {
    const from = bound(r.from.trim(), 0)
    const to = bound(r.to.trim(), DAY_MINUTES)
    if (from > to && minutes < to && openOn(yesterday, dayBefore(date))) return true
  }
  return false
}

const DAY_NAMES = ['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday', 'Sunday']

/**
 * The first minute at or after `now` when the bot answers again, or null when it never does within
 * `horizonDays` (every day off; the bot engine looks 40 days ahead, past a long holiday). Walks forward in 5-minute steps (over the
 * rest of a day the shop does not open at once), then back to the minute: plain and right across DST
 * changes, since each step asks {@link isOpen} itself. Throws like it.
 */
export function nextOpening(now: Date, timezone: string, schedule: Schedule, horizonDays = 8): Date | null {
  const start = Math.floor(now.getTime() / 60_000) * 60_000
  const step = 5 * 60_000
  for (let t = start; t <= start + horizonDays * 24 * 3_600_000; ) {
    if (!isOpen(new Date(t), timezone, schedule)) {
      t += closedRestOfDay(new Date(t), timezone, schedule) ?? step
      continue
    }
    let first = t
    while (first - 60_000 >= start && isOpen(new Date(first - 60_000), timezone, schedule)) first -= 60_000
    return new Date(first)
  }
  return null
}

/**
 * When `at` (closed) falls on a day the shop does not open (a day off, a holiday), how far to step
 * ahead (ms): to two hours before that day's local midnight, walked in steps from there (a day of a
 * DST change is an hour or two shorter or longer). Null on a day that opens, or within those two
 * hours. Such a day stays closed until midnight: its own windows need the day open, and a window
 * of the day before reaches only into its small hours, past which `at` is (it is closed). Without
 * it, a shop away for weeks cost ~11,000 steps of `isOpen` (75–117 ms of the main thread) for each
 * `[next_open]` and each assistant answer.
 */
function closedRestOfDay(at: Date, timezone: string, schedule: Schedule): number | null {
  const { weekday, minutes, date } = localTime(at, timezone)
  if (dayOn(schedule.days, weekday) && !schedule.holidays?.includes(date)) return null
  const ahead = DAY_MINUTES - minutes - 120
  return ahead > 5 ? ahead * 60_000 : null
}

/** `at` as the contact reads it in `timezone`: "today at 9:00", "tomorrow at 9:00" or "Monday at 9:00". */
export function describeOpening(now: Date, at: Date, timezone: string): string {
  const today = localTime(now, timezone)
  const when = localTime(at, timezone)
  const time = `${Math.floor(when.minutes / 60)}:${String(when.minutes % 60).padStart(2, '0')}`
  const daysAhead = Math.round((at.getTime() - now.getTime()) / 86_400_000 - (when.minutes - today.minutes) / 1440)
  if (daysAhead <= 0 && when.weekday === today.weekday) return `today at ${time}`
  if (daysAhead <= 1 && when.weekday === (today.weekday + 1) % 7) return `tomorrow at ${time}`
  return `${DAY_NAMES[when.weekday]} at ${time}`
}

/** `at` as a wall-clock `YYYY-MM-DD HH:MM` in `timezone` (an IANA name or a fixed offset); throws like the others. */
export function formatLocal(at: Date, timezone: string): string {
  const r = reading(at, timezone)
  return (r.formatted ??= wallClock(at, timezone).toFormat('yyyy-MM-dd HH:mm'))
}
