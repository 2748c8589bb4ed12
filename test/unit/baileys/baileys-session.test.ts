import { existsSync } from 'node:fs'
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Boom } from '@hapi/boom'
import { BufferJSON, type AuthenticationCreds, type BinaryNode, type WAMessage } from 'baileys'
import { pino } from 'pino'
import sharp from 'sharp'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { BaileysSession, type BaileysChannelOptions } from '../../../src/main/channel/baileys/baileys-session'
import { WaVersionSource } from '../../../src/main/channel/baileys/wa-version'
import { ChannelError, type ChannelContext, type ChatIdentity, type InboundMessage, type SendLimits, type MessageStatusUpdate, type StateUpdate } from '../../../src/main/channel/types'
import { openTestChannelStore, type TestChannelStore } from '../../helpers/channel-store'
import { FakeClock, fakeSocketFactory, waMessage, type FakeSocket } from '../../helpers/fake-baileys'

let root: string
let db: TestChannelStore
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'chatapp-bs-'))
  db = await openTestChannelStore()
})
afterEach(async () => {
  await db.close()
  await rm(root, { recursive: true, force: true })
})

/** A session of `instanceId` on the test's database (a second setup with the same id = an app restart). */
function setup(opts: Partial<BaileysChannelOptions> = {}, instanceId = 'i1') {
  const clock = new FakeClock()
  const factory = fakeSocketFactory()
  const states: StateUpdate[] = []
  const qrs: string[] = []
  const inbound: InboundMessage[] = []
  const statuses: MessageStatusUpdate[] = []
  const identities: ChatIdentity[] = []
  const limits: SendLimits[] = []
  const ctx: ChannelContext = {
    instanceId,
    store: db.store,
    logger: pino({ level: 'silent' }),
    hooks: {
      onState: (u) => states.push(u),
      onQr: (q) => qrs.push(q),
      onMessage: async (m) => {
        inbound.push(m)
      },
      onMessageStatus: (u) => statuses.push(u),
      onChatIdentity: (i) => identities.push(i),
      onLimits: (l) => limits.push(l),
      onHistory: async () => ({ added: 0 }), onMessageChange: async () => {}
    }
  }
  const session = new BaileysSession(ctx, {
    socketFactory: factory,
    fetchVersion: null,
    timers: clock,
    random: () => 0.5,
    sendPacing: { minIntervalMs: 0, jitterMs: 0 },
    composingMs: 0,
    ...opts
  })
  const sockets = factory.sockets
  const lastState = () => states[states.length - 1]
  /** Waits for the n-th socket (1-based) to exist. */
  const socket = async (n: number): Promise<FakeSocket> => {
    await vi.waitFor(() => expect(sockets.length).toBeGreaterThanOrEqual(n))
    return sockets[n - 1]!
  }
  return { clock, factory, sockets, socket, session, states, qrs, inbound, statuses, identities, limits, ctx, instanceId, lastState }
}

type Setup = ReturnType<typeof setup>

/** start → QR → scan → 515 → new socket → open. */
async function linked(t: Setup): Promise<FakeSocket> {
  await t.session.start()
  const s1 = await t.socket(1)
  s1.connecting()
  s1.qr()
  await s1.pairAndRestart()
  expect(t.clock.pendingDelays()).toEqual([0])
  t.clock.fireNext()
  const s2 = await t.socket(2)
  s2.open()
  expect(t.session.currentState).toBe('CONNECTED')
  return s2
}

/** The creds as stored in the database. */
const savedCreds = async (t: Setup) => JSON.parse((await db.store.auth.creds(t.instanceId)) ?? 'null', BufferJSON.reviver) as AuthenticationCreds
/** True while anything of the instance's credentials or kept messages is stored. */
const stored = async (t: Setup) => (await db.store.auth.has(t.instanceId)) || (await db.store.messages.count(t.instanceId)) > 0

