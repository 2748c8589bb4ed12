/**
 * What a new owner meets in the browser, end to end (Debian's Chromium against the real `serve`,
 * sandbox channel), at phone, laptop and wide sizes, with screenshots in test-artifacts/:
 *
 * - the first screen of a desk without staff opens on what works (the login link, the API token) and
 *   says where to get a new link; once someone has a password it opens on the password form;
 * - two instances nobody named are "Chatapp Bot" and the second's number; the header picker always
 *   shows the number (alone on a phone);
 * - on a phone the sections are a menu that fits the screen, not a row of tabs scrolling sideways;
 * - at 1366×768 an open chat's composer is on screen without scrolling;
 * - a run of customer messages the bot did not answer carries the orange "No reply: …" line once.
 *
 * Needs `npm run build` first and /usr/bin/chromium.
 */
import { existsSync } from 'node:fs'
import { mkdir } from 'node:fs/promises'
import { join } from 'node:path'
import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { fillOwnerLogin, fullPageShot, launchChromium, logIn, openSection, resize, SIZES } from './chromium'
import { startServe, type ServeProcess } from './serve-process'

const ROOT = join(import.meta.dirname, '..', '..')
const ARTIFACTS = join(ROOT, 'test-artifacts')
const UI_BUILT = existsSync(join(ROOT, 'out', 'renderer', 'index.html'))

let serve: ServeProcess
let browser: Browser
const pageErrors: string[] = []
const rpc = (method: string, input: unknown) => serve.rpc(method, input)

async function newPage(width: number, height: number): Promise<Page> {
  const page = await browser.newPage({ viewport: { width, height } })
  page.on('pageerror', (e) => pageErrors.push(e.message))
  return page
}

/** How far the page is wider than its window (px): 0 when nothing sticks out sideways. */
const overflowX = (page: Page) => page.evaluate('document.documentElement.scrollWidth - window.innerWidth') as Promise<number>

/** A sandbox instance walked to CONNECTED; answers it as listed. */
async function linkedInstance(): Promise<{ _id: string; settings: { bot_name: string; bot_number: string } }> {
  const inst = await rpc('instances.create', { channel: 'sandbox' })
  await rpc('instances.init', { instanceId: inst._id })
  await rpc('pairing.sandboxScan', { instanceId: inst._id })
  return (await rpc('instances.list', {})).find((i: { _id: string }) => i._id === inst._id)
}

