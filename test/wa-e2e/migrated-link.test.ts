/**
 * A linked phone stays linked across the import of a release 0.1 data dir (docs/storage.md "Importing a data dir of release 0.1"), end to end:
 * a copy of test/fixtures/legacy-0.1.0/{stopped,running}/ (see its README), whose real-channel
 * instance is linked to account 15550001111, is opened by the app's core with the REAL Baileys
 * channel pointed at a fresh protocol test server (test/support/wa-server/) that knows that linked
 * device as the live service does (`adoptLinkedDevice`: the companion it registered, with the
 * identity, registration id, signed pre-key and noise key of the fixture's creds.json, the one-time
 * pre-keys the device had uploaded, and its LID).
 *
 * The core imports the 0.1 files into its SQLite database at start and reconnects the instance that
 * was CONNECTED: it logs in with the imported credentials (the server checks the noise key and the
 * device), shows no QR, keeps the fixture's intents and messages, decrypts the phone's and Ann's
 * first messages (pre-key messages on pre-keys the device had uploaded in 0.1: their private halves
 * come from the import), and its bot reply and an API send reach Ann decrypted. Two more runs have a
 * server that handed out all but three pre-keys, or every one: the client uploads new ones at login
 * (its imported `nextPreKeyId` goes on), which the server adds to those it held (SERVER_HOLDS).
 *
 * What a fresh server cannot hold: the phone's and Ann's Signal identities and their halves of the
 * Signal sessions (they lived in the memory of the server that made the fixture). Here they are new,
 * as if both had reinstalled WhatsApp: their first messages are pre-key messages, which make the
 * client replace the imported sessions with them (trust on first use, lib/Signal/libsignal.js
 * saveIdentity); on the live service Ann's would be a plain message on the imported session, which
 * this test cannot show. The client's own sends are the same on both: its first send to a user after
 * a start rebuilds the sessions from fresh bundles (Baileys 7 rc14, lib/Socket/messages-send.js
 * getUSyncDevices → assertSessions(lids, true)).
 */
import { randomBytes } from 'node:crypto'
import { cp, mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Writable } from 'node:stream'
import pino from 'pino'
import { BufferJSON, type AuthenticationCreds } from 'baileys'
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest'
import { applyTestRootKey, createBaileysChannel, type BaileysSession } from '../../src/main/channel/baileys'
import { buildApiServer } from '../../src/main/api/server'
import { internalsOf, startCore } from '../../src/main/core'
import { startWaTestServer, type LinkedDevice } from '../support/wa-server/server'
import { waTestFile } from '../helpers/wa-instance'

afterAll(waTestFile())

const cleanup: Array<() => Promise<void>> = []
afterEach(async () => {
  for (const fn of cleanup.splice(0).reverse()) await fn().catch(() => {})
})

const FIXTURE = join(__dirname, '../fixtures/legacy-0.1.0')
/** The fixture's real-channel instance and its API credentials (chatapp.json). */
const INSTANCE = '6b06fd3e2d329972fede8248'
const QS = 'session_id=WI9BQgT5k7BFa5Y6Mqp0iInF&access_token=17TrVCWtBlcFzzxB86X38EothNpWsSIp'
const ACCOUNT = '15550001111'
const ANN = '15550002222'

/**
 * What the live service knows of the fixture's linked device, from the files 0.1 wrote: the creds
 * (read as 0.1 read them, with Baileys' BufferJSON), the one-time pre-keys it had uploaded and not
 * yet handed out (those still in keys.json: the client deletes a pre-key once a contact used it) and
 * the LID of each number it talked to (its lid-mapping keys).
 */
async function liveServiceView(copy: string) {
  const dir = join(FIXTURE, copy, 'sessions', INSTANCE)
  const parse = (text: string) => JSON.parse(text, BufferJSON.reviver)
  const creds = parse(await readFile(join(dir, 'creds.json'), 'utf8')) as AuthenticationCreds
  const keys = parse(await readFile(join(dir, 'keys.json'), 'utf8')) as {
    'pre-key': Record<string, { public: Buffer }>
    'lid-mapping': Record<string, string>
  }
  // The snapshot is the device's set of pre-keys only if no later journal line changed it.
  const journal = (await readFile(join(dir, 'keys.journal'), 'utf8')).split('\n').filter(Boolean)
  expect(journal.some((line) => 'pre-key' in JSON.parse(line))).toBe(false)
  const preKeys = Object.entries(keys['pre-key']).map(([id, k]) => ({ keyId: Number(id), public: k.public }))
  return { creds, preKeys, lidOf: (pn: string) => keys['lid-mapping'][pn] }
}

