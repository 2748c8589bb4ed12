/**
 * The status a client reads (services/cluster/take-over.ts `effectiveStatus`; docs/design.md §22
 * "Take-overs"): the session running here speaks for itself; with no session here, in database mode,
 * an instance stored as running that no answering worker holds is being taken over (CONNECTING); the
 * desktop's one process reads what is stored. Whether a lease's holder still answers for it
 * (`TakeOver.cannotReach`): a refused connection until its heartbeat moves on, or a heartbeat older
 * than the deadline after which a live worker stops its sockets.
 */
import { expect, it } from 'vitest'
import { systemTimers } from '../../../src/main/clock'
import { effectiveStatus, TakeOver } from '../../../src/main/services/cluster/take-over'

it('the session here wins; a stored CONNECTED nobody that answers holds reads CONNECTING; the rest as stored', () => {
  // A session runs here: its own state, whatever the document says (the last owner's CONNECTED included).
  expect(effectiveStatus('CONNECTED', 'CONNECTING', 'none')).toBe('CONNECTING')
  expect(effectiveStatus('CONNECTING', 'CONNECTED', undefined)).toBe('CONNECTED')
  expect(effectiveStatus('CONNECTED', 'QR', 'owner')).toBe('QR')
  // No session here, database mode, no answering holder: stored as running means a take-over.
  expect(effectiveStatus('CONNECTED', undefined, 'none')).toBe('CONNECTING')
  expect(effectiveStatus('CONNECTING', undefined, 'none')).toBe('CONNECTING')
  // Not stored as running: nothing to take over.
  for (const s of ['DISCONNECTED', 'LOGGED_OUT', 'QR'] as const) expect(effectiveStatus(s, undefined, 'none')).toBe(s)
  // Another worker that answers holds it: the stored status is that owner's report.
  expect(effectiveStatus('CONNECTED', undefined, 'owner')).toBe('CONNECTED')
  // The desktop (no leases): as stored.
  expect(effectiveStatus('CONNECTED', undefined, undefined)).toBe('CONNECTED')
})

/** A TakeOver whose lease clock reads `now.at` (ms); no leases or sessions needed by cannotReach. */
function takeOverAt(now: { at: number }, ttlMs = 3000): TakeOver {
  return new TakeOver({
    instances: { find: () => undefined },
    sessions: { state: () => undefined, stateReason: () => undefined, takingOverHere: () => false, nextChange: async () => undefined },
    self: 'b',
    clock: { now: () => now.at },
    timers: systemTimers,
    ttlMs
  })
}

it('a worker found unreachable stays so until its heartbeat moves on from the one seen at the refusal, even when it wrote that heartbeat a few ms "after" the refusal by this clock', () => {
  const now = { at: 10_000 }
  const t = takeOverAt(now)
  // a heartbeated at 10 004 by its own aligned clock, just before it died; b's clock says 10 000.
  const a = { id: 'a', url: 'http://a', lastSeenAt: 10_004 }
  expect(t.cannotReach(a)).toBe(false)
  t.unreachable(a)
  now.at = 10_050
  expect(t.cannotReach(a)).toBe(true)
  // Its next heartbeat: it lives (it was out of reach for a moment).
  expect(t.cannotReach({ id: 'a', lastSeenAt: 11_004 })).toBe(false)
  expect(t.cannotReach(a)).toBe(false)
})

it('a holder unseen for longer than the deadline after which a live worker stops its own sockets (TTL − TTL/5) runs none of them: it cannot answer for its lease', () => {
  const now = { at: 20_000 }
  const t = takeOverAt(now, 3000)
  const a = { id: 'a', lastSeenAt: 20_000 - 2400 }
  expect(t.cannotReach(a)).toBe(false)
  now.at += 1
  expect(t.cannotReach(a)).toBe(true)
  // A worker whose row is gone (released at a shutdown) has no heartbeat to judge by.
  expect(t.cannotReach({ id: 'c', lastSeenAt: null })).toBe(false)
})
