/**
 * Several workers on one PostgreSQL database (docs/design.md §22): each instance's socket
 * runs on exactly one worker, the holder of its lease; `GET /cluster` shows who runs what; a worker
 * killed with SIGKILL loses its instances to the others once its leases lapse, one stopped with
 * SIGTERM hands them over at once; an instance its owner stops, logs out or deletes gives its lease up
 * at once; a stale owner's credential writes are refused and stop its session; a worker's maximum is
 * kept. Real PostgreSQL (the run's server), sandbox channel, real serve processes
 * for the kills. Leases of 1 500 ms, so a loop round is every 500 ms.
 */
import { createHmac } from 'node:crypto'
import { rm } from 'node:fs/promises'
import { afterEach, expect, it } from 'vitest'
import { internalsOf, type CoreOptions } from '../../src/main/core'
import type { Instance } from '../../src/shared/schemas/records'
import { makeHarness, type Harness } from '../helpers/harness'
import { createTestDatabase, dropTestDatabase } from '../helpers/postgres'
import { startPgRelay, type PgRelay } from '../helpers/pg-relay'
import { ManualClock } from '../helpers/manual-clock'
import { serveApi, startServeWorker, type ServeProcess } from '../helpers/serve-process'

const TTL = 1500

let harnesses: Harness[] = []
let children: ServeProcess[] = []
let dirs: string[] = []
let url: string | undefined
let proxies: Array<{ close(): Promise<void> }> = []
afterEach(async () => {
  for (const p of proxies) await p.close()
  proxies = []
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

async function worker(id: string, extra: Partial<CoreOptions['worker']> = {}): Promise<Harness> {
  const h = await makeHarness({ databaseUrl: url!, worker: { id, url: `http://${id}.test:3210`, leaseTtlMs: TTL, ...extra } })
  harnesses.push(h)
  return h
}

/** A real `npm run serve` worker on the test database. */
async function serveWorker(id: string, ttl = TTL): Promise<ServeProcess> {
  // Port 0 and a URL no one answers at: these workers are reached directly, never relayed to.
  const s = await startServeWorker(url!, id, { CHATAPP_PORT: '0', CHATAPP_WORKER_URL: `http://${id}.test:3210`, CHATAPP_LEASE_TTL_MS: String(ttl) })
  dirs.push(s.dir)
  children.push(s)
  return s
}

/** A relay to the database whose traffic can be held (test/helpers/pg-relay.ts), closed after the test. */
async function relay(target: string): Promise<PgRelay> {
  const r = await startPgRelay(target)
  proxies.push(r)
  return r
}

/** Creates a sandbox instance on the served worker and walks it to CONNECTED there. */
async function connectOnServe(s: ServeProcess): Promise<Instance> {
  const made = await serveApi(s.url, 'POST', '/chatapp/createNewChatapp', { channel: 'sandbox' })
  expect(made.status).toBe(200)
  const inst = made.json.data as Instance
  const creds = { session_id: inst.session_id, access_token: inst.settings.access_token }
  expect((await serveApi(s.url, 'POST', '/chatapp/init', creds)).status).toBe(200)
  const qs = `session_id=${encodeURIComponent(creds.session_id)}&access_token=${encodeURIComponent(creds.access_token)}`
  expect((await serveApi(s.url, 'POST', `/chatapp/sandbox/scan?${qs}`)).status).toBe(200)
  return inst
}

/** Where each instance runs: the ids of the workers with a live session of it. */
function runners(hs: Record<string, Harness>, instanceId: string): string[] {
  return Object.entries(hs)
    .filter(([, h]) => h.core.sessions.get(instanceId))
    .map(([id]) => id)
}

it('each of 4 connected instances runs on exactly one of two workers; GET /cluster shows both workers and every owner; a request for an instance owned elsewhere is forwarded (503 naming the owner when its URL cannot be reached; a request forwarded already is never forwarded again: 409)', async () => {
  url = await createTestDatabase()
  const a = await worker('a')
  const b = await worker('b')
  const made = [await a.connectedInstance(), await a.connectedInstance(), await b.connectedInstance(), await b.connectedInstance()]
  const ids = made.map((m) => m.inst._id)
  expect(made.map((m) => m.inst.settings.status)).toEqual(['CONNECTED', 'CONNECTED', 'CONNECTED', 'CONNECTED'])
  // Several loop rounds later, still exactly one session per instance (no worker claimed another's).
  const rounds = internalsOf(a.core).workers!
  for (let i = 0; i < 3; i++) await rounds.tick()
  await internalsOf(b.core).workers!.tick()
  expect(ids.map((id) => runners({ a, b }, id))).toEqual([['a'], ['a'], ['b'], ['b']])

  const res = await b.call({ method: 'GET', url: '/cluster' })
  expect(res.statusCode).toBe(200)
  const cluster = res.json.data
  expect(cluster.workers.map((w: { id: string; url: string; instances: number }) => [w.id, w.url, w.instances])).toEqual([
    ['a', 'http://a.test:3210', 2],
    ['b', 'http://b.test:3210', 2]
  ])
  expect(Object.fromEntries(cluster.instances.map((i: { session_id: string; owner: string }) => [i.session_id, i.owner]))).toEqual(
    Object.fromEntries(made.map((m, n) => [m.inst.session_id, n < 2 ? 'a' : 'b']))
  )
  for (const i of cluster.instances) expect(Date.parse(i.lease_expires_at)).toBeGreaterThan(Date.now())

  // init on the worker that does not own it is forwarded to the owner's URL, which does not resolve
  // here (a.test): 503 with Retry-After naming the owner; no socket here.
  const init = await b.call({ method: 'POST', url: '/chatapp/init', payload: made[0]!.creds })
  expect(init.statusCode).toBe(503)
  expect(init.headers['retry-after']).toBe('5')
  expect(init.body).toContain('worker a (http://a.test:3210)')
  expect(b.core.sessions.get(ids[0]!)).toBeUndefined()
  // A request another worker signed as forwarded (it took b for the owner) is not forwarded again: 409.
  const ts = String(Date.now())
  const path = '/chatapp/init'
  const sig = createHmac('sha256', b.core.account.forwardKey()).update(`c\nPOST\n${path}\n${ts}`).digest('hex')
  const again = await b.call({ method: 'POST', url: path, payload: made[0]!.creds, headers: { 'x-chatapp-forwarded-by': 'c', 'x-chatapp-forward-ts': ts, 'x-chatapp-forward-sig': sig } })
  expect(again.statusCode).toBe(409)
  expect(again.body).toContain('runs on worker a (http://a.test:3210), not on the worker c forwarded to')
  // Nor does B delete it under A's running socket: the delete is relayed to A (whose URL here cannot
  // be reached: 503 naming it, nothing done; at once, as the caller will not wait for a take-over).
  const del = await b.call({ method: 'DELETE', url: `/chatapp/${ids[0]}`, headers: { prefer: 'wait=0' } })
  expect(del.statusCode).toBe(503)
  expect(del.body).toContain('worker a')
  expect(b.core.instances.list().map((i) => i._id)).toContain(ids[0])
  expect(a.core.sessions.get(ids[0]!)).toMatchObject({ kind: 'sandbox' })
})

it('a worker killed with SIGKILL: its instances are CONNECTED on the other within the TTL and a loop round', async () => {
  url = await createTestDatabase()
  const a = await serveWorker('a')
  const insts = [await connectOnServe(a), await connectOnServe(a)]
  const b = await worker('b')
  // A holds them: B runs none, and leaves their records alone (its start marks nothing CONNECTING).
  for (let i = 0; i < 2; i++) await internalsOf(b.core).workers!.tick()
  for (const inst of insts) expect(b.core.sessions.get(inst._id)).toBeUndefined()
  for (const inst of insts) expect(b.core.instances.get(inst._id).settings.status).toBe('CONNECTED')

  const killedAt = Date.now()
  a.child.kill('SIGKILL')
  await a.exited
  await expect
    .poll(() => insts.map((i) => (b.core.sessions.get(i._id) ? b.core.instances.get(i._id).settings.status : 'none')), { timeout: 10_000, interval: 20 })
    .toEqual(['CONNECTED', 'CONNECTED'])
  const failover = Date.now() - killedAt
  console.log(`failover after SIGKILL: ${failover} ms (lease TTL ${TTL} ms)`)
  // At most the TTL, a round (TTL/3), the connect, and slack for a loaded machine.
  expect(failover).toBeLessThan(TTL + TTL / 3 + 2000)
  const cluster = (await b.call({ method: 'GET', url: '/cluster' })).json.data
  expect(cluster.instances.map((i: { owner: string }) => i.owner)).toEqual(['b', 'b'])
}, 60_000)

it('a worker stopped with SIGTERM releases its leases: the other runs its instances at once, well under the TTL', async () => {
  url = await createTestDatabase()
  // A long TTL, so a hand-over through lapsed leases could not pass for the release.
  const ttl = 6000
  const a = await serveWorker('a', ttl)
  const insts = [await connectOnServe(a), await connectOnServe(a)]
  const b = await worker('b', { leaseTtlMs: ttl })
  await internalsOf(b.core).workers!.tick()
  for (const inst of insts) expect(b.core.sessions.get(inst._id)).toBeUndefined()

  const termAt = Date.now()
  a.child.kill('SIGTERM')
  expect(await a.exited).toBe(0)
  await expect
    .poll(() => insts.map((i) => (b.core.sessions.get(i._id) ? b.core.instances.get(i._id).settings.status : 'none')), { timeout: 10_000, interval: 20 })
    .toEqual(['CONNECTED', 'CONNECTED'])
  const handover = Date.now() - termAt
  console.log(`hand-over after SIGTERM: ${handover} ms after the signal (lease TTL ${ttl} ms)`)
  // The released leases are free at once: B's next round (every TTL/3 = 2 s) claims them.
  expect(handover).toBeLessThan(ttl / 3 + 1500)
  const leases = internalsOf(b.core).storage.repos.leases
  for (const i of insts) expect((await leases.lease(i._id))!.fencing_token).toBe(2)
  // A's row went with its leases.
  expect((await b.call({ method: 'GET', url: '/cluster' })).json.data.workers.map((w: { id: string }) => w.id)).toEqual(['b'])
}, 60_000)

it('a worker that cannot reach the database stops its sockets before its leases can expire; the other then takes them over', async () => {
  url = await createTestDatabase()
  const r = await relay(url)
  const a = await makeHarness({ databaseUrl: r.url, worker: { id: 'a', url: 'http://a.test:3210', leaseTtlMs: TTL } })
  harnesses.push(a)
  const b = await worker('b')
  const { inst } = await a.connectedInstance()
  expect(a.core.sessions.get(inst._id)).toMatchObject({ kind: 'sandbox' })

  r.cut()
  const leases = internalsOf(b.core).storage.repos.leases
  // The last renewal A got through (read after the cut: no later one can land).
  const expiresAt = Number((await leases.lease(inst._id))!.expires_at)
  let stoppedAt = 0
  await expect
    .poll(
      () => {
        if (!stoppedAt && !a.core.sessions.get(inst._id)) stoppedAt = Date.now()
        return stoppedAt > 0
      },
      { timeout: 10_000, interval: 5 }
    )
    .toBe(true)
  console.log(`database cut: A stopped its socket ${expiresAt - stoppedAt} ms before its lease expired (TTL ${TTL} ms)`)
  // Before the expiry by the loop's margin (TTL/5 = 300 ms; half of it allowed for the timer's lateness).
  expect(expiresAt - stoppedAt).toBeGreaterThanOrEqual(150)
  // B claims it once the lease lapsed, and runs it.
  await expect.poll(() => (b.core.sessions.get(inst._id) ? b.core.instances.get(inst._id).settings.status : 'none'), { timeout: 10_000, interval: 20 }).toBe('CONNECTED')
  expect(Date.now()).toBeGreaterThanOrEqual(expiresAt)
  // The database back, A's loop finds the lease lost and does not start the socket again.
  r.restore()
  await internalsOf(a.core).workers!.tick()
  expect(a.core.sessions.get(inst._id)).toBeUndefined()
}, 30_000)

it('the stop comes exactly TTL − margin after the last successful renewal, whatever the phase of the loop (manual clock)', async () => {
  url = await createTestDatabase()
  const r = await relay(url)
  const clock = new ManualClock()
  const a = await makeHarness({ databaseUrl: r.url, worker: { id: 'a', leaseTtlMs: TTL, clock, timers: clock } })
  harnesses.push(a)
  const { inst } = await a.connectedInstance()
  const loop = internalsOf(a.core).workers!
  await loop.tick()
  // The last renewal that got through: it was sent at expires_at − TTL (the loop's own clock).
  const since = Number((await internalsOf(a.core).storage.repos.leases.lease(inst._id))!.expires_at) - TTL
  r.cut()
  const stopAt = since + TTL - loop.marginMs
  clock.advance(stopAt - 30 - clock.now())
  // Loop rounds came due meanwhile and hang on the cut database; the socket still runs.
  expect(a.core.sessions.get(inst._id)).toMatchObject({ kind: 'sandbox' })
  clock.advance(60)
  expect(a.core.sessions.get(inst._id)).toBeUndefined()
  r.restore()
}, 30_000)

it('SIGTERM while the database is out of reach: the sockets stop after at most a loop period, not when the stuck round ends', async () => {
  url = await createTestDatabase()
  const r = await relay(url)
  const clock = new ManualClock()
  const a = await makeHarness({ databaseUrl: r.url, worker: { id: 'a', leaseTtlMs: TTL, clock, timers: clock } })
  harnesses.push(a)
  const { inst } = await a.connectedInstance()
  const loop = internalsOf(a.core).workers!
  r.cut()
  // A round comes due and hangs on the cut database.
  clock.advance(loop.periodMs)
  const stopping = loop.stop()
  await Promise.resolve()
  expect(a.core.sessions.get(inst._id)).toMatchObject({ kind: 'sandbox' })
  clock.advance(loop.periodMs)
  await expect.poll(() => a.core.sessions.get(inst._id), { timeout: 5000, interval: 10 }).toBeUndefined()
  // The release waits for the database; once it is back, the leases go.
  r.restore()
  await stopping
  expect(Number((await internalsOf(a.core).storage.repos.leases.lease(inst._id))!.expires_at)).toBeLessThanOrEqual(clock.now())
}, 30_000)

it("a stale owner (its lease taken over) cannot write the instance's credentials and stops its session", async () => {
  url = await createTestDatabase()
  // Long leases: no loop round runs during the test, so the stale write is what notices the take-over.
  const a = await worker('a', { leaseTtlMs: 60_000 })
  const inst = await a.createInstance()
  const creds = { session_id: inst.session_id, access_token: inst.settings.access_token }
  expect((await a.call({ method: 'POST', url: '/chatapp/init', payload: creds })).statusCode).toBe(200)
  expect(a.core.sessions.get(inst._id)).toMatchObject({ kind: 'sandbox' })
  // Another worker takes the lease over (its clock past the expiry): the token moves on.
  const leases = internalsOf(a.core).storage.repos.leases
  const before = (await leases.lease(inst._id))!
  expect(await leases.claim(inst._id, 'b', Number(before.expires_at) + 1, 60_000)).toEqual({ token: before.fencing_token + 1 })

  // The phone scans on A: A's pairing write carries its old token and is refused.
  const qs = `session_id=${encodeURIComponent(creds.session_id)}&access_token=${encodeURIComponent(creds.access_token)}`
  const scan = await a.call({ method: 'POST', url: `/chatapp/sandbox/scan?${qs}` })
  expect(scan.statusCode).toBe(409)
  expect(scan.body).toContain('another worker')
  expect(await a.core.sessions.hasCredentials(inst._id)).toBe(false)
  await expect.poll(() => a.core.sessions.get(inst._id), { timeout: 5000, interval: 10 }).toBeUndefined()
  // Not logged out: the record is not A's to write any more.
  expect(a.core.instances.get(inst._id).settings.status).not.toBe('LOGGED_OUT')
}, 30_000)

it('Stop and logout on the owner give its lease up at once (init on another worker runs it, long before the TTL); a deleted instance leaves no lease row', async () => {
  url = await createTestDatabase()
  // Long leases: only the release can let B in during the test.
  const a = await worker('a', { leaseTtlMs: 60_000 })
  const b = await worker('b', { leaseTtlMs: 60_000 })
  const leases = internalsOf(b.core).storage.repos.leases
  const qsOf = (c: { session_id: string; access_token: string }) => `session_id=${encodeURIComponent(c.session_id)}&access_token=${encodeURIComponent(c.access_token)}`
  for (const how of ['stop', 'logout'] as const) {
    const { inst, creds } = await a.connectedInstance()
    expect((await b.call({ method: 'POST', url: '/chatapp/init', payload: creds })).statusCode).not.toBe(200)
    const stopped = how === 'stop' ? await a.call({ method: 'POST', url: `/chatapp/stop?${qsOf(creds)}` }) : await a.call({ method: 'GET', url: `/chatapp/instance/logout/${inst._id}?${qsOf(creds)}` })
    expect(stopped.statusCode, stopped.body).toBe(200)
    expect(a.core.sessions.get(inst._id)).toBeUndefined()
    // Free now, owner and token kept (the next claim moves the token on).
    const row = (await leases.lease(inst._id))!
    expect(row).toMatchObject({ owner: 'a', fencing_token: 1 })
    // Lease times follow the database's clock as estimated by the worker (DatabaseAlignedClock, off by
    // up to half a round trip), not this process's: expired now means far below the 60 s lease.
    expect(Number(row.expires_at)).toBeLessThanOrEqual((await leases.databaseNow())! + 1000)
    expect(internalsOf(a.core).workers!.holds(inst._id)).toBe(false)
    const init = await b.call({ method: 'POST', url: '/chatapp/init', payload: creds })
    expect(init.statusCode, init.body).toBe(200)
    expect(b.core.sessions.get(inst._id)).toMatchObject({ kind: 'sandbox' })
    expect(await leases.lease(inst._id)).toMatchObject({ owner: 'b', fencing_token: 2 })
    // A's next round does not take it back.
    await internalsOf(a.core).workers!.tick()
    expect(a.core.sessions.get(inst._id)).toBeUndefined()
  }
  const { inst } = await a.connectedInstance()
  expect(await leases.lease(inst._id)).toMatchObject({ owner: 'a' })
  expect((await a.call({ method: 'DELETE', url: `/chatapp/${inst._id}` })).statusCode).toBe(200)
  expect(await leases.lease(inst._id)).toBeUndefined()
  expect((await a.call({ method: 'GET', url: '/cluster' })).json.data.instances.map((i: { session_id: string }) => i.session_id)).not.toContain(inst.session_id)
}, 30_000)

it("a worker's maximum is kept: the orphans beyond it go to the other worker", async () => {
  url = await createTestDatabase()
  const a = await worker('a', { maxInstances: 1 })
  const b = await worker('b')
  // A has fewer instances, so each start asked of B is placed on A; A's URL cannot be reached (these
  // workers serve no HTTP), so each runs on B instead of failing.
  const made = [await b.connectedInstance(), await b.connectedInstance(), await b.connectedInstance()]
  const ids = made.map((m) => m.inst._id)
  expect(ids.filter((id) => b.core.sessions.get(id))).toHaveLength(3)
  // B stops with no goodbye (its leases lapse); A may take one, then C takes the rest.
  await internalsOf(b.core).workers!.halt()
  const c = await worker('c')
  await expect
    .poll(() => ids.map((id) => runners({ a, c }, id).length), { timeout: 10_000, interval: 20 })
    .toEqual([1, 1, 1])
  const onA = ids.filter((id) => a.core.sessions.get(id))
  expect(onA).toHaveLength(1)
  // Further rounds change nothing: A stays at its maximum.
  for (let i = 0; i < 3; i++) await internalsOf(a.core).workers!.tick()
  expect(ids.filter((id) => a.core.sessions.get(id))).toEqual(onA)
  const cluster = (await c.call({ method: 'GET', url: '/cluster' })).json.data
  expect(cluster.workers.find((w: { id: string }) => w.id === 'a').instances).toBe(1)
}, 30_000)

it('GET /cluster without a PostgreSQL database (the desktop): this process is the only worker, running the instances it has a session for', async () => {
  // The harness's default database (SQLite, or PostgreSQL when the suite runs on it: then a lone worker).
  const h = await makeHarness()
  harnesses.push(h)
  const { inst } = await h.connectedInstance()
  const idle = await h.createInstance()
  const res = await h.call({ method: 'GET', url: '/cluster' })
  expect(res.statusCode).toBe(200)
  const { workers, instances } = res.json.data
  expect(workers).toHaveLength(1)
  expect(workers[0].instances).toBe(1)
  expect(instances.map((i: { session_id: string; owner: string | null }) => [i.session_id, i.owner])).toEqual([
    [inst.session_id, workers[0].id],
    [idle.session_id, null]
  ])
  expect(instances[1].lease_expires_at).toBeNull()
})

it('Idempotency-Key: a request taken by a worker whose lease then lapsed answers 409 on the new owner (it may have been sent), while a running one answers "in progress"', async () => {
  url = await createTestDatabase()
  const a = await worker('a')
  const b = await worker('b')
  const { inst } = await a.connectedInstance()
  const id = a.core.idempotency.idOf('k-lost', undefined, 'messages.sendText', inst._id)
  expect(await a.core.idempotency.begin(id, 'hash', inst._id)).toEqual({ state: 'new' })
  // A holds the lease it took the request under: the attempt counts as running, from either worker.
  expect(await b.core.idempotency.begin(id, 'hash', inst._id)).toEqual({ state: 'running' })
  expect(await a.core.idempotency.begin(id, 'hash', inst._id)).toEqual({ state: 'running' })
  // A dies (no release); B takes the instance over with the next token.
  await internalsOf(a.core).workers!.halt()
  await expect.poll(() => b.core.sessions.get(inst._id) !== undefined, { timeout: 10_000, interval: 20 }).toBe(true)
  expect(await b.core.idempotency.begin(id, 'hash', inst._id)).toEqual({ state: 'orphaned', taker: { worker: 'a', token: 1 } })
}, 30_000)