describe('the first hour in the browser', { timeout: 120_000 }, () => {
  let shop: Awaited<ReturnType<typeof linkedInstance>>
  let second: Awaited<ReturnType<typeof linkedInstance>>

  beforeAll(async () => {
    if (!UI_BUILT) throw new Error('The web UI is not built: run `npm run build` first (npm test does).')
    await mkdir(ARTIFACTS, { recursive: true })
    serve = await startServe()
    browser = await launchChromium()
  }, 60_000)

  afterAll(async () => {
    await browser?.close()
    await serve?.stop()
  })

  it('the first screen of a desk without staff opens on the login link and the API token, at every size', async () => {
    for (const [width, height] of SIZES) {
      const page = await newPage(width, height)
      await page.goto(serve.url)
      const token = page.getByLabel('API token')
      await token.waitFor()
      // Nothing to click first: the owner's way in is the screen.
      expect(await page.getByRole('button', { name: 'Use the API token (owner)' }).count()).toBe(0)
      expect(await page.getByText('npm run login-link').isVisible()).toBe(true)
      expect(await page.getByText('login link', { exact: false }).first().isVisible()).toBe(true)
      expect(await overflowX(page)).toBe(0)
      await fullPageShot(page, join(ARTIFACTS, `first-hour-01-first-screen-${width}x${height}.png`))
      await page.close()
    }
  })

  it('names two new instances apart, and the header picker shows the number at every size', async () => {
    shop = await linkedInstance()
    second = await linkedInstance()
    expect(shop.settings.bot_name).toBe('Chatapp Bot')
    expect(second.settings.bot_name).toBe(`+${second.settings.bot_number}`)
    for (const [width, height] of SIZES) {
      const page = await newPage(width, height)
      await logIn(page, serve.url, serve.token)
      const picker = page.getByTestId('instance-picker')
      await picker.click()
      await page.getByRole('option', { name: /Chatapp Bot/ }).click()
      const shown = await picker.inputValue()
      expect(shown).toContain(`+${shop.settings.bot_number}`)
      if (width < 600) expect(shown).toBe(`+${shop.settings.bot_number}`)
      else expect(shown).toBe(`Chatapp Bot · +${shop.settings.bot_number}`)
      // The whole label is on screen: the input is wide enough for what it holds.
      expect(await picker.evaluate((el) => (el as unknown as { scrollWidth: number; clientWidth: number }).scrollWidth <= (el as unknown as { clientWidth: number }).clientWidth)).toBe(true)
      await picker.click()
      await page.getByRole('listbox').waitFor()
      await fullPageShot(page, join(ARTIFACTS, `first-hour-02-picker-${width}x${height}.png`))
      await page.keyboard.press('Escape')
      await page.close()
    }
  })

  it('on a phone the sections are a menu that fits the screen; wider screens keep the tab row', async () => {
    const page = await newPage(390, 844)
    await logIn(page, serve.url, serve.token)
    expect(await page.getByRole('tab', { name: 'Inbox' }).isVisible()).toBe(false)
    expect(await overflowX(page)).toBe(0)
    await page.getByTestId('menu-button').click()
    const menu = page.getByTestId('menu')
    await menu.waitFor()
    const names = ['Instances', 'Pairing', 'Settings', 'Intents', 'Surveys', 'Inbox', 'Contacts', 'Broadcasts', 'Test chat', 'API', 'People']
    for (const name of names) {
      const box = (await menu.getByText(name, { exact: true }).boundingBox())!
      expect(box, name).not.toBeNull()
      expect(box.x + box.width, name).toBeLessThanOrEqual(390)
      expect(box.y + box.height, name).toBeLessThanOrEqual(844)
    }
    await fullPageShot(page, join(ARTIFACTS, 'first-hour-03-menu-390x844.png'))
    await menu.getByText('People', { exact: true }).click()
    await page.getByTestId('section-title').filter({ hasText: 'People' }).waitFor()
    expect(await menu.count()).toBe(0)
    await fullPageShot(page, join(ARTIFACTS, 'first-hour-03-people-390x844.png'))
    for (const [width, height] of SIZES.slice(1)) {
      await resize(page, { width, height })
      await page.getByRole('tab', { name: 'Inbox' }).waitFor()
      expect(await page.getByTestId('menu-button').isVisible()).toBe(false)
      expect(await overflowX(page)).toBe(0)
      await fullPageShot(page, join(ARTIFACTS, `first-hour-03-navigation-${width}x${height}.png`))
    }
    await page.close()
  })

  it('an open chat: the composer is on screen without scrolling, and a run of unanswered messages says "No reply" once', async () => {
    // The bot stays silent on the first number: every customer message gets "No reply: automatic replies are off".
    await rpc('settings.updateActions', { instanceId: shop._id, reply_msgs: false })
    const customer = { instanceId: shop._id, chatId: '15550104000', pushName: 'Gina' }
    for (const text of ['hello?', 'is anyone there', 'I want to order', 'two margheritas', 'for 8 pm']) await rpc('sandbox.inbound', { ...customer, message: text })
    await rpc('messages.sendText', { instanceId: shop._id, chatId: customer.chatId, message: 'Hi Gina! Two margheritas at 8, noted.' })
    for (const text of ['great', 'thanks!']) await rpc('sandbox.inbound', { ...customer, message: text })

    for (const [width, height] of SIZES) {
      const page = await newPage(width, height)
      await logIn(page, serve.url, serve.token)
      await openSection(page, 'Inbox')
      await page.getByTestId('conversation-row').filter({ hasText: 'Gina' }).click()
      const conversation = page.getByTestId('conversation')
      await conversation.getByText('thanks!').waitFor()
      await fullPageShot(page, join(ARTIFACTS, `first-hour-04-inbox-${width}x${height}.png`))
      await page.screenshot({ path: join(ARTIFACTS, `first-hour-04-inbox-viewport-${width}x${height}.png`) })
      // Two runs (five messages with replies off; two after the owner's reply, which paused the bot):
      // two lines, each under its run's last message.
      const lines = conversation.getByTestId('bot-decision')
      expect(await lines.allTextContents()).toEqual([
        'No reply: automatic replies are off (reply_msgs) · 5 messages in a row',
        'No reply: the bot is paused for this chat (a person is handling it) · 2 messages in a row'
      ])
      // The composer, whole, without scrolling.
      expect(await page.evaluate('window.scrollY')).toBe(0)
      const compose = (await page.getByRole('form', { name: 'Compose' }).boundingBox())!
      expect(compose.y + compose.height, `${width}x${height}`).toBeLessThanOrEqual(height)
      expect(await overflowX(page)).toBe(0)
      // And it sends from there.
      await page.getByRole('form', { name: 'Compose' }).getByTestId('compose-text').fill('See you at 8!')
      await page.getByRole('form', { name: 'Compose' }).getByRole('button', { name: 'Send text' }).click()
      await conversation.getByText('See you at 8!').first().waitFor()
      await page.close()
    }
  })

  it('once someone has a password, the first screen opens on the password form, the token one click away', async () => {
    const invite = await rpc('staff.create', { name: 'Bea', login: 'bea', role: 'agent' })
    const code = /invite=([^&]+)/.exec(invite.invite_url as string)![1]!
    const accepted = await fetch(`${serve.url}/auth/accept-invite`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ code, password: 'a-long-password-1' }) })
    expect(accepted.status).toBe(200)
    // What the first screen asks: the server must say so at once (a full run once timed out below).
    const methods = (await (await fetch(`${serve.url}/auth/methods`)).json()) as { data?: { passwords?: boolean } }
    expect(methods.data?.passwords, JSON.stringify(methods)).toBe(true)
    for (const [width, height] of SIZES) {
      const page = await newPage(width, height)
      await page.goto(serve.url)
      await page.getByLabel('Login').waitFor()
      expect(await page.getByLabel('API token').count()).toBe(0)
      await fullPageShot(page, join(ARTIFACTS, `first-hour-05-staff-sign-in-${width}x${height}.png`))
      await fillOwnerLogin(page, serve.token)
      await page.getByTestId('instance-picker').waitFor()
      await page.close()
    }
    expect(pageErrors).toEqual([])
  })
})
