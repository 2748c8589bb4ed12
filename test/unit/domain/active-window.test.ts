import { describe, expect, it } from 'vitest'
import { DateTime } from 'luxon'
import { describeOpening, formatLocal, isOpen, isWithinActiveWindow, localTime, nextOpening } from '../../../src/main/domain/active-window'
import { WEEK_DAYS, type ActiveDays, type WeekDay } from '../../../src/shared/schemas/records'

const days = (...on: WeekDay[]): ActiveDays =>
  Object.fromEntries(WEEK_DAYS.map((d) => [d, on.includes(d)])) as ActiveDays
const ALL = days(...WEEK_DAYS)
const ALWAYS = { from: 'always', to: 'always' }
const NINE_TO_FIVE = { from: '09:00', to: '17:00' }
const at = (iso: string) => new Date(iso)

describe('localTime', () => {
  it('reads wall time in IANA zones across the New York spring-forward gap', () => {
    // 2026-03-08 is a Sunday; clocks jump from 02:00 EST to 03:00 EDT.
    expect(localTime(at('2026-03-08T06:30:00Z'), 'America/New_York')).toEqual({ weekday: 6, minutes: 90, date: '2026-03-08' })
    expect(localTime(at('2026-03-08T07:30:00Z'), 'America/New_York')).toEqual({ weekday: 6, minutes: 210, date: '2026-03-08' })
  })

  it('gives the same wall time for both passes of the repeated fall-back hour', () => {
    expect(localTime(at('2026-11-01T05:30:00Z'), 'America/New_York')).toEqual({ weekday: 6, minutes: 90, date: '2026-11-01' })
    expect(localTime(at('2026-11-01T06:30:00Z'), 'America/New_York')).toEqual({ weekday: 6, minutes: 90, date: '2026-11-01' })
  })

  it('adds fixed offsets in minutes, crossing the date line', () => {
    expect(localTime(at('2026-06-05T20:00:00Z'), 'UTC+5:30')).toEqual({ weekday: 5, minutes: 90, date: '2026-06-06' })
    expect(localTime(at('2026-06-05T01:00:00Z'), 'GMT-3')).toEqual({ weekday: 3, minutes: 22 * 60, date: '2026-06-04' })
    expect(localTime(at('2026-06-05T12:00:00Z'), 'UTC')).toEqual({ weekday: 4, minutes: 720, date: '2026-06-05' })
  })
})

describe('localTime and formatLocal, kept per zone and minute', () => {
  it('read every minute around a DST change as luxon does, also when asked again, in any order', () => {
    // Berlin falls back at 01:00 UTC on 2026-10-25; Kathmandu is +05:45 (a quarter-hour offset).
    for (const zone of ['Europe/Berlin', 'Asia/Kathmandu', 'America/New_York', '+05:30']) {
      const minutes = Array.from({ length: 181 }, (_, i) => Date.UTC(2026, 9, 25, 0, 0) + (i - 30) * 60_000 + 17_000)
      for (const pass of [minutes, [...minutes].reverse()]) {
        for (const t of pass) {
          const luxonZone = zone.startsWith('+') ? `UTC${zone}` : zone
          const l = DateTime.fromMillis(t, { zone: luxonZone })
          expect(localTime(new Date(t), zone), `${zone} ${new Date(t).toISOString()}`).toEqual({ weekday: l.weekday - 1, minutes: l.hour * 60 + l.minute, date: l.toISODate() })
          expect(formatLocal(new Date(t), zone)).toBe(l.toFormat('yyyy-MM-dd HH:mm'))
        }
      }
    }
  })
})

