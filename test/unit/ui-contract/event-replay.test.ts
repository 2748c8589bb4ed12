/** The event stream's replay buffer: what a reconnecting client missed, or null when it must reload. */
import { describe, expect, it } from 'vitest'
import { EventReplay } from '../../../src/main/ui-contract/event-replay'
import type { ContractEvent } from '../../../src/shared/contract'

const changed = (n: number): ContractEvent => ({ type: 'changed', instanceId: `i${n}`, what: 'intents' })

describe('EventReplay', () => {
  it('numbers events from 1 and answers those after an id', () => {
    const r = new EventReplay(10)
    expect([1, 2, 3].map((n) => r.add(changed(n)).id)).toEqual([1, 2, 3])
    expect(r.since(1)!.map((e) => e.id)).toEqual([2, 3])
    expect(r.since(3)).toEqual([])
    expect(r.since(0)!.map((e) => e.id)).toEqual([1, 2, 3])
  })

  it('answers null when missed events were dropped, or for ids it never gave', () => {
    const r = new EventReplay(3)
    for (let n = 1; n <= 5; n++) r.add(changed(n))
    // Kept: 3, 4, 5. After 2 → 3, 4, 5 (nothing lost); after 1 → event 2 is gone.
    expect(r.since(2)!.map((e) => e.id)).toEqual([3, 4, 5])
    expect(r.since(1)).toBeNull()
    expect(r.since(6)).toBeNull()
    expect(r.since(Number('abc'))).toBeNull()
    expect(r.since(-1)).toBeNull()
  })
})
