/**
 * The wire of the events across workers (src/main/store/db/event-channel.ts, docs/design.md §22): two channels
 * on two pools of one real PostgreSQL database stand for two workers. Order, payloads over the 8000
 * bytes of a notification, a run's own events ignored, gaps told, foreign notifications ignored.
 */
import pg from 'pg'
import { afterEach, expect, it } from 'vitest'
import { openPostgresDatabase, type DatabaseHandle } from '../../../src/main/store/db/database'
import { encodeEvent, EventChannel, EVENTS_CHANNEL, NOTIFY_MAX_BYTES } from '../../../src/main/store/db/event-channel'
import { silentLogger } from '../../../src/main/logger'
import { createTestDatabase, dropTestDatabase } from '../../helpers/postgres'

let url: string | undefined
let opened: Array<{ close(): Promise<void> }> = []
afterEach(async () => {
  for (const o of opened.reverse()) await o.close()
  opened = []
  if (url) await dropTestDatabase(url)
  url = undefined
})

interface Heard {
  events: Array<{ type: string; payload: unknown; from: string }>
  resyncs: string[]
}

async function worker(id: string): Promise<{ channel: EventChannel; heard: Heard; database: DatabaseHandle }> {
  const database = await openPostgresDatabase(url!)
  opened.push(database)
  const heard: Heard = { events: [], resyncs: [] }
  const channel = (await EventChannel.open({
    database,
    worker: id,
    logger: silentLogger(),
    onEvent: (type, payload, from) => heard.events.push({ type, payload, from }),
    onResync: (reason) => heard.resyncs.push(reason)
  }))!
  opened.push(channel)
  return { channel, heard, database }
}

async function notifyRaw(payloads: string[]): Promise<void> {
  const c = new pg.Client({ connectionString: url })
  await c.connect()
  for (const p of payloads) await c.query('SELECT pg_notify($1, $2)', [EVENTS_CHANNEL, p])
  await c.end()
}

it('an event larger than a notification is sent in parts of less than 8000 bytes; a small one whole', () => {
  const head = { w: 'a', r: 'run', s: 1, t: 'message', v: 3 }
  expect(encodeEvent(head, { text: 'hi' })).toEqual([JSON.stringify({ ...head, p: { text: 'hi' } })])
  const parts = encodeEvent(head, { text: '€'.repeat(20_000) })
  expect(parts.length).toBeGreaterThan(1)
  for (const p of parts) expect(Buffer.byteLength(p)).toBeLessThanOrEqual(NOTIFY_MAX_BYTES)
  expect(() => encodeEvent({ ...head, w: 'w'.repeat(8000) }, { text: '€'.repeat(20_000) })).toThrow(/does not fit/)
})

it('a burst of 600 events, some of 50 000 bytes, reaches the other worker in order and whole; the publisher does not hear its own', async () => {
  url = await createTestDatabase()
  const a = await worker('a')
  const b = await worker('b')
  const sent = Array.from({ length: 600 }, (_, n) => ({ instanceId: 'i1', n, text: n % 50 === 7 ? `${n} ${'ü"\\🍕'.repeat(10_000)}` : `small ${n}` }))
  for (const e of sent) a.channel.publish('message', e)
  await a.channel.idle()
  await expect.poll(() => b.heard.events.length, { timeout: 10_000 }).toBe(600)
  expect(b.heard.events.map((e) => e.payload)).toEqual(sent)
  expect(new Set(b.heard.events.map((e) => e.from))).toEqual(new Set(['a']))
  expect(b.heard.resyncs).toEqual([])
  // a heard nothing of its own, though the notifications reached its connection too.
  expect(a.heard.events).toEqual([])
  expect(a.channel.stats.notifications).toBeGreaterThan(600)
})

it('a gap in a run’s sequence, or a part that never came, makes the receiver resync; notifications that are not envelopes are ignored', async () => {
  url = await createTestDatabase()
  const b = await worker('b')
  const env = (s: number, extra: object = { p: { instanceId: 'i1' } }) => JSON.stringify({ w: 'x', r: 'run-x', s, t: 'state', v: null, ...extra })
  await notifyRaw(['hello', '{"w":1}', env(1), env(2), env(4)])
  await expect.poll(() => b.heard.events.length).toBe(3)
  expect(b.heard.resyncs).toHaveLength(1)
  // Part 0 of 2, then the next event: the half event is dropped and told.
  await notifyRaw([env(5, { n: 2, i: 0, c: 'e30=' }), env(6)])
  await expect.poll(() => b.heard.events.length).toBe(4)
  expect(b.heard.resyncs).toHaveLength(2)
})