describe('connection lifecycle', () => {
  it('start makes one socket with the session config; start is idempotent', async () => {
    const t = setup()
    await t.session.start()
    await t.session.start()
    expect(t.sockets).toHaveLength(1)
    expect(t.states.map((s) => s.state)).toEqual(['CONNECTING'])
    const cfg = t.sockets[0]!.config
    expect(cfg.markOnlineOnConnect).toBe(false)
    expect(cfg.syncFullHistory).toBe(false)
    expect(cfg.logger?.level).toBe('silent') // the app level is stricter than warn here
    // Both caches keep what they are given (Baileys reads and writes them through CacheStore).
    for (const cache of [cfg.msgRetryCounterCache, cfg.userDevicesCache]) {
      await cache!.set('probe', 7)
      expect(await cache!.get('probe')).toBe(7)
    }
    expect(cfg.auth.creds.me).toBeUndefined()
    expect(cfg.browser?.[1]).toBe('Chrome')
  })

  it('the library logger is at warn when the app logs more', async () => {
    const t = setup()
    ;(t.ctx as { logger: unknown }).logger = pino({ level: 'debug' }, { write: () => {} })
    const s = new BaileysSession(t.ctx, { socketFactory: t.factory, timers: t.clock, fetchVersion: null })
    await s.start()
    expect(t.sockets[0]!.config.logger?.level).toBe('warn')
    await s.stop()
  })

  it('QR codes rotate: every one goes to onQr, the state QR is reported once', async () => {
    const t = setup()
    await t.session.start()
    const s = await t.socket(1)
    s.connecting()
    const q1 = s.qr('r1')
    const q2 = s.qr('r2')
    const q3 = s.qr('r3')
    expect(t.qrs).toEqual([q1, q2, q3])
    expect(t.states.map((u) => u.state)).toEqual(['CONNECTING', 'QR'])
  })

  it('companion_reg_refresh: a new 32-byte secret is saved and the current QR is shown again with it; later QRs carry it too (Baileys #2737)', async () => {
    const t = setup()
    await t.session.start()
    const s = await t.socket(1)
    s.connecting()
    const oldSecret = s.creds.advSecretKey
    const q1 = s.qr('r1')
    s.ws.emit('CB:notification,type:companion_reg_refresh', { tag: 'notification', attrs: { type: 'companion_reg_refresh' } })
    const newSecret = s.creds.advSecretKey
    expect(newSecret).not.toBe(oldSecret)
    expect(Buffer.from(newSecret, 'base64')).toHaveLength(32)
    expect(t.qrs).toEqual([q1, q1.replace(oldSecret, newSecret)])
    await vi.waitFor(async () => expect((await savedCreds(t)).advSecretKey).toBe(newSecret))
    // The library's next rotation still builds the QR from the secret it captured (socket.js genPairQR).
    const stale = `https://wa.me/settings/linked_devices#r2,noise,identity,${oldSecret},chrome`
    s.emit('connection.update', { qr: stale })
    expect(t.qrs.at(-1)).toBe(stale.replace(oldSecret, newSecret))
  })

  it('companion_reg_refresh after the phone answered a pairing-code stage 2 keeps the secret (whatsapp-rust PR #1163)', async () => {
    const t = setup()
    await t.session.start()
    const s = await t.socket(1)
    s.connecting()
    s.qr('r1')
    const secret = s.creds.advSecretKey
    s.ws.emit('CB:notification,type:link_code_companion_reg', { tag: 'notification', attrs: { type: 'link_code_companion_reg' } })
    s.ws.emit('CB:notification,type:companion_reg_refresh', { tag: 'notification', attrs: { type: 'companion_reg_refresh' } })
    expect(s.creds.advSecretKey).toBe(secret)
    expect(t.qrs).toHaveLength(1)
  })

  it('scan → 515 restart at once → a second socket with the same creds → CONNECTED with the account', async () => {
    const t = setup()
    const s2 = await linked(t)
    const s1 = t.sockets[0]!
    expect(s1.listenerCount()).toBe(0)
    expect(s2.config.auth.creds).toBe(s1.config.auth.creds)
    expect(s2.config.auth.creds.me?.id).toBe('15550001111:7@s.whatsapp.net')
    expect(t.states.map((u) => u.state)).toEqual(['CONNECTING', 'QR', 'CONNECTING', 'CONNECTED'])
    expect(t.lastState()).toEqual({
      state: 'CONNECTED',
      account: { id: '15550001111@s.whatsapp.net', name: '', phone: '15550001111', lid: '987654321012345@lid' }
    })
    // creds.update was persisted atomically.
    await vi.waitFor(async () => expect((await savedCreds(t)).me?.id).toBe('15550001111:7@s.whatsapp.net'))
    expect((await savedCreds(t)).account).toBeTruthy()
  })

  it('a later creds.update with the push name re-reports CONNECTED with the name', async () => {
    const t = setup()
    const s = await linked(t)
    s.emit('creds.update', { me: { ...s.creds.me!, name: 'Pizza Shop' } })
    expect(t.lastState()).toMatchObject({ state: 'CONNECTED', account: { name: 'Pizza Shop', phone: '15550001111' } })
    await vi.waitFor(async () => expect((await savedCreds(t)).me?.name).toBe('Pizza Shop'))
  })

  it('a restart with saved creds reconnects without a QR', async () => {
    const t = setup()
    await linked(t)
    await t.session.stop()
    const t2 = setup({}, t.instanceId)
    await t2.session.start()
    const s = await t2.socket(1)
    expect(s.config.auth.creds.me?.id).toBe('15550001111:7@s.whatsapp.net')
    expect(s.config.auth.creds.account).toBeTruthy()
    s.open()
    expect(t2.states.map((u) => u.state)).toEqual(['CONNECTING', 'CONNECTED'])
    expect(t2.qrs).toEqual([])
  })

  it('stop closes the socket, removes its listeners, keeps the creds and reports DISCONNECTED', async () => {
    const t = setup()
    const s = await linked(t)
    await t.session.stop()
    expect(s.end).toHaveBeenCalledTimes(1)
    expect(s.listenerCount()).toBe(0)
    expect(t.session.hasSocket).toBe(false)
    expect(t.lastState()).toEqual({ state: 'DISCONNECTED', reason: 'stopped' })
    expect((await savedCreds(t)).me?.id).toBeTruthy()
    await t.session.stop()
    expect(t.states.filter((u) => u.state === 'DISCONNECTED')).toHaveLength(1)
  })
})

