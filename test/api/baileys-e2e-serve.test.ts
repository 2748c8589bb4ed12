/**
 * The test seam on the real process: `npm run serve`'s entry (src/main/serve.ts) as a child with
 * CHATAPP_WA_WS_URL and CHATAPP_WA_ROOT_KEY pointing the Baileys channel at the local protocol test
 * server (test/wa-server), driven over HTTP only: init → QR image → the phone scans → CONNECTED →
 * a text the contact decrypts → clean SIGTERM.
 */
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, afterEach, expect, it, vi } from 'vitest'
import { decodeQr } from '../helpers/qr'
import { startServe, type ServeProcess, SERVE_TOKEN, serveApi } from '../helpers/serve-process'
import { quietLibsignal } from '../support/wa-server/quiet-libsignal'
import { startWaTestServer } from '../support/wa-server/server'

const TOKEN = SERVE_TOKEN
const api = serveApi
afterAll(quietLibsignal())
const cleanup: Array<() => Promise<unknown>> = []
afterEach(async () => {
  for (const fn of cleanup.splice(0).reverse()) await fn().catch(() => {})
})


it('serve with CHATAPP_WA_WS_URL + CHATAPP_WA_ROOT_KEY: QR → scan → CONNECTED → a text the contact decrypts', async () => {
  const wa = await startWaTestServer({ accountNumber: '15550002222' })
  cleanup.push(() => wa.close())
  const dir = await mkdtemp(join(tmpdir(), 'chatapp-serve-wa-'))
  cleanup.push(() => rm(dir, { recursive: true, force: true }))
  const srv: ServeProcess = await startServe({
    CHATAPP_DATA_DIR: dir,
    CHATAPP_PORT: '0',
    CHATAPP_CHANNEL: 'baileys',
    CHATAPP_API_TOKEN: TOKEN,
    CHATAPP_WA_WS_URL: wa.url,
    CHATAPP_WA_ROOT_KEY: wa.rootPublicKeyB64
  })
  cleanup.push(async () => {
    if (srv.child.exitCode === null && srv.child.signalCode === null) srv.child.kill('SIGKILL')
    await srv.exited
  })
  expect(srv.output()).toMatch(/CHATAPP_WA_ROOT_KEY is set/)

  const inst = (await api(srv.url, 'POST', '/chatapp/createNewChatapp', {})).json.data
  expect(inst.settings.channel).toBe('baileys')
  const creds = { session_id: inst.session_id, access_token: inst.settings.access_token }
  const qs = new URLSearchParams(creds).toString()
  const init = await api(srv.url, 'POST', '/chatapp/init', creds)
  expect(init.json.data.status).toBe('CONNECTING')

  let qrcode = ''
  await vi.waitFor(
    async () => {
      const scan = await api(srv.url, 'GET', `/chatapp/scan?format=base64text&${qs}`)
      expect(scan.status).toBe(200)
      qrcode = scan.json.data.qrcode
    },
    { timeout: 10_000, interval: 50 }
  )
  const qr = await decodeQr(qrcode)
  expect(qr).toMatch(/^https:\/\/wa\.me\/settings\/linked_devices#TESTREF/)
  await wa.phone.scan(qr!)
  await vi.waitFor(
    async () => expect((await api(srv.url, 'GET', `/chatapp/instance?${qs}`)).json.data.instance_data).toMatchObject({ status: 'CONNECTED', phone_connected: true }),
    { timeout: 10_000, interval: 50 }
  )
  expect(wa.connections).toBe(2)

  const bob = wa.contact('15559998888', 'Bob')
  const sent = await api(srv.url, 'POST', `/chatapp/message?${qs}`, { ...creds, chatId: '15559998888', message: 'Hello from the real process' })
  expect(sent.status, JSON.stringify(sent.json)).toBe(200)
  await vi.waitFor(() => expect(bob.received()).toEqual(['Hello from the real process']), { timeout: 5000 })

  srv.child.kill('SIGTERM')
  expect(await srv.exited).toBe(0)
}, 40_000)
