/**
 * Instants as the database keeps them (src/main/store/db/times.ts; docs/storage.md "Times"): ISO
 * 8601 text ↔ epoch ms, the same instant to the millisecond, whatever form the text was written in.
 */
import { describe, expect, it } from 'vitest'
import { msToTime, msToTimeOrNull, timeToMs, timeToMsOrNull } from '../../../src/main/store/db/times'

describe('timeToMs', () => {
  it('reads what toISOString writes, exactly, and back', () => {
    for (const ms of [0, 1, -1, 1_700_000_000_123, 1_767_225_599_999, Date.UTC(9999, 11, 31, 23, 59, 59, 999)]) {
      expect(timeToMs(new Date(ms).toISOString())).toBe(ms)
      expect(msToTime(timeToMs(new Date(ms).toISOString()))).toBe(new Date(ms).toISOString())
    }
  })

  it.each([
    ['2026-03-04T05:06:07Z', '2026-03-04T05:06:07.000Z'],
    ['2026-03-04T05:06Z', '2026-03-04T05:06:00.000Z'],
    ['2026-03-04', '2026-03-04T00:00:00.000Z'],
    ['2026-03-04T07:06:07.089+02:00', '2026-03-04T05:06:07.089Z'],
    ['2026-03-03T23:36:07.089-0530', '2026-03-04T05:06:07.089Z'],
    ['2026-03-04T08:06:07.089+03', '2026-03-04T05:06:07.089Z'],
    ['2026-03-04 05:06:07.089', '2026-03-04T05:06:07.089Z'],
    ['2026-03-04T05:06:07.089', '2026-03-04T05:06:07.089Z'],
    ['2026-03-04T05:06:07.0899999Z', '2026-03-04T05:06:07.089Z'],
    ['2026-03-04T05:06:07.5Z', '2026-03-04T05:06:07.500Z'],
    ['0050-03-04T05:06:07.089Z', '0050-03-04T05:06:07.089Z'],
    ['2026-03-04t05:06:07,089z', '2026-03-04T05:06:07.089Z'],
    ['Wed, 04 Mar 2026 05:06:07 GMT', '2026-03-04T05:06:07.000Z']
  ])('reads %s as %s (no zone: UTC, never the machine’s zone; a finer fraction is cut)', (text, iso) => {
    expect(msToTime(timeToMs(text))).toBe(iso)
  })

  it.each(['', 'soon', '2026-13-01T00:00:00Z', '2026-02-30T00:00:00Z', '2026-03-04T24:00:00Z', '1700000000000', 'Wed, 04 Mar 2026 05:06:07'])('refuses %j: it names no instant', (text) => {
    expect(() => timeToMs(text)).toThrow(RangeError)
  })

  it('keeps null as null', () => {
    expect(timeToMsOrNull(null)).toBeNull()
    expect(msToTimeOrNull(null)).toBeNull()
    expect(timeToMsOrNull('1970-01-01T00:00:00.001Z')).toBe(1)
    expect(msToTimeOrNull(1)).toBe('1970-01-01T00:00:00.001Z')
  })
})
