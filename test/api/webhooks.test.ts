/**
 * Webhooks end to end (docs/design.md §11): a real local HTTP receiver gets signed deliveries of
 * sandbox traffic and verifies them with the `standardwebhooks` library. Time runs on a manual clock,
 * so retries of seconds to minutes happen without waiting; after every test no timer is left armed.
 * What is stored is read back through a database connection of the test's own: only committed rows.
 */
import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { DatabaseSync } from 'node:sqlite'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { Webhook } from 'standardwebhooks'
import { makeHarness, type Harness } from '../helpers/harness'
import { ManualClock } from '../helpers/manual-clock'
import { freePort, startReceiver, verify, type ReceivedRequest, type Receiver } from '../helpers/webhook-receiver'
import type { WebhookDelivery } from '../../src/shared/schemas/webhooks'
import { internalsOf } from '../../src/main/core'
import { openDatabase } from '../../src/main/store/db/database'
import { WebhookDeliveryRepo, webhookDeliveryRows } from '../../src/main/store/repos/webhook-delivery-repo'

let h: Harness
let rx: Receiver
let clock: ManualClock
/** The second instance whose deliveries are the sentinels (made at the first `sentinel()` of a test). */
let sentinelInstance: { inst: { _id: string }; qs: string } | undefined
const opts = () => ({ webhooks: { clock, random: () => 0.5 } })

beforeEach(async () => {
  sentinelInstance = undefined
  clock = new ManualClock()
  h = await makeHarness(opts())
  rx = await startReceiver()
})
afterEach(async () => {
  await h.close()
  await rx.stop()
  // core.close() stops the dispatcher: no retry or timeout timer survives it.
  expect(clock.pending).toBe(0)
})

const WAIT = { timeout: 5000, interval: 5 }
const CUSTOMER = '15550001111'

/** A connected sandbox instance with its webhook set and send_webhook on (bot replies off: only our traffic). */
async function webhookInstance(url: string, events: string[], requestConfig?: object) {
  const { inst, creds, qs } = await h.connectedInstance()
  const set = await h.call({ method: 'PUT', url: `/chatapp/setWebhook?${qs}`, payload: { webhook_url: url, events, ...(requestConfig ? { requestConfig } : {}) } })
  expect(set.statusCode, set.body).toBe(200)
  const acts = await h.call({ method: 'PUT', url: `/chatapp/updateActions?${qs}`, payload: { send_webhook: true, reply_msgs: false, send_default_msg: false } })
  expect(acts.statusCode).toBe(200)
  return { inst, creds, qs, secret: set.json.data.secret as string }
}

/** The attempt number of the delivery `req` carries (1 for its first request), by its webhook-id. */
const attemptOf = (req: ReceivedRequest) => rx.requests.filter((r) => r.headers['webhook-id'] === req.headers['webhook-id']).length

/** The requests the receiver got for one instance's deliveries (a sentinel's are left out). */
const requestsOf = (instanceId: string) => rx.requests.filter((r) => r.json?.instance_id === instanceId)

/**
 * A later event through the same path (sandbox inbound → outbox → dispatcher → this receiver): an
 * onMessage of a second instance, answered 200 whatever `rx.respond` says. Resolves once the receiver
 * got it and its outcome is recorded, so a check that nothing else was sent or recorded meanwhile is
 * not passed by a request that was merely late.
 */
async function sentinel(): Promise<void> {
  if (!sentinelInstance) {
    sentinelInstance = await webhookInstance(rx.url, ['onMessage'])
    const answer = rx.respond
    const sentinelId = sentinelInstance.inst._id
    rx.respond = (req, n) => (req.json?.instance_id === sentinelId ? { status: 200 } : answer(req, n))
  }
  const { inst, qs } = sentinelInstance
  const text = `sentinel ${requestsOf(inst._id).length + 1}`
  await inbound(qs, { message: text })
  await vi.waitFor(async () => {
    expect(requestsOf(inst._id).map((r) => r.json.data.text)).toContain(text)
    const recorded = (await h.core.webhooks.list(inst._id)).find((d) => d.payload.data.text === text)
    expect(recorded?.status).toBe('delivered')
  }, WAIT)
}