describe('isWithinActiveWindow', () => {
  it('is open all day with always/always, on active days only', () => {
    expect(isWithinActiveWindow(at('2026-06-05T03:00:00Z'), 'UTC', ALL, ALWAYS)).toBe(true)
    expect(isWithinActiveWindow(at('2026-06-05T03:00:00Z'), 'UTC', days('thursday'), ALWAYS)).toBe(false)
    expect(isWithinActiveWindow(at('2026-06-05T03:00:00Z'), 'UTC', days('friday'), ALWAYS)).toBe(true)
  })

  it('uses [from, to) for a same-day window', () => {
    // 09:00 IST = 03:30 UTC.
    expect(isWithinActiveWindow(at('2026-06-05T03:29:00Z'), 'Asia/Kolkata', ALL, NINE_TO_FIVE)).toBe(false)
    expect(isWithinActiveWindow(at('2026-06-05T03:30:00Z'), 'Asia/Kolkata', ALL, NINE_TO_FIVE)).toBe(true)
    expect(isWithinActiveWindow(at('2026-06-05T11:29:59Z'), 'Asia/Kolkata', ALL, NINE_TO_FIVE)).toBe(true)
    expect(isWithinActiveWindow(at('2026-06-05T11:30:00Z'), 'Asia/Kolkata', ALL, NINE_TO_FIVE)).toBe(false)
  })

  it('treats Asia/Kolkata, +05:30 and UTC+5:30 alike', () => {
    for (const tz of ['Asia/Kolkata', '+05:30', 'UTC+5:30', '+0530']) {
      expect(isWithinActiveWindow(at('2026-06-05T03:30:00Z'), tz, ALL, NINE_TO_FIVE), tz).toBe(true)
      expect(isWithinActiveWindow(at('2026-06-05T03:29:00Z'), tz, ALL, NINE_TO_FIVE), tz).toBe(false)
    }
  })

  it('handles a negative offset like GMT-3', () => {
    expect(isWithinActiveWindow(at('2026-06-05T11:59:00Z'), 'GMT-3', ALL, NINE_TO_FIVE)).toBe(false)
    expect(isWithinActiveWindow(at('2026-06-05T12:00:00Z'), 'GMT-3', ALL, NINE_TO_FIVE)).toBe(true)
  })

  it('accepts H:MM bounds', () => {
    expect(isWithinActiveWindow(at('2026-06-05T09:05:00Z'), 'UTC', ALL, { from: '9:00', to: '9:30' })).toBe(true)
    expect(isWithinActiveWindow(at('2026-06-05T09:30:00Z'), 'UTC', ALL, { from: '9:00', to: '9:30' })).toBe(false)
  })

  it('follows New York DST on spring-forward day (a fixed -05:00 would be wrong)', () => {
    // 13:30 UTC on 2026-03-08 is 09:30 EDT.
    expect(isWithinActiveWindow(at('2026-03-08T13:30:00Z'), 'America/New_York', ALL, NINE_TO_FIVE)).toBe(true)
    expect(isWithinActiveWindow(at('2026-03-08T13:30:00Z'), '-05:00', ALL, NINE_TO_FIVE)).toBe(false)
    // The day before, 13:30 UTC is 08:30 EST.
    expect(isWithinActiveWindow(at('2026-03-07T13:30:00Z'), 'America/New_York', ALL, NINE_TO_FIVE)).toBe(false)
  })

  it('follows New York DST on fall-back day', () => {
    // 13:30 UTC on 2026-11-01 is 08:30 EST; the day before it was 09:30 EDT.
    expect(isWithinActiveWindow(at('2026-11-01T13:30:00Z'), 'America/New_York', ALL, NINE_TO_FIVE)).toBe(false)
    expect(isWithinActiveWindow(at('2026-10-31T13:30:00Z'), 'America/New_York', ALL, NINE_TO_FIVE)).toBe(true)
  })

  it('follows Europe/Berlin DST, and opens a window starting in the skipped hour at 03:00', () => {
    const morning = { from: '08:00', to: '12:00' }
    expect(isWithinActiveWindow(at('2026-03-29T06:30:00Z'), 'Europe/Berlin', ALL, morning)).toBe(true) // 08:30 CEST
    expect(isWithinActiveWindow(at('2026-03-28T06:30:00Z'), 'Europe/Berlin', ALL, morning)).toBe(false) // 07:30 CET
    expect(isWithinActiveWindow(at('2026-10-25T06:30:00Z'), 'Europe/Berlin', ALL, morning)).toBe(false) // 07:30 CET
    const skipped = { from: '02:30', to: '05:00' }
    expect(isWithinActiveWindow(at('2026-03-29T00:59:00Z'), 'Europe/Berlin', ALL, skipped)).toBe(false) // 01:59 CET
    expect(isWithinActiveWindow(at('2026-03-29T01:00:00Z'), 'Europe/Berlin', ALL, skipped)).toBe(true) // 03:00 CEST
  })

  it('checks the local weekday, not the UTC one', () => {
    // 02:00 UTC Monday 2026-03-09 is 22:00 Sunday in New York.
    expect(isWithinActiveWindow(at('2026-03-09T02:00:00Z'), 'America/New_York', days('sunday'), ALWAYS)).toBe(true)
    expect(isWithinActiveWindow(at('2026-03-09T02:00:00Z'), 'UTC', days('sunday'), ALWAYS)).toBe(false)
    // 20:00 UTC Friday is 01:30 Saturday in India.
    expect(isWithinActiveWindow(at('2026-06-05T20:00:00Z'), 'Asia/Kolkata', days('friday'), ALWAYS)).toBe(false)
  })

  describe('overnight window 22:00–06:00: hours after midnight belong to the day it started', () => {
    const NIGHT = { from: '22:00', to: '06:00' }
    const FRIDAY = days('friday') // 2026-06-05 is a Friday
    const cases: [string, boolean][] = [
      ['2026-06-05T21:59:00Z', false], // Fri 21:59, before the window
      ['2026-06-05T22:00:00Z', true], // Fri 22:00, opens
      ['2026-06-05T23:30:00Z', true], // Fri 23:30
      ['2026-06-06T02:00:00Z', true], // Sat 02:00, Friday's night
      ['2026-06-06T05:59:00Z', true], // Sat 05:59
      ['2026-06-06T06:00:00Z', false], // Sat 06:00, closed
      ['2026-06-06T12:00:00Z', false], // Sat noon
      ['2026-06-06T23:00:00Z', false], // Sat 23:00, Saturday is off
      ['2026-06-05T02:00:00Z', false] // Fri 02:00 belongs to Thursday, which is off
    ]
    for (const [iso, want] of cases) {
      it(`${iso} → ${want}`, () => expect(isWithinActiveWindow(at(iso), 'UTC', FRIDAY, NIGHT)).toBe(want))
    }

    it('applies in the local zone', () => {
      // 20:00 UTC Friday = 01:30 Saturday IST, part of Friday night in India.
      expect(isWithinActiveWindow(at('2026-06-05T20:00:00Z'), 'Asia/Kolkata', FRIDAY, NIGHT)).toBe(true)
      expect(isWithinActiveWindow(at('2026-06-05T20:00:00Z'), 'Asia/Kolkata', days('saturday'), NIGHT)).toBe(false)
    })
  })

  it('treats from == to as the whole day', () => {
    const same = { from: '08:00', to: '8:00' }
    expect(isWithinActiveWindow(at('2026-06-05T03:00:00Z'), 'UTC', ALL, same)).toBe(true)
    expect(isWithinActiveWindow(at('2026-06-05T23:59:00Z'), 'UTC', ALL, same)).toBe(true)
    expect(isWithinActiveWindow(at('2026-06-05T12:00:00Z'), 'UTC', days('monday'), same)).toBe(false)
  })

  it('reads a single always as the matching end of the day', () => {
    const untilSix = { from: 'always', to: '18:00' }
    expect(isWithinActiveWindow(at('2026-06-05T00:00:00Z'), 'UTC', ALL, untilSix)).toBe(true)
    expect(isWithinActiveWindow(at('2026-06-05T17:59:00Z'), 'UTC', ALL, untilSix)).toBe(true)
    expect(isWithinActiveWindow(at('2026-06-05T18:00:00Z'), 'UTC', ALL, untilSix)).toBe(false)
    const fromNine = { from: '09:00', to: 'always' }
    expect(isWithinActiveWindow(at('2026-06-05T08:59:00Z'), 'UTC', ALL, fromNine)).toBe(false)
    expect(isWithinActiveWindow(at('2026-06-05T23:59:00Z'), 'UTC', ALL, fromNine)).toBe(true)
  })

  it('throws RangeError on a bad time zone or bound', () => {
    expect(() => isWithinActiveWindow(new Date(), 'Mars/Olympus', ALL, ALWAYS)).toThrow(RangeError)
    expect(() => isWithinActiveWindow(new Date(), 'UTC', ALL, { from: '25:00', to: '06:00' })).toThrow(RangeError)
    expect(() => isWithinActiveWindow(new Date(), 'UTC', ALL, { from: 'never', to: 'always' })).toThrow(RangeError)
  })
})

