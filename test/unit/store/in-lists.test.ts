/**
 * IN lists of store/repos/in-lists.ts: parts of a bounded size, in order, each padded to a power of
 * two with its own last value (so a batch's statements take few distinct SQL texts).
 */
import { describe, expect, it } from 'vitest'
import { chunks, inLists } from '../../../src/main/store/repos/in-lists'

describe('IN lists', () => {
  it('cuts a list into parts of at most the size, in order', () => {
    expect(chunks([1, 2, 3, 4, 5], 2)).toEqual([[1, 2], [3, 4], [5]])
    expect(chunks([], 2)).toEqual([])
  })

  it('pads each part to a power of two with its last value, and keeps every value once in order', () => {
    for (const n of [1, 2, 3, 5, 17, 250, 251, 600]) {
      const values = Array.from({ length: n }, (_, i) => i)
      const parts = inLists(values, 250)
      for (const part of parts) {
        expect(part.length & (part.length - 1)).toBe(0)
        expect(part.length).toBeLessThanOrEqual(256)
      }
      expect(parts.flatMap((p) => [...new Set(p)])).toEqual(values)
    }
    expect(inLists(['a', 'b', 'c'])).toEqual([['a', 'b', 'c', 'c']])
  })
})