async function inbound(qs: string, payload: Record<string, unknown>) {
  const res = await h.call({ method: 'POST', url: `/chatapp/sandbox/inbound?${qs}`, payload: { chatId: CUSTOMER, ...payload } })
  expect(res.statusCode, res.body).toBe(200)
}

async function sendText(qs: string, message: string) {
  const res = await h.call({ method: 'POST', url: `/chatapp/message?${qs}`, payload: { chatId: CUSTOMER, message } })
  expect(res.statusCode, res.body).toBe(200)
}

/** Waits until the delivery's attempt `n` is recorded and, when it stays pending, its retry timer armed. */
async function attempted(instanceId: string, n: number): Promise<WebhookDelivery> {
  await vi.waitFor(async () => {
    const d = await only(instanceId)
    expect(d.attempts).toBe(n)
    if (d.status === 'pending') expect(clock.pending).toBe(1)
  }, WAIT)
  return only(instanceId)
}

async function only(instanceId: string): Promise<WebhookDelivery> {
  const list = await h.core.webhooks.list(instanceId)
  expect(list).toHaveLength(1)
  return list[0]!
}

/** The deliveries committed to the data dir's database, oldest first, read through a connection of its own (what a crash would leave). */
function committed(dataDir: string): WebhookDelivery[] {
  const db = new DatabaseSync(join(dataDir, 'chatapp.db'), { readOnly: true })
  try {
    const rows = db.prepare('SELECT * FROM webhook_deliveries ORDER BY seq').all() as unknown as Parameters<typeof webhookDeliveryRows.fromRow>[0][]
    return rows.map(webhookDeliveryRows.fromRow)
  } finally {
    db.close()
  }
}

