/**
 * `Idempotency-Key` on sends (docs/design.md §22) in a single process on its SQLite file: a
 * retry with the same key answers the first answer and sends nothing again; another body with the
 * same key is 422; a retry while the first runs is 409; the key is the caller's and the route's own;
 * the daily retention run forgets keys older than a day. (The same across two workers on PostgreSQL:
 * test/api/forwarding.test.ts.)
 */
import { afterEach, beforeEach, expect, it } from 'vitest'
import { IDEMPOTENCY_TTL_MS } from '../../src/main/services/idempotency-service'
import { makeHarness, type Harness } from '../helpers/harness'
import { ManualClock } from '../helpers/manual-clock'

let h: Harness
let clock: ManualClock
beforeEach(async () => {
  clock = new ManualClock()
  h = await makeHarness({ clock })
})
afterEach(async () => {
  await h.close()
})

async function send(qs: string, body: object, key?: string) {
  return h.call({ method: 'POST', url: `/chatapp/message?${qs}`, payload: body, headers: key ? { 'idempotency-key': key } : {} })
}

async function texts(qs: string): Promise<string[]> {
  const res = await h.call({ method: 'GET', url: `/chatapp/messages?${qs}&chatId=15550001111` })
  return res.json.data.map((m: { text: string }) => m.text)
}

it('the same send retried 3 times with one key: one message, the same answer each time; another body with the key: 422', async () => {
  const { qs } = await h.connectedInstance()
  const body = { chatId: '15550001111', message: 'only once' }
  const first = await send(qs, body, 'order-42')
  expect(first.statusCode, first.body).toBe(200)
  for (let i = 0; i < 3; i++) {
    const again = await send(qs, body, 'order-42')
    expect(again.statusCode).toBe(200)
    expect(again.body).toBe(first.body)
    expect(again.headers['idempotent-replayed']).toBe('true')
  }
  expect((await texts(qs)).filter((t) => t === 'only once')).toHaveLength(1)

  const other = await send(qs, { ...body, message: 'something else' }, 'order-42')
  expect(other.statusCode).toBe(422)
  expect(other.json.message).toContain('another body')
  expect(await texts(qs)).not.toContain('something else')

  // Without a key, or with another key, the same body sends again.
  expect((await send(qs, body)).statusCode).toBe(200)
  expect((await send(qs, body, 'order-43')).statusCode).toBe(200)
  expect((await texts(qs)).filter((t) => t === 'only once')).toHaveLength(3)
})

it('a retry while the first request still runs answers 409 "in progress"; an answer a retry may change (409) is not kept', async () => {
  const { inst, qs } = await h.connectedInstance()
  const body = { chatId: '15550001111', message: 'racing' }
  const id = h.core.idempotency.idOf('k-run', undefined, 'messages.sendText', inst._id)
  // The first request of this key has begun (on this or another worker) and not answered yet.
  expect(await h.core.idempotency.begin(id, h.core.idempotency.hashOf(body), inst._id)).toEqual({ state: 'new' })
  const busy = await send(qs, body, 'k-run')
  expect(busy.statusCode).toBe(409)
  expect(busy.json.message).toContain('still in progress')
  expect(await texts(qs)).not.toContain('racing')

  // A send refused as not connected (409) is not stored: once connected, the retry would send.
  const made = (await h.call({ method: 'POST', url: '/chatapp/createNewChatapp', payload: { channel: 'sandbox' } })).json.data
  const idle = `session_id=${encodeURIComponent(made.session_id)}&access_token=${encodeURIComponent(made.settings.access_token)}`
  const refused = await send(idle, { chatId: '15550001111', message: 'later' }, 'k-later')
  expect(refused.statusCode, refused.body).toBe(409)
  expect(await h.core.idempotency.begin(h.core.idempotency.idOf('k-later', undefined, 'messages.sendText', made._id), 'other', made._id)).toEqual({ state: 'new' })
})

it('the retention run forgets keys older than a day: the same key then sends again', async () => {
  const { qs } = await h.connectedInstance()
  const body = { chatId: '15550001111', message: 'daily' }
  expect((await send(qs, body, 'k-day')).statusCode).toBe(200)
  expect((await send(qs, body, 'k-day')).headers['idempotent-replayed']).toBe('true')
  // A day later (the clock only; no timer fires), the daily run.
  clock.offset += IDEMPOTENCY_TTL_MS + 1000
  await h.core.retention.run()
  const fresh = await send(qs, body, 'k-day')
  expect(fresh.statusCode).toBe(200)
  expect(fresh.headers['idempotent-replayed']).toBeUndefined()
  expect((await texts(qs)).filter((t) => t === 'daily')).toHaveLength(2)
})

it('the OpenAPI document shows the Idempotency-Key header on the sends, and only there', async () => {
  const doc = (await h.call({ method: 'GET', url: '/openapi.json' })).json
  const headerOf = (path: string, method: string) => (doc.paths[path][method].parameters ?? []).find((p: { in: string; name: string }) => p.in === 'header' && p.name === 'idempotency-key')
  expect(headerOf('/chatapp/message', 'post')).toMatchObject({ required: false, schema: { maxLength: 255 } })
  expect(headerOf('/chatapp/message/image', 'post')).toMatchObject({ required: false, schema: { maxLength: 255 } })
  expect(doc.paths['/chatapp/message'].post.description).toContain('Idempotent-Replayed')
  expect(headerOf('/chatapp/init', 'post')).toBeUndefined()
})

it('a first request whose server stopped before answering: a retry after the restart answers 409 saying it may have been sent, and sends nothing (before the restart: "in progress")', async () => {
  const { inst, qs } = await h.connectedInstance()
  const body = { chatId: '15550001111', message: 'cut short' }
  const id = h.core.idempotency.idOf('k-cut', undefined, 'messages.sendText', inst._id)
  // The first request took the key and the process died before it answered.
  expect(await h.core.idempotency.begin(id, h.core.idempotency.hashOf(body), inst._id)).toEqual({ state: 'new' })
  expect((await send(qs, body, 'k-cut')).json.message).toContain('still in progress')
  h = await h.restart()
  const retry = await send(qs, body, 'k-cut')
  expect(retry.statusCode).toBe(409)
  expect(retry.json.message).toContain('an earlier run of this server, which stopped before answering; it may or may not have been sent')
  expect(await texts(qs)).not.toContain('cut short')
  // At most once: it stays so, and a new key sends.
  expect((await send(qs, body, 'k-cut')).statusCode).toBe(409)
  expect((await send(qs, body, 'k-cut-2')).statusCode).toBe(200)
  expect((await texts(qs)).filter((t) => t === 'cut short')).toHaveLength(1)
})
