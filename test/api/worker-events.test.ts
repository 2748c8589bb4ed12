/**
 * Events across workers (docs/design.md §22 "Events across workers"): the UI event stream
 * of a real `serve` worker (a) carries the events of instances another worker (b) runs, exactly once,
 * and b's own stream has each once too; a message larger than a NOTIFY payload arrives whole; a QR
 * arrives; a person limited to one instance hears nothing of another over the relay either; a
 * listening connection that breaks is opened again and the stream says `resync`. The latency of a
 * relayed event is measured. Real PostgreSQL (the run's server); b is a core in this process.
 */
import { rm } from 'node:fs/promises'
import pg from 'pg'
import { createParser } from 'eventsource-parser'
import { afterEach, expect, it } from 'vitest'
import { internalsOf } from '../../src/main/core'
import type { ContractEvent } from '../../src/shared/contract'
import { subscribeContractEvents } from '../../src/main/ui-contract/event-bridge'
import { makeHarness, type Harness } from '../helpers/harness'
import { createTestDatabase, dropTestDatabase } from '../helpers/postgres'
import { SERVE_TOKEN, startServeWorker, type ServeProcess } from '../helpers/serve-process'

const TTL = 1500

let harnesses: Harness[] = []
let children: ServeProcess[] = []
let dirs: string[] = []
let streams: Array<() => Promise<void>> = []
let url: string | undefined
afterEach(async () => {
  for (const close of streams) await close()
  streams = []
  for (const c of children) if (c.child.exitCode === null && c.child.signalCode === null) c.child.kill('SIGKILL')
  await Promise.all(children.map((c) => c.exited))
  children = []
  for (const h of harnesses.reverse()) await h.close()
  harnesses = []
  for (const d of dirs) await rm(d, { recursive: true, force: true })
  dirs = []
  if (url) await dropTestDatabase(url)
  url = undefined
})

async function serveWorker(id: string): Promise<ServeProcess> {
  // Port 0 and a URL no one answers at: these workers are reached directly, never relayed to.
  const s = await startServeWorker(url!, id, { CHATAPP_PORT: '0', CHATAPP_WORKER_URL: `http://${id}.test:3210`, CHATAPP_LEASE_TTL_MS: String(TTL) })
  dirs.push(s.dir)
  children.push(s)
  return s
}

interface Seen {
  event: ContractEvent
  at: number
}

/** Reads `GET /rpc/events` of `base` with `token`; the events arrive in `seen`. Resolves once connected. */
async function openStream(base: string, token: string): Promise<Seen[]> {
  const seen: Seen[] = []
  const ctrl = new AbortController()
  const res = await fetch(`${base}/rpc/events`, { headers: { authorization: `Bearer ${token}` }, signal: ctrl.signal })
  expect(res.status).toBe(200)
  const parser = createParser({ onEvent: (m) => seen.push({ event: JSON.parse(m.data) as ContractEvent, at: performance.now() }) })
  const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader()
  const reading = (async () => {
    for (;;) {
      const { value, done } = await reader.read().catch(() => ({ value: undefined, done: true as const }))
      if (done) return
      parser.feed(value)
    }
  })()
  streams.push(async () => (ctrl.abort(), await reading))
  return seen
}

/** The events of one instance, as `type:detail` lines, to compare two streams. */
function lines(seen: Seen[], instanceId: string): string[] {
  return seen
    .map((s) => s.event)
    .filter((e) => 'instanceId' in e && e.instanceId === instanceId)
    .map((e) => {
      if (e.type === 'message' || e.type === 'status') return `${e.type}:${e.message.id}:${e.message.status}`
      if (e.type === 'state') return `state:${e.previous}->${e.state}`
      if (e.type === 'qr') return 'qr'
      return e.type
    })
}