/**
 * A copy of the fixture's `copy`, a fresh server (account 15550001111) with that device adopted as
 * `adopt` says, and the app's core started on the copy with the real channel pointed at the server:
 * the core imports the 0.1 files and reconnects the CONNECTED instance by itself. Listens to the
 * core's `qr` and `state` events from when startCore answers (the server's `pairingRequests` covers
 * the moments before); `api` calls the instance's routes with the fixture's credentials.
 */
async function startMigrated(copy: 'stopped' | 'running', adopt: (view: Awaited<ReturnType<typeof liveServiceView>>) => LinkedDevice) {
  const dataDir = await mkdtemp(join(tmpdir(), 'chatapp-migrated-link-'))
  cleanup.push(() => rm(dataDir, { recursive: true, force: true }))
  await cp(join(FIXTURE, copy), dataDir, { recursive: true })
  const view = await liveServiceView(copy)

  const server = await startWaTestServer({ accountNumber: ACCOUNT, accountName: 'Test Shop' })
  cleanup.push(() => server.close())
  server.adoptLinkedDevice(adopt(view))
  // Ann, with the LID the device learned in 0.1 (the live service never changes it).
  const ann = server.contact(ANN, 'Ann', { lid: view.lidOf(ANN) })
  applyTestRootKey(server.rootPublicKey)

  const baileys = createBaileysChannel({ waWebSocketUrl: server.url, fetchVersion: null, sendPacing: { minIntervalMs: 0, jitterMs: 0 }, composingMs: 20 })
  const core = await startCore({ dataDir, factories: { baileys }, fetchAllow: ['127.0.0.1'], logger: appErrorsLogger() })
  const qrs: string[] = []
  const states: string[] = []
  core.events.on('qr', (e) => qrs.push(e.qr))
  core.events.on('state', (e) => e.instanceId === INSTANCE && states.push(e.state))
  const app = await buildApiServer(core, { host: '127.0.0.1', version: 'test' })
  cleanup.push(async () => {
    await app.close()
    await core.close()
  })
  await app.ready()
  const api = async (method: 'GET' | 'POST', url: string, payload?: object) => {
    const res = await app.inject({ method, url: `${url}${url.includes('?') ? '&' : '?'}${QS}`, headers: { authorization: `Bearer ${core.account.token()}` }, ...(payload ? { payload } : {}) })
    expect(res.statusCode, `${method} ${url}: ${res.body}`).toBe(200)
    return res.json().data
  }
  return { view, server, ann, core, qrs, states, api }
}

/**
 * What the server holds of the device's one-time pre-keys, and what follows at login and after: the
 * client asks for the count and uploads `uploaded` new ones after the imported `nextPreKeyId` (812
 * when none is left, 5 when 5 or fewer are: lib/Socket/socket.js uploadPreKeysToServerIfRequired);
 * an upload adds to those the server holds, which it hands out lowest id first. The phone writes at
 * login, before the count query, on `phoneOn` (null: the signed pre-key alone); Ann then on `annOn`.
 */
const SERVER_HOLDS = {
  'the pre-keys uploaded in 0.1': { held: (id: number) => id > 0, uploaded: 0, phoneOn: 3, annOn: 4 },
  // A server that handed out all but the last three: the phone takes 810, the client tops up with
  // 813..817, and Ann still gets 811 (she would get 813 if an upload replaced what the server held).
  'the last 3 pre-keys uploaded in 0.1': { held: (id: number) => id >= 810, uploaded: 5, phoneOn: 810, annOn: 811 },
  'no pre-key': { held: () => false, uploaded: 812, phoneOn: null, annOn: 813 }
} as const