describe('delivery', () => {
  it('signs onMessage and onAnyMessage for inbound, API and bot messages; requestConfig headers come along', async () => {
    const { inst, qs, secret } = await webhookInstance(rx.url, ['onMessage', 'onAnyMessage'], { headers: { 'X-Api-Key': 'k-123' } })
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]+=*$/)
    await inbound(qs, { message: 'Hello there', pushName: 'Ann', senderLid: '98765432@lid' })
    await sendText(qs, 'From the API')
    await h.core.messages.send(h.core.instances.get(inst._id), `${CUSTOMER}@s.whatsapp.net`, { kind: 'text', text: 'From the bot' }, { source: 'bot' })

    await vi.waitFor(() => expect(rx.requests).toHaveLength(4), WAIT)
    const bodies = rx.requests.map((r) => verify(r, secret))
    expect(bodies.map((b) => `${b.event} ${b.data.source} ${b.data.text}`).sort()).toEqual([
      'onAnyMessage api From the API',
      'onAnyMessage bot From the bot',
      'onAnyMessage inbound Hello there',
      'onMessage inbound Hello there'
    ])
    for (const r of rx.requests) {
      expect(r.method).toBe('POST')
      expect(r.path).toBe('/hook')
      expect(r.headers['x-api-key']).toBe('k-123')
      expect(r.headers['content-type']).toBe('application/json')
      expect(r.headers['webhook-id']).toMatch(/^msg_[0-9a-f]{24}$/)
      expect(Math.abs(Number(r.headers['webhook-timestamp']) - Date.now() / 1000)).toBeLessThan(60)
    }
    const onMessage = bodies.find((b) => b.event === 'onMessage')
    expect(onMessage).toMatchObject({
      instance_id: inst._id,
      session_id: inst.session_id,
      data: {
        chatId: `${CUSTOMER}@s.whatsapp.net`,
        fromMe: false,
        pushName: 'Ann',
        type: 'text',
        source: 'inbound',
        senderId: `${CUSTOMER}@s.whatsapp.net`,
        senderPn: `${CUSTOMER}@s.whatsapp.net`,
        senderLid: '98765432@lid'
      }
    })
    expect(new Date(onMessage.timestamp).toISOString()).toBe(onMessage.timestamp)
    // The signature covers the body and the id: a changed byte or another secret does not verify.
    const r0 = rx.requests[0]!
    expect(() => new Webhook(secret).verify(r0.body.replace('"event"', '"evenT"'), r0.headers as Record<string, string>)).toThrow()
    expect(() => new Webhook(`whsec_${Buffer.alloc(32, 7).toString('base64')}`).verify(r0.body, r0.headers as Record<string, string>)).toThrow()

    await vi.waitFor(async () => expect(await h.core.webhooks.list(inst._id, { status: 'delivered' })).toHaveLength(4), WAIT)
    const res = await h.call({ method: 'GET', url: `/chatapp/webhook/deliveries?${qs}` })
    expect(res.statusCode).toBe(200)
    expect(res.json.message).toBe('Webhook deliveries fetched successfully!')
    const list: WebhookDelivery[] = res.json.data
    expect(new Set(list.map((d) => d.id))).toEqual(new Set(rx.requests.map((r) => r.headers['webhook-id'])))
    for (const d of list) {
      expect(d).toMatchObject({ instance_id: inst._id, url: rx.url, status: 'delivered', attempts: 1, last_status: 200, last_error: null, next_attempt_at: null })
      expect(d.delivered_at).not.toBeNull()
    }
    // Newest first: the bot's message was the last event.
    expect(list[0]!.payload.data.text).toBe('From the bot')
    expect(list.map((d) => d.created_at)).toEqual([...list.map((d) => d.created_at)].sort().reverse())
  })

  it('follows the instance’s events and send_webhook', async () => {
    const { inst, qs } = await webhookInstance(rx.url, ['onMessage'])
    await inbound(qs, { message: 'one' })
    await sendText(qs, 'outbound, not subscribed')
    // Committed before the event was answered: what is not listed now was never queued.
    expect((await h.core.webhooks.list(inst._id)).map((d) => `${d.event} ${d.payload.data.text}`)).toEqual(['onMessage one'])

    await h.call({ method: 'PUT', url: `/chatapp/setWebhook?${qs}`, payload: { webhook_url: rx.url, events: ['onAnyMessage'] } })
    await inbound(qs, { message: 'two' })
    await sendText(qs, 'three')
    expect((await h.core.webhooks.list(inst._id)).map((d) => `${d.event} ${d.payload.data.text}`)).toEqual(['onAnyMessage three', 'onAnyMessage two', 'onMessage one'])

    await h.call({ method: 'PUT', url: `/chatapp/updateActions?${qs}`, payload: { send_webhook: false } })
    await inbound(qs, { message: 'four' })
    await sendText(qs, 'five')
    expect(await h.core.webhooks.list(inst._id)).toHaveLength(3)

    await vi.waitFor(async () => expect(await h.core.webhooks.list(inst._id, { status: 'delivered' })).toHaveLength(3), WAIT)
    expect(rx.requests.map((r) => `${r.json.event} ${r.json.data.text}`).sort()).toEqual(['onAnyMessage three', 'onAnyMessage two', 'onMessage one'])
    // status and limit filter the list.
    const res = await h.call({ method: 'GET', url: `/chatapp/webhook/deliveries?${qs}&status=delivered&limit=2` })
    expect(res.json.data.map((d: WebhookDelivery) => d.payload.data.text)).toEqual(['three', 'two'])
    expect((await h.call({ method: 'GET', url: `/chatapp/webhook/deliveries?${qs}&status=failed` })).json.data).toEqual([])
    expect((await h.call({ method: 'GET', url: `/chatapp/webhook/deliveries?${qs}&status=lost` })).statusCode).toBe(400)
  })

  it('sends onConnection for each state change of init, scan and logout', async () => {
    const inst = await h.createInstance()
    const creds = { session_id: inst.session_id, access_token: inst.settings.access_token }
    const qs = new URLSearchParams(creds).toString()
    const set = await h.call({ method: 'PUT', url: `/chatapp/setWebhook?${qs}`, payload: { webhook_url: rx.url, events: ['onConnection'] } })
    await h.call({ method: 'PUT', url: `/chatapp/updateActions?${qs}`, payload: { send_webhook: true, reply_msgs: false, send_default_msg: false } })
    await h.call({ method: 'POST', url: '/chatapp/init', payload: creds })
    await h.call({ method: 'POST', url: `/chatapp/sandbox/scan?${qs}` })
    await inbound(qs, { message: 'not an onConnection event' })
    await h.call({ method: 'GET', url: `/chatapp/instance/logout/${inst._id}?${qs}` })

    const expected = [
      { state: 'CONNECTING', previous: 'DISCONNECTED' },
      { state: 'QR', previous: 'CONNECTING' },
      { state: 'CONNECTED', previous: 'QR' },
      { state: 'LOGGED_OUT', previous: 'CONNECTED' }
    ]
    await vi.waitFor(() => expect(rx.requests).toHaveLength(expected.length), WAIT)
    const bodies = rx.requests.map((r) => verify(r, set.json.data.secret))
    expect(bodies.every((b) => b.event === 'onConnection' && b.instance_id === inst._id)).toBe(true)
    const sent = (await h.core.webhooks.list(inst._id)).reverse().map((d) => d.payload.data)
    expect(sent.map(({ state, previous }) => ({ state, previous }))).toEqual(expected)
    expect(sent.every((d) => 'reason' in d)).toBe(true)
    expect(bodies.map((b) => b.data.state).sort()).toEqual(expected.map((e) => e.state).sort())
  })
})

