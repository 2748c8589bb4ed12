/**
 * Edits, deletions, reactions, poll votes and usernames in the web UI (docs/baileys.md "Edits,
 * deletions, reactions and polls", "Usernames"), in Debian's Chromium against the real headless
 * server with a WhatsApp instance linked to the protocol test server: the customer edits an order,
 * deletes a message, reacts to the shop's; the owner's poll gets votes; a customer who hides the
 * number behind a username writes (listed by "@name" in the inbox and in Contacts, where the contact
 * is keyed by the LID). The open chat follows each change live. Screenshots at phone,
 * laptop and wide sizes go to test-artifacts/message-changes-*.png.
 *
 * Needs `npm run build` first (npm test does it) and /usr/bin/chromium.
 */
import { mkdir } from 'node:fs/promises'
import { join } from 'node:path'
import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { fullPageShot, launchChromium, logIn, openSection, resize, SIZES } from './chromium'
import { startServe, type ServeProcess } from './serve-process'
import { startWaTestServer, type FakeContact, type WaTestServer } from '../support/wa-server/server'
import { scanLikeAPhone, waTestFile } from '../helpers/wa-instance'
import { decodeQr } from '../helpers/qr'

afterAll(waTestFile())

const ARTIFACTS = join(import.meta.dirname, '..', '..', 'test-artifacts')

let wa: WaTestServer
let serve: ServeProcess
let browser: Browser
let page: Page
let ana: FakeContact
let lu: FakeContact
let inst: string
const pageErrors: string[] = []

const rpc = (method: string, input: unknown) => serve.rpc(method, input)
const shot = (name: string) => fullPageShot(page, join(ARTIFACTS, `message-changes-${name}.png`))
const conversation = () => page.getByTestId('conversation')
const row = (text: string) => page.getByTestId('conversation-row').filter({ hasText: text })
const bubble = (id: string) => page.locator(`[data-message-id="${id}"]`)
const log = (chatId: string) => rpc('messages.list', { instanceId: inst, chatId })

async function open(name: string): Promise<void> {
  const back = page.getByRole('button', { name: 'Back to conversations' })
  if (await back.count()) await back.click()
  await row(name).click()
}

