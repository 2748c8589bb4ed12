/**
 * The whole life of a real-channel instance, on the real process: `npm run serve`'s entry
 * (src/main/serve.ts) as a child with CHATAPP_CHANNEL=baileys, CHATAPP_WA_WS_URL and
 * CHATAPP_WA_ROOT_KEY pointing the unmodified Baileys socket at the local protocol test server
 * (test/support/wa-server), driven over the product's HTTP API only (docs/api-seed.md §4.4, 4.5, 4.3; docs/design.md
 * §5 states, §11 webhooks):
 *
 * create → init → the QR PNG from /chatapp/scan, decoded → the fake phone pairs → CONNECTED with
 * bot_number and user → a text, an image (through the media host), a location and a contact card the
 * contact decrypts → the contact's "hi" gets the intent's reply,
 * decrypted by the contact, and a signed onMessage webhook → the server drops the connection → the
 * instance reconnects by itself, no new QR → the app process restarts → it logs in from the saved
 * credentials → logout → LOGGED_OUT, the device unlinked and the credentials deleted from the database.
 */
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Webhook } from 'standardwebhooks'
import { afterAll, afterEach, expect, it, vi } from 'vitest'
import { storedChannelRows } from '../helpers/channel-store'
import { multipart, png } from '../helpers/fixtures'
import { decodeQr } from '../helpers/qr'
import { scanLikeAPhone } from '../helpers/wa-instance'
import { startServe, type ServeProcess, SERVE_TOKEN, serveApi as api } from '../helpers/serve-process'
import { startReceiver } from '../helpers/webhook-receiver'
import { quietLibsignal } from '../support/wa-server/quiet-libsignal'
import { startWaTestServer, type WaTestServer } from '../support/wa-server/server'

afterAll(quietLibsignal())
const cleanup: Array<() => Promise<unknown>> = []
afterEach(async () => {
  for (const fn of cleanup.splice(0).reverse()) await fn().catch(() => {})
})

const WAIT = { timeout: 10_000, interval: 50 }

/** Starts the served app on `dataDir` against `wa`; killed at the end of the test if still running. */
async function serve(wa: WaTestServer, dataDir: string): Promise<ServeProcess> {
  const srv = await startServe({
    CHATAPP_DATA_DIR: dataDir,
    CHATAPP_PORT: '0',
    CHATAPP_CHANNEL: 'baileys',
    CHATAPP_API_TOKEN: SERVE_TOKEN,
    CHATAPP_WA_WS_URL: wa.url,
    CHATAPP_WA_ROOT_KEY: wa.rootPublicKeyB64,
    CHATAPP_SEND_INTERVAL_MS: '0',
    CHATAPP_SEND_JITTER_MS: '0'
  })
  cleanup.push(async () => {
    if (srv.child.exitCode === null && srv.child.signalCode === null) srv.child.kill('SIGKILL')
    await srv.exited
  })
  return srv
}