describe('retries', () => {
  it('retries a 500 with backoff (1 s, then 2 s) and delivers on the 200, same webhook-id each time', async () => {
    const { inst, qs, secret } = await webhookInstance(rx.url, ['onMessage'])
    rx.respond = (req) => (attemptOf(req) <= 2 ? { status: 500, body: 'oops, try later' } : { status: 200 })
    await inbound(qs, { message: 'retry me' })

    let d = await attempted(inst._id, 1)
    // Status and reason only: nothing the receiver answered is kept or shown.
    expect(d).toMatchObject({ status: 'pending', last_status: 500, last_error: 'HTTP 500 Internal Server Error' })
    expect(JSON.stringify(await h.core.webhooks.list(inst._id))).not.toContain('oops')
    const wait1 = Date.parse(d.next_attempt_at!) - clock.now()
    expect(wait1).toBeGreaterThan(500)
    expect(wait1).toBeLessThanOrEqual(1000)
    clock.advance(100)
    await sentinel()
    expect(requestsOf(inst._id)).toHaveLength(1)

    clock.advance(900)
    d = await attempted(inst._id, 2)
    expect(Date.parse(d.next_attempt_at!) - clock.now()).toBeGreaterThan(1500)
    clock.advance(2000)
    await vi.waitFor(async () => expect((await only(inst._id)).status).toBe('delivered'), WAIT)
    d = await only(inst._id)
    expect(d).toMatchObject({ attempts: 3, last_status: 200, last_error: null, next_attempt_at: null })
    const own = requestsOf(inst._id)
    expect(own).toHaveLength(3)
    expect(new Set(own.map((r) => r.headers['webhook-id']))).toEqual(new Set([d.id]))
    for (const r of own) verify(r, secret)
    const ts = own.map((r) => Number(r.headers['webhook-timestamp']))
    expect(ts[2]! - ts[0]!).toBeGreaterThanOrEqual(2)
  })

  it('honours Retry-After on a 429', async () => {
    const { inst, qs, secret } = await webhookInstance(rx.url, ['onMessage'])
    rx.respond = (req) => (attemptOf(req) === 1 ? { status: 429, headers: { 'Retry-After': '120' } } : { status: 204 })
    await inbound(qs, { message: 'slow down' })
    await attempted(inst._id, 1)
    expect(await only(inst._id)).toMatchObject({ status: 'pending', last_status: 429, last_error: 'HTTP 429 Too Many Requests' })
    expect(Date.parse((await only(inst._id)).next_attempt_at!) - clock.now()).toBeGreaterThan(119_000)

    clock.advance(60_000)
    await sentinel()
    expect(requestsOf(inst._id)).toHaveLength(1)
    clock.advance(60_000)
    await vi.waitFor(async () => expect((await only(inst._id)).status).toBe('delivered'), WAIT)
    expect(requestsOf(inst._id)).toHaveLength(2)
    verify(requestsOf(inst._id)[1]!, secret)
  })

  it('retries a request that times out (requestConfig.timeout_ms)', async () => {
    const { inst, qs } = await webhookInstance(rx.url, ['onMessage'], { timeout_ms: 5000 })
    rx.respond = (req) => (attemptOf(req) === 1 ? { status: 200, delayMs: 60_000 } : { status: 200 })
    await inbound(qs, { message: 'are you there?' })
    await vi.waitFor(() => expect(rx.requests).toHaveLength(1), WAIT)
    // Unanswered and not timed out yet: nothing recorded, while a later delivery is.
    await sentinel()
    expect(await only(inst._id)).toMatchObject({ status: 'pending', attempts: 0 })

    clock.advance(5000)
    await attempted(inst._id, 1)
    expect(await only(inst._id)).toMatchObject({ status: 'pending', last_error: 'timed out after 5000 ms', last_status: null })
    clock.advance(1000)
    await vi.waitFor(async () => expect((await only(inst._id)).status).toBe('delivered'), WAIT)
    expect((await only(inst._id)).attempts).toBe(2)
  })

  it('fails a 400 at once, lists it, and redelivers it on a manual retry', async () => {
    const { inst, qs, secret } = await webhookInstance(rx.url, ['onMessage'])
    rx.respond = () => ({ status: 400, body: 'unknown field' })
    await inbound(qs, { message: 'rejected' })
    const d = await attempted(inst._id, 1)
    expect(d).toMatchObject({ status: 'failed', last_status: 400, last_error: 'HTTP 400 Bad Request', next_attempt_at: null, delivered_at: null })
    // No retry scheduled, and none comes.
    expect(clock.pending).toBe(0)
    clock.advance(60_000)
    await sentinel()
    expect(requestsOf(inst._id)).toHaveLength(1)

    const failed = await h.call({ method: 'GET', url: `/chatapp/webhook/deliveries?${qs}&status=failed` })
    expect(failed.json.data.map((x: WebhookDelivery) => x.id)).toEqual([d.id])

    // Another instance cannot see or retry it; unknown ids are 404 too.
    const other = await h.connectedInstance()
    expect((await h.call({ method: 'GET', url: `/chatapp/webhook/deliveries?${other.qs}` })).json.data).toEqual([])
    const foreign = await h.call({ method: 'POST', url: `/chatapp/webhook/deliveries/${d.id}/retry?${other.qs}` })
    expect(foreign.statusCode).toBe(404)
    expect(foreign.json.error.code).toBe('NOT_FOUND')
    expect((await h.call({ method: 'POST', url: `/chatapp/webhook/deliveries/msg_000000000000000000000000/retry?${qs}` })).statusCode).toBe(404)

    rx.respond = () => ({ status: 200 })
    expect((await h.call({ method: 'POST', url: `/chatapp/webhook/deliveries/${d.id}/retry` })).statusCode).toBe(400)
    const ok = await h.call({ method: 'POST', url: `/chatapp/webhook/deliveries/${d.id}/retry?${qs}` })
    expect(ok.statusCode, ok.body).toBe(200)
    expect(ok.json.message).toBe('Webhook delivery queued for retry')
    expect(ok.json.data).toMatchObject({ id: d.id, status: 'pending' })
    await vi.waitFor(async () => expect((await only(inst._id)).status).toBe('delivered'), WAIT)
    expect(await only(inst._id)).toMatchObject({ attempts: 2, last_status: 200, last_error: null })
    expect(requestsOf(inst._id).map((r) => r.headers['webhook-id'])).toEqual([d.id, d.id])
    verify(requestsOf(inst._id)[1]!, secret)
    const again = await h.call({ method: 'POST', url: `/chatapp/webhook/deliveries/${d.id}/retry?${qs}` })
    expect(again.statusCode).toBe(409)
  })

  it('a manual retry goes to the corrected webhook URL', async () => {
    const { inst, qs } = await webhookInstance(`${rx.url}/wrong`, ['onMessage'])
    rx.respond = (req) => (req.path === '/hook' ? { status: 200 } : { status: 404 })
    await inbound(qs, { message: 'lost' })
    await vi.waitFor(async () => expect((await only(inst._id)).status).toBe('failed'), WAIT)
    await h.call({ method: 'PUT', url: `/chatapp/setWebhook?${qs}`, payload: { webhook_url: rx.url, events: ['onMessage'] } })
    const d = await only(inst._id)
    expect((await h.call({ method: 'POST', url: `/chatapp/webhook/deliveries/${d.id}/retry?${qs}` })).statusCode).toBe(200)
    await vi.waitFor(async () => expect((await only(inst._id)).status).toBe('delivered'), WAIT)
    expect(rx.requests.map((r) => r.path)).toEqual(['/hook/wrong', '/hook'])
    expect((await only(inst._id)).url).toBe(rx.url)
  })
})

