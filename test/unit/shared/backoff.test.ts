import { describe, expect, it } from 'vitest'
import { backoffDelayMs } from '../../../src/shared/domain/backoff'
import { DEFAULT_BACKOFF, SERVER_ERROR_BACKOFF } from '../../../src/main/channel/baileys/disconnect-policy'

describe('backoffDelayMs', () => {
  it('doubles from the base and caps (no jitter at the midpoint): the reconnect schedule', () => {
    const schedule = Array.from({ length: 10 }, (_, i) => backoffDelayMs(i + 1, 0.5, DEFAULT_BACKOFF))
    expect(schedule).toEqual([1000, 2000, 4000, 8000, 16000, 32000, 60000, 60000, 60000, 60000])
  })

  it('the server-error schedule is slower: 5 s doubling to 5 min', () => {
    const schedule = Array.from({ length: 8 }, (_, i) => backoffDelayMs(i + 1, 0.5, SERVER_ERROR_BACKOFF))
    expect(schedule).toEqual([5000, 10000, 20000, 40000, 80000, 160000, 300000, 300000])
  })

  it('spreads each delay over ±jitter', () => {
    expect(backoffDelayMs(3, 0, DEFAULT_BACKOFF)).toBe(3200)
    expect(backoffDelayMs(3, 0.999999, DEFAULT_BACKOFF)).toBe(4800)
    expect(backoffDelayMs(50, 0, DEFAULT_BACKOFF)).toBe(48000)
    expect(backoffDelayMs(50, 0.999999, DEFAULT_BACKOFF)).toBe(72000)
  })

  it('never returns a tiny delay for huge attempt numbers or attempt 0', () => {
    expect(backoffDelayMs(10_000, 0.5, DEFAULT_BACKOFF)).toBe(60000)
    expect(backoffDelayMs(0, 0.5, DEFAULT_BACKOFF)).toBe(1000)
  })

  it('takes custom bounds', () => {
    expect(backoffDelayMs(4, 0.5, { baseMs: 100, maxMs: 500, jitter: 0 })).toBe(500)
  })
})
