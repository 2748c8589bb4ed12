/**
 * The dispatcher alone (docs/design.md §11), with a fake fetch and a manual clock, over the outbox on a
 * real SQLite file: the concurrency caps (in all and per endpoint), close() aborting requests in flight
 * without recording them (they stay pending for the next start), no timer left after close, and a
 * slot freed at the answer while its outcome is written (a failed write sends the delivery again).
 */
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { sql } from 'kysely'
import { afterEach, beforeEach, expect, it, vi } from 'vitest'
import { Webhook } from 'standardwebhooks'
import { signWebhook, WebhookDispatcher } from '../../../src/main/webhooks/dispatcher'
import { WebhookOutbox } from '../../../src/main/webhooks/outbox'
import { fetchTransport } from '../../../src/main/webhooks/webhook-transport'
import { DEFAULT_RETRY_POLICY } from '../../../src/main/webhooks/policy'
import { silentLogger } from '../../../src/main/logger'
import { openDatabase, type DatabaseHandle } from '../../../src/main/store/db/database'
import { WebhookDeliveryRepo } from '../../../src/main/store/repos/webhook-delivery-repo'
import type { WebhookDelivery } from '../../../src/shared/schemas/webhooks'
import { ManualClock } from '../../helpers/manual-clock'

const SECRET = `whsec_${Buffer.alloc(32, 1).toString('base64')}`
let dir: string
let database: DatabaseHandle
let repo: WebhookDeliveryRepo
let outbox: WebhookOutbox
let clock: ManualClock
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'chatapp-dispatch-'))
  database = await openDatabase(join(dir, 'chatapp.db'))
  repo = new WebhookDeliveryRepo({ db: database.db, write: (work) => database.write(work) })
  outbox = await WebhookOutbox.open(repo)
  clock = new ManualClock()
})
afterEach(async () => {
  vi.restoreAllMocks()
  await database.close()
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

/**
 * A fetch whose answers the test releases by hand. `maxInFlight` is the most requests that were
 * unanswered at once, counted as each request arrives: a cap broken at any time shows in it, however
 * late the extra request came.
 */
function gatedFetch() {
  const calls: Array<{ url: string; init: RequestInit; release: (status: number) => void }> = []
  const stats = { inFlight: 0, maxInFlight: 0 }
  const fetch = (async (url: string, init: RequestInit) =>
    new Promise<Response>((resolve, reject) => {
      let open = true
      const settle = () => {
        if (open) stats.inFlight--
        open = false
      }
      stats.inFlight++
      stats.maxInFlight = Math.max(stats.maxInFlight, stats.inFlight)
      init.signal?.addEventListener('abort', () => {
        settle()
        reject(init.signal!.reason)
      })
      calls.push({
        url,
        init,
        release: (status) => {
          settle()
          resolve(new Response(null, { status }))
        }
      })
    })) as unknown as typeof globalThis.fetch
  return { fetch, calls, stats }
}

function dispatcher(fetch: typeof globalThis.fetch, concurrency?: number, perEndpoint?: number) {
  const { post } = fetchTransport(fetch)
  return new WebhookDispatcher({
    outbox,
    target: (id) => (id === 'A' ? { secret: SECRET, headers: { 'x-extra': '1' }, timeoutMs: 10_000 } : undefined),
    post,
    clock,
    random: () => 0.5,
    policy: DEFAULT_RETRY_POLICY,
    logger: silentLogger(),
    concurrency,
    perEndpoint
  })
}

it('keeps at most `concurrency` requests in flight and sends the rest as they finish', async () => {
  const { fetch, calls, stats } = gatedFetch()
  const rows = deliveries(5)
  await outbox.add(rows)
  const d = dispatcher(fetch, 2)
  d.start()
  await vi.waitFor(() => expect(calls).toHaveLength(2))
  for (let i = 0; i < 5; i++) {
    await vi.waitFor(() => expect(calls.length).toBeGreaterThan(i))
    calls[i]!.release(200)
  }
  await vi.waitFor(async () => expect(await repo.list('A', { status: 'delivered' })).toHaveLength(5))
  // All five went out (no request is still to come), never more than two unanswered at once.
  expect(calls).toHaveLength(5)
  expect(stats.maxInFlight).toBe(2)
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
  await vi.waitFor(async () => expect((await repo.find(rows[0]!.id))!.attempts).toBe(1))
  await d.close()
  expect(calls[1]!.init.signal!.aborted).toBe(true)
  expect(await repo.find(rows[1]!.id)).toMatchObject({ status: 'pending', attempts: 0, last_error: null })
  expect(outbox.pending(rows[1]!.id)).toMatchObject({ status: 'pending', attempts: 0 })
  expect(clock.pending).toBe(0)
  // Stopped means stopped: time passing or a kick sends nothing.
  d.kick()
  clock.advance(3_600_000)
  expect(calls).toHaveLength(2)
})

it('sends nothing for an instance that is gone', async () => {
  const { fetch, calls } = gatedFetch()
  const [gone, sentinel] = deliveries(2)
  // The gone instance's delivery is queued first; a live one behind it on the same endpoint is the
  // sentinel: once the sentinel's request came, the gone one's would have come before it.
  await outbox.add([{ ...gone!, instance_id: 'gone' }, sentinel!])
  const d = dispatcher(fetch)
  d.start()
  await vi.waitFor(() => expect(calls).toHaveLength(1))
  calls[0]!.release(200)
  await vi.waitFor(async () => expect(await repo.find(sentinel!.id)).toMatchObject({ status: 'delivered' }))
  expect(calls.map((c) => new Headers(c.init.headers).get('webhook-id'))).toEqual([sentinel!.id])
  expect(await repo.find(gone!.id)).toMatchObject({ instance_id: 'gone', status: 'pending', attempts: 0 })
  await d.close()
})

it('bounds requests per endpoint: a receiver that hangs holds its own slots only, another one is served meanwhile', async () => {
  const { fetch, calls } = gatedFetch()
  const slow = deliveries(6).map((x) => ({ ...x, url: 'http://slow.test/hook' }))
  const fast = deliveries(4).map((x, i) => ({ ...x, id: `msg_fast_${i}`, url: 'http://fast.test/hook' }))
  await outbox.add([...slow, ...fast])
  const d = dispatcher(fetch, 10, 3)
  d.start()
  // Three to the slow receiver (its cap), three to the fast one; the fast one's answers free its slots.
  await vi.waitFor(() => expect(calls.filter((c) => c.url.startsWith('http://fast.test'))).toHaveLength(3))
  expect(calls.filter((c) => c.url.startsWith('http://slow.test'))).toHaveLength(3)
  for (const c of calls.filter((x) => x.url.startsWith('http://fast.test'))) c.release(200)
  await vi.waitFor(() => expect(calls.filter((c) => c.url.startsWith('http://fast.test'))).toHaveLength(4))
  calls.find((c) => c.url.startsWith('http://fast.test') && !c.init.signal!.aborted && calls.indexOf(c) >= 6)!.release(200)
  await vi.waitFor(async () => expect((await repo.list('A', { status: 'delivered', limit: 100 })).map((x) => x.url)).toEqual(Array(4).fill('http://fast.test/hook')))
  // The slow receiver never got more than its three at once.
  expect(calls.filter((c) => c.url.startsWith('http://slow.test'))).toHaveLength(3)
  await d.close()
})

it("frees a request's slot once its answer is in, while the outcome is still being written", async () => {
  const { fetch, calls } = gatedFetch()
  const rows = deliveries(2)
  await outbox.add(rows)
  // The outcome's row is written only when the test lets it go; the working set changes at once, as in the outbox.
  let letWritesGo!: () => void
  const held = new Promise<void>((resolve) => (letWritesGo = resolve))
  const record = repo.record.bind(repo)
  vi.spyOn(repo, 'record').mockImplementation(async (outcomes) => {
    await held
    return record(outcomes)
  })
  const d = dispatcher(fetch, 1, 1)
  d.start()
  await vi.waitFor(() => expect(calls).toHaveLength(1))
  calls[0]!.release(200)
  // One slot in all: the second request starts although the first outcome is not on disk yet.
  await vi.waitFor(() => expect(calls).toHaveLength(2))
  expect(outbox.pending(rows[0]!.id)).toBeUndefined()
  expect((await repo.find(rows[0]!.id))!.status).toBe('pending')
  calls[1]!.release(200)
  letWritesGo()
  await vi.waitFor(async () => expect(await repo.list('A', { status: 'delivered' })).toHaveLength(2))
  await d.close()
})

it('sends a delivery again when the write of its outcome fails (at-least-once)', async () => {
  const { fetch, calls } = gatedFetch()
  const [row] = deliveries(1)
  await outbox.add([row!])
  // The database refuses the next change of a delivery's row (as a full disk or an I/O error would),
  // then takes changes again.
  await sql`CREATE TEMP TRIGGER refuse_outcome BEFORE UPDATE ON webhook_deliveries BEGIN SELECT RAISE(ABORT, 'write refused'); END`.execute(database.db)
  const record = repo.record.bind(repo)
  vi.spyOn(repo, 'record').mockImplementationOnce(async (outcomes) => {
    try {
      return await record(outcomes)
    } finally {
      await sql`DROP TRIGGER temp.refuse_outcome`.execute(database.db)
    }
  })
  const d = dispatcher(fetch)
  d.start()
  await vi.waitFor(() => expect(calls).toHaveLength(1))
  calls[0]!.release(200)
  // The "delivered" outcome did not land: the delivery is pending again and goes out once more.
  await vi.waitFor(() => expect(calls).toHaveLength(2))
  expect(new Headers(calls[1]!.init.headers).get('webhook-id')).toBe(row!.id)
  calls[1]!.release(200)
  await vi.waitFor(async () => expect(await repo.find(row!.id)).toMatchObject({ status: 'delivered', attempts: 1 }))
  await d.close()
})

it('signs with each secret as it is now (keys are kept per secret): the standardwebhooks library verifies both, an empty secret throws', () => {
  const other = `whsec_${Buffer.alloc(32, 2).toString('base64')}`
  const now = Date.now()
  for (const secret of [SECRET, other, SECRET]) {
    const headers = { 'webhook-id': 'msg_1', 'webhook-timestamp': String(Math.floor(now / 1000)), 'webhook-signature': signWebhook(secret, 'msg_1', now, '{"a":1}') }
    expect(new Webhook(secret).verify('{"a":1}', headers)).toEqual({ a: 1 })
    expect(() => new Webhook(secret === SECRET ? other : SECRET).verify('{"a":1}', headers)).toThrow()
  }
  expect(() => signWebhook('whsec_', 'msg_1', now, '{}')).toThrow(/empty/)
})