it('a worker’s UI stream gets the message, status, state and QR events of an instance another worker runs, each once; the other’s own stream has no duplicates; a 60 000-byte message arrives whole; an agent limited to one instance hears nothing of another; the relayed latency is measured', async () => {
  url = await createTestDatabase()
  const a = await serveWorker('a')
  const b = await makeHarness({ databaseUrl: url, worker: { id: 'b', url: 'http://b.test:3210', leaseTtlMs: TTL } })
  harnesses.push(b)
  const onA = await openStream(a.url, SERVE_TOKEN)
  const onB: Seen[] = []
  const offB = subscribeContractEvents(b.core, (event) => onB.push({ event, at: performance.now() }))

  // On b: two instances, paired (QR, then the scan) and so CONNECTED there.
  const x = await b.createInstance()
  const xCreds = { session_id: x.session_id, access_token: x.settings.access_token }
  const xQs = `session_id=${encodeURIComponent(xCreds.session_id)}&access_token=${encodeURIComponent(xCreds.access_token)}`
  expect((await b.call({ method: 'POST', url: '/chatapp/init', payload: xCreds })).statusCode).toBe(200)
  await expect.poll(() => onA.some((s) => s.event.type === 'qr' && s.event.instanceId === x._id && s.event.qrDataUrl.startsWith('data:image/png;base64,'))).toBe(true)
  expect((await b.call({ method: 'POST', url: `/chatapp/sandbox/scan?${xQs}` })).statusCode).toBe(200)
  const y = (await b.connectedInstance()).inst
  const yQs = `session_id=${encodeURIComponent(y.session_id)}&access_token=${encodeURIComponent(y.settings.access_token)}`
  expect(b.core.sessions.get(x._id)).toMatchObject({ kind: 'sandbox' })
  // An agent's key on a, limited to x.
  const key = (await b.call({ method: 'POST', url: '/api-keys', payload: { name: 'agent x', scopes: ['inbox:read'], instance_ids: [x._id] } })).json.data.key as string
  const agentOnA = await openStream(a.url, key)

  const apiX = b.instanceApi(xQs)
  const apiY = b.instanceApi(yQs)
  await apiX('POST', '/chatapp/sandbox/inbound', { chatId: '15550001111', message: 'hello from a customer' })
  await apiX('POST', '/chatapp/message', { chatId: '15550001111', message: 'hello back' })
  await apiY('POST', '/chatapp/sandbox/inbound', { chatId: '15550002222', message: 'to the other instance' })
  // A message of about 60 000 bytes (accents, emoji, quotes and backslashes), far over a notification's 8 000.
  const big = 'Ça coûte 10 € — "quoted" \\ back 🍕 '.repeat(1400).slice(0, 60_000)
  await apiX('POST', '/chatapp/message', { chatId: '15550001111', message: big })
  // The sandbox's receipts of x's three sends (the bot's answer and the two replies), as the worker
  // running x reports them: SERVER_ACK and DELIVERY_ACK each.
  await expect.poll(() => lines(onB, x._id).filter((l) => l.startsWith('status:'))).toHaveLength(6)

  // a's stream ends up with exactly b's events of x, in b's order, each once (the QR frames rotate: compared apart).
  const bx = lines(onB, x._id)
  // The customer's message, the bot's answer to it, and the two replies.
  expect(bx.filter((l) => l.startsWith('message:'))).toHaveLength(4)
  expect(new Set(bx.filter((l) => l.startsWith('status:'))).size).toBe(6)
  expect(bx.filter((l) => l.startsWith('state:'))).toEqual(['state:DISCONNECTED->CONNECTING', 'state:CONNECTING->QR', 'state:QR->CONNECTED'])
  await expect.poll(() => lines(onA, x._id).filter((l) => l !== 'qr' && l !== 'cluster'), { timeout: 10_000 }).toEqual(bx.filter((l) => l !== 'qr' && l !== 'cluster'))
  // What a's UI reads right after an event is at least what the event announced (a caught up on the document).
  const listed = (await (await fetch(`${a.url}/rpc/instances.list`, { method: 'POST', headers: { authorization: `Bearer ${SERVE_TOKEN}`, 'content-type': 'application/json' }, body: '{}' })).json()) as { data: Array<{ _id: string; settings: { status: string } }> }
  expect(listed.data.find((i) => i._id === x._id)?.settings.status).toBe('CONNECTED')
  // b's own stream: each of its messages once (its events came back over NOTIFY and were ignored).
  const ids = onB.map((s) => s.event).filter((e) => e.type === 'message').map((e) => (e as { message: { id: string } }).message.id)
  expect(new Set(ids).size).toBe(ids.length)
  expect(ids).toHaveLength(6)
  // The big message whole, byte for byte.
  const bigOnA = onA.map((s) => s.event).find((e) => e.type === 'message' && e.message.text.length > 10_000) as { message: { text: string } } | undefined
  expect(bigOnA?.message.text).toBe(big)
  // The lease b took reached a's stream too (Settings → Workers and the cards reload on it).
  expect(onA.some((s) => s.event.type === 'cluster' && s.event.instanceId === x._id)).toBe(true)
  // The agent's stream: x's events only, though y's reached the owner's stream on the same worker.
  await expect.poll(() => lines(onA, y._id).filter((l) => l.startsWith('message:'))).toHaveLength(2)
  await expect.poll(() => lines(agentOnA, x._id).filter((l) => l.startsWith('message:'))).toHaveLength(4)
  expect(agentOnA.filter((s) => 'instanceId' in s.event && s.event.instanceId !== x._id)).toEqual([])

  // Latency: from the event on b to its frame on a's stream, 100 messages one at a time.
  const gaps: number[] = []
  for (let n = 0; n < 100; n++) {
    const text = `latency ${n}`
    await apiX('POST', '/chatapp/sandbox/inbound', { chatId: '15550003333', message: text })
    const has = (list: Seen[]) => list.find((s) => s.event.type === 'message' && s.event.message.text === text)
    await expect.poll(() => has(onA), { interval: 1 }).toMatchObject({ event: { type: 'message', message: { text } } })
    gaps.push(has(onA)!.at - has(onB)!.at)
  }
  // Each of the 100 reached a's stream once, in b's order.
  const relayed = onA.flatMap((s) => (s.event.type === 'message' && s.event.message.text?.startsWith('latency ') ? [s.event.message.text] : []))
  expect(relayed).toEqual(Array.from({ length: 100 }, (_, n) => `latency ${n}`))
  gaps.sort((p, q) => p - q)
  const at = (q: number) => gaps[Math.min(gaps.length - 1, Math.floor(q * gaps.length))]!.toFixed(1)
  console.log(`relayed event latency (b's bus → a's stream): p50 ${at(0.5)} ms, p90 ${at(0.9)} ms, max ${at(1)} ms over ${gaps.length}`)
  offB()
}, 60_000)

