/**
 * The dispatcher alone (docs/design.md §11), with a fake fetch and a manual clock: the concurrency cap,
 * close() aborting requests in flight without recording them (they stay pending for the next start),
 * and no timer left after close.
 */
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, expect, it, vi } from 'vitest'
import { Webhook } from 'standardwebhooks'
import { WebhookDispatcher } from '../../../src/main/webhooks/dispatcher'
import { WebhookOutbox } from '../../../src/main/webhooks/outbox'
import { DEFAULT_RETRY_POLICY } from '../../../src/main/webhooks/policy'
import { silentLogger } from '../../../src/main/logger'
import type { WebhookDelivery } from '../../../src/shared/schemas/webhooks'
import { ManualClock } from '../../helpers/manual-clock'

const SECRET = `whsec_${Buffer.alloc(32, 1).toString('base64')}`
let dir: string
let outbox: WebhookOutbox
let clock: ManualClock
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'chatapp-dispatch-'))
  outbox = await WebhookOutbox.open(join(dir, 'o.json'))
  clock = new ManualClock()
})
afterEach(async () => {
  await outbox.close()
  await rm(dir, { recursive: true, force: true })
})

function deliveries(n: number): WebhookDelivery[] {
  return Array.from({ length: n }, (_, i) => ({
    id: `msg_${String(i).padStart(24, '0')}`,
    instance_id: 'A',
    event: 'onMessage',
    url: 'http://receiver.test/hook',
    payload: { event: 'onMessage', instance_id: 'A', session_id: 's', data: { i }, timestamp: new Date(0).toISOString() },
    status: 'pending' as const,
    attempts: 0,
    last_error: null,
    last_status: null,
    next_attempt_at: null,
    created_at: new Date(clock.now()).toISOString(),
    delivered_at: null
  }))
}

/** A fetch whose answers the test releases by hand. */
function gatedFetch() {
  const calls: Array<{ url: string; init: RequestInit; release: (status: number) => void }> = []
  const fetch = (async (url: string, init: RequestInit) =>
    new Promise<Response>((resolve, reject) => {
      init.signal?.addEventListener('abort', () => reject(init.signal!.reason))
      calls.push({ url, init, release: (status) => resolve(new Response(null, { status })) })
    })) as unknown as typeof globalThis.fetch
  return { fetch, calls }
}

function dispatcher(fetch: typeof globalThis.fetch, concurrency?: number) {
  return new WebhookDispatcher({
    outbox,
    target: (id) => (id === 'A' ? { secret: SECRET, headers: { 'x-extra': '1' }, timeoutMs: 10_000 } : undefined),
    fetch,
    clock,
    random: () => 0.5,
    policy: DEFAULT_RETRY_POLICY,
    logger: silentLogger(),
    concurrency
  })
}

it('keeps at most `concurrency` requests in flight and sends the rest as they finish', async () => {
  const { fetch, calls } = gatedFetch()
  const rows = deliveries(5)
  await outbox.add(rows)
  const d = dispatcher(fetch, 2)
  d.start()
  await vi.waitFor(() => expect(calls).toHaveLength(2))
  await new Promise((r) => setTimeout(r, 20))
  expect(calls).toHaveLength(2)
  for (let i = 0; i < 5; i++) {
    await vi.waitFor(() => expect(calls.length).toBeGreaterThan(i))
    calls[i]!.release(200)
  }
  await vi.waitFor(() => expect(outbox.list('A', { status: 'delivered' })).toHaveLength(5))
  // Each request is signed for its own id, with the extra header.
  for (const c of calls) {
    const h = new Headers(c.init.headers)
    expect(h.get('x-extra')).toBe('1')
    const body = new Webhook(SECRET).verify(c.init.body as string, Object.fromEntries(h)) as { data: { i: number } }
    expect(h.get('webhook-id')).toBe(rows[body.data.i]!.id)
  }
  await d.close()
  expect(clock.pending).toBe(0)
})

it('close() aborts requests in flight and leaves them pending, unrecorded; no timer survives', async () => {
  const { fetch, calls } = gatedFetch()
  const rows = deliveries(2)
  await outbox.add(rows)
  const d = dispatcher(fetch)
  d.start()
  await vi.waitFor(() => expect(calls).toHaveLength(2))
  calls[0]!.release(500) // first one fails and gets a retry timer
  await vi.waitFor(() => expect(outbox.get(rows[0]!.id)!.attempts).toBe(1))
  await d.close()
  expect(calls[1]!.init.signal!.aborted).toBe(true)
  expect(outbox.get(rows[1]!.id)).toMatchObject({ status: 'pending', attempts: 0, last_error: null })
  expect(clock.pending).toBe(0)
  // Stopped means stopped: time passing or a kick sends nothing.
  d.kick()
  clock.advance(3_600_000)
  expect(calls).toHaveLength(2)
})

it('sends nothing for an instance that is gone', async () => {
  const { fetch, calls } = gatedFetch()
  await outbox.add(deliveries(1).map((x) => ({ ...x, instance_id: 'gone' })))
  const d = dispatcher(fetch)
  d.start()
  await new Promise((r) => setTimeout(r, 20))
  expect(calls).toHaveLength(0)
  await d.close()
})