describe('reconnect with backoff', () => {
  const enotfound = 'WebSocket Error (getaddrinfo ENOTFOUND web.whatsapp.com)'

  it('follows 1 s, 2 s, 4 s … capped at 60 s, one socket at a time, never spinning', async () => {
    const t = setup()
    await t.session.start()
    const delays: number[] = []
    for (let i = 1; i <= 9; i++) {
      const s = await t.socket(i)
      s.connecting()
      await s.close(408, enotfound)
      expect(s.listenerCount()).toBe(0)
      expect(t.session.hasSocket).toBe(false)
      // Nothing is made until the timer fires.
      await new Promise((r) => setImmediate(r))
      expect(t.sockets).toHaveLength(i)
      expect(t.clock.pending).toBe(1)
      delays.push(t.clock.fireNext()!)
    }
    expect(delays).toEqual([1000, 2000, 4000, 8000, 16000, 32000, 60000, 60000, 60000])
    expect(t.states.every((u) => u.state === 'CONNECTING')).toBe(true)
    expect(t.states[1]).toEqual({ state: 'CONNECTING', reason: 'connection failed: getaddrinfo ENOTFOUND web.whatsapp.com (408), retrying in 1 s' })
    expect(t.states[3]!.reason).toMatch(/retrying in 4 s$/)
  })

  it('jitter comes from the injected random', async () => {
    const t = setup({ random: () => 0 })
    await t.session.start()
    await (await t.socket(1)).close(428, 'Connection Closed')
    expect(t.clock.pendingDelays()).toEqual([800])
  })

  it('the schedule starts over after a connection that stayed open (not after any open)', async () => {
    const t = setup()
    const s = await linked(t)
    await s.close(428)
    expect(t.clock.fireNext()).toBe(1000)
    await (await t.socket(3)).close(503)
    expect(t.clock.fireNext()).toBe(2000)
    const s4 = await t.socket(4)
    s4.open()
    t.clock.advance(60_000)
    await s4.close(428)
    expect(t.clock.fireNext()).toBe(1000)
  })

  it('stop during a pending retry clears the timer: no socket appears later', async () => {
    const t = setup()
    await t.session.start()
    await (await t.socket(1)).close(408, enotfound)
    expect(t.session.reconnectPending).toBe(true)
    await t.session.stop()
    expect(t.session.reconnectPending).toBe(false)
    expect(t.clock.pending).toBe(0)
    t.clock.advance(120_000)
    // Started again, the session makes its second socket: one of the cleared retry would have come first.
    const statesBefore = t.states.length
    await t.session.start()
    await t.socket(2)
    expect(t.sockets).toHaveLength(2)
    expect(t.states.slice(statesBefore).map((s) => s.state)).toEqual(['CONNECTING'])
  })

  it('515 restarts at once three times in a row, then backs off', async () => {
    const t = setup()
    await t.session.start()
    const delays: number[] = []
    for (let i = 1; i <= 4; i++) {
      await (await t.socket(i)).close(515, 'Stream Errored (restart required)')
      delays.push(t.clock.fireNext()!)
    }
    expect(delays).toEqual([0, 0, 0, 1000])
  })

  it('a socket that cannot even be made counts as a failed attempt', async () => {
    const t = setup({
      socketFactory: () => {
        throw new TypeError('Invalid URL')
      }
    })
    await t.session.start()
    expect(t.lastState()).toEqual({ state: 'CONNECTING', reason: 'connection failed: Invalid URL, retrying in 1 s' })
    expect(t.clock.pendingDelays()).toEqual([1000])
  })

  it('the current WA Web version is fetched at start; a 405 fetches it again before the next attempt', async () => {
    let minor = 1099999999
    const fetchVersion = vi.fn(async () => [2, 3000, minor++] as [number, number, number])
    const t = setup({ fetchVersion, versions: new WaVersionSource({ fetch: fetchVersion, now: () => 0, refreshGapMs: 0 }) })
    await t.session.start()
    expect((await t.socket(1)).config.version).toEqual([2, 3000, 1099999999])
    await (await t.socket(1)).close(405, 'Connection Failure')
    t.clock.fireNext()
    const s2 = await t.socket(2)
    expect(fetchVersion).toHaveBeenCalledTimes(2)
    expect(s2.config.version).toEqual([2, 3000, 1100000000])
  })

  it('the kept WA Web version survives a failed fetch at start; a 405 replaces it with the one the page names then', async () => {
    // A store of its own: the kept version is app-wide and would leak into the other tests' sessions.
    const own = await openTestChannelStore()
    try {
      await own.store.waWebVersion.setWaWebVersion({ version: [2, 3000, 1099999990], fetchedAt: '2026-11-01T00:00:00.000Z' })
      let answer: [number, number, number] | undefined
      const fetchVersion = vi.fn(async () => answer)
      const t = setup({ versions: new WaVersionSource({ fetch: fetchVersion, memory: own.store.waWebVersion, now: () => 0, refreshGapMs: 0 }) })
      await t.session.start()
      expect((await t.socket(1)).config.version).toEqual([2, 3000, 1099999990])
      answer = [2, 3000, 1099999991]
      await (await t.socket(1)).close(405, 'Connection Failure')
      t.clock.fireNext()
      expect((await t.socket(2)).config.version).toEqual([2, 3000, 1099999991])
      expect(own.store.waWebVersion.waWebVersion()?.version).toEqual([2, 3000, 1099999991])
      await t.session.stop()
    } finally {
      await own.close()
    }
  })
})

