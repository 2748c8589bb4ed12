/**
 * Background jobs across workers (issue 26; docs/design.md §22 "Jobs"): an instance's webhook
 * deliveries are sent by the worker holding its lease, and by no other, so two workers on one
 * PostgreSQL database send each delivery once; after a failover the new owner sends what the old one
 * left pending. Real PostgreSQL (the run's server), sandbox instances, a real receiver on loopback.
 * Leases of 1 500 ms.
 */
import { afterEach, expect, it } from 'vitest'
import { internalsOf } from '../../src/main/core'
import { makeHarness, type Harness } from '../helpers/harness'
import { createTestDatabase, dropTestDatabase } from '../helpers/postgres'
import { startReceiver, type Receiver } from '../helpers/webhook-receiver'

const TTL = 1500
const CUSTOMER = '15550001111'
/** Short retries, so a delivery refused while the receiver is down is due again soon. */
const webhooks = { policy: { baseDelayMs: 200, maxDelayMs: 400, jitter: 0 } }

let harnesses: Harness[] = []
let url: string | undefined
let rx: Receiver | undefined
afterEach(async () => {
  for (const h of harnesses.reverse()) await h.close()
  harnesses = []
  await rx?.stop()
  rx = undefined
  if (url) await dropTestDatabase(url)
  url = undefined
})

async function worker(id: string): Promise<Harness> {
  const h = await makeHarness({ databaseUrl: url!, worker: { id, url: `http://${id}.test:3210`, leaseTtlMs: TTL }, webhooks })
  harnesses.push(h)
  return h
}

async function sendTexts(h: Harness, qs: string, from: number, n: number): Promise<void> {
  for (let i = from; i < from + n; i++) {
    const res = await h.call({ method: 'POST', url: `/chatapp/message?${qs}`, payload: { chatId: CUSTOMER, message: `m${i}` } })
    expect(res.statusCode, res.body).toBe(200)
  }
}

/** The texts of the messages the receiver got, one per request, and the distinct webhook-ids. */
function received(r: Receiver): { texts: string[]; ids: Set<string> } {
  const texts = r.requests.map((q) => String(q.json?.data?.body ?? q.json?.data?.message ?? JSON.stringify(q.json)))
  return { texts, ids: new Set(r.requests.map((q) => String(q.headers['webhook-id']))) }
}

it("two workers send each webhook delivery of an instance exactly once; after its owner is killed the other sends what it left pending, once", async () => {
  url = await createTestDatabase()
  rx = await startReceiver()
  // Answers held a while: the deliveries are still pending in the table when worker b starts.
  rx.respond = () => ({ status: 200, delayMs: 300 })
  const a = await worker('a')
  const { inst, qs } = await a.connectedInstance()
  const set = await a.call({ method: 'PUT', url: `/chatapp/setWebhook?${qs}`, payload: { webhook_url: rx.url, events: ['onAnyMessage'] } })
  expect(set.statusCode, set.body).toBe(200)
  const acts = await a.call({ method: 'PUT', url: `/chatapp/updateActions?${qs}`, payload: { send_webhook: true, reply_msgs: false, send_default_msg: false } })
  expect(acts.statusCode).toBe(200)

  const N = 10
  await sendTexts(a, qs, 0, N)
  // b starts with a's N deliveries pending in the table: they are a's instance's, not b's to send.
  const b = await worker('b')
  await internalsOf(b.core).workers!.tick()
  await expect.poll(async () => (await a.core.webhooks.list(inst._id, { status: 'delivered' })).length, { timeout: 10_000, interval: 20 }).toBe(N)
  // A round of b's loop and a retry period later, still nothing more came.
  await internalsOf(b.core).workers!.tick()
  await expect.poll(() => rx!.requests.length, { timeout: 1000, interval: 50 }).toBe(N)
  expect(received(rx).ids.size).toBe(N)

  // The receiver goes down; a's next deliveries are refused and wait for their retry; a is killed
  // (no release): b claims the instance after the TTL and sends them, each once.
  await rx.stop()
  await sendTexts(a, qs, N, N)
  await expect.poll(async () => (await a.core.webhooks.list(inst._id, { status: 'pending' })).filter((d) => d.attempts > 0).length, { timeout: 10_000, interval: 20 }).toBe(N)
  await internalsOf(a.core).workers!.halt()
  await rx.start()
  rx.respond = () => ({ status: 200 })
  await expect.poll(() => b.core.sessions.get(inst._id) !== undefined, { timeout: 10_000, interval: 20 }).toBe(true)
  await expect.poll(async () => (await b.core.webhooks.list(inst._id, { status: 'delivered' })).length, { timeout: 10_000, interval: 20 }).toBe(2 * N)
  // Several of a's retry periods (400 ms at most) later: a sent none of them again.
  await new Promise((r) => setTimeout(r, 1200))
  const got = received(rx)
  expect(got.ids.size).toBe(2 * N)
  expect(rx.requests.length).toBe(2 * N)
}, 60_000)
