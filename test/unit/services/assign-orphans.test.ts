/** Which orphans a worker claims (docs/design.md §22; src/main/services/cluster/worker-leases.ts `assignOrphans`). */
import { describe, expect, it } from 'vitest'
import { assignOrphans } from '../../../src/main/services/cluster/worker-leases'

const w = (id: string, instances: number, maxInstances: number | null = null) => ({ id, url: `http://${id}`, instances, maxInstances })

describe('assignOrphans', () => {
  it('spreads a batch over the live workers, least loaded first, ties by id', () => {
    const orphans = ['i1', 'i2', 'i3', 'i4', 'i5']
    const loads = [w('a', 1), w('b', 0), w('c', 2)]
    // i1 to b (0); i2 to a (a and b at 1, a by id); i3 to b (1); i4 to a (all at 2, a by id); i5 to b.
    expect(assignOrphans(orphans, loads, 'a')).toEqual(['i2', 'i4'])
    expect(assignOrphans(orphans, loads, 'b')).toEqual(['i1', 'i3', 'i5'])
    expect(assignOrphans(orphans, loads, 'c')).toEqual([])
    // Every orphan goes to exactly one worker.
    const all = ['a', 'b', 'c'].flatMap((me) => assignOrphans(orphans, loads, me)).sort()
    expect(all).toEqual(orphans)
  })

  it('keeps each maximum: a full worker gets none, and what nobody may take stays unclaimed', () => {
    expect(assignOrphans(['i1', 'i2', 'i3'], [w('a', 0, 1), w('b', 5)], 'a')).toEqual(['i1'])
    expect(assignOrphans(['i1', 'i2', 'i3'], [w('a', 0, 1), w('b', 5)], 'b')).toEqual(['i2', 'i3'])
    expect(assignOrphans(['i1', 'i2', 'i3'], [w('a', 0, 1), w('b', 0, 1)], 'b')).toEqual(['i2'])
  })

  it('a worker missing from the loads (not live, or at its maximum) claims nothing', () => {
    expect(assignOrphans(['i1'], [w('b', 3)], 'a')).toEqual([])
    expect(assignOrphans(['i1'], [], 'a')).toEqual([])
  })
})