describe('nextOpening and describeOpening (the away message’s [next_open])', () => {
  const week = { monday: true, tuesday: true, wednesday: true, thursday: true, friday: true, saturday: false, sunday: false }
  it('finds the first open minute later today, tomorrow, after a weekend and across a DST change', () => {
    const hours = { from: '9:00', to: '17:00' }
    const at = (iso: string) => new Date(iso)
    // Wednesday 07:10 in UTC: today at 9:00.
    let now = at('2026-11-18T07:10:00.000Z')
    let open = nextOpening(now, 'UTC', { days: week, hours })!
    expect(open.toISOString()).toBe('2026-11-18T09:00:00.000Z')
    expect(describeOpening(now, open, 'UTC')).toBe('today at 9:00')
    // Friday evening: Monday.
    now = at('2026-11-20T18:00:00.000Z')
    open = nextOpening(now, 'UTC', { days: week, hours })!
    expect(open.toISOString()).toBe('2026-11-23T09:00:00.000Z')
    expect(describeOpening(now, open, 'UTC')).toBe('Monday at 9:00')
    // Saturday 2026-10-31 in New York (EDT, UTC-4); Monday 9:00 is after the change to EST (UTC-5).
    now = at('2026-10-31T16:00:00.000Z')
    open = nextOpening(now, 'America/New_York', { days: week, hours })!
    expect(open.toISOString()).toBe('2026-11-02T14:00:00.000Z')
    // Open now: now itself (to the minute).
    now = at('2026-11-18T10:00:30.000Z')
    expect(nextOpening(now, 'UTC', { days: week, hours })!.toISOString()).toBe('2026-11-18T10:00:00.000Z')
    // Never open: null.
    const closed = Object.fromEntries(Object.keys(week).map((d) => [d, false])) as typeof week
    expect(nextOpening(now, 'UTC', { days: closed, hours })).toBeNull()
  })

  it('says tomorrow for the next day', () => {
    const now = new Date('2026-11-18T20:00:00.000Z')
    const open = nextOpening(now, 'UTC', { days: week, hours: { from: '9:00', to: '17:00' } })!
    expect(describeOpening(now, open, 'UTC')).toBe('tomorrow at 9:00')
  })
})

