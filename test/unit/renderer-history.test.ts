/** Pure renderer logic of the long history (docs/ui.md "The long history"): snippet marks, merged search pages, chat ids, retention form, erase confirmation. */
import { describe, expect, it } from 'vitest'
import { snippetParts } from '../../src/renderer/src/tabs/messages/highlight'
import { mergeHits, type SearchStream } from '../../src/renderer/src/tabs/messages/search-merge'
import { chatJid, chatNumber, customerNumberOf } from '../../src/renderer/src/tabs/messages/chat-names'
import { explain, historyValues, retentionOf } from '../../src/renderer/src/tabs/settings/retention-form'
import { confirmsNumber, customerLabel } from '../../src/renderer/src/components/confirm-number'
import type { MessageEntryT } from '../../src/shared/operations/results'

describe('snippetParts', () => {
  it('cuts the snippet at the highlights (UTF-16 offsets), leaving the rest plain', () => {
    expect(snippetParts('Grazie per il caffè!', [[14, 19]])).toEqual([
      { text: 'Grazie per il ', match: false },
      { text: 'caffè', match: true },
      { text: '!', match: false }
    ])
    // A CJK match in the middle, and one at the very start.
    expect(snippetParts('我想订一个披萨', [[5, 7], [0, 1]]).map((p) => [p.text, p.match])).toEqual([
      ['我', true],
      ['想订一个', false],
      ['披萨', true]
    ])
  })

  it('joins overlapping and touching ranges, clamps ranges past the end, drops empty ones', () => {
    expect(snippetParts('abcdefgh', [[1, 3], [2, 5], [5, 6], [7, 99], [4, 4]]).map((p) => [p.text, p.match])).toEqual([
      ['a', false],
      ['bcdef', true],
      ['g', false],
      ['h', true]
    ])
  })

  it('keeps markup-looking text as text (the page draws it, never parses it)', () => {
    expect(snippetParts('<img src=x onerror=alert(1)> hi', [[29, 31]])).toEqual([
      { text: '<img src=x onerror=alert(1)> ', match: false },
      { text: 'hi', match: true }
    ])
  })

  it('answers the whole text unmarked without highlights', () => {
    expect(snippetParts('plain')).toEqual([{ text: 'plain', match: false }])
    expect(snippetParts('')).toEqual([])
  })
})

describe('mergeHits (search of every instance)', () => {
  const hit = (id: string, timestamp: number) => ({ id, timestamp }) as MessageEntryT
  const stream = (instanceId: string, times: number[], done: boolean): SearchStream => ({ instanceId, hits: times.map((t) => hit(`${instanceId}${t}`, t)), done })

  it('shows only hits no page still to come can precede, newest first, and pages the instance at the frontier', () => {
    // A's oldest loaded hit is 70, B's is 40: B's next page can hold nothing newer than 40, A's may hold 69.
    const merged = mergeHits([stream('A', [100, 80, 70], false), stream('B', [90, 60, 40], false)])
    expect(merged.shown.map((h) => h.id)).toEqual(['A100', 'B90', 'A80', 'A70'])
    expect(merged.next).toEqual(['A'])
    expect(merged.shown[1]!.instanceId).toBe('B')
  })

  it('shows everything once every instance is exhausted', () => {
    const merged = mergeHits([stream('A', [100, 10], true), stream('B', [50], true), stream('C', [], true)])
    expect(merged.shown.map((h) => h.timestamp)).toEqual([100, 50, 10])
    expect(merged.next).toEqual([])
  })

  it('ignores exhausted instances when placing the frontier', () => {
    const merged = mergeHits([stream('A', [100, 90], false), stream('B', [95, 5], true)])
    expect(merged.shown.map((h) => h.id)).toEqual(['A100', 'B95', 'A90'])
    expect(merged.next).toEqual(['A'])
  })
})

describe('chat names', () => {
  it('files a typed number under the id the core gives it, and keeps ids as they are', () => {
    expect(chatJid('+39 333 123 4567')).toBe('393331234567@s.whatsapp.net')
    expect(chatJid('120363@g.us')).toBe('120363@g.us')
  })

  it('names the customer number of a 1:1 chat only', () => {
    expect(customerNumberOf('15550100021@s.whatsapp.net')).toBe('15550100021')
    expect(customerNumberOf('15550100021')).toBe('15550100021')
    expect(customerNumberOf('120363@g.us')).toBeNull()
    expect(customerNumberOf('9876@lid')).toBeNull()
    expect(chatNumber('15550100021@s.whatsapp.net')).toBe('+15550100021')
    expect(chatNumber('120363@g.us')).toBe('120363')
  })
})

describe('History settings', () => {
  it('shows the stored retention and sends back what the form says (null = keep)', () => {
    expect(historyValues({ days: null, media_days: null })).toMatchObject({ messages: 'forever', media: 'with-message' })
    const v = historyValues({ days: 90, media_days: 14 })
    expect(v).toEqual({ messages: 'days', days: 90, media: 'days', media_days: 14 })
    expect(retentionOf({ ...v, days: '120' })).toEqual({ days: 120, media_days: 14 })
    expect(retentionOf({ ...v, messages: 'forever', media: 'with-message' })).toEqual({ days: null, media_days: null })
  })

  it('says what goes and when', () => {
    expect(explain({ days: null, media_days: null })).toContain('keeps every message')
    expect(explain({ days: 30, media_days: null })).toMatch(/Once a day .* older than 30 days are deleted for good/)
    expect(explain({ days: null, media_days: 1 })).toMatch(/older than 1 day are deleted once a day; the message and its text stay/)
  })
})

describe('erase confirmation', () => {
  it('takes the number however it is typed, and nothing else', () => {
    expect(confirmsNumber('+1 555 010-0021', '15550100021')).toBe(true)
    expect(confirmsNumber('1555010002', '15550100021')).toBe(false)
    expect(confirmsNumber('', '15550100021')).toBe(false)
  })

  it('a customer known by username (a LID key) is named and confirmed by "@username"; without one, by the LID’s digits', () => {
    const lid = '220000000000001@lid'
    expect(customerLabel('15550100021')).toBe('+15550100021')
    expect(customerLabel(lid, 'lu.bakes')).toBe('@lu.bakes')
    expect(customerLabel(lid)).toBe('220000000000001')
    expect(confirmsNumber('@Lu.Bakes', lid, 'lu.bakes')).toBe(true)
    expect(confirmsNumber('lu.bakes', lid, 'lu.bakes')).toBe(true)
    expect(confirmsNumber('220000000000001', lid, 'lu.bakes')).toBe(false)
    expect(confirmsNumber('220000000000001', lid)).toBe(true)
  })
})
