/**
 * The Baileys channel through the whole core and HTTP API, with a fake socket factory and a manual
 * clock (nothing else faked): init → QR → pairing → CONNECTED with bot_number/user, inbound into
 * the message log, dedupe of a redelivery after a reconnect, restore at restart without a QR, sends,
 * logout and delete. The last test drives the REAL makeWASocket against a closed local port.
 */
import { createServer } from 'node:net'
import { Writable } from 'node:stream'
import type { WAMessage } from 'baileys'
import { pino } from 'pino'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { createBaileysChannel } from '../../src/main/channel/baileys'
import { BaileysSession } from '../../src/main/channel/baileys/baileys-session'
import type { Instance } from '../../src/shared/schemas/records'
import { FakeClock, fakeSocketFactory, waMessage, type FakeSocket } from '../helpers/fake-baileys'
import { makeHarness, type Harness } from '../helpers/harness'
import { internalsOf } from '../../src/main/core'

const harnesses: Harness[] = []
afterEach(async () => {
  for (const h of harnesses.splice(0)) await h.close().catch(() => {})
})

async function setup() {
  const clock = new FakeClock()
  const factory = fakeSocketFactory()
  const baileys = createBaileysChannel({ socketFactory: factory, fetchVersion: null, timers: clock, random: () => 0.5, sendPacing: { minIntervalMs: 0, jitterMs: 0 }, composingMs: 0 })
  const opts = { factories: { baileys } }
  const h = await makeHarness(opts)
  harnesses.push(h)
  const inst = await h.createInstance('baileys')
  const creds = { session_id: inst.session_id, access_token: inst.settings.access_token }
  const qs = `session_id=${encodeURIComponent(creds.session_id)}&access_token=${encodeURIComponent(creds.access_token)}`
  const socket = async (n: number): Promise<FakeSocket> => {
    await vi.waitFor(() => expect(factory.sockets.length).toBeGreaterThanOrEqual(n))
    return factory.sockets[n - 1]!
  }
  const record = (hh: Harness = h): Instance => hh.core.instances.get(inst._id)
  return { h, clock, factory, inst, creds, qs, socket, record, opts }
}

type Ctx = Awaited<ReturnType<typeof setup>>

async function link(t: Ctx): Promise<FakeSocket> {
  const init = await t.h.call({ method: 'POST', url: '/chatapp/init', payload: t.creds })
  expect(init.statusCode).toBe(200)
  expect(init.json.data.status).toBe('CONNECTING')
  const s1 = await t.socket(1)
  s1.connecting()
  s1.qr('first')
  await s1.pairAndRestart('15550001111')
  t.clock.fireNext()
  const s2 = await t.socket(2)
  s2.open()
  await vi.waitFor(() => expect(t.record().settings.status).toBe('CONNECTED'))
  return s2
}

const inboundText = (id: string, text: string): WAMessage =>
  waMessage({ key: { remoteJid: '15551234567@s.whatsapp.net', remoteJidAlt: '201234567890123@lid', fromMe: false, id }, message: { conversation: text }, pushName: 'Ana' })