describe('nextOpening over days the shop does not open', () => {
  /** The walk as it was: every 5 minutes, then back to the minute (the reference). */
  function walked(now: Date, timezone: string, schedule: Parameters<typeof isOpen>[2], horizonDays: number): Date | null {
    const start = Math.floor(now.getTime() / 60_000) * 60_000
    for (let t = start; t <= start + horizonDays * 86_400_000; t += 300_000) {
      if (!isOpen(new Date(t), timezone, schedule)) continue
      let first = t
      while (first - 60_000 >= start && isOpen(new Date(first - 60_000), timezone, schedule)) first -= 60_000
      return new Date(first)
    }
    return null
  }

  it('finds what the 5-minute walk finds: days off, holidays, overnight windows, DST changes', () => {
    let n = 7
    const random = () => (n = (n * 48271) % 2147483647) / 2147483647
    const pick = <T,>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)]!
    const times = ['00:00', '06:30', '09:00', '12:15', '17:45', '22:00', 'always']
    for (let i = 0; i < 60; i++) {
      const days = Object.fromEntries(WEEK_DAYS.map((d) => [d, random() < 0.4])) as ActiveDays
      const hours = { from: pick(times), to: pick(times) }
      const holidays = Array.from({ length: Math.floor(random() * 12) }, (_, k) => `2026-${pick(['03', '10', '11'])}-${String(1 + ((k * 3 + i) % 28)).padStart(2, '0')}`)
      const zone = pick(['Europe/Berlin', 'America/New_York', 'Australia/Lord_Howe', 'UTC', '+05:45'])
      const now = new Date(Date.UTC(2026, pick([2, 9, 10]), 1 + Math.floor(random() * 27), Math.floor(random() * 24), Math.floor(random() * 60)))
      const schedule = { days, hours, holidays }
      expect(nextOpening(now, zone, schedule, 40)?.toISOString() ?? null, JSON.stringify({ now, zone, schedule })).toBe(walked(now, zone, schedule, 40)?.toISOString() ?? null)
    }
  })

  it('after a three-week holiday, the first morning after it', () => {
    const holidays = Array.from({ length: 21 }, (_, i) => new Date(Date.UTC(2026, 6, 20 + i)).toISOString().slice(0, 10))
    const open = nextOpening(new Date('2026-07-20T08:00:00Z'), 'Europe/Berlin', { days: Object.fromEntries(WEEK_DAYS.map((d) => [d, true])) as ActiveDays, hours: { from: '09:00', to: '18:00' }, holidays }, 40)
    expect(open?.toISOString()).toBe('2026-08-10T07:00:00.000Z')
  })
})

