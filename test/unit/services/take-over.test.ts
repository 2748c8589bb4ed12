/**
 * The status a client reads (services/cluster/take-over.ts `effectiveStatus`; docs/design.md §22
 * "Take-overs"): the session running here speaks for itself; with no session here, in database mode,
 * an instance stored as running that no answering worker holds is being taken over (CONNECTING); the
 * desktop's one process reads what is stored.
 */
import { expect, it } from 'vitest'
import { effectiveStatus } from '../../../src/main/services/cluster/take-over'

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