describe('Baileys channel through the core', () => {
  it('init → QR on /chatapp/scan (always the latest) → pairing code → CONNECTED with bot_number and user', async () => {
    const t = await setup()
    await t.h.call({ method: 'POST', url: '/chatapp/init', payload: t.creds })
    const s1 = await t.socket(1)
    const early = await t.h.call({ method: 'GET', url: `/chatapp/scan?format=base64text&${t.qs}` })
    expect(early.statusCode).toBe(409)

    s1.connecting()
    s1.qr('one')
    const latest = s1.qr('two')
    await vi.waitFor(() => expect(t.record().settings.status).toBe('QR'))
    expect(t.h.core.sessions.latestQr(t.inst._id)).toBe(latest)
    const scan = await t.h.call({ method: 'GET', url: `/chatapp/scan?format=base64text&${t.qs}` })
    expect(scan.statusCode).toBe(200)
    expect(scan.json.data).toEqual({ qrcode: expect.stringMatching(/^data:image\/png;base64,/), status: 'QR' })
    const png = await t.h.call({ method: 'GET', url: `/chatapp/scan?${t.qs}` })
    expect(png.headers['content-type']).toBe('image/png')

    const code = await t.h.call({ method: 'POST', url: `/chatapp/pairingCode?${t.qs}`, payload: { ...t.creds, phone: '+1 555 000 1111' } })
    expect(code.statusCode).toBe(200)
    expect(code.json.data).toEqual({ pairingCode: expect.stringMatching(/^[0-9A-Z]{8}$/), status: 'QR' })
    expect(s1.creds.me?.id).toBe('15550001111@s.whatsapp.net')

    await s1.pairAndRestart('15550001111')
    t.clock.fireNext()
    const s2 = await t.socket(2)
    s2.open()
    s2.emit('creds.update', { me: { ...s2.creds.me!, name: 'Pizza Shop' } })
    await vi.waitFor(() => expect(t.record().settings.user?.name).toBe('Pizza Shop'))
    const rec = t.record()
    expect(rec.settings.status).toBe('CONNECTED')
    expect(rec.settings.bot_number).toBe('15550001111')
    expect(rec.settings.user).toEqual({ id: '15550001111@s.whatsapp.net', name: 'Pizza Shop' })
    const info = await t.h.call({ method: 'GET', url: `/chatapp/instance?${t.qs}` })
    expect(info.json.data.instance_data).toMatchObject({ phone_connected: true, status: 'CONNECTED', user: { id: '15550001111@s.whatsapp.net', name: 'Pizza Shop' } })
    const again = await t.h.call({ method: 'GET', url: `/chatapp/scan?${t.qs}` })
    expect(again.statusCode).toBe(409)
  })

  it('a failing connection shows its reason in instance info and in the scan answer while it retries', async () => {
    const t = await setup()
    await t.h.call({ method: 'POST', url: '/chatapp/init', payload: t.creds })
    const s1 = await t.socket(1)
    s1.connecting()
    await s1.close(503, 'Stream Errored (unknown)')
    await vi.waitFor(() => expect(t.h.core.sessions.stateReason(t.inst._id)).toMatch(/retrying in/))
    const info = await t.h.call({ method: 'GET', url: `/chatapp/instance?${t.qs}` })
    expect(info.json.data.instance_data).toMatchObject({ status: 'CONNECTING', phone_connected: false, status_reason: expect.stringMatching(/503.*retrying in 1(\.0)? s/) })
    const scan = await t.h.call({ method: 'GET', url: `/chatapp/scan?${t.qs}` })
    expect(scan.statusCode).toBe(409)
    expect(scan.json.message).toMatch(/^No QR code yet \(status CONNECTING: .*503.*retrying in/)
    // Further retries report CONNECTING again: the reason follows, the data file is not rewritten.
    const writes = vi.spyOn(internalsOf(t.h.core).storage.repos.instances, 'update')
    const firstReason = t.h.core.sessions.stateReason(t.inst._id)
    t.clock.fireNext()
    const s2 = await t.socket(2)
    s2.connecting()
    await s2.close(503, 'Stream Errored (unknown)')
    await vi.waitFor(() => expect(t.h.core.sessions.stateReason(t.inst._id)).not.toBe(firstReason))
    expect(t.record().settings.status).toBe('CONNECTING')
    expect(writes).not.toHaveBeenCalled()
  })

  it('inbound goes to the message log once, even when a reconnect redelivers it', async () => {
    const t = await setup()
    const s2 = await link(t)
    const handled: string[] = []
    internalsOf(t.h.core).inbound.use(async (_, message) => ({
      act: async () => {
        handled.push(message.id)
      }
    }))
    s2.upsert([inboundText('3EB0DUP1', 'menu please')], 'notify')
    await vi.waitFor(() => expect(handled).toEqual(['3EB0DUP1']))

    await s2.close(428, 'Connection Closed')
    await vi.waitFor(() => expect(t.clock.pendingDelays()).toEqual([1000]))
    t.clock.fireNext()
    const s3 = await t.socket(3)
    s3.open({ pendingDone: false })
    // The server hands the same message again with the offline backlog, plus a new one.
    s3.upsert([inboundText('3EB0DUP1', 'menu please'), inboundText('3EB0NEW2', 'hello?')], 'append')
    s3.emit('connection.update', { receivedPendingNotifications: true })
    // A later message through the same socket is the sentinel: once it is handled, a second handling
    // of the redelivered one would have come before it.
    s3.upsert([inboundText('3EB0LATE3', 'thanks')], 'notify')
    await vi.waitFor(() => expect(handled).toContain('3EB0LATE3'))
    expect(handled).toEqual(['3EB0DUP1', '3EB0NEW2', '3EB0LATE3'])

    const logged = async () => (await t.h.call({ method: 'GET', url: `/chatapp/messages?${t.qs}` })).json.data as Array<{ id: string; source: string }>
    // The bot's default replies are logged too; the inbound side shows each message once.
    await vi.waitFor(async () => expect((await logged()).filter((m) => m.source === 'inbound').map((m) => m.id)).toEqual(['3EB0DUP1', '3EB0NEW2', '3EB0LATE3']))
    const list = { json: { data: await logged() } }
    expect(list.json.data.find((m: { id: string }) => m.id === '3EB0DUP1')).toMatchObject({ chatId: '15551234567@s.whatsapp.net', fromMe: false, pushName: 'Ana', text: 'menu please', source: 'inbound' })
  })

  it('API sends go through the socket; the library echo of the send is not logged twice', async () => {
    const t = await setup()
    const s2 = await link(t)
    const res = await t.h.call({ method: 'POST', url: `/chatapp/message?${t.qs}`, payload: { ...t.creds, chatId: '+1 555 123 4567', message: 'Your order is ready' } })
    expect(res.statusCode).toBe(200)
    expect(s2.sendMessage).toHaveBeenCalledWith('15551234567@s.whatsapp.net', { text: 'Your order is ready' })
    expect(res.json.data.message).toMatchObject({ key: { remoteJid: '15551234567@s.whatsapp.net', fromMe: true }, status: 'PENDING', message: { extendedTextMessage: { text: 'Your order is ready' } } })
    // A message the owner then types on the phone reaches the app after the send's echo: once it is
    // logged, the echo was handled, and a second entry for the send would be in the log before it.
    s2.upsert([waMessage({ key: { remoteJid: '15551234567@s.whatsapp.net', fromMe: true, id: '3EB0PHONE1' }, message: { conversation: 'typed on the phone' } })], 'append')
    const entries = async () => ((await t.h.call({ method: 'GET', url: `/chatapp/messages?${t.qs}` })).json.data as Array<{ id: string; source: string }>).map((m) => [m.id, m.source])
    await vi.waitFor(async () => expect((await entries()).map(([id]) => id)).toContain('3EB0PHONE1'), { interval: 5 })
    expect(await entries()).toEqual([[res.json.data.message.key.id, 'api'], ['3EB0PHONE1', 'phone']])

    const card = await t.h.call({ method: 'POST', url: `/chatapp/message/contact?${t.qs}`, payload: { ...t.creds, chatId: '15551234567', vcard: { fullName: 'Bob Smith', displayName: 'Bob', organization: 'Shop', phoneNumber: '+15550002222' } } })
    expect(card.statusCode).toBe(200)
    expect(s2.sendMessage.mock.calls[1]![1]).toMatchObject({ contacts: { displayName: 'Bob', contacts: [{ displayName: 'Bob', vcard: expect.stringContaining('BEGIN:VCARD') }] } })
    const btn = await t.h.call({
      method: 'POST',
      url: `/chatapp/message/button?${t.qs}`,
      payload: { ...t.creds, chatId: '15551234567', btndata: { text: 'Pick one', buttons: [{ type: 'replyButton', title: 'Menu' }], footerText: 'Thanks' } }
    })
    expect(btn.statusCode).toBe(200)
    expect(s2.sendMessage.mock.calls[2]![1]).toEqual({ text: expect.stringMatching(/Pick one[\s\S]*1\. Menu[\s\S]*Thanks/) })
  })

  it('after a restart, a CONNECTED instance reconnects from its saved creds without a QR', async () => {
    const t = await setup()
    await link(t)
    const h2 = await t.h.restart()
    harnesses.push(h2)
    const s3 = await t.socket(3)
    expect(s3.config.auth.creds.me?.id).toBe('15550001111:7@s.whatsapp.net')
    s3.open()
    await vi.waitFor(() => expect(t.record(h2).settings.status).toBe('CONNECTED'))
    expect(h2.core.sessions.latestQr(t.inst._id)).toBeUndefined()
  })

  it('the phone removing the device (401): LOGGED_OUT, creds deleted, user cleared', async () => {
    const t = await setup()
    const s2 = await link(t)
    await s2.close(401, 'Connection Failure')
    await vi.waitFor(() => expect(t.record().settings.status).toBe('LOGGED_OUT'))
    expect(t.record().settings.user).toBeNull()
    expect(await t.h.core.sessions.hasCredentials(t.inst._id)).toBe(false)
    expect(t.clock.pending).toBe(0)
  })

  it('logout and delete leave no socket and no creds behind', async () => {
    const t = await setup()
    const s2 = await link(t)
    const out = await t.h.call({ method: 'GET', url: `/chatapp/instance/logout/${t.inst._id}?${t.qs}` })
    expect(out.statusCode).toBe(200)
    expect(out.json.data.status).toBe('LOGGED_OUT')
    expect(s2.logout).toHaveBeenCalled()
    expect(s2.listenerCount()).toBe(0)
    expect(await t.h.core.sessions.hasCredentials(t.inst._id)).toBe(false)

    const s3 = await (async () => {
      await t.h.call({ method: 'POST', url: '/chatapp/init', payload: t.creds })
      return t.socket(3)
    })()
    expect(s3.config.auth.creds.me).toBeUndefined()
    s3.qr()
    const del = await t.h.call({ method: 'DELETE', url: `/chatapp/${t.inst._id}` })
    expect(del.statusCode).toBe(200)
    expect(s3.end).toHaveBeenCalled()
    expect(s3.listenerCount()).toBe(0)
    expect(await t.h.core.sessions.hasCredentials(t.inst._id)).toBe(false)
    expect(t.clock.pending).toBe(0)
  })

  it('the real makeWASocket, server unreachable: CONNECTING with the error, backing off, no crash; stop leaves nothing running', async () => {
    // A port that refuses connections: bind, read the port, close.
    const port = await new Promise<number>((resolve) => {
      const srv = createServer()
      srv.listen(0, '127.0.0.1', () => {
        const p = (srv.address() as { port: number }).port
        srv.close(() => resolve(p))
      })
    })
    const lines: Array<Record<string, unknown>> = []
    const sink = new Writable({
      write(chunk, _enc, cb) {
        for (const l of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(l))
        cb()
      }
    })
    const logger = pino({ level: 'info' }, sink)
    const baileys = createBaileysChannel({ waWebSocketUrl: `ws://127.0.0.1:${port}/ws/chat`, fetchVersion: null, backoff: { baseMs: 40, maxMs: 160, jitter: 0 } })
    const h = await makeHarness({ factories: { baileys }, logger })
    harnesses.push(h)
    const inst = await h.createInstance('baileys')
    const init = await h.call({ method: 'POST', url: '/chatapp/init', payload: { session_id: inst.session_id, access_token: inst.settings.access_token } })
    expect(init.json.data.status).toBe('CONNECTING')
    const failures = () => lines.filter((l) => typeof l.msg === 'string' && (l.msg as string).startsWith('connection failed'))
    await vi.waitFor(() => expect(failures().length).toBeGreaterThanOrEqual(4), { timeout: 5000 })
    expect(failures()[0]!.msg).toBe(`connection failed: connect ECONNREFUSED 127.0.0.1:${port} (408), retrying in 40 ms`)
    expect(failures().slice(0, 4).map((l) => l.delayMs)).toEqual([40, 80, 160, 160])
    expect(h.core.instances.get(inst._id).settings.status).toBe('CONNECTING')

    const session = h.core.sessions.get(inst._id) as BaileysSession
    await internalsOf(h.core).sessions.stop(inst._id)
    expect(session.hasSocket).toBe(false)
    expect(session.reconnectPending).toBe(false)
    const count = failures().length
    // The sentinel: a second instance on the same channel fails and backs off the same way. By its
    // fourth failure (40 + 80 + 160 ms of back-off after the stop) any retry the stopped session had
    // left (160 ms at most) would have failed and been logged.
    const other = await h.createInstance('baileys')
    await h.call({ method: 'POST', url: '/chatapp/init', payload: { session_id: other.session_id, access_token: other.settings.access_token } })
    await vi.waitFor(() => expect(failures().filter((l) => l.instanceId === other._id).length).toBeGreaterThanOrEqual(4), { timeout: 5000 })
    expect(failures().filter((l) => l.instanceId === inst._id)).toHaveLength(count)
    expect(h.core.instances.get(inst._id).settings.status).toBe('DISCONNECTED')
    expect(await h.core.sessions.hasCredentials(inst._id)).toBe(false) // never paired: nothing saved
  })
})