describe('terminal closes', () => {
  for (const code of [401, 403, 419]) {
    it(`${code}: LOGGED_OUT, creds deleted, no reconnect; init again starts fresh with a QR`, async () => {
      const t = setup()
      const s = await linked(t)
      await s.close(code, 'Connection Failure')
      await vi.waitFor(() => expect(t.lastState()?.state).toBe('LOGGED_OUT'))
      expect(t.lastState()!.reason).toContain(`(${code})`)
      expect(await stored(t)).toBe(false)
      expect(t.clock.pending).toBe(0)
      expect(t.session.hasSocket).toBe(false)
      await t.session.start()
      const fresh = t.sockets[t.sockets.length - 1]!
      expect(fresh.config.auth.creds.me).toBeUndefined()
      fresh.qr()
      expect(t.session.currentState).toBe('QR')
    })
  }

  it('QR expired without a scan (408 after QRs): DISCONNECTED, no retry', async () => {
    const t = setup()
    await t.session.start()
    const s = await t.socket(1)
    s.qr()
    s.qr()
    await s.close(408, 'QR refs attempts ended')
    await vi.waitFor(() => expect(t.lastState()?.state).toBe('DISCONNECTED'))
    expect(t.lastState()!.reason).toMatch(/QR code expired/)
    expect(t.clock.pending).toBe(0)
    expect(t.sockets).toHaveLength(1)
  })

  it('440 replaced: CONNECTING with the reason, one reconnect after 30 s with the creds; a second 440 within 10 min stops (DISCONNECTED, creds kept)', async () => {
    const t = setup()
    const s2 = await linked(t)
    await s2.close(440, 'Stream Errored (conflict)')
    await vi.waitFor(() => expect(t.lastState()).toEqual({ state: 'CONNECTING', reason: 'another WhatsApp Web client took over this session (Stream Errored (conflict) (440)); reconnecting in 30 s' }))
    expect(t.clock.pendingDelays()).toEqual([30_000])
    t.clock.advance(30_000)
    const s3 = await t.socket(3)
    s3.open()
    t.clock.advance(5 * 60_000)
    await s3.close(440, 'Stream Errored (conflict)')
    await vi.waitFor(() => expect(t.lastState()?.state).toBe('DISCONNECTED'))
    expect(t.lastState()!.reason).toMatch(/took over this session again within 10 min .*stopped.*call init/)
    expect(t.clock.pending).toBe(0)
    expect((await savedCreds(t)).me).toBeTruthy()
  })

  it('440s more than 10 min apart are each retried', async () => {
    const t = setup()
    const s2 = await linked(t)
    await s2.close(440, 'Stream Errored (conflict)')
    t.clock.advance(30_000)
    const s3 = await t.socket(3)
    s3.open()
    t.clock.advance(11 * 60_000)
    await s3.close(440, 'Stream Errored (conflict)')
    await vi.waitFor(() => expect(t.clock.pendingDelays()).toEqual([30_000]))
    expect(t.lastState()?.state).toBe('CONNECTING')
  })

  it('411 is fatal', async () => {
    const t = setup()
    const s = await linked(t)
    await s.close(411, 'Multi-device beta not joined')
    await vi.waitFor(() => expect(t.lastState()).toEqual({ state: 'DISCONNECTED', reason: 'stopped: Multi-device beta not joined (411)' }))
  })

  it('500 again and again on a paired device: retried on the slower server-error schedule, never logged out, creds kept', async () => {
    const t = setup()
    await linked(t)
    const delays: number[] = []
    for (let n = 2; n <= 9; n++) {
      await (await t.socket(n)).close(500, 'Stream Errored (bad-session)')
      delays.push(t.clock.fireNext()!)
    }
    expect(delays).toEqual([5000, 10000, 20000, 40000, 80000, 160000, 300000, 300000])
    expect(t.states.some((u) => u.state === 'LOGGED_OUT')).toBe(false)
    expect(t.lastState()).toEqual({ state: 'CONNECTING', reason: 'WhatsApp server error: Stream Errored (bad-session) (500), retrying in 5 min' })
    expect((await savedCreds(t)).me).toBeTruthy()
  })

  it('a server that drops every connection 300 ms after login gets at most a handful of logins a minute (the backoff resets only after 60 s open)', async () => {
    const t = setup({ random: () => 0.5 })
    await linked(t)
    const connects: number[] = []
    const start = t.clock.now()
    for (let n = 2; t.clock.now() - start < 10 * 60_000; n++) {
      t.clock.advance(300)
      await (await t.socket(n)).close(428, 'Connection Terminated')
      t.clock.fireNext()
      const next = await t.socket(n + 1)
      connects.push(t.clock.now() - start)
      next.open()
    }
    const perMinute = (m: number) => connects.filter((at) => at >= m * 60_000 && at < (m + 1) * 60_000).length
    expect(perMinute(0)).toBeLessThanOrEqual(6)
    for (let m = 2; m < 10; m++) expect(perMinute(m)).toBeLessThanOrEqual(1)
  })

  it('a connection that stayed open for 60 s starts the backoff over', async () => {
    const t = setup()
    const s2 = await linked(t)
    await s2.close(428, 'Connection Terminated')
    expect(t.clock.fireNext()).toBe(1000)
    const s3 = await t.socket(3)
    s3.open()
    t.clock.advance(300)
    await s3.close(428, 'Connection Terminated')
    expect(t.clock.fireNext()).toBe(2000)
    const s4 = await t.socket(4)
    s4.open()
    t.clock.advance(60_000)
    await s4.close(428, 'Connection Terminated')
    expect(t.clock.pendingDelays()).toEqual([1000])
  })
})

describe('logout', () => {
  it('deletes the creds, the Signal keys and the kept messages; late updates of the dying socket store nothing', async () => {
    const t = setup()
    const s = await linked(t)
    const sent = await t.session.send('15551234567', { kind: 'text', text: 'kept for retries' })
    await s.config.auth.keys.set({ session: { '15551234567.0': new Uint8Array([1, 2]) } })
    await vi.waitFor(async () => expect(await db.store.messages.count(t.instanceId)).toBe(1))
    expect(await db.store.auth.countKeys(t.instanceId)).toBe(1)
    await t.session.logout()
    expect(await stored(t)).toBe(false)
    s.emit('creds.update', { me: { id: '15550001111:7@s.whatsapp.net', name: 'late' } })
    await s.config.auth.keys.set({ session: { late: new Uint8Array([3]) } })
    expect(await stored(t)).toBe(false)
    expect(await s.config.getMessage!({ id: sent.key.id, remoteJid: sent.key.remoteJid })).toBeUndefined()
  })

  it('connected: unlinks on the server, ends the socket, deletes the creds, LOGGED_OUT', async () => {
    const t = setup()
    const s = await linked(t)
    await t.session.logout()
    expect(s.logout).toHaveBeenCalledTimes(1)
    expect(s.listenerCount()).toBe(0)
    expect(await stored(t)).toBe(false)
    expect(t.lastState()).toEqual({ state: 'LOGGED_OUT', reason: 'logged out' })
    expect(t.clock.pending).toBe(0)
  })

  it('a failing server logout is tolerated', async () => {
    const t = setup()
    const s = await linked(t)
    s.logout.mockRejectedValueOnce(new Boom('Connection Closed', { statusCode: 428 }))
    await t.session.logout()
    expect(await stored(t)).toBe(false)
    expect(t.lastState()?.state).toBe('LOGGED_OUT')
  })

  it('a server that never answers does not block logout', async () => {
    const t = setup({ logoutTimeoutMs: 5000 })
    const s = await linked(t)
    s.logout.mockImplementationOnce(() => new Promise(() => {}))
    const done = t.session.logout()
    await vi.waitFor(() => expect(t.clock.pendingDelays()).toContain(5000))
    t.clock.advance(5000)
    await done
    expect(await stored(t)).toBe(false)
  })

  it('not started: just deletes the creds', async () => {
    const t = setup()
    await linked(t)
    await t.session.stop()
    const t2 = setup({}, t.instanceId)
    await t2.session.logout()
    expect(t2.sockets).toHaveLength(0)
    expect(await stored(t)).toBe(false)
    expect(t2.lastState()?.state).toBe('LOGGED_OUT')
  })

  it('while showing a QR: no server logout, creds deleted', async () => {
    const t = setup()
    await t.session.start()
    const s = await t.socket(1)
    s.qr()
    await t.session.logout()
    expect(s.logout).not.toHaveBeenCalled()
    expect(s.end).toHaveBeenCalled()
    expect(await stored(t)).toBe(false)
  })
})

