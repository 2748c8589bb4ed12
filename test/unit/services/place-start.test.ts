/** Where a start (init) of an instance no worker holds runs (docs/design.md §22; src/main/services/cluster/cluster-view.ts `placeStart`). */
import { describe, expect, it } from 'vitest'
import { placeStart } from '../../../src/main/services/cluster/cluster-view'

// As LeaseRepo.leastLoaded answers: live workers with room, fewest instances first, ties by id.
const w = (id: string, instances: number, url = `http://${id}`) => ({ id, url, instances, maxInstances: null })

describe('placeStart', () => {
  it('stays on the worker asked when none has fewer instances (a tie costs no hop)', () => {
    expect(placeStart([w('a', 2), w('b', 2)], 'b')).toBe('here')
    expect(placeStart([w('a', 0)], 'a')).toBe('here')
  })

  it('goes to the least-loaded worker when it has fewer instances than the one asked', () => {
    expect(placeStart([w('b', 1), w('c', 1), w('a', 3)], 'a')).toEqual(w('b', 1))
  })

  it('goes elsewhere when the worker asked is at its maximum (missing from the loads)', () => {
    expect(placeStart([w('b', 7)], 'a')).toEqual(w('b', 7))
  })

  it('skips a worker the others cannot reach (no CHATAPP_WORKER_URL), keeping it here when the asked one has room', () => {
    expect(placeStart([w('b', 0, ''), w('c', 1), w('a', 2)], 'a')).toEqual(w('c', 1))
    expect(placeStart([w('b', 0, ''), w('a', 2)], 'a')).toBe('here')
  })

  it("'full' when no live worker has room, or none that can be reached", () => {
    expect(placeStart([], 'a')).toBe('full')
    expect(placeStart([w('b', 0, '')], 'a')).toBe('full')
  })
})
