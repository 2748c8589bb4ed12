/**
 * The REAL Baileys channel (makeWASocket over a real websocket) end to end through the core and
 * the HTTP API, against the local protocol test server in test/support/wa-server (no internet): QR pairing,
 * the 515 restart, login, an encrypted text sent to a contact and decrypted by it, an encrypted text
 * received from a contact (message log, bot engine, the bot's reply decrypted by the contact), and
 * logout. The server's test root key replaces WA_CERT_DETAILS.PUBLIC_KEY for these tests only.
 */
import { createRequire } from 'node:module'
import { proto, WA_CERT_DETAILS } from 'baileys'
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest'
import type { BaileysSession } from '../../src/main/channel/baileys'
import { linkByQr, startWaInstance, waTestFile, type WaInstance } from '../helpers/wa-instance'
import { makeServerIdentity } from '../support/wa-server/noise'

// The library's own root key, before any test server replaces it.
const realRootKey = Buffer.from(WA_CERT_DETAILS.PUBLIC_KEY)
afterAll(waTestFile())

/** libsignal's verifier, which returns whether the signature holds. */
const strictCurve = createRequire(import.meta.url)('libsignal/src/curve') as { verifySignature(key: Buffer, msg: Buffer, sig: Buffer): boolean }

const cleanup: Array<() => Promise<void>> = []
afterEach(async () => {
  for (const fn of cleanup.splice(0).reverse()) await fn().catch(() => {})
})

async function setup(): Promise<WaInstance> {
  const t = await startWaInstance({ accountNumber: '15550001111' })
  cleanup.push(() => t.close())
  return t
}

