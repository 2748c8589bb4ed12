/**
 * A take-over as a client sees it (docs/design.md §22 "Take-overs"): three real `serve` workers on one
 * real PostgreSQL database, `kill -9` of the busiest. Until the new owner of each of its instances has
 * connected, `GET /chatapp/instance` through either survivor says CONNECTING, never CONNECTED; a send
 * made meanwhile waits for the take-over and goes out through the new owner (or, past its bound,
 * answers 503 saying the instance is being taken over and when to retry), never 409 "The instance is
 * not connected (status CONNECTED)".
 *
 * The new owner's connect is held on purpose, so the window is wide enough to look into: the sandbox
 * channel reads its saved pairing from `auth_creds` when it connects, and this test holds that table's
 * ACCESS EXCLUSIVE lock in a transaction of its own from before the kill until it has seen, through
 * both survivors, the new owners holding the leases and the statuses they answer. Leases of 3 000 ms
 * (a loop round every second).
 */
import { rm } from 'node:fs/promises'
import pg from 'pg'
import { afterEach, expect, it } from 'vitest'
import { internalsOf } from '../../src/main/core'
import type { Instance } from '../../src/shared/schemas/records'
import { makeHarness, type Harness } from '../helpers/harness'
import { createTestDatabase, dropTestDatabase } from '../helpers/postgres'
import { SERVE_TOKEN, serveApi, startServeWorker, type ServeProcess } from '../helpers/serve-process'

const TTL = 3000
const CHAT = '15550001111'

let url: string | undefined
let lock: pg.Client | undefined
let dirs: string[] = []
let workers: Record<string, ServeProcess> = {}
let harnesses: Harness[] = []

afterEach(async () => {
  await lock?.end().catch(() => undefined)
  lock = undefined
  for (const w of Object.values(workers)) if (w.child.exitCode === null && w.child.signalCode === null) w.child.kill('SIGKILL')
  await Promise.all(Object.values(workers).map((w) => w.exited))
  workers = {}
  for (const h of harnesses.reverse()) await h.close()
  harnesses = []
  for (const d of dirs) await rm(d, { recursive: true, force: true })
  dirs = []
  if (url) await dropTestDatabase(url)
  url = undefined
})

/**
 * Holds every read of `auth_creds` (the sandbox reads its saved pairing there when it connects) until
 * the returned function lets them go: a transaction of the test's own holding the table's lock.
 */
async function holdConnects(): Promise<() => Promise<void>> {
  lock = new pg.Client({ connectionString: url })
  await lock.connect()
  await lock.query('BEGIN')
  await lock.query('LOCK TABLE auth_creds IN ACCESS EXCLUSIVE MODE')
  const held = lock
  return async () => {
    await held.query('ROLLBACK')
  }
}

async function serveWorker(id: string): Promise<ServeProcess> {
  const s = await startServeWorker(url!, id, { CHATAPP_LEASE_TTL_MS: String(TTL) })
  dirs.push(s.dir)
  workers[id] = s
  return s
}

interface Made {
  inst: Instance
  qs: string
}

/** Creates a sandbox instance through `s` and walks it to CONNECTED (on the least-loaded live worker). */
async function connectOn(s: ServeProcess): Promise<Made> {
  const made = await serveApi(s.url, 'POST', '/chatapp/createNewChatapp', { channel: 'sandbox' })
  expect(made.status).toBe(200)
  const inst = made.json.data as Instance
  const qs = `session_id=${encodeURIComponent(inst.session_id)}&access_token=${encodeURIComponent(inst.settings.access_token)}`
  expect((await serveApi(s.url, 'POST', `/chatapp/init?${qs}`)).status).toBe(200)
  expect((await serveApi(s.url, 'POST', `/chatapp/sandbox/scan?${qs}`)).status).toBe(200)
  return { inst, qs }
}

interface Answer {
  status: number | 'refused'
  json?: any
  retryAfter?: string | null
  /** When the request was sent and answered (epoch ms). */
  sentAt: number
  at: number
}

