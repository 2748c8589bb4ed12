/**
 * Background jobs across workers (docs/design.md §22 "Jobs"): an instance's webhook
 * deliveries, broadcasts, scheduled messages and survey idle expiry run on the worker holding its lease, and on no other,
 * so with two workers on one PostgreSQL database each delivery, message and run happens once; after a
 * failover the new owner takes over what the old one left. Real PostgreSQL (the run's server), sandbox
 * instances, a real receiver on loopback; leases of 1 500 ms in real time, the outreach pacing on a
 * manual clock both workers share. Each test fails with the rule off (every worker runs everything).
 */
import { afterEach, expect, it } from 'vitest'
import { internalsOf } from '../../src/main/core'
import { makeHarness, type Harness } from '../helpers/harness'
import { createTestDatabase, dropTestDatabase } from '../helpers/postgres'
import { startReceiver, type Receiver } from '../helpers/webhook-receiver'
import { ManualClock } from '../helpers/manual-clock'

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

async function worker(id: string, clock?: ManualClock): Promise<Harness> {
  // The core's clock (outreach pacing) is manual when given; the lease loop keeps real time.
  const h = await makeHarness({ databaseUrl: url!, worker: { id, url: `http://${id}.test:3210`, leaseTtlMs: TTL }, webhooks, ...(clock ? { clock, timers: clock } : {}) })
  harnesses.push(h)
  return h
}

async function sendTexts(h: Harness, qs: string, from: number, n: number): Promise<void> {
  for (let i = from; i < from + n; i++) {
    const res = await h.call({ method: 'POST', url: `/chatapp/message?${qs}`, payload: { chatId: CUSTOMER, message: `m${i}` } })
    expect(res.statusCode, res.body).toBe(200)
  }
}

/** The distinct webhook-ids of the requests the receiver got. */
function received(r: Receiver): { ids: Set<string> } {
  return { ids: new Set(r.requests.map((q) => String(q.headers['webhook-id']))) }
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
  // After another round of b's loop, the receiver has each delivery once: b sent none of them (its
  // outbox holds only the instances it holds; the kill below shows what b sends once it holds this one).
  await internalsOf(b.core).workers!.tick()
  expect(rx.requests.length).toBe(N)
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
  // Halted, a holds none of the instance's deliveries any more: every request the receiver got is b's, one per delivery.
  const got = received(rx)
  expect(got.ids.size).toBe(2 * N)
  expect(rx.requests.length).toBe(2 * N)
}, 60_000)

it('a broadcast runs on the worker holding its instance: killed mid-broadcast, the other resumes it after the failover and each of 10 recipients gets one message', async () => {
  url = await createTestDatabase()
  const clock = new ManualClock()
  const a = await worker('a', clock)
  const { inst, qs } = await a.connectedInstance()
  const callA = a.instanceApi(qs)
  await callA('PUT', '/chatapp/updateActions', { send_default_msg: false, reply_msgs: false })
  await callA('PUT', '/chatapp/outreach', { number_since: '2020-01-01', quiet_hours: null, min_gap_seconds: 5, max_gap_seconds: 5 })
  const to = Array.from({ length: 10 }, (_, i) => `39333500${String(i).padStart(4, '0')}`)
  const created = (await callA('POST', '/broadcast', { send_type: 'individual', to: to.join(', '), message: { text: 'Hello [name]' } })).data
  const sentCount = async () => (await a.core.broadcasts.get(inst, created._id)).progress.sent
  let hs = [a]
  /** Lets the shared manual clock run until `until` holds: fires each timer in turn, waits for the sends. */
  const runClock = async (until: () => Promise<boolean>) => {
    for (let i = 0; i < 500; i++) {
      for (const h of hs) await h.core.broadcasts.idle()
      if (await until()) return
      const next = clock.nextIn()
      if (next === undefined) {
        // Nothing armed yet (the claim is under way in real time): let the lease loop work.
        await new Promise((r) => setImmediate(r))
        continue
      }
      clock.advance(Math.max(0, next))
    }
    throw new Error('the condition did not hold in time')
  }
  await runClock(async () => (await sentCount()) >= 2)
  // b starts with the broadcast stored as sending: a's instance's, not b's to run.
  const b = await worker('b', clock)
  hs = [a, b]
  await runClock(async () => (await sentCount()) >= 4)
  // b made no attempt of its own (its view of the broadcast has no wait reason of its own).
  expect((await b.core.broadcasts.get(inst, created._id)).progress.waiting).toBeNull()
  // a is killed (its loop and sessions stop, nothing released): b claims the instance after the TTL.
  await internalsOf(a.core).workers!.halt()
  await expect.poll(() => b.core.sessions.get(inst._id) !== undefined, { timeout: 10_000, interval: 20 }).toBe(true)
  await expect.poll(async () => { for (const h of hs) await h.core.broadcasts.idle(); const n = clock.nextIn(); if (n !== undefined) clock.advance(Math.max(0, n)); return (await b.core.broadcasts.get(inst, created._id)).status }, { timeout: 20_000, interval: 20 }).toBe('done')
  const done = await b.core.broadcasts.get(inst, created._id)
  const sentTo = done.sent.map((s) => s.number)
  expect(done.progress.sent).toBe(10)
  expect(new Set(sentTo).size).toBe(10)
  const log = await internalsOf(b.core).storage.repos.messages.list(inst._id, { limit: 1000 })
  const out = log.filter((m) => m.fromMe).map((m) => m.chatId)
  expect(out).toHaveLength(10)
  expect(new Set(out).size).toBe(10)
}, 60_000)