describe('the real Baileys socket against the local WhatsApp protocol test server', () => {
  it("the server's certificate chain is really signed by its test root (checked strictly: rc14's Curve.verify ignores the result)", () => {
    const identity = makeServerIdentity()
    const chain = proto.CertChain.decode(identity.certChain)
    const intermediate = proto.CertChain.NoiseCertificate.Details.decode(chain.intermediate!.details!)
    const verify = (key: Uint8Array, cert: proto.CertChain.INoiseCertificate) =>
      strictCurve.verifySignature(Buffer.concat([Buffer.from([5]), key]), Buffer.from(cert.details!), Buffer.from(cert.signature!))
    expect(intermediate.issuerSerial).toBe(WA_CERT_DETAILS.SERIAL)
    expect(verify(identity.root.public, chain.intermediate!)).toBe(true)
    expect(verify(intermediate.key!, chain.leaf!)).toBe(true)
    expect(verify(realRootKey, chain.intermediate!)).toBe(false)
  })

  it('init → QR on /chatapp/scan → the phone scans → 515 restart → CONNECTED with bot_number and user', async () => {
    const t = await setup()
    await linkByQr(t)
    expect(t.server.connections).toBe(2) // the pairing connection, then the login after the 515
    const rec = t.record()
    expect(rec.settings.bot_number).toBe('15550001111')
    expect(rec.settings.user).toMatchObject({ id: '15550001111@s.whatsapp.net' })
    // The account's name comes with the phone's first message (its push name), as from WhatsApp.
    await vi.waitFor(() => expect(t.record().settings.user).toEqual({ id: '15550001111@s.whatsapp.net', name: 'Test Shop' }))
    const info = await t.h.call({ method: 'GET', url: `/chatapp/instance?${t.qs}` })
    expect(info.json.data.instance_data).toMatchObject({ phone_connected: true, status: 'CONNECTED', user: { id: '15550001111@s.whatsapp.net', name: 'Test Shop' } })
    expect(await t.h.core.sessions.hasCredentials(t.inst._id)).toBe(true)
    const again = await t.h.call({ method: 'GET', url: `/chatapp/scan?${t.qs}` })
    expect(again.statusCode).toBe(409)
  })

  it('POST /chatapp/message: the contact decrypts the text; the phone gets its own-device copy', async () => {
    const t = await setup()
    await linkByQr(t)
    const ana = t.server.contact('15551234567', 'Ana')
    const res = await t.h.call({ method: 'POST', url: `/chatapp/message?${t.qs}`, payload: { ...t.creds, chatId: '+1 555 123 4567', message: 'Your order is ready' } })
    expect(res.statusCode, res.body).toBe(200)
    await vi.waitFor(() => expect(ana.received()).toEqual(['Your order is ready']), { timeout: 5000 })
    expect(t.server.phone.received()).toEqual(['Your order is ready'])
    const list = await t.h.call({ method: 'GET', url: `/chatapp/messages?${t.qs}` })
    // Only the send is logged: the phone's history-sync notification is protocol traffic, not a message.
    expect(list.json.data).toEqual([expect.objectContaining({ chatId: '15551234567@s.whatsapp.net', text: 'Your order is ready', source: 'api', fromMe: true })])
  })

  it('a contact writes "hi": inbound in /chatapp/messages, and the bot\'s intent reply reaches the contact decrypted', async () => {
    const t = await setup()
    const intent = await t.h.call({ method: 'POST', url: '/intent', payload: { ...t.creds, title: 'Greeting', keyword: 'hi', reply: 'Hello from the desk!' } })
    expect(intent.statusCode, intent.body).toBe(200)
    await linkByQr(t)
    const ana = t.server.contact('15551234567', 'Ana')
    const id = await ana.sendText('hi')
    await vi.waitFor(() => expect(ana.received()).toEqual(['Hello from the desk!']), { timeout: 5000 })
    // The reply is logged once the send returned, which may be just after the contact read it.
    await vi.waitFor(async () => {
      const list = await t.h.call({ method: 'GET', url: `/chatapp/messages?${t.qs}` })
      expect(list.json.data).toEqual([
        expect.objectContaining({ id, chatId: '15551234567@s.whatsapp.net', fromMe: false, text: 'hi', source: 'inbound', pushName: 'Ana' }),
        expect.objectContaining({ chatId: '15551234567@s.whatsapp.net', fromMe: true, text: 'Hello from the desk!', source: 'bot' })
      ])
    })
    // A second message goes over the now established session (a plain Signal message, not a pre-key one).
    await ana.sendText('hi')
    await vi.waitFor(() => expect(ana.received()).toEqual(['Hello from the desk!', 'Hello from the desk!']), { timeout: 5000 })
  })

  it('an app restart logs in again from the saved credentials (no QR) and keeps the Signal sessions', async () => {
    const t = await setup()
    await linkByQr(t)
    const ana = t.server.contact('15551234567', 'Ana')
    const send = (h: typeof t.h, message: string) => h.call({ method: 'POST', url: `/chatapp/message?${t.qs}`, payload: { ...t.creds, chatId: '15551234567', message } })
    const inbound = async (h: typeof t.h) =>
      (await h.call({ method: 'GET', url: `/chatapp/messages?${t.qs}` })).json.data.filter((m: { fromMe: boolean }) => !m.fromMe).map((m: { text: string }) => m.text)
    expect((await send(t.h, 'before the restart')).statusCode).toBe(200)
    await vi.waitFor(() => expect(ana.received()).toEqual(['before the restart']))
    await ana.sendText('thanks')
    await vi.waitFor(async () => expect(await inbound(t.h)).toEqual(['thanks']))

    const h2 = await t.h.restart()
    cleanup.push(() => h2.close())
    await vi.waitFor(() => expect(h2.core.instances.get(t.inst._id).settings.status).toBe('CONNECTED'), { timeout: 5000 })
    expect(h2.core.sessions.latestQr(t.inst._id)).toBeFalsy()
    expect(t.server.connections).toBe(3) // pairing, login, and the login after the restart
    // Ana writes over the session she has: the restarted client decrypts it with the session it saved.
    await ana.sendText('still there?')
    await vi.waitFor(async () => expect(await inbound(h2)).toEqual(['thanks', 'still there?']))
    expect(ana.sentTypes()).toEqual(['msg', 'msg'])
    expect((await send(h2, 'after the restart')).statusCode).toBe(200)
    await vi.waitFor(() => expect(ana.received()).toContain('after the restart'))
  })

  it('GET /chatapp/instance/logout/{id}: the device is unlinked on the server, LOGGED_OUT, creds deleted', async () => {
    const t = await setup()
    await linkByQr(t)
    expect(t.server.phone.linked).toBe(true)
    const session = t.h.core.sessions.get(t.inst._id) as BaileysSession
    expect(session.hasSocket).toBe(true)
    const out = await t.h.call({ method: 'GET', url: `/chatapp/instance/logout/${t.inst._id}?${t.qs}` })
    expect(out.statusCode, out.body).toBe(200)
    expect(out.json.data.status).toBe('LOGGED_OUT')
    expect(t.server.phone.linked).toBe(false)
    expect(t.record().settings.status).toBe('LOGGED_OUT')
    expect(await t.h.core.sessions.hasCredentials(t.inst._id)).toBe(false)
    expect(session.hasSocket).toBe(false)
    expect(session.reconnectPending).toBe(false)
    await vi.waitFor(() => expect(t.server.openConnections).toBe(0))
    expect(t.server.connections).toBe(2) // no reconnect after the 401
  })

  it('the server drops the connection: the instance goes CONNECTING, reconnects by itself without a QR, and messages flow again', async () => {
    const t = await setup()
    // Subscribed before linking: a state event is emitted once the state is on disk, just after the record changes.
    const seen: string[] = []
    t.h.core.events.on('state', (e) => {
      if (e.instanceId === t.inst._id) seen.push(e.state)
    })
    await linkByQr(t)
    const ana = t.server.contact('15551234567', 'Ana')
    expect(t.server.disconnect()).toBe(1)
    await vi.waitFor(() => expect(t.record().settings.status).toBe('CONNECTING'), { timeout: 2000 })
    const info = await t.h.call({ method: 'GET', url: `/chatapp/instance?${t.qs}` })
    expect(info.json.data.instance_data).toMatchObject({ status: 'CONNECTING', phone_connected: false })
    // The owner sees why, and when the next attempt is.
    expect(info.json.data.instance_data.status_reason).toMatch(/Connection Terminated \(428\).*retrying in/i)
    await vi.waitFor(() => expect(t.record().settings.status).toBe('CONNECTED'), { timeout: 8000 })
    expect(t.server.connections).toBe(3) // pairing, login, and one reconnect
    expect(t.h.core.sessions.latestQr(t.inst._id)).toBeFalsy()
    // init, the QR, the 515 restart after the scan, CONNECTED; then the drop and the reconnect: no QR.
    await vi.waitFor(() => expect(seen).toEqual(['CONNECTING', 'QR', 'CONNECTING', 'CONNECTED', 'CONNECTING', 'CONNECTED']))
    const res = await t.h.call({ method: 'POST', url: `/chatapp/message?${t.qs}`, payload: { ...t.creds, chatId: '15551234567', message: 'after the drop' } })
    expect(res.statusCode, res.body).toBe(200)
    await vi.waitFor(() => expect(ana.received()).toEqual(['after the drop']), { timeout: 5000 })
  })

  it('a stream error 515 in the middle of a session: the client restarts the connection at once and stays linked', async () => {
    const t = await setup()
    await linkByQr(t)
    expect(t.server.disconnect({ code: 515 })).toBe(1)
    await vi.waitFor(() => expect(t.server.connections).toBe(3), { timeout: 3000 })
    await vi.waitFor(() => expect(t.server.phone.online).toBe(true), { timeout: 5000 })
    await vi.waitFor(() => expect(t.record().settings.status).toBe('CONNECTED'))
    expect(await t.h.core.sessions.hasCredentials(t.inst._id)).toBe(true)
  })

  it('the owner removes the linked device on the phone: LOGGED_OUT, credentials deleted, no reconnect', async () => {
    const t = await setup()
    await linkByQr(t)
    t.server.phone.removeDevice()
    await vi.waitFor(() => expect(t.record().settings.status).toBe('LOGGED_OUT'), { timeout: 5000 })
    expect(await t.h.core.sessions.hasCredentials(t.inst._id)).toBe(false)
    const send = await t.h.call({ method: 'POST', url: `/chatapp/message?${t.qs}`, payload: { ...t.creds, chatId: '15551234567', message: 'anyone?' } })
    expect(send.statusCode).toBe(409)
    expect(t.server.connections).toBe(2)
    // init pairs again with a new QR. That later connection is the sentinel: a reconnect of the removed
    // device would have made a connection before it, so there are four, not five.
    await linkByQr(t)
    expect(t.server.connections).toBe(4)
  })
})
