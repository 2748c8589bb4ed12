/**
 * The send governor's rules (docs/design.md §18): when the next outreach message of a
 * number (a broadcast's or a scheduled message's) may leave. Pure: the history, the policy and the
 * time come in; the earliest moment and the reason for any wait go out.
 *
 * Rules, and where they come from:
 * - rolling quotas per hour and per 24 hours, the daily one ramping up with the number's age (users
 *   report restrictions after 15–20 messages a day to unsaved contacts on young numbers, Baileys #1983);
 * - a random gap between two messages, never a fixed one (fixed 7 s gaps preceded bans, Baileys #2131);
 * - no outreach in quiet hours (local time of the instance);
 * - a per-recipient cooldown, so one person never gets two outreach messages close together.
 * Capping and reach-out locks (Baileys #2445) pause a broadcast instead; see broadcast-service.ts.
 */
import { DateTime } from 'luxon'
import type { OutreachSettings } from '../../../shared/schemas/records'
import { localTime } from '../../domain/active-window'

const HOUR = 3_600_000
const DAY = 24 * HOUR

/** An outreach message counted by the governor: to whom (digits or JID) and when (epoch ms). */
export interface CountedSend {
  to: string
  at: number
}

/**
 * The daily quota of a number `ageDays` old (null: not declared, treated as new): 10 in its first
 * 3 days, 20 to day 7, 40 to day 14, 80 to day 30, then `dailyLimit` (never more than it).
 */
export function dailyQuota(dailyLimit: number, ageDays: number | null): number {
  const age = ageDays ?? 0
  const ramp = age < 3 ? 10 : age < 7 ? 20 : age < 14 ? 40 : age < 30 ? 80 : Infinity
  return Math.min(dailyLimit, ramp)
}

/** The number's age in whole days at `now` from its declared `number_since` (null when not declared). */
export function numberAgeDays(numberSince: string | null, now: number): number | null {
  if (!numberSince) return null
  const since = Date.parse(`${numberSince}T00:00:00Z`)
  return Number.isNaN(since) ? null : Math.max(0, Math.floor((now - since) / DAY))
}

/** A random gap in ms between the policy's bounds (`random` in [0, 1)). */
export function randomGap(policy: Pick<OutreachSettings, 'min_gap_seconds' | 'max_gap_seconds'>, random: () => number): number {
  const lo = Math.min(policy.min_gap_seconds, policy.max_gap_seconds)
  const hi = Math.max(policy.min_gap_seconds, policy.max_gap_seconds)
  return Math.round((lo + (hi - lo) * random()) * 1000)
}

function minutesOf(hm: string): number {
  const [h, m] = hm.split(':').map(Number)
  return (h ?? 0) * 60 + (m ?? 0)
}

/**
 * The end of the quiet hours `at` falls in (epoch ms), or null when `at` is outside them. The end
 * is found on the wall clock of `timezone` (luxon), so a DST change inside the night is right.
 */
export function quietUntil(quiet: OutreachSettings['quiet_hours'], timezone: string, at: number): number | null {
  if (!quiet) return null
  const from = minutesOf(quiet.from)
  const to = minutesOf(quiet.to)
  if (from === to) return null
  const { minutes } = localTime(new Date(at), timezone)
  const inside = from < to ? minutes >= from && minutes < to : minutes >= from || minutes < to
  if (!inside) return null
  const local = DateTime.fromMillis(at, { zone: timezone })
  let end = local.set({ hour: Math.floor(to / 60), minute: to % 60, second: 0, millisecond: 0 })
  if (end.toMillis() <= at) end = end.plus({ days: 1 })
  return end.toMillis()
}

export interface GovernorView {
  policy: OutreachSettings
  timezone: string
  /** Outreach messages of this number in the last 24 hours at least, any order. */
  history: readonly CountedSend[]
  /** Not before this (the random gap drawn after the last message), epoch ms. */
  gapUntil: number
}

export interface Slot {
  /** The earliest moment the next message may leave (epoch ms, ≥ now). */
  at: number
  /** Why it has to wait, in the owner's words; null when it may go now. */
  reason: string | null
}

/**
 * The earliest moment at or after `now` the next outreach message may leave, and why it waits.
 * `recipient`: also wait for that person's cooldown. Throws RangeError on an unknown time zone.
 */
export function nextSlot(view: GovernorView, now: number, recipient?: string): Slot {
  const { policy, history, timezone } = view
  const daily = dailyQuota(policy.daily_limit, numberAgeDays(policy.number_since, now))
  let at = now
  let reason: string | null = null
  // Each rule can only move the moment later; a few rounds settle it (quiet hours after a quota, …).
  for (let round = 0; round < 8; round++) {
    const before = at
    if (at < view.gapUntil) {
      at = view.gapUntil
      reason ??= 'the random gap between two messages'
    }
    const quietEnd = quietUntil(policy.quiet_hours, timezone, at)
    if (quietEnd !== null) {
      at = quietEnd
      reason = `quiet hours (${policy.quiet_hours!.from}–${policy.quiet_hours!.to})`
    }
    const lastHour = history.filter((s) => s.at > at - HOUR && s.at <= at).map((s) => s.at).sort((a, b) => a - b)
    if (lastHour.length >= policy.hourly_limit) {
      at = lastHour[lastHour.length - policy.hourly_limit]! + HOUR
      reason = `the hourly limit (${policy.hourly_limit} an hour)`
    }
    const lastDay = history.filter((s) => s.at > at - DAY && s.at <= at).map((s) => s.at).sort((a, b) => a - b)
    if (lastDay.length >= daily) {
      at = lastDay[lastDay.length - daily]! + DAY
      reason = daily < policy.daily_limit ? `the warm-up limit of a young number (${daily} a day)` : `the daily limit (${daily} a day)`
    }
    if (recipient !== undefined && policy.recipient_cooldown_hours > 0) {
      const last = Math.max(-Infinity, ...history.filter((s) => s.to === recipient).map((s) => s.at))
      const until = last + policy.recipient_cooldown_hours * HOUR
      if (until > at) {
        at = until
        reason = `this person had a message less than ${policy.recipient_cooldown_hours} h ago`
      }
    }
    if (at === before) break
  }
  return { at, reason: at > now ? reason : null }
}

/**
 * When `count` more messages would be out if each waited for its slot and an average gap (epoch ms):
 * the finish time a broadcast shows. Recipients' cooldowns are not simulated.
 */
export function estimateFinish(view: GovernorView, now: number, count: number): number {
  const history = [...view.history]
  const meanGap = ((view.policy.min_gap_seconds + view.policy.max_gap_seconds) / 2) * 1000
  let gapUntil = view.gapUntil
  let t = now
  for (let i = 0; i < count; i++) {
    t = nextSlot({ ...view, history, gapUntil }, t).at
    history.push({ to: '', at: t })
    gapUntil = t + meanGap
  }
  return t
}
