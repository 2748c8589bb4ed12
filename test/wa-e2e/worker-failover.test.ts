/**
 * Failover of a real-channel instance between workers (docs/design.md §22 "Failover on
 * the real channel"): real `npm run serve` processes on one real PostgreSQL database, each with the
 * unmodified Baileys socket pointed at the local WhatsApp protocol test server, which answers a
 * second login of a device the way WhatsApp does (the old connection is replaced: 440) and counts the
 * device's live connections (test/support/wa-server/README.md "Connections per device").
 *
 * Paired once on worker A, the instance moves (kill -9 of A, then SIGTERM of its next owner, then a
 * worker cut off from the database) and every time: the next worker logs in with the stored
 * credentials (no new QR, the same device), messages flow both ways, and the server never saw two
 * live connections for the device (none replaced). Leases of 1 500 ms (a loop round every 500 ms).
 */
import { rm } from 'node:fs/promises'
import pino from 'pino'
import { afterAll, afterEach, expect, it } from 'vitest'
import { applyTestRootKey, createBaileysChannel } from '../../src/main/channel/baileys'
import { makeHarness } from '../helpers/harness'
import { createTestDatabase, dropTestDatabase } from '../helpers/postgres'
import { startPgRelay, type PgRelay } from '../helpers/pg-relay'
import { decodeQr } from '../helpers/qr'
import { scanLikeAPhone, waTestFile } from '../helpers/wa-instance'
import { startServeWorker, SERVE_TOKEN, serveApi as api, type ServeProcess } from '../helpers/serve-process'
import { freePort } from '../helpers/webhook-receiver'
import { startWaTestServer, type WaTestServer } from '../support/wa-server/server'

afterAll(waTestFile())

const TTL = 1500
const WAIT = { timeout: 15_000, interval: 25 }

let cleanup: Array<() => Promise<unknown>> = []
afterEach(async () => {
  for (const fn of cleanup.reverse()) await fn().catch(() => {})
  cleanup = []
})

interface Worker {
  id: string
  /** Where its HTTP API listens. */
  url: string
  /** The serve process (absent for a worker run in this process). */
  srv?: ServeProcess
}

/** A real serve worker on the database at `databaseUrl`, with the Baileys channel on `wa`. */
async function serveWorker(wa: WaTestServer, id: string, databaseUrl: string, ttl = TTL): Promise<Worker> {
  const srv = await startServeWorker(databaseUrl, id, {
    CHATAPP_CHANNEL: 'baileys',
    CHATAPP_WA_WS_URL: wa.url,
    CHATAPP_WA_ROOT_KEY: wa.rootPublicKeyB64,
    CHATAPP_SEND_INTERVAL_MS: '0',
    CHATAPP_SEND_JITTER_MS: '0',
    CHATAPP_LEASE_TTL_MS: String(ttl)
  })
  cleanup.push(async () => {
    if (srv.child.exitCode === null && srv.child.signalCode === null) srv.child.kill('SIGKILL')
    await srv.exited
    await rm(srv.dir, { recursive: true, force: true })
  })
  return { id, url: srv.url, srv }
}

/** A fresh database, the protocol test server, and a relay to the database (cut-off tests). */
async function setup(): Promise<{ url: string; wa: WaTestServer; relay: PgRelay }> {
  const url = await createTestDatabase()
  cleanup.push(() => dropTestDatabase(url))
  const wa = await startWaTestServer({ accountNumber: '15550003333' })
  cleanup.push(() => wa.close())
  const relay = await startPgRelay(url)
  cleanup.push(() => relay.close())
  return { url, wa, relay }
}

interface Linked {
  creds: { session_id: string; access_token: string }
  qs: string
}

