/**
 * The send governor's rules and the scheduled messages' times (docs/design.md §18), pure.
 */
import { describe, expect, it } from 'vitest'
import { DEFAULT_OUTREACH, type OutreachSettings } from '../../../src/shared/schemas/records'
import { dailyQuota, estimateFinish, nextSlot, numberAgeDays, quietUntil, randomGap, type CountedSend } from '../../../src/main/services/outreach/send-governor'
import { nextRun } from '../../../src/main/services/outreach/schedule-time'
import { parseContactsCsv, contactsCsv } from '../../../src/main/services/contacts/contact-csv'

const HOUR = 3_600_000
const policy = (p: Partial<OutreachSettings> = {}): OutreachSettings => ({ ...DEFAULT_OUTREACH, number_since: '2020-01-01', ...p })
// Wednesday 2026-11-25 12:00 in Rome (UTC+1).
const NOON = Date.parse('2026-11-25T11:00:00Z')

describe('send governor', () => {
  it('ramps the daily quota with the number’s age and never above the limit', () => {
    expect([null, 0, 2, 3, 6, 7, 13, 14, 29, 30, 400].map((a) => dailyQuota(150, a))).toEqual([10, 10, 10, 20, 20, 40, 40, 80, 80, 150, 150])
    expect(dailyQuota(25, 400)).toBe(25)
    expect(numberAgeDays('2026-11-20', NOON)).toBe(5)
    expect(numberAgeDays(null, NOON)).toBeNull()
  })

  it('draws gaps between the bounds, never one fixed value', () => {
    const gaps = [0, 0.25, 0.5, 0.999].map((r) => randomGap({ min_gap_seconds: 20, max_gap_seconds: 60 }, () => r))
    expect(gaps).toEqual([20_000, 30_000, 40_000, 59_960])
  })

  it('waits for the gap, then lets a message go', () => {
    const view = { policy: policy(), timezone: 'Europe/Rome', history: [], gapUntil: NOON + 30_000 }
    expect(nextSlot(view, NOON)).toEqual({ at: NOON + 30_000, reason: 'the random gap between two messages' })
    expect(nextSlot(view, NOON + 31_000)).toEqual({ at: NOON + 31_000, reason: null })
  })

  it('holds messages in quiet hours until they end, on the local clock', () => {
    // 22:30 in Rome → 8:00 the next morning (07:00Z).
    const late = Date.parse('2026-11-25T21:30:00Z')
    expect(new Date(quietUntil({ from: '21:00', to: '8:00' }, 'Europe/Rome', late)!).toISOString()).toBe('2026-11-26T07:00:00.000Z')
    expect(quietUntil({ from: '21:00', to: '8:00' }, 'Europe/Rome', NOON)).toBeNull()
    // The night the clocks go back (2026-10-25): 8:00 is then UTC+1.
    expect(new Date(quietUntil({ from: '21:00', to: '8:00' }, 'Europe/Rome', Date.parse('2026-10-24T20:00:00Z'))!).toISOString()).toBe('2026-10-25T07:00:00.000Z')
    const slot = nextSlot({ policy: policy(), timezone: 'Europe/Rome', history: [], gapUntil: 0 }, late)
    expect(slot).toEqual({ at: Date.parse('2026-11-26T07:00:00Z'), reason: 'quiet hours (21:00–8:00)' })
  })

  it('keeps rolling hourly and daily quotas, and the warm-up quota of a young number', () => {
    const hourFull: CountedSend[] = Array.from({ length: 30 }, (_, i) => ({ to: `n${i}`, at: NOON - HOUR + 60_000 * (i + 1) }))
    expect(nextSlot({ policy: policy(), timezone: 'UTC', history: hourFull, gapUntil: 0 }, NOON)).toEqual({ at: NOON + 60_000, reason: 'the hourly limit (30 an hour)' })
    const young = policy({ number_since: '2026-11-24', quiet_hours: null })
    const ten: CountedSend[] = Array.from({ length: 10 }, (_, i) => ({ to: `n${i}`, at: NOON - 10 * HOUR + i * HOUR }))
    expect(nextSlot({ policy: young, timezone: 'UTC', history: ten, gapUntil: 0 }, NOON)).toEqual({ at: NOON + 14 * HOUR, reason: 'the warm-up limit of a young number (10 a day)' })
  })

  it('keeps a per-recipient cooldown', () => {
    const view = { policy: policy({ quiet_hours: null }), timezone: 'UTC', history: [{ to: '39333', at: NOON - HOUR }], gapUntil: 0 }
    expect(nextSlot(view, NOON, '39333')).toEqual({ at: NOON + 19 * HOUR, reason: 'this person had a message less than 20 h ago' })
    expect(nextSlot(view, NOON, '39444').reason).toBeNull()
  })

  it('estimates the finish through quotas and quiet hours', () => {
    const view = { policy: policy({ hourly_limit: 10, min_gap_seconds: 60, max_gap_seconds: 60 }), timezone: 'Europe/Rome', history: [], gapUntil: 0 }
    // 10 a minute apart, then the hourly limit: the 11th leaves an hour after the first.
    expect(estimateFinish(view, NOON, 11)).toBe(NOON + HOUR)
    // 100 from noon: 10 an hour until 21:00 leaves 100 - 90 = 10 for 8:00 the next morning.
    expect(new Date(estimateFinish(view, NOON, 100)).toISOString().slice(0, 13)).toBe('2026-11-26T07')
  })
})