describe('changes to messages in the web UI', { timeout: 150_000 }, () => {
  beforeAll(async () => {
    await mkdir(ARTIFACTS, { recursive: true })
    wa = await startWaTestServer({ accountNumber: '15550001111' })
    serve = await startServe({ env: { CHATAPP_WA_WS_URL: wa.url, CHATAPP_WA_ROOT_KEY: wa.rootPublicKeyB64 } })
    inst = (await rpc('instances.create', { channel: 'baileys', name: 'Trattoria' }))._id
    await rpc('instances.init', { instanceId: inst })
    const readQr = async () => {
      const view = await rpc('pairing.qr', { instanceId: inst })
      return view.qrDataUrl ? decodeQr(view.qrDataUrl) : undefined
    }
    let qr: string | undefined
    await vi.waitFor(async () => expect((qr = await readQr())).toBeTruthy(), { timeout: 20_000, interval: 200 })
    await scanLikeAPhone(wa.phone, qr!, readQr)
    await vi.waitFor(async () => expect((await rpc('instances.list', {})).find((i: { _id: string }) => i._id === inst).settings.status).toBe('CONNECTED'), { timeout: 20_000, interval: 200 })
    await rpc('settings.updateActions', { instanceId: inst, send_default_msg: false, reply_msgs: false })
    ana = wa.contact('15551234567', 'Ana Ruiz')
    lu = wa.contact('15557770001', 'Lu')
    lu.addressing = 'lid-only'
    lu.username = 'lu.bakes'

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

  it('an open chat shows an edit, a deletion, reactions both ways and a poll’s votes as they happen', async () => {
    const order = await ana.sendText('2 pizzas for 8 pm please')
    const oops = await ana.sendText('my card is 4111 1111 1111 1111')
    await vi.waitFor(async () => expect(await log(ana.jid)).toHaveLength(2), { timeout: 10_000, interval: 100 })
    await page.getByRole('tab', { name: 'Inbox', exact: true }).click()
    await open('Ana Ruiz')
    await conversation().getByText('2 pizzas for 8 pm please').waitFor()

    await ana.edit(order, '3 pizzas for 8 pm please')
    await bubble(order).getByText('3 pizzas for 8 pm please').waitFor()
    await bubble(order).getByTestId('edited-before').getByText('2 pizzas for 8 pm please').waitFor()
    await expect.poll(() => bubble(order).getByTestId('sender').textContent()).toContain('edited')

    await ana.deleteForEveryone(oops)
    await bubble(oops).getByTestId('deleted').waitFor()
    expect(await bubble(oops).textContent()).not.toContain('4111')

    const reply = await rpc('messages.sendText', { instanceId: inst, chatId: ana.jid, message: 'Your order is in the oven' })
    void reply
    await vi.waitFor(() => expect(ana.received()).toContain('Your order is in the oven'), { timeout: 10_000 })
    const sent = (await log(ana.jid)).find((m: { text: string }) => m.text === 'Your order is in the oven').id as string
    await ana.react({ id: sent, fromMe: false }, '😍')
    await bubble(sent).getByTestId('reaction').getByText('😍').waitFor()
    await rpc('messages.react', { instanceId: inst, chatId: ana.jid, messageId: order, emoji: '👍' })
    await bubble(order).getByTestId('reaction').getByText('👍').waitFor()

    const poll = await wa.phone.sendPoll(ana.jid, 'Dessert with that?', ['Tiramisù', 'Panna cotta', 'No, thanks'])
    await bubble(poll.id).getByTestId('poll').waitFor()
    await ana.vote(poll, ['Tiramisù'])
    await expect.poll(() => bubble(poll.id).getByTestId('poll-option').first().getAttribute('data-votes'), { timeout: 10_000 }).toBe('1')

    for (const [width, height] of SIZES) {
      await resize(page, { width, height })
      if (width < 700 && (await conversation().count()) === 0) await row('Ana Ruiz').click()
      await bubble(poll.id).scrollIntoViewIfNeeded()
      await shot(`chat-${width}x${height}`)
      await bubble(order).scrollIntoViewIfNeeded()
      await shot(`edited-${width}x${height}`)
    }
    await resize(page, { width: 1366, height: 768 })
  })

  it('a customer who hides the number is listed and titled by @username', async () => {
    await lu.sendText('Do you have sourdough today?')
    await open('@lu.bakes')
    await conversation().getByText('Do you have sourdough today?').waitFor()
    for (const [width, height] of SIZES) {
      await resize(page, { width, height })
      if (width < 700) {
        const back = page.getByRole('button', { name: 'Back to conversations' })
        if (await back.count()) await back.click()
        await row('@lu.bakes').waitFor()
        await shot(`username-list-${width}x${height}`)
        await row('@lu.bakes').click()
      }
      await conversation().getByText('Do you have sourdough today?').waitFor()
      await shot(`username-${width}x${height}`)
    }
    // Her data is hers by the LID, named by the username.
    await resize(page, { width: 1366, height: 768 })
    await page.getByRole('button', { name: 'Customer data of @lu.bakes' }).click()
    await page.getByRole('menuitem', { name: 'Erase data…' }).click()
    const erase = page.getByRole('form', { name: 'Erase customer data' })
    await erase.getByLabel('Type the username to confirm').fill('@lu.bakes')
    await expect.poll(() => erase.getByRole('button', { name: 'Erase data' }).isEnabled()).toBe(true)
    await shot('username-erase-1366x768')
    await page.keyboard.press('Escape')
    expect(pageErrors).toEqual([])
  })

  it('the contact of a customer who hides the number is keyed by the LID and shown by @username', async () => {
    await openSection(page, 'Contacts')
    for (const [width, height] of SIZES) {
      await resize(page, { width, height })
      const list = page.getByTestId(width < 700 ? 'contact-cards' : 'contact-table')
      await list.getByText('@lu.bakes').waitFor()
      expect(await list.textContent()).not.toContain(lu.lid.split('@')[0])
      await shot(`username-contacts-${width}x${height}`)
    }
    await resize(page, { width: 1366, height: 768 })
    await page.getByRole('button', { name: 'Edit Lu' }).click()
    await expect.poll(() => page.getByLabel('WhatsApp username').inputValue()).toBe('@lu.bakes')
    await shot('username-contact-editor-1366x768')
    await page.keyboard.press('Escape')
    expect(pageErrors).toEqual([])
  })
})