it('a listening connection that breaks is opened again: the UI stream says resync, and later events arrive', async () => {
  url = await createTestDatabase()
  const a = await serveWorker('a')
  const b = await makeHarness({ databaseUrl: url, worker: { id: 'b', url: 'http://b.test:3210', leaseTtlMs: TTL } })
  harnesses.push(b)
  const onA = await openStream(a.url, SERVE_TOKEN)
  const onB: Seen[] = []
  const offB = subscribeContractEvents(b.core, (event) => onB.push({ event, at: performance.now() }))
  const { inst, qs } = await b.connectedInstance()
  const api = b.instanceApi(qs)
  await api('POST', '/chatapp/sandbox/inbound', { chatId: '15550001111', message: 'before' })
  // The customer's message and the bot's answer.
  await expect.poll(() => lines(onA, inst._id).filter((l) => l.startsWith('message:'))).toHaveLength(2)
  expect(onA.some((s) => s.event.type === 'resync')).toBe(false)

  // The server ends every backend listening for events (a's and b's), as a restart or a network cut would.
  const admin = new pg.Client({ connectionString: url })
  await admin.connect()
  const { rowCount } = await admin.query(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND query = 'LISTEN chatapp_events'`)
  await admin.end()
  expect(rowCount).toBe(2)
  await expect.poll(() => onA.some((s) => s.event.type === 'resync'), { timeout: 10_000 }).toBe(true)
  await expect.poll(() => internalsOf(b.core).relay!.stats.resyncs, { timeout: 10_000 }).toBe(1)
  await api('POST', '/chatapp/sandbox/inbound', { chatId: '15550001111', message: 'after' })
  await expect.poll(() => onB.filter((s) => s.event.type === 'message' && s.event.message.text === 'after')).toHaveLength(1)
  await expect.poll(() => lines(onA, inst._id).filter((l) => l.startsWith('message:'))).toEqual(lines(onB, inst._id).filter((l) => l.startsWith('message:')))
  offB()
}, 60_000)