describe('persistence', () => {
  it('keeps queued deliveries in the database across a restart and sends them once the receiver is up', async () => {
    const port = await freePort()
    const url = `http://127.0.0.1:${port}/hook`
    const { inst, qs, secret } = await webhookInstance(url, ['onMessage', 'onAnyMessage'])
    await inbound(qs, { message: 'while down' })
    await vi.waitFor(async () => expect((await h.core.webhooks.list(inst._id)).map((d) => d.attempts)).toEqual([1, 1]), WAIT)
    const queued = await h.core.webhooks.list(inst._id)
    for (const d of queued) expect(d).toMatchObject({ status: 'pending', last_status: null, last_error: expect.stringMatching(/^network error: ECONNREFUSED/) })

    const dir = h.dataDir
    await h.close(true)
    expect(clock.pending).toBe(0)
    // The deliveries are rows of the database (attempts recorded); the configuration never holds them.
    expect(committed(dir).sort((x, y) => x.id.localeCompare(y.id))).toEqual([...queued].sort((x, y) => x.id.localeCompare(y.id)))
    const config = await readFile(join(dir, 'config.json'), 'utf8')
    for (const d of queued) expect(config).not.toContain(d.id)
    expect(config).not.toContain('while down')

    // Time passes while the app is off: the retries are due at the next start and go at once.
    clock.offset += 10_000
    const up = await startReceiver(port)
    try {
      h = await makeHarness(opts(), dir)
      await vi.waitFor(() => expect(up.requests).toHaveLength(2), WAIT)
      await vi.waitFor(async () => expect(await h.core.webhooks.list(inst._id, { status: 'delivered' })).toHaveLength(2), WAIT)
      expect(up.requests.map((r) => verify(r, secret).event).sort()).toEqual(['onAnyMessage', 'onMessage'])
      expect(new Set(up.requests.map((r) => r.headers['webhook-id']))).toEqual(new Set(queued.map((d) => d.id)))
      expect((await h.core.webhooks.list(inst._id)).map((d) => d.attempts)).toEqual([2, 2])
    } finally {
      await up.stop()
    }
  })

  it('has a message’s deliveries on disk by the time its send or receipt is answered (no crash window)', async () => {
    const { inst, qs } = await webhookInstance(rx.url, ['onMessage', 'onAnyMessage'])
    await sendText(qs, 'answered after queueing')
    const afterSend = committed(h.dataDir)
    expect(afterSend.filter((d) => d.instance_id === inst._id).map((d) => d.event)).toEqual(['onAnyMessage'])
    await inbound(qs, { message: 'hello' })
    const events = committed(h.dataDir).map((d) => `${d.event}:${(d.payload.data as { text: string }).text}`).sort()
    expect(events).toEqual(['onAnyMessage:answered after queueing', 'onAnyMessage:hello', 'onMessage:hello'])
  })

  it('commits a delivery before its first attempt', async () => {
    const seen: boolean[] = []
    await h.close()
    h = await makeHarness({
      webhooks: {
        clock,
        transport: {
          post: async (_url, req) => {
            seen.push(committed(h.dataDir).some((d) => d.id === req.headers['webhook-id']))
            return { status: 200, retryAfter: null }
          },
          close: async () => {}
        }
      }
    })
    const { inst, qs } = await webhookInstance('http://127.0.0.1:9/never-called', ['onMessage', 'onAnyMessage'])
    await inbound(qs, { message: 'a' })
    await sendText(qs, 'b')
    await vi.waitFor(async () => expect(await h.core.webhooks.list(inst._id, { status: 'delivered' })).toHaveLength(3), WAIT)
    expect(seen).toEqual([true, true, true])
  })

  it('deleting an instance drops its queued deliveries and leaves the others', async () => {
    const port = await freePort()
    const url = `http://127.0.0.1:${port}/hook`
    const a = await webhookInstance(url, ['onMessage'])
    const b = await webhookInstance(url, ['onMessage'])
    await inbound(a.qs, { message: 'for a' })
    await inbound(b.qs, { message: 'for b' })
    await vi.waitFor(async () => expect((await h.core.webhooks.list(a.inst._id))[0]?.attempts).toBe(1), WAIT)
    await vi.waitFor(async () => expect((await h.core.webhooks.list(b.inst._id))[0]?.attempts).toBe(1), WAIT)

    expect((await h.call({ method: 'DELETE', url: `/chatapp/${a.inst._id}` })).statusCode).toBe(200)
    expect(await h.core.webhooks.list(a.inst._id)).toEqual([])
    expect(await h.core.webhooks.list(b.inst._id)).toHaveLength(1)
    const dir = h.dataDir
    await h.close(true)
    expect(committed(dir).map((d) => d.instance_id)).toEqual([b.inst._id])
    h = await makeHarness(opts(), dir)
  })

  it('gives up after 24 h of transient failures and keeps the delivery as failed', async () => {
    const { inst, qs } = await webhookInstance(rx.url, ['onMessage'])
    rx.respond = () => ({ status: 503, body: 'maintenance' })
    await inbound(qs, { message: 'never lands' })
    for (let n = 1; n < 60; n++) {
      if ((await attempted(inst._id, n)).status !== 'pending') break
      clock.advance(clock.nextIn()!)
    }
    const d = await only(inst._id)
    expect(d.status).toBe('failed')
    expect(d.last_error).toMatch(/^HTTP 503 Service Unavailable \(gave up: retry window of 24 h is over\)$/)
    expect(d.attempts).toBeGreaterThan(20)
    expect(d.attempts).toBeLessThan(40)
    expect(rx.requests).toHaveLength(d.attempts)
    expect(clock.offset).toBeGreaterThan(20 * 3_600_000)
    expect(clock.offset).toBeLessThanOrEqual(24 * 3_600_000)
  })
})