/** Creates a Baileys instance on `w` and pairs it there with the server's phone (QR read from the PNG). */
async function pairOn(wa: WaTestServer, w: Worker): Promise<Linked> {
  const created = await api(w.url, 'POST', '/chatapp/createNewChatapp', {})
  expect(created.status).toBe(200)
  const creds = { session_id: created.json.data.session_id as string, access_token: created.json.data.settings.access_token as string }
  const qs = new URLSearchParams(creds).toString()
  expect((await api(w.url, 'POST', '/chatapp/init', creds)).status).toBe(200)
  const readQr = async () => {
    const res = await fetch(`${w.url}/chatapp/scan?${qs}`, { headers: { authorization: `Bearer ${SERVE_TOKEN}` } })
    return res.status === 200 ? decodeQr(Buffer.from(await res.arrayBuffer())) : undefined
  }
  let qr: string | undefined
  await expect.poll(async () => (qr = await readQr()), WAIT).toMatch(/^https:\/\/wa\.me\/settings\/linked_devices#TESTREF/)
  await scanLikeAPhone(wa.phone, qr!, readQr)
  await expect.poll(() => statusOn(w, { creds, qs }), WAIT).toBe('CONNECTED')
  return { creds, qs }
}

/** The instance's status as worker `w` answers it (forwarded to the owner when another holds it); null on an error answer. */
async function statusOn(w: Worker, t: Linked): Promise<string | null> {
  const res = await api(w.url, 'GET', `/chatapp/instance?${t.qs}`).catch(() => null)
  return res?.status === 200 ? (res.json.data.instance_data.status as string) : null
}

/** The lease owner `GET /cluster` on `w` names for the instance. */
async function ownerOn(w: Worker, t: Linked): Promise<string | null> {
  const res = await api(w.url, 'GET', '/cluster').catch(() => null)
  if (res?.status !== 200) return null
  return (res.json.data.instances as Array<{ session_id: string; owner: string | null }>).find((i) => i.session_id === t.creds.session_id)?.owner ?? null
}

/** The instance's bot number and WhatsApp user as stored (the pairing's outcome: the same after every failover). */
async function identity(w: Worker, t: Linked): Promise<unknown> {
  const res = await api(w.url, 'GET', `/chatapp?${t.qs}`)
  const inst = (res.json.data as Array<{ session_id: string; settings: { bot_number: string; user: { id: string } | null } }>).find((i) => i.session_id === t.creds.session_id)!
  // The push name is left out: it arrives a moment after the connection opens.
  return { bot_number: inst.settings.bot_number, user: inst.settings.user?.id }
}

/**
 * A message each way through worker `w`: the contact writes `in-<tag>` and it is in the instance's
 * history; the desk sends `out-<tag>` and the contact decrypts it.
 */
async function roundTrip(wa: WaTestServer, w: Worker, t: Linked, tag: string): Promise<void> {
  const ana = wa.contact('15551234567', 'Ana')
  await ana.sendText(`in-${tag}`)
  await expect
    .poll(async () => {
      const res = await api(w.url, 'GET', `/chatapp/messages?${t.qs}`)
      return res.status === 200 ? (res.json.data as Array<{ text: string; fromMe: boolean }>).filter((m) => !m.fromMe).map((m) => m.text) : []
    }, WAIT)
    .toContain(`in-${tag}`)
  const sent = await api(w.url, 'POST', `/chatapp/message?${t.qs}`, { ...t.creds, chatId: '15551234567', message: `out-${tag}` })
  expect(sent.status, JSON.stringify(sent.json)).toBe(200)
  await expect.poll(() => ana.received(), WAIT).toContain(`out-${tag}`)
}

/**
 * Waits until worker `w` owns the instance, its `logins`-th login as the device reached the server,
 * and it reports CONNECTED (the stored status alone may still be the last owner's).
 */
async function connectedOn(wa: WaTestServer, w: Worker, t: Linked, logins: number): Promise<void> {
  await expect.poll(() => ownerOn(w, t), WAIT).toBe(w.id)
  await expect.poll(() => wa.deviceConnections()?.connections.length ?? 0, WAIT).toBe(logins)
  await expect.poll(() => statusOn(w, t), WAIT).toBe('CONNECTED')
}

/** The server's record of the device: never two live at once, none replaced, one live now. */
function expectOneLiveThroughout(wa: WaTestServer, logins: number): void {
  const device = wa.deviceConnections()!
  expect(device.device).toBe('15550003333:12@s.whatsapp.net')
  expect(device.maxLive, `the server saw ${device.maxLive} live connections of the device at once: ${JSON.stringify(device.connections)}`).toBe(1)
  expect({ maxLive: device.maxLive, replaced: device.replaced, live: device.live, logins: device.connections.length }).toEqual({ maxLive: 1, replaced: 0, live: 1, logins })
  // Each connection ended before the next logged in.
  for (let i = 1; i < device.connections.length; i++) expect(device.connections[i - 1]!.endedAt).toBeLessThanOrEqual(device.connections[i]!.loggedInAt)
}

it('paired once on A; kill -9 of A, then SIGTERM of B: each next worker logs in with the stored credentials (no QR), messages flow both ways, and the server never sees two live connections for the device', async () => {
  const { url, wa } = await setup()
  const a = await serveWorker(wa, 'a', url)
  const b = await serveWorker(wa, 'b', url)
  const t = await pairOn(wa, a)
  expect(await ownerOn(b, t)).toBe('a')
  const paired = await identity(a, t)
  expect(paired).toEqual({ bot_number: '15550003333', user: '15550003333@s.whatsapp.net' })
  await roundTrip(wa, a, t, 'a')
  expect(wa.pairingRequests).toBe(1)
  // The pairing connection, then A's login after the 515.
  expectOneLiveThroughout(wa, 1)

  // kill -9: no release; B claims once A's lease lapsed, and logs in with the credentials in the database.
  const killedAt = Date.now()
  a.srv!.child.kill('SIGKILL')
  await a.srv!.exited
  await connectedOn(wa, b, t, 2)
  const afterKill = Date.now() - killedAt
  expect(wa.pairingRequests).toBe(1)
  expect(await identity(b, t)).toEqual(paired)
  await roundTrip(wa, b, t, 'b')
  expectOneLiveThroughout(wa, 2)
  // A's connection ended when its process died (the OS closed the socket), before B logged in.
  expect(wa.deviceConnections()!.connections[0]!.endedBy).toBe('client')

  // SIGTERM of B: it stops its socket, then releases the lease; C claims in its next round.
  const c = await serveWorker(wa, 'c', url)
  const termAt = Date.now()
  b.srv!.child.kill('SIGTERM')
  expect(await b.srv!.exited).toBe(0)
  await connectedOn(wa, c, t, 3)
  const afterTerm = Date.now() - termAt
  expect(wa.pairingRequests).toBe(1)
  expect(await identity(c, t)).toEqual(paired)
  await roundTrip(wa, c, t, 'c')
  expectOneLiveThroughout(wa, 3)
  console.log(`real channel, lease TTL ${TTL} ms: CONNECTED on B ${afterKill} ms after kill -9 of A; on C ${afterTerm} ms after SIGTERM of B; device logins ${wa.deviceConnections()!.connections.length}, max live ${wa.deviceConnections()!.maxLive}`)
}, 120_000)

it('A alive but cut off from the database: its deadline stops the socket before B may claim; B logs in without a QR and the server never sees two live connections', async () => {
  const { url, wa, relay } = await setup()
  const a = await serveWorker(wa, 'a', relay.url)
  const b = await serveWorker(wa, 'b', url)
  const t = await pairOn(wa, a)
  const paired = await identity(a, t)
  await roundTrip(wa, a, t, 'a')

  const cutAt = Date.now()
  relay.cut()
  await connectedOn(wa, b, t, 2)
  expectOneLiveThroughout(wa, 2)
  const [aConn, bConn] = wa.deviceConnections()!.connections
  // A is still running (its process never stopped), yet its socket closed before B's login.
  expect(a.srv!.child.exitCode).toBeNull()
  expect(aConn!.endedBy).toBe('client')
  console.log(`database cut: A's socket closed ${aConn!.endedAt! - cutAt} ms after the cut, ${bConn!.loggedInAt - aConn!.endedAt!} ms before B's login (TTL ${TTL} ms)`)
  expect(wa.pairingRequests).toBe(1)
  expect(await identity(b, t)).toEqual(paired)
  await roundTrip(wa, b, t, 'b')
  expectOneLiveThroughout(wa, 2)

  // The database back: A's loop finds its lease lost and does not connect again (two heartbeats of
  // A after the restore: its first round since, renewals included, has ended).
  const restoredAt = Date.now()
  relay.restore()
  const heartbeatsOfA: number[] = []
  await expect
    .poll(async () => {
      const res = await api(b.url, 'GET', '/cluster')
      const seen = Date.parse((res.json.data.workers as Array<{ id: string; last_seen_at: string }>).find((w) => w.id === 'a')?.last_seen_at ?? '')
      if (seen > restoredAt && !heartbeatsOfA.includes(seen)) heartbeatsOfA.push(seen)
      return heartbeatsOfA.length
    }, WAIT)
    .toBeGreaterThanOrEqual(2)
  expect(await ownerOn(a, t)).toBe('b')
  await roundTrip(wa, b, t, 'b2')
  expectOneLiveThroughout(wa, 2)
}, 120_000)

/**
 * The clock tests' setup: worker A (a serve process, 20 s leases) pairs the instance and sends a
 * message each way, then its database is cut, so A cannot learn of a claim from a refused renewal and
 * keeps its socket until its deadline (at least TTL − margin − TTL/3 ≈ 9 s away); then worker B starts
 * in this process with its lease clock 2 TTLs ahead, its offset from the database's clock measured
 * (`alignClock`) or not.
 */
async function clockAheadOnB(alignClock: boolean): Promise<{ wa: WaTestServer; b: Worker; t: Linked; ttl: number; restore(): void }> {
  const ttl = 20_000
  const { url, wa, relay } = await setup()
  const a = await serveWorker(wa, 'a', relay.url, ttl)
  const t = await pairOn(wa, a)
  await roundTrip(wa, a, t, 'a')
  relay.cut()
  applyTestRootKey(wa.rootPublicKey)
  const baileys = createBaileysChannel({ waWebSocketUrl: wa.url, fetchVersion: null, sendPacing: { minIntervalMs: 0, jitterMs: 0 } })
  const ahead = { now: () => Date.now() + 2 * ttl }
  const port = await freePort()
  const bh = await makeHarness({
    factories: { baileys },
    apiToken: SERVE_TOKEN,
    logger: pino({ level: 'silent' }),
    databaseUrl: url,
    worker: { id: 'b', url: `http://127.0.0.1:${port}`, leaseTtlMs: ttl, clock: ahead, alignClock }
  })
  cleanup.push(() => bh.close())
  await bh.app.listen({ port, host: '127.0.0.1' })
  return { wa, b: { id: 'b', url: `http://127.0.0.1:${port}` }, t, ttl, restore: () => relay.restore() }
}

it('what the count catches: a worker whose clock runs ahead, not kept in step with the database, claims the lease while A still runs the socket; the server sees two live connections and replaces A (440)', async () => {
  // The lease's expiry is compared on the claimant's lease clock (docs/design.md §22 "Clocks").
  const { wa, b, t, restore } = await clockAheadOnB(false)
  await expect.poll(() => wa.deviceConnections()?.replaced ?? 0, WAIT).toBe(1)
  const device = wa.deviceConnections()!
  expect(device.maxLive).toBe(2)
  expect(device.connections.map((c) => c.endedBy)).toEqual(['replaced', null])
  // No re-pair all the same: B logged in with the stored credentials.
  expect(wa.pairingRequests).toBe(1)
  await roundTrip(wa, b, t, 'b')
  restore()
}, 120_000)

it('the same worker clock 2 TTLs ahead, kept in step with the database server (the default): it claims only once A’s lease lapsed, A’s deadline stopped its socket first, and the server never sees two live connections', async () => {
  const { wa, b, t, ttl, restore } = await clockAheadOnB(true)
  // B connects once A's lease lapsed (up to a TTL after A's last renewal), never before A's socket closed.
  await expect.poll(() => wa.deviceConnections()?.connections.length ?? 0, { timeout: 2 * ttl, interval: 50 }).toBe(2)
  const device = wa.deviceConnections()!
  expect(device.maxLive).toBe(1)
  expect(device.replaced).toBe(0)
  expect(wa.pairingRequests).toBe(1)
  await roundTrip(wa, b, t, 'b')
  restore()
}, 120_000)
