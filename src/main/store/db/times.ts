/**
 * Instants in the database (docs/storage.md "Times"): stored as epoch milliseconds (an integer
 * column), shown as ISO 8601 UTC text with milliseconds (`2026-01-02T03:04:05.678Z`) wherever a record
 * carries them as text. The repositories convert at their row mapping; migration 11 converted the
 * columns that held ISO text before.
 */

/**
 * An ISO 8601 date-time: a date, optionally a time (minutes, seconds, a fraction of any length), and a
 * zone (`Z`, `±HH`, `±HHMM` or `±HH:MM`; none: UTC).
 */
const ISO = /^(\d{4})-(\d{2})-(\d{2})(?:[Tt ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d+))?)?)?\s*(?:([Zz])|([+-])(\d{2})(?::?(\d{2}))?)?$/

/**
 * Epoch ms of an instant written as text: ISO 8601 as {@link ISO} reads it (a fraction finer than a
 * millisecond is cut, as `Date.parse` does; no zone means UTC, not the machine's zone), else any text
 * `Date.parse` reads with a zone of its own (`Tue, 02 Jan 2024 10:00:00 GMT`). Throws a RangeError on
 * anything else: a value that names no instant cannot become one.
 */
export function timeToMs(text: string): number {
  const m = ISO.exec(text.trim())
  if (m) {
    const [, y, mo, d, h = '0', mi = '0', s = '0', frac = '', , sign, oh = '0', om = '0'] = m
    const month = Number(mo)
    const day = Number(d)
    if (month >= 1 && month <= 12 && day >= 1 && day <= 31 && Number(h) <= 23 && Number(mi) <= 59 && Number(s) <= 59) {
      const ms = Number((frac + '000').slice(0, 3))
      const offset = sign ? (sign === '-' ? -1 : 1) * (Number(oh) * 60 + Number(om)) * 60_000 : 0
      // setUTCFullYear, not Date.UTC's year: that reads years 0–99 as 1900–1999.
      const local = new Date(0)
      local.setUTCFullYear(Number(y), month - 1, day)
      local.setUTCHours(Number(h), Number(mi), Number(s), ms)
      // A 31 February rolls over into March: such a date is refused, not moved.
      if (local.getUTCDate() === day) return local.getTime() - offset
    }
  } else if (/(gmt|utc|z|[+-]\d{2}:?\d{2})$/i.test(text.trim())) {
    const parsed = Date.parse(text)
    if (Number.isFinite(parsed)) return parsed
  }
  throw new RangeError(`not an instant: ${JSON.stringify(text)}`)
}

/** The ISO 8601 UTC text of epoch ms `ms` (`Date.prototype.toISOString`). */
export function msToTime(ms: number): string {
  return new Date(ms).toISOString()
}

/** {@link timeToMs} of a nullable value (null stays null). */
export function timeToMsOrNull(text: string | null): number | null {
  return text === null ? null : timeToMs(text)
}

/** {@link msToTime} of a nullable value (null stays null). */
export function msToTimeOrNull(ms: number | null): string | null {
  return ms === null ? null : msToTime(ms)
}