describe('opening hours with several windows a day and holidays', () => {
  const week = { monday: true, tuesday: true, wednesday: true, thursday: true, friday: true, saturday: true, sunday: false }
  // A pizzeria: lunch and dinner on weekdays, one long window on Saturday, a late night on Friday.
  const pizzeria = {
    days: week,
    hours: { from: '12:00', to: '22:00' },
    ranges: {
      monday: [{ from: '9:00', to: '13:00' }, { from: '15:00', to: '19:00' }],
      friday: [{ from: '12:00', to: '14:30' }, { from: '19:00', to: '2:00' }]
    },
    holidays: ['2026-12-25']
  }
  const at = (iso: string) => new Date(iso)

  it('answers in either window of a day and not in the break', () => {
    // Monday 2026-11-23, Europe/Rome (UTC+1).
    expect(isOpen(at('2026-11-23T08:30:00Z'), 'Europe/Rome', pizzeria)).toBe(true) // 9:30
    expect(isOpen(at('2026-11-23T12:30:00Z'), 'Europe/Rome', pizzeria)).toBe(false) // 13:30, the break
    expect(isOpen(at('2026-11-23T14:00:00Z'), 'Europe/Rome', pizzeria)).toBe(true) // 15:00
    expect(isOpen(at('2026-11-23T18:00:00Z'), 'Europe/Rome', pizzeria)).toBe(false) // 19:00
    // Tuesday has no windows of its own: the default hours.
    expect(isOpen(at('2026-11-24T10:00:00Z'), 'Europe/Rome', pizzeria)).toBe(false) // 11:00
    expect(isOpen(at('2026-11-24T20:00:00Z'), 'Europe/Rome', pizzeria)).toBe(true) // 21:00
  })

  it('keeps Friday’s late window open past midnight into Saturday', () => {
    expect(isOpen(at('2026-11-28T00:30:00Z'), 'Europe/Rome', pizzeria)).toBe(true) // Sat 1:30, Friday's night
    expect(isOpen(at('2026-11-28T01:30:00Z'), 'Europe/Rome', pizzeria)).toBe(false) // Sat 2:30
    expect(isOpen(at('2026-11-27T15:00:00Z'), 'Europe/Rome', pizzeria)).toBe(false) // Fri 16:00, the break
  })

  it('stays closed on a holiday, and says when it opens after it', () => {
    // Christmas 2026 is a Friday: closed, its night window too; Saturday opens at 12:00.
    expect(isOpen(at('2026-12-25T12:00:00Z'), 'Europe/Rome', pizzeria)).toBe(false)
    expect(isOpen(at('2026-12-25T23:30:00Z'), 'Europe/Rome', pizzeria)).toBe(false) // Sat 0:30, the holiday's night
    const opens = nextOpening(at('2026-12-25T10:00:00Z'), 'Europe/Rome', pizzeria)!
    expect(opens.toISOString()).toBe('2026-12-26T11:00:00.000Z')
    expect(describeOpening(at('2026-12-25T10:00:00Z'), opens, 'Europe/Rome')).toBe('tomorrow at 12:00')
  })
})