async function request(base: string, method: string, path: string, body?: object): Promise<Answer> {
  const sentAt = Date.now()
  try {
    const res = await fetch(base + path, {
      method,
      headers: { authorization: `Bearer ${SERVE_TOKEN}`, ...(body ? { 'content-type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : undefined,
      signal: AbortSignal.timeout(60_000)
    })
    return { status: res.status, json: (await res.json()) as any, retryAfter: res.headers.get('retry-after'), sentAt, at: Date.now() }
  } catch (err) {
    return { status: 'refused', json: String(err), sentAt, at: Date.now() }
  }
}

/** The worker holding each instance's lease unexpired, by session id, as `GET /cluster` on `via` shows it. */
async function owners(via: ServeProcess): Promise<Record<string, string | null>> {
  const c = await serveApi(via.url, 'GET', '/cluster')
  const now = Date.now()
  return Object.fromEntries(
    c.json.data.instances.map((i: { session_id: string; owner: string | null; lease_expires_at: string | null }) => [
      i.session_id,
      i.owner && i.lease_expires_at && Date.parse(i.lease_expires_at) > now ? i.owner : null
    ])
  )
}

/** What a status read answered, in a line a failure can show. */
function shown(r: Answer): string {
  return r.status === 200 ? r.json.data.instance_data.status : `${r.status} ${JSON.stringify(r.json)}`
}

it('kill -9 of the busiest worker: until the new owner connected, GET /chatapp/instance on the survivors says CONNECTING (never CONNECTED; the instance list too until the claim), and a send made meanwhile waits for the take-over and goes out (or 503 naming the take-over), never 409 "not connected (status CONNECTED)"', async () => {
  url = await createTestDatabase()
  // 2 on a, 1 on b, 1 on c: a is the busiest (a start goes to the least-loaded live worker).
  const a = await serveWorker('a')
  const victims = [await connectOn(a), await connectOn(a)]
  const b = await serveWorker('b')
  const others = [await connectOn(b)]
  const c = await serveWorker('c')
  others.push(await connectOn(c))
  const survivors = [b, c]
  const before = await owners(b)
  expect(victims.map((m) => before[m.inst.session_id])).toEqual(['a', 'a'])
  expect(others.map((m) => before[m.inst.session_id])).toEqual(['b', 'c'])

  // The new owner's connect waits until the test lets it go.
  const release = await holdConnects()

  a.child.kill('SIGKILL')
  await a.exited
  const killedAt = Date.now()

  // Sends made right after the kill, while the dead worker's leases still hold: through each survivor.
  const early = victims.flatMap((m, n) => survivors.map((s, k) => request(s.url, 'POST', `/chatapp/message?${m.qs}`, { chatId: CHAT, message: `early ${n}.${k}` })))

  // Status reads through both survivors, from the kill until each victim is held by a survivor and
  // each survivor has answered for each victim twice since (the new owners are not connected: held).
  const reads: Array<{ instance: number; via: string; answer: Answer; owner: string | null }> = []
  const listed: Array<{ instance: number; via: string; status: string }> = []
  const claimedAt: Array<number | null> = victims.map(() => null)
  let afterClaim = 0
  while (afterClaim < 2 * victims.length * survivors.length) {
    expect(Date.now() - killedAt, 'the survivors took the instances over').toBeLessThan(30_000)
    const own = await owners(b)
    for (const [n, m] of victims.entries()) {
      const owner = own[m.inst.session_id] ?? null
      if (owner && owner !== 'a' && claimedAt[n] === null) claimedAt[n] = Date.now()
      for (const s of survivors) {
        const answer = await request(s.url, 'GET', `/chatapp/instance?${m.qs}`)
        reads.push({ instance: n, via: s === b ? 'b' : 'c', answer, owner })
        if (claimedAt.every((t) => t !== null)) afterClaim++
      }
    }
    // The instance list (`GET /chatapp`, the UI's instances.list) through each survivor, while no
    // survivor holds the instance (the leases read before and after the list): CONNECTING too. Once
    // a survivor holds it, a list elsewhere shows the status that owner stored, which reaches the
    // other workers' copies of the document a moment after its claim (docs/design.md §22 "Take-overs").
    for (const s of survivors) {
      const list = await request(s.url, 'GET', '/chatapp')
      const after = await owners(b)
      for (const [n, m] of victims.entries()) {
        const unheld = [own[m.inst.session_id] ?? null, after[m.inst.session_id] ?? null].every((o) => o === null || o === 'a')
        const found = list.status === 200 ? (list.json.data as Instance[]).find((i) => i._id === m.inst._id) : undefined
        if (unheld) listed.push({ instance: n, via: s === b ? 'b' : 'c', status: found?.settings.status ?? `${list.status}` })
      }
    }
  }
  // Sends made while the new owners hold the leases and connect (held).
  const late = victims.flatMap((m, n) => survivors.map((s, k) => request(s.url, 'POST', `/chatapp/message?${m.qs}`, { chatId: CHAT, message: `late ${n}.${k}` })))
  const releasedAt = Date.now()
  await release()

  // (a) Every status read of the take-over window said CONNECTING: through the survivor that took it
  // over and through the other one, before and after the claim.
  expect(reads.filter((r) => r.answer.status !== 200 || r.answer.json.data.instance_data.status !== 'CONNECTING').map((r) => `instance ${r.instance} via ${r.via} (lease: ${r.owner}): ${shown(r.answer)}`)).toEqual([])
  expect(reads.filter((r) => r.owner === 'a' || r.owner === null).length, 'reads made before the claim').toBeGreaterThan(0)
  expect(listed.length, 'list reads made before the claim').toBeGreaterThan(0)
  expect(listed.filter((l) => l.status !== 'CONNECTING').map((l) => `instance ${l.instance} listed via ${l.via}: ${l.status}`)).toEqual([])

  // (b) A send made during the take-over goes out once the new owner is connected, or answers 503
  // saying the instance is being taken over and when to retry; never a 409.
  const earlyAnswers = await Promise.all(early)
  const lateAnswers = await Promise.all(late)
  const wrong = (r: Answer) => !(r.status === 200 || (r.status === 503 && /being taken over/.test(r.json?.message ?? '') && Number(r.retryAfter) > 0))
  expect([...earlyAnswers, ...lateAnswers].filter(wrong).map((r) => `${r.status} ${JSON.stringify(r.json)}`)).toEqual([])
  // The sends made while the new owners connected waited for the connect, then went out.
  expect(lateAnswers.map((r) => r.status)).toEqual(late.map(() => 200))
  expect(lateAnswers.every((r) => r.at >= releasedAt)).toBe(true)
  console.log(
    `take-over (TTL ${TTL} ms): claimed ${claimedAt.map((t) => t! - killedAt).join(', ')} ms after the kill; ${reads.length} status reads, all CONNECTING; sends made at the kill: ${earlyAnswers.map((r) => `${r.status} after ${r.at - r.sentAt} ms`).join(', ')}; made during the connect: ${lateAnswers.map((r) => `${r.status} after ${r.at - r.sentAt} ms`).join(', ')}`
  )

  // Then CONNECTED through either survivor, and every acknowledged send in the history once.
  for (const m of victims) {
    for (const s of survivors) await expect.poll(async () => shown(await request(s.url, 'GET', `/chatapp/instance?${m.qs}`)), { timeout: 20_000, interval: 50 }).toBe('CONNECTED')
  }
  for (const [n, m] of victims.entries()) {
    const r = await request(b.url, 'GET', `/chatapp/messages?${m.qs}&chatId=${CHAT}&limit=100`)
    expect(r.status).toBe(200)
    const texts = (r.json.data as Array<{ text: string; fromMe: boolean }>).filter((e) => e.fromMe).map((e) => e.text).sort()
    const acked = [...earlyAnswers.slice(n * 2, n * 2 + 2).map((x, k) => (x.status === 200 ? `early ${n}.${k}` : null)), ...lateAnswers.slice(n * 2, n * 2 + 2).map((_, k) => `late ${n}.${k}`)]
    expect(texts).toEqual(acked.filter((t): t is string => t !== null).sort())
  }
}, 180_000)

/** An in-process worker on the test database; its URL does not resolve, so requests never reach it from the others. */
async function harnessWorker(id: string, ttl: number): Promise<Harness> {
  const h = await makeHarness({ databaseUrl: url!, worker: { id, url: `http://${id}.test:3210`, leaseTtlMs: ttl } })
  harnesses.push(h)
  return h
}

it('a send still waiting when its bound passes (the new owner has not connected) answers 503 saying the instance is being taken over and when to retry, nothing sent; meanwhile the status says CONNECTING with the reason', async () => {
  url = await createTestDatabase()
  const ttl = 1500
  const a = await harnessWorker('a', ttl)
  const b = await harnessWorker('b', ttl)
  const { inst, qs } = await a.connectedInstance()
  const release = await holdConnects()
  // a stops as a killed worker would: its socket gone, its lease left to lapse, its status CONNECTED.
  await internalsOf(a.core).workers!.halt()
  // b's copy of the configuration document (notified of a's writes) says what a stored: CONNECTED.
  await expect.poll(() => b.core.instances.list().find((i) => i._id === inst._id)?.settings.status, { timeout: 5000, interval: 20 }).toBe('CONNECTED')

  // Through b: a cannot be reached (its URL does not resolve); the status is the take-over's.
  const info = await b.call({ method: 'GET', url: `/chatapp/instance?${qs}` })
  expect(info.statusCode, info.body).toBe(200)
  expect(info.json.data.instance_data).toMatchObject({ status: 'CONNECTING', phone_connected: false })
  expect(info.json.data.instance_data.status_reason).toMatch(/^Being taken over: worker a, which ran it, cannot be reached; its lease lapses by /)
  const list = await b.call({ method: 'GET', url: '/chatapp' })
  expect((list.json.data as Instance[]).find((i) => i._id === inst._id)!.settings.status).toBe('CONNECTING')

  // The send waits: a's lease lapses, b claims the instance, its connect is held; the bound passes.
  const started = Date.now()
  const late = await b.call({ method: 'POST', url: `/chatapp/message?${qs}`, payload: { chatId: CHAT, message: 'too late' } })
  const waited = Date.now() - started
  expect(late.statusCode, late.body).toBe(503)
  expect(late.json.message).toMatch(/^This instance is being taken over by worker b, which is still connecting it \(the worker that ran it stopped\); nothing was sent\. Retry in \d+ s\.$/)
  expect(Number(late.headers['retry-after'])).toBeGreaterThanOrEqual(1)
  expect(waited).toBeGreaterThanOrEqual(ttl)
  expect(internalsOf(b.core).workers!.holds(inst._id)).toBe(true)
  const connecting = await b.call({ method: 'GET', url: `/chatapp/instance?${qs}` })
  expect(connecting.json.data.instance_data.status).toBe('CONNECTING')

  // Once b has connected: CONNECTED, and a send goes out; the refused one was never sent.
  await release()
  await expect.poll(async () => (await b.call({ method: 'GET', url: `/chatapp/instance?${qs}` })).json.data.instance_data.status, { timeout: 10_000, interval: 20 }).toBe('CONNECTED')
  const sent = await b.call({ method: 'POST', url: `/chatapp/message?${qs}`, payload: { chatId: CHAT, message: 'after' } })
  expect(sent.statusCode, sent.body).toBe(200)
  const history = await b.call({ method: 'GET', url: `/chatapp/messages?${qs}&chatId=${CHAT}` })
  expect((history.json.data as Array<{ text: string; fromMe: boolean }>).filter((m) => m.fromMe).map((m) => m.text)).toEqual(['after'])
  console.log(`a send made while worker a's lease held: refused after ${waited} ms (bound ${b.core.takeOver.waitMs} ms: TTL ${ttl} + a loop period + the connect allowance)`)
}, 60_000)
