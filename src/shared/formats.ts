/**
 * String formats shared by validation (Ajv custom formats), the services and the UI.
 * Pure functions, no I/O. Source: docs/design.md §5 (bot_timezone, active_hours).
 */

/** `H:MM` or `HH:MM`, 0:00–23:59. */
const TIME_OF_DAY = /^([01]?\d|2[0-3]):([0-5]\d)$/

/** Offsets: `+05:30`, `-3`, `UTC+5:30`, `GMT-3`, `UTC`, `+0530`. */
const OFFSET = /^(?:(?:UTC|GMT)\s*)?([+-])(\d{1,2})(?::?(\d{2}))?$/i

/** True for `H:MM` / `HH:MM` within a day. */
export function isTimeOfDay(value: string): boolean {
  return TIME_OF_DAY.test(value)
}

/** Minutes after midnight of an `H:MM` string; throws on anything else. */
export function minutesOfDay(value: string): number {
  const m = TIME_OF_DAY.exec(value)
  if (!m) throw new Error(`not a time of day: ${value}`)
  return Number(m[1]) * 60 + Number(m[2])
}

/** An active-hours bound: a time of day or the word `always`. */
export function isActiveHoursBound(value: string): boolean {
  return value === 'always' || isTimeOfDay(value)
}

export type ParsedTimeZone = { kind: 'iana'; name: string } | { kind: 'offset'; minutes: number }

/**
 * Parses `bot_timezone`: an IANA name (`Asia/Kolkata`) or a fixed offset (`+05:30`, `UTC+5:30`,
 * `GMT-3`, bare `UTC`/`GMT`). Returns null for anything else. Offsets are limited to ±14:00.
 */
export function parseTimeZone(value: string): ParsedTimeZone | null {
  const v = value.trim()
  if (!v) return null
  if (/^(UTC|GMT|Z)$/i.test(v)) return { kind: 'offset', minutes: 0 }
  const off = OFFSET.exec(v)
  if (off) {
    const hours = Number(off[2])
    const mins = off[3] ? Number(off[3]) : 0
    if (mins >= 60) return null
    const total = hours * 60 + mins
    if (total > 14 * 60) return null
    return { kind: 'offset', minutes: off[1] === '-' ? -total : total }
  }
  if (!/^[A-Za-z][A-Za-z0-9_+\-/]*$/.test(v)) return null
  try {
    // Keep the owner's spelling: ICU may canonicalise Asia/Kolkata to the legacy Asia/Calcutta.
    new Intl.DateTimeFormat('en-US', { timeZone: v })
    return { kind: 'iana', name: v }
  } catch {
    return null
  }
}

export function isTimeZone(value: string): boolean {
  return parseTimeZone(value) !== null
}

/** A BCP 47 language tag (`en`, `pt-BR`, `hi`). */
export function isLanguageTag(value: string): boolean {
  try {
    return Intl.getCanonicalLocales(value).length === 1
  } catch {
    return false
  }
}

/** Human descriptions of the custom formats, used in validation error details. */
export const FORMAT_PROBLEMS: Record<string, string> = {
  timezone: 'must be an IANA time zone (Asia/Kolkata) or an offset (+05:30, UTC+5:30, GMT-3)',
  'active-hours': 'must be a time of day as H:MM or HH:MM, or the word always',
  'language-tag': 'must be a language code such as en or pt-BR',
  'http-url': 'must be an http or https URL',
  email: 'must be an e-mail address',
  date: 'must be a date as YYYY-MM-DD',
  'decimal-degrees': 'must be a decimal number as a string, such as 28.6139',
  shortcut: 'must be 1 to 32 lower-case letters, digits, _ or - (no spaces)'
}

/** A quick reply's shortcut: 1–32 of a–z, 0–9, `_`, `-` (what follows `/` in the composer). */
export function isShortcut(value: string): boolean {
  return /^[a-z0-9_-]{1,32}$/.test(value)
}

/** True for absolute http/https URLs. */
export function isHttpUrl(value: string): boolean {
  try {
    const u = new URL(value)
    return u.protocol === 'http:' || u.protocol === 'https:'
  } catch {
    return false
  }
}

/** A decimal number written as a string (`28.6139`, `-77.2`). */
export function isDecimalDegrees(value: string): boolean {
  return /^\s*[+-]?\d{1,3}(\.\d+)?\s*$/.test(value)
}

/** Ajv-compatible format table. */
export const CUSTOM_FORMATS: Record<string, (value: string) => boolean> = {
  timezone: isTimeZone,
  'active-hours': isActiveHoursBound,
  'language-tag': isLanguageTag,
  'http-url': isHttpUrl,
  'decimal-degrees': isDecimalDegrees,
  shortcut: isShortcut
}