describe('edge cases', () => {
  it('fails at once when a requestConfig header cannot be sent', async () => {
    const { inst, qs } = await webhookInstance(rx.url, ['onMessage'], { headers: { 'bad header': 'x' } })
    await inbound(qs, { message: 'hi' })
    const d = await attempted(inst._id, 1)
    expect(d).toMatchObject({ status: 'failed', last_status: null, last_error: expect.stringMatching(/^cannot build the request/) })
    expect(rx.requests).toHaveLength(0)
  })

  it('rewrites an older URL-safe secret in standard base64 (same key) and drops deliveries of vanished instances', async () => {
    const { inst, qs } = await webhookInstance(rx.url, ['onMessage'])
    await inbound(qs, { message: 'first' })
    await vi.waitFor(async () => expect((await only(inst._id)).status).toBe('delivered'), WAIT)
    const key = Buffer.from(Array.from({ length: 32 }, (_, i) => 255 - i))
    await internalsOf(h.core).storage.repos.instances.update(inst._id, (d) => {
      d.settings.webhook.secret = `whsec_${key.toString('base64url')}`
    })
    const [first] = await h.core.webhooks.list(inst._id)
    const dir = h.dataDir
    await h.close(true)
    // A pending delivery of an instance that is gone, stored while the app was off.
    const database = await openDatabase(join(dir, 'chatapp.db'))
    await new WebhookDeliveryRepo({ db: database.db, write: (work) => database.write(work) }).add([{ ...first!, id: 'msg_orphan', instance_id: 'gone', status: 'pending' }])
    await database.close()
    expect(committed(dir).map((d) => d.id)).toContain('msg_orphan')

    h = await makeHarness(opts(), dir)
    const secret = h.core.instances.get(inst._id).settings.webhook.secret
    expect(secret).toBe(`whsec_${key.toString('base64')}`)
    expect(committed(dir).map((d) => d.id)).not.toContain('msg_orphan')
    await inbound(qs, { message: 'signed with the old key' })
    await vi.waitFor(() => expect(rx.requests).toHaveLength(2), WAIT)
    expect(verify(rx.requests[1]!, secret).data.text).toBe('signed with the old key')
    // Same key bytes as before the rewrite.
    expect(Buffer.from(secret.slice(6), 'base64').equals(key)).toBe(true)
  })
})

