/**
 * Linking on today's WhatsApp, end to end through the HTTP API against the protocol test server
 * (docs/baileys.md "Pairing"):
 * - QR: the server retires the advertised adv secret with `companion_reg_refresh` (Baileys #2737); the
 *   product shows the same ref with a new secret, saved in the credentials, and the phone links.
 * - Pairing code: a display the server refuses is answered as an error, not as a code (PR #2769); an
 *   accepted request gives a code that links when typed on the phone; a refresh after the phone's
 *   stage 2 does not break it (whatsapp-rust PR #1163).
 */
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest'
import { storedCreds } from '../helpers/channel-store'
import { linkByQr, startWaInstance, waTestFile, type WaInstance } from '../helpers/wa-instance'
import { decodeQr } from '../helpers/qr'
import { LinkRefusedError } from '../support/wa-server/server'
import { parsePairingQr } from '../support/wa-server/pairing'

afterAll(waTestFile())

const cleanup: Array<() => Promise<void>> = []
afterEach(async () => {
  for (const fn of cleanup.splice(0).reverse()) await fn().catch(() => {})
})

async function setup(opts?: Parameters<typeof startWaInstance>[0]): Promise<WaInstance> {
  const t = await startWaInstance(opts)
  cleanup.push(() => t.close())
  return t
}

async function shownQr(t: WaInstance): Promise<string | undefined> {
  const res = await t.h.call({ method: 'GET', url: `/chatapp/scan?format=base64text&${t.qs}` })
  return res.statusCode === 200 ? decodeQr(res.json.data.qrcode) : undefined
}

describe('QR pairing with companion_reg_refresh', () => {
  it('the phone refuses the retired secret; /chatapp/scan then shows the same ref with a new saved secret, and it links', async () => {
    const t = await setup()
    await t.h.call({ method: 'POST', url: '/chatapp/init', payload: t.creds })
    await vi.waitFor(() => expect(t.record().settings.status).toBe('QR'), { timeout: 5000 })
    const first = (await shownQr(t))!
    await expect(t.server.phone.scan(first)).rejects.toBeInstanceOf(LinkRefusedError)

    let refreshed = first
    await vi.waitFor(async () => {
      refreshed = (await shownQr(t))!
      expect(refreshed).not.toBe(first)
    })
    const before = parsePairingQr(first)
    const after = parsePairingQr(refreshed)
    // WA Web re-renders the CURRENT ref with a new 32-byte secret; the keys stay.
    expect(after.ref).toBe(before.ref)
    expect(after.noiseKey).toEqual(before.noiseKey)
    expect(after.identityKey).toEqual(before.identityKey)
    expect(after.advSecret).toHaveLength(32)
    expect(after.advSecret).not.toEqual(before.advSecret)
    // Persisted through creds.update, so pair-success is verified with it.
    await vi.waitFor(async () => {
      const creds = JSON.parse((await storedCreds(t.h.dataDir, t.inst._id))!)
      expect(creds.advSecretKey).toBe(after.advSecret.toString('base64'))
    })

    await t.server.phone.scan(refreshed)
    await vi.waitFor(() => expect(t.record().settings.status).toBe('CONNECTED'), { timeout: 5000 })
  })

  it('a refresh whose child is pair-device-rotate-qr (the other form WA Web accepts) is handled the same', async () => {
    const t = await setup()
    t.server.behaviour.qrRefreshChild = 'pair-device-rotate-qr'
    await linkByQr(t)
    expect(t.record().settings.status).toBe('CONNECTED')
  })
})

describe('pairing by phone number', () => {
  const requestCode = (t: WaInstance, phone = '+1 555 000 1111') => t.h.call({ method: 'POST', url: `/chatapp/pairingCode?${t.qs}`, payload: { ...t.creds, phone } })

  async function started(t: WaInstance): Promise<void> {
    await t.h.call({ method: 'POST', url: '/chatapp/init', payload: t.creds })
    await vi.waitFor(() => expect(t.record().settings.status).toBe('QR'), { timeout: 5000 })
  }

  it('the server accepts the registration: the code typed on the phone links the device, listed under the product name', async () => {
    const t = await setup()
    await started(t)
    const res = await requestCode(t)
    expect(res.statusCode, res.body).toBe(200)
    expect(res.json.data).toEqual({ pairingCode: expect.stringMatching(/^[0-9A-Z]{8}$/), status: 'QR' })
    await t.server.phone.enterCode(res.json.data.pairingCode)
    await vi.waitFor(() => expect(t.record().settings.status).toBe('CONNECTED'), { timeout: 5000 })
    expect(t.record().settings.bot_number).toBe('15550001111')
    expect(t.server.phone.linkedDeviceName).toBe('Chatapp Desk')
  })

  it('the server refuses the registration (400 bad-request): POST /chatapp/pairingCode answers an error, never a code', async () => {
    // A browser name outside the ones WhatsApp knows makes the server refuse the display, as a product name did.
    const t = await setup({ channel: { browser: ['Chatapp Desk', 'Netscape', '4.8'] } })
    await started(t)
    const res = await requestCode(t)
    expect(res.statusCode).toBe(409)
    expect(res.json).toMatchObject({ status: false, error: { code: 'CONFLICT' } })
    expect(res.json.message).toMatch(/WhatsApp refused the pairing-code request \(400: bad-request\)/)
    expect(JSON.stringify(res.json)).not.toMatch(/pairingCode/)
    // The instance still shows its QR: the owner can link that way.
    expect(t.record().settings.status).toBe('QR')
  })

  it('a companion_reg_refresh after the phone answered stage 2 does not break the pairing (whatsapp-rust PR #1163)', async () => {
    const t = await setup({ behaviour: { refreshAfterStage2: true } })
    await started(t)
    const res = await requestCode(t)
    expect(res.statusCode, res.body).toBe(200)
    await t.server.phone.enterCode(res.json.data.pairingCode)
    await vi.waitFor(() => expect(t.record().settings.status).toBe('CONNECTED'), { timeout: 5000 })
  })
})