describe('pairing code', () => {
  it('in state QR: registers the code with the server (an OS in the display, never the product name) and answers it once accepted', async () => {
    const t = setup()
    await t.session.start()
    const s = await t.socket(1)
    s.qr()
    const code = await t.session.requestPairingCode('+1 (555) 000-1111')
    expect(code).toMatch(/^[0-9A-Z]{8}$/)
    const stanza = s.query.mock.calls[0]![0] as BinaryNode
    const reg = (stanza.content as BinaryNode[])[0]!
    expect(reg.attrs).toMatchObject({ jid: '15550001111@s.whatsapp.net', stage: 'companion_hello' })
    const display = (reg.content as BinaryNode[]).find((c) => c.tag === 'companion_platform_display')!.content
    expect(display).toMatch(/^Chrome \((Windows|Mac OS|Linux)\)$/)
    expect(s.creds.pairingCode).toBe(code)
    expect(s.creds.me?.id).toBe('15550001111@s.whatsapp.net')
  })

  it('the server refuses the registration: PAIRING_REFUSED with its code, no code and no creds.me (PR #2769)', async () => {
    const t = setup()
    await t.session.start()
    const s = await t.socket(1)
    s.qr()
    s.queryAnswer = new Boom('bad-request', { data: 400 })
    await expect(t.session.requestPairingCode('15550001111')).rejects.toMatchObject({ code: 'PAIRING_REFUSED', message: expect.stringMatching(/refused.*400/) })
    expect(s.creds.me).toBeUndefined()
  })

  it('before the socket is ready: waits for the first QR (a request before it gets 428)', async () => {
    const t = setup()
    await t.session.start()
    const s = await t.socket(1)
    const pending = t.session.requestPairingCode('15550001111')
    await new Promise((r) => setImmediate(r))
    expect(s.query).not.toHaveBeenCalled()
    s.qr()
    await expect(pending).resolves.toMatch(/^[0-9A-Z]{8}$/)
  })

  it('gives up after pairingWaitMs, and fails fast while waiting out a backoff', async () => {
    const t = setup({ pairingWaitMs: 30_000 })
    await t.session.start()
    const pending = t.session.requestPairingCode('15550001111')
    t.clock.advance(30_000)
    await expect(pending).rejects.toMatchObject({ code: 'NOT_STARTED' })
    await (await t.socket(1)).close(408, 'WebSocket Error (getaddrinfo ENOTFOUND web.whatsapp.com)')
    await expect(t.session.requestPairingCode('15550001111')).rejects.toThrow(/ENOTFOUND/)
  })

  it('not started / already linked', async () => {
    const t = setup()
    await expect(t.session.requestPairingCode('15550001111')).rejects.toMatchObject({ code: 'NOT_STARTED' })
    await linked(t)
    await expect(t.session.requestPairingCode('15550001111')).rejects.toMatchObject({ code: 'ALREADY_PAIRED' })
  })

  it('a connection lost mid-pairing starts over from fresh creds (creds.me alone cannot log in)', async () => {
    const t = setup()
    await t.session.start()
    const s1 = await t.socket(1)
    s1.qr()
    await t.session.requestPairingCode('15550001111')
    expect(s1.creds.me?.id).toBe('15550001111@s.whatsapp.net')
    await s1.close(428, 'Connection Closed')
    t.clock.fireNext()
    const s2 = await t.socket(2)
    expect(s2.config.auth.creds.me).toBeUndefined()
    expect(s2.config.auth.creds.noiseKey.public).not.toEqual(s1.creds.noiseKey.public)
  })

  it('the pairing code expiring with the QR: DISCONNECTED and the half-made creds are gone', async () => {
    const t = setup()
    await t.session.start()
    const s1 = await t.socket(1)
    s1.qr()
    await t.session.requestPairingCode('15550001111')
    await vi.waitFor(async () => expect((await savedCreds(t)).me).toBeTruthy())
    await s1.close(408, 'QR refs attempts ended')
    await vi.waitFor(() => expect(t.lastState()?.state).toBe('DISCONNECTED'))
    expect(await db.store.auth.creds(t.instanceId)).toBeUndefined()
  })
})