describe('OpenAPI', () => {
  it('documents the deliveries routes with their schemas', async () => {
    const doc = (await h.app.inject({ method: 'GET', url: '/openapi.json' })).json()
    const list = doc.paths['/chatapp/webhook/deliveries'].get
    expect(list.parameters.map((p: { name: string }) => p.name)).toEqual(expect.arrayContaining(['session_id', 'access_token', 'status', 'limit']))
    const item = list.responses['200'].content['application/json'].schema.properties.data.items
    expect(Object.keys(item.properties)).toEqual([
      'id',
      'instance_id',
      'event',
      'url',
      'payload',
      'status',
      'attempts',
      'last_error',
      'last_status',
      'next_attempt_at',
      'created_at',
      'delivered_at'
    ])
    expect(doc.paths['/chatapp/webhook/deliveries/{delivery_id}/retry'].post.responses['404']).toHaveProperty('description', expect.any(String))
  })
})

describe("the app's own API", () => {
  it('is never a webhook target: setWebhook and init refuse it, a delivery to it fails unsent; other local ports are fine', async () => {
    const apiPort = await freePort()
    h.core.webhooks.setOwnApiPort(apiPort)
    const { inst, qs } = await webhookInstance(rx.url, ['onMessage'])
    for (const url of [`http://127.0.0.1:${apiPort}/chatapp/createNewChatapp`, `http://localhost:${apiPort}/x`, `http://[::1]:${apiPort}/x`]) {
      const res = await h.call({ method: 'PUT', url: `/chatapp/setWebhook?${qs}`, payload: { webhook_url: url, events: ['onMessage'], requestConfig: { headers: { authorization: `Bearer ${h.token}` } } } })
      expect(res.statusCode, url).toBe(400)
      expect(res.json.error.details).toEqual([{ field: 'webhook_url', problem: "points at this app's own API; use another receiver" }])
    }
    const init = await h.call({ method: 'POST', url: `/chatapp/init?${qs}`, payload: { config: { setWebhook: true, webhookUrl: `http://127.0.0.1:${apiPort}/hook` } } })
    expect(init.statusCode).toBe(400)
    expect(init.json.error.details[0].field).toBe('config.webhookUrl')
    // A URL saved before the API took that port: the delivery fails at once, nothing is sent.
    await internalsOf(h.core).storage.repos.instances.update(inst._id, (d) => void (d.settings.webhook.url = `http://127.0.0.1:${apiPort}/hook`))
    await inbound(qs, { message: 'to myself' })
    await vi.waitFor(async () => expect(await only(inst._id)).toMatchObject({ status: 'failed', last_error: "the URL points at this app's own API; use another receiver" }), WAIT)
    expect(rx.requests).toHaveLength(0)
  })
})