it('a scheduled message fires once with two workers: on the worker holding its instance', async () => {
  url = await createTestDatabase()
  const clock = new ManualClock()
  clock.offset = Date.parse('2026-11-25T10:00:00Z') - Date.now()
  const a = await worker('a', clock)
  const { inst, qs } = await a.connectedInstance()
  const callA = a.instanceApi(qs)
  await callA('PUT', '/chatapp/updateActions', { send_default_msg: false, reply_msgs: false })
  await callA('PUT', '/chatapp/updateGeneral', { bot_timezone: 'Europe/Rome' })
  await callA('PUT', '/chatapp/outreach', { number_since: '2020-01-01', quiet_hours: null })
  const made = await callA('POST', '/schedule', { target: { type: 'chat', id: '393335000001' }, message: { text: 'Once' }, repeat: 'none', start_at: '2026-11-25T12:00' })
  expect(made.data, JSON.stringify(made)).toMatchObject({ next_run_at: '2026-11-25T11:00:00.000Z' })
  // b starts with the schedule stored: a's instance's, not b's to run (nor to arm a timer for).
  const b = await worker('b', clock)
  await internalsOf(b.core).workers!.tick()
  const repos = internalsOf(a.core).storage.repos
  const outbound = async () => (await repos.messages.list(inst._id, { limit: 100 })).filter((m) => m.fromMe)
  for (let i = 0; i < 100 && (await outbound()).length === 0; i++) {
    for (const h of [a, b]) {
      await h.core.schedules.idle()
      await h.core.broadcasts.idle()
    }
    const next = clock.nextIn()
    if (next !== undefined) clock.advance(Math.max(0, next))
  }
  // An hour later both workers' timers have had their chance.
  clock.advance(3_600_000)
  for (const h of [a, b]) {
    await h.core.schedules.idle()
    await h.core.broadcasts.idle()
  }
  expect(await outbound()).toHaveLength(1)
  expect(await repos.broadcasts.ofInstance(inst._id)).toHaveLength(1)
  const s = (await callA('GET', '/schedule')).data[0]
  expect(s.runs.map((r: { result: string }) => r.result)).toEqual(['sent'])
}, 60_000)

it("the survey idle sweep expires a run once: on the worker holding its instance; after a failover, on the new holder", async () => {
  url = await createTestDatabase()
  const clock = new ManualClock()
  const a = await worker('a', clock)
  const b = await worker('b', clock)
  const { inst } = await a.connectedInstance()
  await internalsOf(b.core).workers!.tick()
  expect(internalsOf(a.core).workers!.holds(inst._id)).toBe(true)
  expect(internalsOf(b.core).workers!.holds(inst._id)).toBe(false)
  const runs = internalsOf(a.core).storage.repos.surveyRuns
  const run = (id: string) => {
    const at = new Date(clock.now()).toISOString()
    return { _id: id, instance_id: inst._id, survey_title: 'Feedback', chatId: CUSTOMER, pushName: null, status: 'in_progress' as const, current_step_id: 'step-1', answers: [], startedAt: at, updatedAt: at, completedAt: null }
  }
  await runs.put(run('run-1'))
  // Past the idle time (30 min by default).
  clock.advance(31 * 60_000)
  // b does not hold the instance: its sweep leaves the run alone (every worker's sweep would expire it).
  expect(await b.core.bot.expireIdleRuns()).toBe(0)
  expect((await runs.idleSince(new Date(clock.now()).toISOString())).map((r) => [r._id, r.status])).toEqual([['run-1', 'in_progress']])
  expect(await a.core.bot.expireIdleRuns()).toBe(1)
  expect(await b.core.bot.expireIdleRuns()).toBe(0)

  // a stops with no goodbye: its run left idle is b's to expire once b holds the instance.
  await runs.put(run('run-2'))
  clock.advance(31 * 60_000)
  await internalsOf(a.core).workers!.halt()
  expect(await b.core.bot.expireIdleRuns()).toBe(0)
  await expect.poll(() => internalsOf(b.core).workers!.holds(inst._id), { timeout: 10_000, interval: 20 }).toBe(true)
  expect(await b.core.bot.expireIdleRuns()).toBe(1)
}, 30_000)
