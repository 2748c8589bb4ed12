/**
 * Overlapping reloads of a list (src/renderer/src/latest-only.ts, used by useContract): two events in
 * a row start two loads; when the first one's answer comes back last, the list keeps the second's.
 */
import { describe, expect, it } from 'vitest'
import { latestOnly } from '../../src/renderer/src/latest-only'

/** A load whose answer the test releases when it chooses. */
function deferred<T>(): { promise: Promise<T>; resolve(v: T): void } {
  let resolve!: (v: T) => void
  const promise = new Promise<T>((r) => (resolve = r))
  return { promise, resolve }
}

describe('latestOnly', () => {
  it('keeps the answer of the latest load when an older one answers after it', async () => {
    const latest = latestOnly()
    let shown = 'nothing'
    const load = async (answer: Promise<string>) => {
      const current = latest.begin()
      const value = await answer
      if (current()) shown = value
    }
    const first = deferred<string>()
    const second = deferred<string>()
    const a = load(first.promise)
    const b = load(second.promise)
    second.resolve('2 unread')
    await b
    first.resolve('1 unread')
    await a
    expect(shown).toBe('2 unread')
  })

  it('a lone load counts, and a later one makes it stale', () => {
    const latest = latestOnly()
    const one = latest.begin()
    expect(one()).toBe(true)
    const two = latest.begin()
    expect([one(), two()]).toEqual([false, true])
  })
})