describe('scheduled message times', () => {
  it('keeps a weekly 10:00 at 10:00 local across the DST change', () => {
    const t = { repeat: 'weekly' as const, start_at: '2026-10-18T10:00', days: [] }
    const first = nextRun(t, 'Europe/Rome', Date.parse('2026-10-01T00:00:00Z'))!
    expect(new Date(first).toISOString()).toBe('2026-10-18T08:00:00.000Z') // CEST, UTC+2
    const second = nextRun(t, 'Europe/Rome', first)!
    expect(new Date(second).toISOString()).toBe('2026-10-25T09:00:00.000Z') // CET from that night, UTC+1
  })

  it('runs weekly on the chosen days, daily, monthly on short months, and a one-off once', () => {
    const weekly = { repeat: 'weekly' as const, start_at: '2026-11-23T09:30', days: ['wednesday' as const, 'friday' as const] }
    expect(new Date(nextRun(weekly, 'UTC', Date.parse('2026-11-23T10:00:00Z'))!).toISOString()).toBe('2026-11-25T09:30:00.000Z')
    expect(new Date(nextRun(weekly, 'UTC', Date.parse('2026-11-25T09:30:00Z'))!).toISOString()).toBe('2026-11-27T09:30:00.000Z')
    const daily = { repeat: 'daily' as const, start_at: '2026-11-01T18:00', days: [] }
    expect(new Date(nextRun(daily, 'UTC', Date.parse('2026-11-23T18:00:00Z'))!).toISOString()).toBe('2026-11-24T18:00:00.000Z')
    const monthly = { repeat: 'monthly' as const, start_at: '2026-01-31T12:00', days: [] }
    expect(new Date(nextRun(monthly, 'UTC', Date.parse('2026-02-01T00:00:00Z'))!).toISOString()).toBe('2026-02-28T12:00:00.000Z')
    const once = { repeat: 'none' as const, start_at: '2026-11-23T09:30', days: [] }
    expect(nextRun(once, 'UTC', Date.parse('2026-11-23T09:30:00Z'))).toBeNull()
  })
})

describe('contacts CSV', () => {
  it('maps columns, refuses bad rows with their line and reason, and escapes formulas on export', () => {
    const csv = 'Full name;Mobile;Tags\nAda;+39 333 1234567;vip|pizza\nBo;call me;\n;39 333 7654321;\nAda again;+39 333 1234567;\n'
    const { rows, refused } = parseContactsCsv(csv, { name: 'full name' })
    expect(rows).toEqual([
      { row: 2, name: 'Ada', number: '393331234567', labels: ['vip', 'pizza'], notes: '' },
      { row: 4, name: '393337654321', number: '393337654321', labels: [], notes: '' }
    ])
    expect(refused).toEqual([
      { row: 3, reason: '"call me" is not a phone number with its country code' },
      { row: 5, reason: 'the same number as line 2' }
    ])
    expect(() => parseContactsCsv('name,email\nAda,a@b.c')).toThrow(/no column is called number/)
    expect(() => parseContactsCsv('name,number\nAda,1', { number: 'Phone' })).toThrow(/names a column the file does not have/)
    const out = contactsCsv([{ _id: 'c', name: '=HYPERLINK("x")', number: '39333', client_id: 'u', instance_id: 'i', group_id: null, channel: 'whatsapp', labels: [], notes: '@SUM(1)', opted_out: false, last_seen_at: null, createdAt: 't', updatedAt: 't', __v: 0 }], () => undefined)
    expect(out.split('\n')[1]).toBe(`"'=HYPERLINK(""x"")",39333,,,'@SUM(1),no,,t`)
  })
})