describe.each([
  { copy: 'stopped', serverHolds: 'the pre-keys uploaded in 0.1' },
  { copy: 'running', serverHolds: 'the pre-keys uploaded in 0.1' },
  { copy: 'stopped', serverHolds: 'the last 3 pre-keys uploaded in 0.1' },
  { copy: 'stopped', serverHolds: 'no pre-key' }
] as const)('the 0.1 data dir copied $copy, the server holding $serverHolds', ({ copy, serverHolds }) => {
  const { held, uploaded, phoneOn, annOn } = SERVER_HOLDS[serverHolds]
  it('imports it and stays linked: no QR, the data kept, Ann and the bot talk both ways', async () => {
    const { view, server, ann, core, qrs, states, api } = await startMigrated(copy, (v) => ({ creds: v.creds, preKeys: v.preKeys.filter((k) => held(k.keyId)) }))
    expect(view.creds.me?.id).toBe(`${ACCOUNT}:12@s.whatsapp.net`)
    expect(view.creds.nextPreKeyId).toBe(813)
    expect(view.preKeys.map((k) => k.keyId).sort((a, b) => a - b)).toEqual(Array.from({ length: 810 }, (_, i) => i + 3))

    // The instance that was CONNECTED in 0.1 logs in with the imported device: no QR, no new pairing.
    // The record said CONNECTED in 0.1 already: the state events say that this start connected.
    await vi.waitFor(() => expect(states.at(-1)).toBe('CONNECTED'), { timeout: 10_000 })
    expect((core.sessions.get(INSTANCE) as BaileysSession).currentState).toBe('CONNECTED')
    expect(server.phone.online).toBe(true)
    expect(server.logins).toHaveLength(1)
    expect(server.pairingRequests).toBe(0)
    expect(qrs).toEqual([])
    expect(core.sessions.latestQr(INSTANCE)).toBeUndefined()
    expect(states).not.toContain('QR')
    expect(states).not.toContain('LOGGED_OUT')
    expect(core.instances.get(INSTANCE).settings.status).toBe('CONNECTED')

    // The fixture's data: the 0.1 token, the instance's credentials, its intent and its conversation with Ann.
    expect(core.account.token()).toBe('XZzKv68rItUk3zBsSQVRDyw46AD4wsKWtRSa54vXtKs')
    const intents = (await api('GET', '/intent')) as Array<{ title: string; reply: string }>
    const greeting = intents.find((i) => i.title === 'Greeting')
    expect(greeting?.reply).toBe('Hello [name]! How can we help?')
    const before = (await api('GET', `/chatapp/messages?chatId=${ANN}`)) as Array<{ text: string; fromMe: boolean }>
    expect(before.map((m) => m.text).sort()).toEqual(
      ['hi', 'Hello Ann! How can we help?', 'Your order ships today.', 'hello again', 'Hello Ann! How can we help?'].sort()
    )

    // Ann writes (a pre-key message: her Signal identity is new here); the bot's intent answers.
    await ann.sendText('hi')
    expect(ann.sentTypes()).toEqual(['pkmsg'])
    const reply = await ann.nextMessage(10_000)
    expect(reply.message.conversation ?? reply.message.extendedTextMessage?.text).toBe('Hello Ann! How can we help?')

    // An API send reaches her too.
    await api('POST', '/chatapp/message', { chatId: ANN, message: 'Your parcel left today.' })
    await vi.waitFor(() => expect(ann.received()).toEqual(['Hello Ann! How can we help?', 'Your parcel left today.']), { timeout: 10_000 })

    // Which pre-keys the two pre-key messages to the device (the phone's at login, then Ann's) were
    // built on: the client deletes a pre-key once it decrypted with it (lib/Signal/libsignal.js
    // removePreKey), so those two are gone, the count says no other is, and the upload went on from 813.
    const auth = internalsOf(core).storage.repos.channelAuth
    const creds = JSON.parse((await auth.creds(INSTANCE))!) as { nextPreKeyId: number }
    const left = async (ids: number[]) => [...(await auth.keys(INSTANCE, 'pre-key', ids.map(String))).keys()].map(Number).sort((a, b) => a - b)
    const used = phoneOn === null ? [annOn] : [phoneOn, annOn]
    expect(creds.nextPreKeyId).toBe(813 + uploaded)
    expect(await left(used)).toEqual([])
    expect(await auth.countKeys(INSTANCE, 'pre-key')).toBe(810 + uploaded - used.length)

    // The conversation goes on in the imported log: the two old turns, then today's.
    await vi.waitFor(async () => {
      const after = (await api('GET', `/chatapp/messages?chatId=${ANN}`)) as Array<{ text: string }>
      expect(after).toHaveLength(before.length + 3)
      expect(after.map((m) => m.text)).toEqual(expect.arrayContaining(['Your parcel left today.']))
    })
    expect(server.pairingRequests).toBe(0)
    expect(qrs).toEqual([])
  }, 60_000)
})

it('a device the server registered with another noise key is refused: the login that makes the test above mean something', async () => {
  // As if the import had changed the noise key: the server knows the device by the fixture's.
  const { server, qrs, states } = await startMigrated('stopped', (v) => ({ creds: { ...v.creds, noiseKey: { public: randomBytes(32) } }, preKeys: v.preKeys }))
  await vi.waitFor(() => expect(states.at(-1)).toBe('LOGGED_OUT'), { timeout: 10_000 })
  expect(server.logins).toHaveLength(0)
  expect(qrs).toEqual([])
}, 60_000)

/** The app's error lines to stderr (a failure says why); the library's own lines are left out. */
function appErrorsLogger() {
  const out = new Writable({
    write(chunk: Buffer, _enc, done) {
      const text = chunk.toString()
      if (!text.includes('"lib":"baileys"') && !text.includes('"lib":"libsignal"')) process.stderr.write(text)
      done()
    }
  })
  return pino({ level: process.env.WA_TEST_LOG_LEVEL ?? 'error' }, out)
}
