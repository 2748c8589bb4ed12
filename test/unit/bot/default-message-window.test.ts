import { describe, expect, it } from 'vitest'
import { DEFAULT_WINDOW_MS, DefaultMessageWindow } from '../../../src/main/bot/default-message-window'

const H = 60 * 60 * 1000
const T0 = Date.parse('2026-06-05T12:00:00Z')

describe('DefaultMessageWindow', () => {
  it('allows one default message per contact per 24 h by default', () => {
    const w = new DefaultMessageWindow()
    expect(w.windowMs).toBe(DEFAULT_WINDOW_MS)
    expect(w.shouldSend('i1', 'alice', T0)).toBe(true)
    w.markSent('i1', 'alice', T0)
    expect(w.shouldSend('i1', 'alice', T0 + 1)).toBe(false)
    expect(w.shouldSend('i1', 'alice', T0 + 24 * H - 1)).toBe(false)
    expect(w.shouldSend('i1', 'alice', T0 + 24 * H)).toBe(true)
  })

  it('keeps contacts and instances apart', () => {
    const w = new DefaultMessageWindow()
    w.markSent('i1', 'alice', T0)
    expect(w.shouldSend('i1', 'bob', T0)).toBe(true)
    expect(w.shouldSend('i2', 'alice', T0)).toBe(true)
  })

  it('claim() checks and marks in one step', () => {
    const w = new DefaultMessageWindow({ windowMs: H })
    expect(w.claim('i1', 'alice', T0)).toBe(true)
    expect(w.claim('i1', 'alice', T0 + 10)).toBe(false)
    expect(w.claim('i1', 'alice', T0 + H)).toBe(true)
    expect(w.claim('i1', 'alice', T0 + H + 10)).toBe(false)
  })

  it('honours a configured window', () => {
    const w = new DefaultMessageWindow({ windowMs: 5 * 60_000 })
    w.markSent('i1', 'alice', T0)
    expect(w.shouldSend('i1', 'alice', T0 + 4 * 60_000)).toBe(false)
    expect(w.shouldSend('i1', 'alice', T0 + 5 * 60_000)).toBe(true)
  })

  it('prunes expired entries on write', () => {
    const w = new DefaultMessageWindow({ windowMs: H })
    for (let i = 0; i < 100; i++) w.markSent('i1', `c${i}`, T0 + i)
    expect(w.size).toBe(100)
    w.markSent('i1', 'late', T0 + 2 * H)
    expect(w.size).toBe(1)
  })

  it('caps memory at maxEntries, forgetting the least recently served first', () => {
    const w = new DefaultMessageWindow({ windowMs: H, maxEntries: 3 })
    w.markSent('i1', 'a', T0)
    w.markSent('i1', 'b', T0 + 1)
    w.markSent('i1', 'c', T0 + 2)
    w.markSent('i1', 'a', T0 + 3) // a is now the most recent
    w.markSent('i1', 'd', T0 + 4)
    expect(w.size).toBe(3)
    expect(w.shouldSend('i1', 'b', T0 + 5)).toBe(true) // evicted
    expect(w.shouldSend('i1', 'a', T0 + 5)).toBe(false)
    expect(w.shouldSend('i1', 'c', T0 + 5)).toBe(false)
    expect(w.shouldSend('i1', 'd', T0 + 5)).toBe(false)
  })

  it('forgets one contact or one instance', () => {
    const w = new DefaultMessageWindow()
    w.markSent('i1', 'a', T0)
    w.markSent('i2', 'a', T0)
    w.markSent('i2', 'b', T0)
    expect(w.forget('i1', 'a')).toBe(true)
    expect(w.shouldSend('i1', 'a', T0)).toBe(true)
    w.clear('i2')
    expect(w.size).toBe(0)
  })

  it('round-trips through JSON', () => {
    const w = new DefaultMessageWindow({ windowMs: H })
    w.markSent('i1', 'a', T0)
    w.markSent('i1', 'b', T0 + 10 * 60_000)
    const json = JSON.parse(JSON.stringify(w))
    expect(json).toEqual({ version: 1, windowMs: H, entries: [['i1', 'a', T0], ['i1', 'b', T0 + 600_000]] })
    const r = DefaultMessageWindow.fromJSON(json)
    expect(r.windowMs).toBe(H)
    expect(r.shouldSend('i1', 'a', T0 + 30 * 60_000)).toBe(false)
    expect(r.shouldSend('i1', 'b', T0 + 30 * 60_000)).toBe(false)
    expect(r.shouldSend('i1', 'c', T0 + 30 * 60_000)).toBe(true)
  })

  it('restores with the current options, dropping entries expired by then', () => {
    const w = new DefaultMessageWindow({ windowMs: 24 * H })
    w.markSent('i1', 'a', T0)
    w.markSent('i1', 'b', T0 + 2 * H)
    const r = DefaultMessageWindow.fromJSON(w.toJSON(), { windowMs: 3 * H }, T0 + 4 * H)
    expect(r.windowMs).toBe(3 * H)
    expect(r.size).toBe(1)
    expect(r.shouldSend('i1', 'a', T0 + 4 * H)).toBe(true)
    expect(r.shouldSend('i1', 'b', T0 + 4 * H)).toBe(false)
  })

  it('restores an empty window from bad data instead of throwing', () => {
    for (const bad of [null, 42, 'x', {}, { version: 2, entries: [] }, { version: 1, entries: 'x' }]) {
      expect(DefaultMessageWindow.fromJSON(bad).size).toBe(0)
    }
    const r = DefaultMessageWindow.fromJSON({ version: 1, windowMs: H, entries: [['i', 'a', 'x'], ['i', 'b', T0], 7] })
    expect(r.size).toBe(1)
    expect(r.shouldSend('i', 'b', T0 + 1)).toBe(false)
  })

  it('rejects a non-positive window or cap', () => {
    expect(() => new DefaultMessageWindow({ windowMs: 0 })).toThrow(RangeError)
    expect(() => new DefaultMessageWindow({ maxEntries: 0 })).toThrow(RangeError)
  })
})

describe('rekey (a LID now known by its number)', () => {
  it('moves the entry, keeps the later send when both exist, and reports whether it moved', () => {
    const w = new DefaultMessageWindow({ windowMs: 1000 })
    w.markSent('i', 'lid@lid', 100)
    expect(w.rekey('i', 'lid@lid', 'pn@s.whatsapp.net')).toBe(true)
    expect(w.shouldSend('i', 'pn@s.whatsapp.net', 500)).toBe(false)
    expect(w.shouldSend('i', 'lid@lid', 500)).toBe(true)
    expect(w.rekey('i', 'lid@lid', 'pn@s.whatsapp.net')).toBe(false)
    w.markSent('i', 'lid2@lid', 50)
    w.markSent('i', 'pn2@s.whatsapp.net', 900)
    w.rekey('i', 'lid2@lid', 'pn2@s.whatsapp.net')
    expect(w.shouldSend('i', 'pn2@s.whatsapp.net', 1800)).toBe(false)
  })
})
