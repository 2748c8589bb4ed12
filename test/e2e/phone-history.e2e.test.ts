/**
 * "Load older messages from the phone" in the web UI, in Debian's Chromium against
 * the real headless server with a WhatsApp instance linked to the protocol test server
 * (test/support/wa-server: its fake phone holds a chat's older messages and answers the on-demand
 * history request), and a sandbox instance, where the button says why it cannot work. Screenshots at
 * phone, laptop and wide sizes go to test-artifacts/phone-history-*.png.
 *
 * Needs `npm run build` first (npm test does it) and /usr/bin/chromium.
 */
import { mkdir } from 'node:fs/promises'
import { join } from 'node:path'
import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { fullPageShot, launchChromium, logIn, resize, SIZES } from './chromium'
import { startServe, type ServeProcess } from './serve-process'
import { startWaTestServer, type FakeContact, type WaTestServer } from '../support/wa-server/server'
import { scanLikeAPhone, waTestFile } from '../helpers/wa-instance'
import { decodeQr } from '../helpers/qr'

afterAll(waTestFile())

const ARTIFACTS = join(import.meta.dirname, '..', '..', 'test-artifacts')
const MINUTE = 60_000

let wa: WaTestServer
let serve: ServeProcess
let browser: Browser
let page: Page
let ana: FakeContact
let waInstance: string
const pageErrors: string[] = []

const rpc = (method: string, input: unknown) => serve.rpc(method, input)
const shot = (name: string) => fullPageShot(page, join(ARTIFACTS, `phone-history-${name}.png`))
const conversation = () => page.getByTestId('conversation')
const row = (text: string) => page.getByTestId('conversation-row').filter({ hasText: text })

async function backToList(): Promise<void> {
  const back = page.getByRole('button', { name: 'Back to conversations' })
  if (await back.count()) await back.click()
}

describe('older messages from the phone in the web UI', { timeout: 120_000 }, () => {
  beforeAll(async () => {
    await mkdir(ARTIFACTS, { recursive: true })
    wa = await startWaTestServer({ accountNumber: '15550001111' })
    serve = await startServe({ env: { CHATAPP_WA_WS_URL: wa.url, CHATAPP_WA_ROOT_KEY: wa.rootPublicKeyB64 } })
    // The WhatsApp instance, linked as an owner does: init, the QR, the phone scans it.
    const inst = await rpc('instances.create', { channel: 'baileys', name: 'Trattoria' })
    waInstance = inst._id
    await rpc('instances.init', { instanceId: waInstance })
    const readQr = async () => {
      const view = await rpc('pairing.qr', { instanceId: waInstance })
      return view.qrDataUrl ? decodeQr(view.qrDataUrl) : undefined
    }
    let qr: string | undefined
    await vi.waitFor(async () => expect((qr = await readQr())).toBeTruthy(), { timeout: 20_000, interval: 200 })
    await scanLikeAPhone(wa.phone, qr!, readQr)
    await vi.waitFor(async () => expect((await rpc('instances.list', {})).find((i: { _id: string }) => i._id === waInstance).settings.status).toBe('CONNECTED'), { timeout: 20_000, interval: 200 })
    await rpc('settings.updateActions', { instanceId: waInstance, send_default_msg: false, reply_msgs: false })

    // Ana wrote today; the phone holds twelve older messages of the chat, from last week.
    ana = wa.contact('15551234567', 'Ana Ruiz')
    await ana.sendText('Is my table for Friday still booked?')
    await vi.waitFor(async () => expect(await rpc('messages.list', { instanceId: waInstance, chatId: ana.jid })).toHaveLength(1), { timeout: 10_000, interval: 100 })
    const weekAgo = Date.now() - 7 * 24 * 60 * MINUTE
    wa.phone.holdHistory(
      ana.jid,
      Array.from({ length: 12 }, (_, i) => ({ fromMe: i % 2 === 1, text: i % 2 ? `Owner's answer ${i + 1}` : `Ana's question ${i + 1}`, at: weekAgo + i * MINUTE }))
    )

    // A sandbox instance with one chat: there the button explains itself.
    const sandbox = await rpc('instances.create', { channel: 'sandbox', name: 'Sandbox' })
    await rpc('instances.init', { instanceId: sandbox._id })
    await rpc('pairing.sandboxScan', { instanceId: sandbox._id })
    await rpc('settings.updateActions', { instanceId: sandbox._id, send_default_msg: false, reply_msgs: false })
    await rpc('sandbox.inbound', { instanceId: sandbox._id, chatId: '15550107001', pushName: 'Sam Sandbox', message: 'Hello from the sandbox' })

    browser = await launchChromium()
    page = await browser.newPage({ viewport: { width: 1366, height: 768 } })
    page.on('pageerror', (e) => pageErrors.push(e.message))
    await logIn(page, serve.url, serve.token)
  }, 90_000)

  afterAll(async () => {
    await browser?.close()
    await serve?.stop()
    await wa?.close()
  })

  it('asks the phone for older messages, shows them above, and says when there are no more', async () => {
    await page.getByRole('tab', { name: 'Inbox', exact: true }).click()
    await row('Ana Ruiz').click()
    await conversation().getByText('Is my table for Friday still booked?').waitFor()
    const button = page.getByTestId('fetch-from-phone')
    await button.waitFor()
    await shot('before-1366x768')

    await button.click()
    await page.getByTestId('phone-history-notice').getByText('12 older messages loaded from the phone.').waitFor({ timeout: 30_000 })
    await conversation().getByText("Ana's question 1", { exact: true }).waitFor()
    expect(Number(await conversation().getAttribute('data-messages'))).toBe(13)
    expect(wa.phone.historyRequests()).toHaveLength(1)
    for (const [width, height] of SIZES) {
      await resize(page, { width, height })
      if (width < 700) {
        // On a phone the list and the chat take turns.
        if ((await conversation().count()) === 0) await row('Ana Ruiz').click()
      }
      await page.getByTestId('phone-history-notice').waitFor()
      await shot(`loaded-${width}x${height}`)
    }
    await resize(page, { width: 1366, height: 768 })

    // Asked again, the phone has nothing older: the chat says so and nothing is added.
    await page.getByTestId('fetch-from-phone').click()
    await page.getByTestId('phone-history-notice').getByText('The phone has no older messages in this chat.').waitFor({ timeout: 30_000 })
    expect(Number(await conversation().getAttribute('data-messages'))).toBe(13)
    expect(await rpc('messages.list', { instanceId: waInstance, chatId: ana.jid })).toHaveLength(13)
  })

  it('on a sandbox instance, the button says the sandbox has no phone', async () => {
    await backToList()
    await row('Sam Sandbox').click()
    await conversation().getByText('Hello from the sandbox').waitFor()
    await page.getByTestId('fetch-from-phone').click()
    const error = page.getByTestId('phone-history-error')
    await error.getByText('The sandbox has no phone', { exact: false }).waitFor()
    for (const [width, height] of SIZES) {
      await resize(page, { width, height })
      if (width < 700 && (await conversation().count()) === 0) await row('Sam Sandbox').click()
      await error.waitFor()
      await shot(`sandbox-${width}x${height}`)
    }
    expect(pageErrors).toEqual([])
  })
})
