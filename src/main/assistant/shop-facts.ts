/**
 * What the desk knows of the shop for the model (docs/assistant.md "Privacy"): its name,
 * the local time, its opening hours, whether it is open and when it opens next, upcoming holidays;
 * and the local day an answer's tokens count towards. From the instance's settings; pure but for the
 * `now` passed in.
 */
import { describeOpening, formatLocal, isOpen, localTime, nextOpening, scheduleOf } from '../domain/active-window'
import type { Instance } from '../../shared/schemas/records'
import { describeWeek, type ShopFacts } from './prompt'

const DAY_NAMES = ['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday', 'Sunday']

/** The shop's facts at `now` (epoch ms). A time zone the settings cannot hold reads as UTC. */
export function shopFacts(inst: Pick<Instance, 'settings'>, nowMs: number): ShopFacts {
  const s = inst.settings
  const now = new Date(nowMs)
  const schedule = scheduleOf(s)
  const zone = safeZone(s.bot_timezone)
  const local = localTime(now, zone)
  const open = isOpen(now, zone, schedule)
  const next = open ? null : nextOpening(now, zone, schedule, 40)
  const today = local.date
  return {
    name: s.bot_name || 'the shop',
    now: `${DAY_NAMES[local.weekday]} ${formatLocal(now, zone)} (${zone})`,
    openNow: open,
    nextOpening: next ? describeOpening(now, next, zone) : null,
    hours: describeWeek(schedule),
    holidays: (schedule.holidays ?? []).filter((d) => d >= today).sort().slice(0, 10)
  }
}

/** The local day (YYYY-MM-DD, bot_timezone) of `nowMs`: the day an answer's tokens count towards. */
export function usageDay(inst: Pick<Instance, 'settings'>, nowMs: number): string {
  return localTime(new Date(nowMs), safeZone(inst.settings.bot_timezone)).date
}

function safeZone(zone: string): string {
  try {
    localTime(new Date(0), zone)
    return zone
  } catch {
    return 'UTC'
  }
}