describe('sends', () => {
  async function files() {
    const png = join(root, 'pic.png')
    await sharp({ create: { width: 8, height: 6, channels: 3, background: '#f80' } }).png().toFile(png)
    const pdf = join(root, 'menu.pdf')
    await writeFile(pdf, '%PDF-1.4\n% test\n')
    const ogg = join(root, 'voice.ogg')
    await writeFile(ogg, Buffer.concat([Buffer.from('OggS'), Buffer.alloc(60)]))
    const mp4 = join(root, 'clip.mp4')
    await writeFile(mp4, Buffer.concat([Buffer.from([0, 0, 0, 0x18]), Buffer.from('ftypmp42'), Buffer.alloc(40)]))
    return { png, pdf, ogg, mp4 }
  }

  it('not connected: NOT_CONNECTED, nothing sent', async () => {
    const t = setup()
    await expect(t.session.send('15551234567', { kind: 'text', text: 'x' })).rejects.toMatchObject({ code: 'NOT_CONNECTED' })
  })

  it('text: chatId normalised from a phone number; result is the docs/api-seed.md §2.11 shape', async () => {
    const t = setup()
    const s = await linked(t)
    const sent = await t.session.send('+1 555 123 4567', { kind: 'text', text: 'Hello' })
    expect(s.sendMessage).toHaveBeenCalledWith('15551234567@s.whatsapp.net', { text: 'Hello' })
    expect(sent).toEqual({
      key: { remoteJid: '15551234567@s.whatsapp.net', fromMe: true, id: expect.any(String) },
      message: { extendedTextMessage: { text: 'Hello' } },
      messageTimestamp: expect.stringMatching(/^\d+$/),
      status: 'PENDING'
    })
  })

  it('JIDs of every kind pass through normalised (user with device, group, LID)', async () => {
    const t = setup()
    const s = await linked(t)
    await t.session.send('15551234567:3@s.whatsapp.net', { kind: 'text', text: 'a' })
    await t.session.send('120363025246125888@g.us', { kind: 'text', text: 'b' })
    await t.session.send('201234567890123@lid', { kind: 'text', text: 'c' })
    expect(s.sendMessage.mock.calls.map((c) => c[0])).toEqual(['15551234567@s.whatsapp.net', '120363025246125888@g.us', '201234567890123@lid'])
    await expect(t.session.send('not a number', { kind: 'text', text: 'x' })).rejects.toMatchObject({ code: 'SEND_FAILED' })
  })

  it('image, video, audio, voice note, document, location and contact: call shapes and results', async () => {
    const f = await files()
    const t = setup()
    const s = await linked(t)
    const to = '15551234567@s.whatsapp.net'
    const img = await t.session.send(to, { kind: 'image', media: { path: f.png, mimetype: 'image/png', size: 1 }, caption: 'Menu' })
    const vid = await t.session.send(to, { kind: 'video', media: { path: f.mp4, mimetype: 'video/mp4', size: 1 }, caption: 'Clip' })
    const aud = await t.session.send(to, { kind: 'audio', media: { path: f.ogg, mimetype: 'audio/ogg', size: 1 } })
    const ptt = await t.session.send(to, { kind: 'audio', media: { path: f.ogg, mimetype: 'audio/ogg', size: 1 }, voiceNote: true })
    const doc = await t.session.send(to, { kind: 'document', media: { path: f.pdf, mimetype: 'application/pdf', size: 1 }, fileName: 'Menu.pdf', caption: 'Our menu' })
    const loc = await t.session.send(to, { kind: 'location', latitude: 48.85, longitude: 2.35, name: 'Shop' })
    const vcf = 'BEGIN:VCARD\nVERSION:3.0\nFN:Bob\nTEL;type=CELL;waid=15550002222:+15550002222\nEND:VCARD'
    const card = await t.session.send(to, { kind: 'contact', displayName: 'Bob', vcard: vcf })

    expect(s.sendMessage.mock.calls.map((c) => c[1])).toEqual([
      { image: { url: f.png }, mimetype: 'image/png', caption: 'Menu' },
      { video: { url: f.mp4 }, mimetype: 'video/mp4', caption: 'Clip' },
      { audio: { url: f.ogg }, mimetype: 'audio/ogg', ptt: false },
      { audio: { url: f.ogg }, mimetype: 'audio/ogg; codecs=opus', ptt: true },
      { document: { url: f.pdf }, mimetype: 'application/pdf', fileName: 'Menu.pdf', caption: 'Our menu' },
      { location: { degreesLatitude: 48.85, degreesLongitude: 2.35, name: 'Shop' } },
      { contacts: { displayName: 'Bob', contacts: [{ displayName: 'Bob', vcard: vcf }] } }
    ])
    const im = img.message.imageMessage as Record<string, unknown>
    expect(im).toMatchObject({ mimetype: 'image/png', caption: 'Menu', width: 8, height: 6, fileLength: String((await readFile(f.png)).length) })
    for (const field of ['fileSha256', 'fileEncSha256', 'mediaKey']) expect(im[field]).toMatch(/^[A-Za-z0-9+/]+=*$/)
    expect(im.mediaKeyTimestamp).toMatch(/^\d+$/)
    expect(im.url).toMatch(/^https:\/\/mmg\.whatsapp\.net\//)
    expect(img.status).toBe('PENDING')
    expect(vid.message.videoMessage).toMatchObject({ caption: 'Clip', mimetype: 'video/mp4' })
    expect(aud.message.audioMessage).toMatchObject({ mimetype: 'audio/ogg' })
    expect(ptt.message.audioMessage).toMatchObject({ ptt: true, mimetype: 'audio/ogg; codecs=opus' })
    expect(doc.message.documentMessage).toMatchObject({ fileName: 'Menu.pdf', caption: 'Our menu', mimetype: 'application/pdf' })
    expect(loc.message).toEqual({ locationMessage: { degreesLatitude: 48.85, degreesLongitude: 2.35, name: 'Shop' } })
    expect(card.message.contactMessage).toEqual({ displayName: 'Bob', vcard: vcf })
    // The library never deleted our files.
    expect(existsSync(f.png) && existsSync(f.pdf) && existsSync(f.ogg)).toBe(true)
  })

  it('bot replies show "composing" first; sends stay in order', async () => {
    const t = setup()
    const s = await linked(t)
    const order: string[] = []
    s.sendPresenceUpdate.mockImplementation(async (type, jid) => void order.push(`${type}:${jid}`))
    s.sendMessage.mockImplementation(async (jid, content) => {
      order.push(`send:${(content as { text: string }).text}`)
      return waMessage({ key: { remoteJid: jid, fromMe: true, id: `ID-${order.length}` }, message: { conversation: (content as { text: string }).text } })
    })
    await Promise.all([
      t.session.send('15551234567', { kind: 'text', text: 'one' }, { composing: true }),
      t.session.send('15551234567', { kind: 'text', text: 'two' }),
      t.session.send('15551234567', { kind: 'text', text: 'three' }, { composing: true })
    ])
    expect(order).toEqual(['composing:15551234567@s.whatsapp.net', 'send:one', 'send:two', 'composing:15551234567@s.whatsapp.net', 'send:three'])
  })

  it('paces sends with the minimum interval and jitter', async () => {
    const t = setup({ sendPacing: { minIntervalMs: 1000, jitterMs: 400 }, random: () => 0.5 })
    const s = await linked(t)
    const first = t.session.send('15551234567', { kind: 'text', text: '1' })
    const second = t.session.send('15551234567', { kind: 'text', text: '2' })
    await first
    await vi.waitFor(() => expect(t.clock.pendingDelays()).toEqual([1200]))
    expect(s.sendMessage).toHaveBeenCalledTimes(1)
    t.clock.advance(1200)
    await second
    expect(s.sendMessage).toHaveBeenCalledTimes(2)
  })

  it('a library failure is SEND_FAILED; a closed connection is NOT_CONNECTED', async () => {
    const t = setup()
    const s = await linked(t)
    s.sendMessage.mockRejectedValueOnce(new Boom('All encryptions failed', { statusCode: 500 }))
    await expect(t.session.send('15551234567', { kind: 'text', text: 'x' })).rejects.toMatchObject({ code: 'SEND_FAILED' })
    s.sendMessage.mockRejectedValueOnce(new Boom('Connection Closed', { statusCode: 428 }))
    await expect(t.session.send('15551234567', { kind: 'text', text: 'x' })).rejects.toMatchObject({ code: 'NOT_CONNECTED' })
  })

  it('queued sends fail with NOT_CONNECTED when the connection drops', async () => {
    const t = setup({ sendPacing: { minIntervalMs: 1000, jitterMs: 0 } })
    const s = await linked(t)
    const first = t.session.send('15551234567', { kind: 'text', text: '1' })
    const second = t.session.send('15551234567', { kind: 'text', text: '2' })
    await first
    await s.close(428)
    await expect(second).rejects.toBeInstanceOf(ChannelError)
    await expect(second).rejects.toMatchObject({ code: 'NOT_CONNECTED' })
  })
})

describe('inbound', () => {
  const PN = '15551234567@s.whatsapp.net'
  const text = (id: string, body: string, extra: Partial<WAMessage['key']> = {}) =>
    waMessage({ key: { remoteJid: PN, fromMe: false, id, ...extra }, message: { conversation: body }, pushName: 'Ana' })

  it('live notify messages go to onMessage in order, not offline', async () => {
    const t = setup()
    const s = await linked(t)
    s.upsert([text('A', 'hi'), text('B', 'menu')])
    await t.session.inboundSettled()
    expect(t.inbound.map((m) => [m.id, m.text, m.offline, m.pushName])).toEqual([
      ['A', 'hi', false, 'Ana'],
      ['B', 'menu', false, 'Ana']
    ])
  })

  it('offline backlog: before receivedPendingNotifications, and append of others’ messages', async () => {
    const t = setup()
    await linked(t)
    await t.session.stop()
    await t.session.start()
    const s = t.sockets[t.sockets.length - 1]!
    s.open({ pendingDone: false })
    s.upsert([text('OFF1', 'while away')], 'notify')
    s.emit('connection.update', { receivedPendingNotifications: true })
    s.upsert([text('OFF2', 'late append')], 'append')
    s.upsert([text('LIVE', 'now')], 'notify')
    await t.session.inboundSettled()
    expect(t.inbound.map((m) => [m.id, m.offline])).toEqual([
      ['OFF1', true],
      ['OFF2', true],
      ['LIVE', false]
    ])
  })

  it('own sends echoed by the library are not inbound; messages sent from the phone are (fromMe)', async () => {
    const t = setup()
    const s = await linked(t)
    const sent = await t.session.send(PN, { kind: 'text', text: 'from the API' })
    await new Promise((r) => process.nextTick(r))
    await new Promise((r) => setImmediate(r))
    expect(s.sendMessage).toHaveBeenCalled()
    await t.session.inboundSettled()
    expect(t.inbound.find((m) => m.id === sent.key.id)).toBeUndefined()
    s.upsert([text('PHONE1', 'typed on the phone', { fromMe: true })], 'notify')
    await t.session.inboundSettled()
    expect(t.inbound).toHaveLength(1)
    expect(t.inbound[0]).toMatchObject({ id: 'PHONE1', fromMe: true, offline: false })
  })

  it('reactions and protocol messages are dropped, a CIPHERTEXT stub is a placeholder; group messages carry the participant', async () => {
    const t = setup()
    const s = await linked(t)
    s.upsert([
      waMessage({ key: { remoteJid: PN, fromMe: false, id: 'R' }, message: { reactionMessage: { text: '❤', key: { id: 'A' } } } }),
      waMessage({ key: { remoteJid: PN, fromMe: false, id: 'P' }, message: { protocolMessage: { type: 0 } } }),
      waMessage({ key: { remoteJid: PN, fromMe: false, id: 'S' }, messageStubType: 2 }),
      waMessage({
        key: { remoteJid: '120363025246125888@g.us', participant: '201234567890123@lid', participantAlt: PN, fromMe: false, id: 'G' },
        message: { extendedTextMessage: { text: 'hello group' } },
        pushName: 'Ana'
      })
    ])
    await t.session.inboundSettled()
    expect(t.inbound.map((m) => [m.id, m.type])).toEqual([
      ['S', 'undecryptable'],
      ['G', 'text']
    ])
    expect(t.inbound[1]).toMatchObject({ id: 'G', chatId: '120363025246125888@g.us', senderId: '201234567890123@lid', senderPn: PN, senderLid: '201234567890123@lid' })
  })

  it('messages of a replaced socket are ignored', async () => {
    const t = setup()
    const s = await linked(t)
    await s.close(428)
    s.upsert([text('LATE', 'x')])
    await t.session.inboundSettled()
    expect(t.inbound).toHaveLength(0)
  })

  it('after an app restart, getMessage still answers a retry of an own send from before', async () => {
    const t = setup()
    await linked(t)
    const sent = await t.session.send('15551234567', { kind: 'text', text: 'before the restart' })
    await t.session.stop()
    const t2 = setup({}, t.instanceId)
    await t2.session.start()
    const s = await t2.socket(1)
    s.open()
    const again = await s.config.getMessage!({ id: sent.key.id, remoteJid: sent.key.remoteJid })
    expect(again?.extendedTextMessage?.text).toBe('before the restart')
  })

  it("getMessage answers retries of own sends only, never a contact's message; media can be asked for by id", async () => {
    const t = setup()
    const s = await linked(t)
    const sent = await t.session.send('15551234567', { kind: 'text', text: 'mine' })
    s.upsert([text('KEEP', 'remember me')])
    await expect(s.config.getMessage!({ id: sent.key.id, remoteJid: PN })).resolves.toMatchObject({ extendedTextMessage: { text: 'mine' } })
    // Kept (memory holds every inbound message) but Ana's: relayed, it would go back to her as ours.
    await expect(s.config.getMessage!({ id: 'KEEP', remoteJid: PN })).resolves.toBeUndefined()
    await expect(s.config.getMessage!({ id: 'NOPE', remoteJid: PN })).resolves.toBeUndefined()
    await expect(t.session.downloadMedia('KEEP')).rejects.toMatchObject({ code: 'MEDIA_UNAVAILABLE' })
    await expect(t.session.downloadMedia('NOPE')).rejects.toMatchObject({ code: 'MEDIA_UNAVAILABLE' })
  })

  it('the retry counter cache is the same object across reconnects', async () => {
    const t = setup()
    const s2 = await linked(t)
    await s2.close(428)
    t.clock.fireNext()
    const s3 = await t.socket(3)
    expect(s3.config.msgRetryCounterCache).toBe(s2.config.msgRetryCounterCache)
    await s2.config.msgRetryCounterCache!.set('k', 1)
    expect(await s3.config.msgRetryCounterCache!.get('k')).toBe(1)
  })
})

describe('groups', () => {
  const G = '120363025246125888@g.us'
  const meta = (admin: 'admin' | 'superadmin' | null, idForm: 'pn' | 'lid') => ({
    id: G,
    subject: 'Customers',
    owner: undefined,
    participants: [
      { id: idForm === 'pn' ? '15550001111@s.whatsapp.net' : '987654321012345@lid', admin },
      { id: '15559998888@s.whatsapp.net', admin: null }
    ]
  })

  it('as an admin: adds through groupParticipantsUpdate and answers per-person status', async () => {
    const t = setup()
    const s = await linked(t)
    s.groups.set(G, meta('admin', 'lid'))
    s.addResult = [
      { status: '200', jid: '15551234567@s.whatsapp.net' },
      { status: '403', jid: '15557654321@s.whatsapp.net' }
    ]
    const res = await t.session.addToGroup('120363025246125888', ['+1 555 123 4567', '15557654321'])
    expect(s.groupParticipantsUpdate).toHaveBeenCalledWith(G, ['15551234567@s.whatsapp.net', '15557654321@s.whatsapp.net'], 'add')
    expect(res).toEqual([
      { jid: '15551234567@s.whatsapp.net', status: '200' },
      { jid: '15557654321@s.whatsapp.net', status: '403' }
    ])
  })

  it('not an admin: NOT_GROUP_ADMIN and nothing is attempted', async () => {
    const t = setup()
    const s = await linked(t)
    s.groups.set(G, meta(null, 'pn'))
    await expect(t.session.addToGroup(G, ['15551234567'])).rejects.toMatchObject({ code: 'NOT_GROUP_ADMIN' })
    expect(s.groupParticipantsUpdate).not.toHaveBeenCalled()
  })

  it('not a member, or the server refuses: NOT_GROUP_ADMIN', async () => {
    const t = setup()
    const s = await linked(t)
    s.groups.set(G, new Boom('forbidden', { data: 403 }))
    await expect(t.session.addToGroup(G, ['15551234567'])).rejects.toMatchObject({ code: 'NOT_GROUP_ADMIN' })
    s.groups.set(G, meta('superadmin', 'pn'))
    s.addResult = new Boom('not-authorized', { data: 401 })
    await expect(t.session.addToGroup(G, ['15551234567'])).rejects.toMatchObject({ code: 'NOT_GROUP_ADMIN' })
  })

  it('not connected: NOT_CONNECTED', async () => {
    const t = setup()
    await expect(t.session.addToGroup(G, ['15551234567'])).rejects.toMatchObject({ code: 'NOT_CONNECTED' })
  })
})

describe('delivery status reports (delivery-status.ts)', () => {
  it('server acks, receipts and group receipts of own messages reach onMessageStatus; others do not', async () => {
    const t = setup()
    const s = await linked(t)
    s.ws.emit('CB:ack,class:message', { tag: 'ack', attrs: { id: 'A1', class: 'message' } })
    // An ack with an error is the refusal, reported at once (the library's own messages.update may sit
    // in its event buffer for up to 30 s); the library's later report of it comes again (ignored downstream).
    s.ws.emit('CB:ack,class:message', { tag: 'ack', attrs: { id: 'A2', class: 'message', error: '463' } })
    s.emit('messages.update', [
      { key: { id: 'A1', fromMe: true, remoteJid: '15551234567@s.whatsapp.net' }, update: { status: 3 } },
      { key: { id: 'A2', fromMe: true, remoteJid: '15551234567@s.whatsapp.net' }, update: { status: 0, messageStubParameters: ['463'] } },
      { key: { id: 'B1', fromMe: false, remoteJid: '15551234567@s.whatsapp.net' }, update: { status: 4 } }
    ])
    s.emit('message-receipt.update', [{ key: { id: 'G1', fromMe: true, remoteJid: '123@g.us' }, receipt: { userJid: '15551234567@s.whatsapp.net', readTimestamp: 5 } }])
    expect(t.statuses).toEqual([
      { id: 'A1', status: 'SERVER_ACK' },
      { id: 'A2', status: 'ERROR', errorCode: '463' },
      { id: 'A1', status: 'DELIVERY_ACK' },
      { id: 'A2', status: 'ERROR', errorCode: '463' },
      { id: 'G1', status: 'READ' }
    ])
  })

  it('a socket that was replaced reports nothing', async () => {
    const t = setup()
    const s2 = await linked(t)
    await s2.close(428)
    s2.ws.emit('CB:ack,class:message', { tag: 'ack', attrs: { id: 'A1', class: 'message' } })
    expect(t.statuses).toEqual([])
  })
})