it('create → QR → pair → send → intent reply + signed webhook → dropped connection → process restart → logout', async () => {
  const wa = await startWaTestServer({ accountNumber: '15550002222' })
  cleanup.push(() => wa.close())
  const rx = await startReceiver()
  cleanup.push(() => rx.stop())
  const dataDir = await mkdtemp(join(tmpdir(), 'chatapp-wa-flow-'))
  cleanup.push(() => rm(dataDir, { recursive: true, force: true }))
  let srv = await serve(wa, dataDir)
  expect(srv.output()).toMatch(/CHATAPP_WA_ROOT_KEY is set/)

  // create → init
  const created = await api(srv.url, 'POST', '/chatapp/createNewChatapp', {})
  expect(created.status).toBe(200)
  const inst = created.json.data
  expect(inst.settings.channel).toBe('baileys')
  const creds = { session_id: inst.session_id, access_token: inst.settings.access_token }
  const qs = new URLSearchParams(creds).toString()
  const status = async (url = srv.url) => (await api(url, 'GET', `/chatapp/instance?${qs}`)).json.data.instance_data
  const init = await api(srv.url, 'POST', '/chatapp/init', creds)
  expect(init.json.data.status).toBe('CONNECTING')

  // The QR as a PNG image, read as a phone camera would.
  let qrPng = Buffer.alloc(0)
  await vi.waitFor(async () => {
    const res = await fetch(`${srv.url}/chatapp/scan?${qs}`, { headers: { authorization: `Bearer ${SERVE_TOKEN}` } })
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toBe('image/png')
    qrPng = Buffer.from(await res.arrayBuffer())
  }, WAIT)
  const qr = await decodeQr(qrPng)
  expect(qr).toMatch(/^https:\/\/wa\.me\/settings\/linked_devices#TESTREF/)
  await scanLikeAPhone(wa.phone, qr!, async () => {
    const res = await fetch(`${srv.url}/chatapp/scan?${qs}`, { headers: { authorization: `Bearer ${SERVE_TOKEN}` } })
    return res.status === 200 ? decodeQr(Buffer.from(await res.arrayBuffer())) : undefined
  })
  await vi.waitFor(async () => expect(await status()).toMatchObject({ status: 'CONNECTED', phone_connected: true }), WAIT)
  expect(wa.connections).toBe(2) // the pairing connection, then the login after the 515
  await vi.waitFor(async () => {
    const connected = (await api(srv.url, 'GET', `/chatapp?${qs}`)).json.data.find((i: { _id: string }) => i._id === inst._id)
    expect(connected.settings).toMatchObject({ bot_number: '15550002222', user: { id: '15550002222@s.whatsapp.net', name: 'Test Shop' } })
  }, WAIT)

  // A send the contact decrypts; the phone gets its own-device copy.
  const ana = wa.contact('15551234567', 'Ana')
  const sent = await api(srv.url, 'POST', `/chatapp/message?${qs}`, { ...creds, chatId: '+1 555 123 4567', message: 'Your order is ready' })
  expect(sent.status, JSON.stringify(sent.json)).toBe(200)
  // Seed 2.11: the sent message as the library reports it.
  expect(sent.json.data.message).toMatchObject({ key: { remoteJid: '15551234567@s.whatsapp.net', fromMe: true }, message: { extendedTextMessage: { text: 'Your order is ready' } } })
  await vi.waitFor(() => expect(ana.received()).toEqual(['Your order is ready']), WAIT)
  expect(ana.messages()[0]!.id).toBe(sent.json.data.message.key.id)
  await vi.waitFor(() => expect(wa.phone.received()).toEqual(['Your order is ready']), WAIT)

  // Media through the real process: uploaded to the server's media host (trusted through
  // NODE_EXTRA_CA_CERTS, inherited from vitest.config.ts), then a location and a contact card.
  const picture = await png(40, 30)
  const form = multipart({ ...creds, chatId: '15551234567', caption: 'Our menu' }, { filename: 'menu.png', contentType: 'image/png', data: picture })
  const image = await fetch(`${srv.url}/chatapp/message/image?${qs}`, { method: 'POST', headers: { authorization: `Bearer ${SERVE_TOKEN}`, ...form.headers }, body: new Uint8Array(form.payload) })
  expect(image.status, await image.clone().text()).toBe(200)
  const location = await api(srv.url, 'POST', `/chatapp/message?${qs}`, { ...creds, chatId: '15551234567', location: { name: 'Main St shop', lat: '40.7127', lng: '-74.0059' } })
  expect(location.status, JSON.stringify(location.json)).toBe(200)
  const card = await api(srv.url, 'POST', `/chatapp/message/contact?${qs}`, { ...creds, chatId: '15551234567', vcard: { fullName: 'Bea Diaz', displayName: 'Bea', organization: 'Acme', phoneNumber: '+1 555 987 6543' } })
  expect(card.status, JSON.stringify(card.json)).toBe(200)
  await vi.waitFor(() => expect(ana.messages()).toHaveLength(4), WAIT)
  const [, img, loc, contact] = ana.messages().map((m) => m.message)
  expect(img!.imageMessage).toMatchObject({ caption: 'Our menu', mimetype: 'image/png', width: 40, height: 30 })
  expect(await ana.readMedia(img!)).toEqual(picture)
  expect(loc!.locationMessage).toMatchObject({ degreesLatitude: 40.7127, degreesLongitude: -74.0059, name: 'Main St shop' })
  expect(contact!.contactMessage).toMatchObject({ displayName: 'Bea', vcard: expect.stringContaining('FN:Bea Diaz') })

  // The bot: an intent and a signed webhook.
  const hook = await api(srv.url, 'PUT', `/chatapp/setWebhook?${qs}`, { webhook_url: rx.url + '/hook', events: ['onMessage'] })
  expect(hook.status, JSON.stringify(hook.json)).toBe(200)
  const secret: string = hook.json.data.secret
  expect((await api(srv.url, 'PUT', `/chatapp/updateActions?${qs}`, { send_webhook: true, send_default_msg: false })).status).toBe(200)
  const intent = await api(srv.url, 'POST', '/intent', { ...creds, title: 'Greeting', keyword: 'hi', reply: 'Hello from the desk!' })
  expect(intent.status, JSON.stringify(intent.json)).toBe(200)
  const hiId = await ana.sendText('hi')
  await vi.waitFor(() => expect(ana.received()).toEqual(['Your order is ready', 'Hello from the desk!']), WAIT)
  expect(ana.messages()).toHaveLength(5)
  await vi.waitFor(() => expect(rx.requests).toHaveLength(1), WAIT)
  const delivery = new Webhook(secret).verify(rx.requests[0]!.body, rx.requests[0]!.headers as Record<string, string>) as { event: string; instance_id: string; data: Record<string, unknown> }
  expect(delivery).toMatchObject({
    event: 'onMessage',
    instance_id: inst._id,
    data: { id: hiId, chatId: '15551234567@s.whatsapp.net', fromMe: false, text: 'hi', type: 'text', source: 'inbound', pushName: 'Ana', senderPn: '15551234567@s.whatsapp.net' }
  })

  // The server drops the connection: the instance reconnects by itself, without a QR.
  expect(wa.disconnect()).toBe(1)
  await vi.waitFor(() => expect(wa.connections).toBe(3), WAIT)
  await vi.waitFor(async () => expect(await status()).toMatchObject({ status: 'CONNECTED', phone_connected: true }), WAIT)
  await vi.waitFor(() => expect(wa.phone.online).toBe(true), WAIT)
  expect((await api(srv.url, 'GET', `/chatapp/scan?${qs}`)).status).toBe(409) // no QR: it is connected
  await ana.sendText('hi')
  await vi.waitFor(() => expect(ana.received()).toHaveLength(3), WAIT)
  expect(ana.messages()).toHaveLength(6)
  expect(ana.received()[2]).toBe('Hello from the desk!')

  // The app process restarts: it logs in from the saved credentials.
  srv.child.kill('SIGTERM')
  expect(await srv.exited).toBe(0)
  srv = await serve(wa, dataDir)
  await vi.waitFor(async () => expect(await status()).toMatchObject({ status: 'CONNECTED', phone_connected: true }), WAIT)
  expect(wa.connections).toBe(4) // no pairing connection: a login
  const after = await api(srv.url, 'POST', `/chatapp/message?${qs}`, { ...creds, chatId: '15551234567', message: 'Back after a restart' })
  expect(after.status, JSON.stringify(after.json)).toBe(200)
  await vi.waitFor(() => expect(ana.received().at(-1)).toBe('Back after a restart'), WAIT)
  // Ana's Signal session survived the restart: she writes over it, and the bot still answers.
  await ana.sendText('hi')
  await vi.waitFor(() => expect(ana.received().at(-1)).toBe('Hello from the desk!'), WAIT)
  expect(ana.sentTypes().at(-1)).toBe('msg')

  // Logout: the device is unlinked, LOGGED_OUT, the credentials are gone, and no reconnect follows.
  // The linked device's creds, its Signal keys and the sends kept for retries, in the database.
  const stored = await storedChannelRows(dataDir, inst._id)
  expect(stored.creds).toBe(1)
  expect(stored.keys).toBeGreaterThan(0)
  expect(stored.messages).toBeGreaterThan(0)
  const out = await api(srv.url, 'GET', `/chatapp/instance/logout/${inst._id}?${qs}`)
  expect(out.status, JSON.stringify(out.json)).toBe(200)
  expect(out.json.data.status).toBe('LOGGED_OUT')
  expect(wa.phone.linked).toBe(false)
  expect(await status()).toMatchObject({ status: 'LOGGED_OUT', phone_connected: false })
  expect(await storedChannelRows(dataDir, inst._id)).toEqual({ creds: 0, keys: 0, messages: 0 })
  await vi.waitFor(() => expect(wa.openConnections).toBe(0), WAIT)
  // No reconnect is scheduled: the status names every one it schedules ("retrying in …").
  expect((await status()).status_reason ?? '').not.toMatch(/retrying|reconnecting/i)
  expect(wa.connections).toBe(4)

  srv.child.kill('SIGTERM')
  expect(await srv.exited).toBe(0)
  // libsignal re-keyed sessions along the way; its session records (private keys) never reach the output.
  expect(srv.output()).not.toMatch(/SessionEntry|privKey|Closing session/)
}, 60_000)
