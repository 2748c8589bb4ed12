/**
 * End to end: Debian's Chromium against the real headless server (`src/main/serve.ts`, sandbox
 * channel) serving the built web UI. Walks a sandbox bot from creation to a live conversation the way
 * the owner does, with no curl: log in, create, pair through the QR screen and the sandbox scan,
 * create an intent with an action, chat in Test chat, change settings and reload, send an image.
 * Saves a screenshot of each tab to test-artifacts/ (git-ignored).
 *
 * Needs `npm run build` first (npm test does it) and /usr/bin/chromium.
 */
import { existsSync } from 'node:fs'
import { mkdir, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import sharp from 'sharp'
import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { fullPageShot, launchChromium, openSection, pickSendKind, resize, SIZES } from './chromium'
import { startServe, type ServeProcess } from './serve-process'

const ROOT = join(import.meta.dirname, '..', '..')
const ARTIFACTS = join(ROOT, 'test-artifacts')
const UI_BUILT = existsSync(join(ROOT, 'out', 'renderer', 'index.html'))

let serve: ServeProcess
let browser: Browser
let page: Page
const pageErrors: string[] = []

async function shot(name: string): Promise<void> {
  await fullPageShot(page, join(ARTIFACTS, `${name}.png`))
}

/** A section by its tab, or by the menu on a phone. */
async function openTab(name: string): Promise<void> {
  await openSection(page, name)
}

const rpc = (method: string, input: unknown) => serve.rpc(method, input)

/** Opens the bot every day at every hour (the settings test leaves office hours, Sunday off and Monday's windows). */
async function alwaysOpen(instanceId: string): Promise<void> {
  const all = { monday: true, tuesday: true, wednesday: true, thursday: true, friday: true, saturday: true, sunday: true }
  await rpc('settings.updateActiveDays', { instanceId, ...all })
  await rpc('settings.updateActiveHours', { instanceId, from: 'always', to: 'always' })
  await rpc('settings.openingHours', { instanceId, ranges: {}, holidays: [] })
}

describe('web UI end to end (sandbox)', { timeout: 60_000 }, () => {
  beforeAll(async () => {
    if (!UI_BUILT) throw new Error('The web UI is not built: run `npm run build` first (npm test does).')
    await mkdir(ARTIFACTS, { recursive: true })
    serve = await startServe()
    browser = await launchChromium()
    page = await browser.newPage({ viewport: { width: 1280, height: 900 } })
    page.on('pageerror', (e) => pageErrors.push(e.message))
  }, 60_000)

  afterAll(async () => {
    await browser?.close()
    await serve?.stop()
  })

  it('refuses a wrong token, then logs in with the right one', async () => {
    await page.goto(serve.url)
    // A desk without staff opens on the owner's token.
    await page.getByLabel('API token').fill('not-the-token-0000000000')
    await page.getByRole('button', { name: 'Log in' }).click()
    await expect.poll(() => page.getByRole('alert').textContent()).toContain('not valid')
    await shot('00-login')
    await page.getByLabel('API token').fill(serve.token)
    await page.getByRole('button', { name: 'Log in' }).click()
    await page.getByText('No instances yet', { exact: true }).first().waitFor()
    await shot('01-instances-empty')
  })

  it('logs in from the one-time link the server printed; the link leaves the address bar and cannot be used twice', async () => {
    const link = /(http:\/\/\S+#login=\S+)/.exec(serve.output())![1]!
    const tab = await browser.newPage()
    try {
      await tab.goto(link)
      await tab.getByText('No instances yet', { exact: true }).first().waitFor()
      expect(tab.url()).not.toContain('#login=')
      const again = await browser.newPage()
      await again.goto(link)
      await expect.poll(() => again.getByRole('alert').textContent()).toContain('used already or has expired')
      await again.close()
    } finally {
      await tab.close()
    }
  })

  it('creates a sandbox instance and pairs it through the QR screen and the sandbox scan', async () => {
    await page.getByRole('button', { name: 'Create instance' }).click()
    const card = page.getByTestId('instance-card')
    await expect.poll(() => card.count()).toBe(1)
    await expect.poll(() => card.getByTestId('status-badge').textContent()).toBe('DISCONNECTED')
    await card.getByRole('button', { name: 'Init & pair' }).click()
    // Init switches to the Pairing tab, which shows the live QR.
    const qr = page.getByTestId('qr-image')
    await qr.waitFor()
    expect(await qr.getAttribute('src')).toMatch(/^data:image\/png;base64,/)
    await shot('02-pairing-qr')
    await page.getByRole('button', { name: 'Simulate phone scan (sandbox)' }).click()
    await page.getByTestId('paired').waitFor()
    expect(await page.getByTestId('paired').textContent()).toMatch(/Connected as \+\d+/)
    await shot('03-pairing-connected')
    await openTab('Instances')
    await expect.poll(() => page.getByTestId('instance-card').getByTestId('status-badge').textContent()).toBe('CONNECTED')
    await shot('04-instances')
  })

  it('creates an intent with keywords and a location action', async () => {
    await openTab('Intents')
    await page.getByText('No intents yet').waitFor()
    await page.getByRole('button', { name: 'New intent' }).click()
    const dialog = page.getByRole('dialog')
    await dialog.getByLabel('Title').fill('Opening hours')
    const keywords = dialog.getByTestId('intent-keywords')
    await keywords.fill('hours')
    await keywords.press('Enter')
    await keywords.fill('open')
    await keywords.press('Enter')
    await dialog.getByLabel('Reply').fill('We are open 9-17, [name].')
    await dialog.getByText('Location', { exact: true }).click()
    await dialog.getByLabel('Latitude').fill('north')
    await dialog.getByLabel('Longitude').fill('77.2090')
    await dialog.getByLabel('Place name').fill('Our shop')
    await dialog.getByRole('button', { name: 'Save intent' }).click()
    // The server's validation message shows next to the field, and nothing is saved.
    await dialog.getByText('must be a decimal number', { exact: false }).first().waitFor()
    await shot('05-intent-validation')
    // A maps link fills the coordinates.
    await dialog.getByTestId('map-link-input').fill('https://maps.google.com/?q=28.6139,77.2090')
    await dialog.getByText('Found 28.6139, 77.209').waitFor()
    expect(await dialog.getByLabel('Latitude').inputValue()).toBe('28.6139')
    await dialog.getByRole('button', { name: 'Save intent' }).click()
    await dialog.waitFor({ state: 'detached' })
    const row = page.getByTestId('intent-row')
    await expect.poll(() => row.count()).toBe(1)
    expect(await row.textContent()).toContain('Location')
    // Search filters the table; an edit keeps the action.
    await page.getByLabel('Search intents').fill('zzz')
    await page.getByText('No intent matches').waitFor()
    await page.getByLabel('Search intents').fill('open')
    await expect.poll(() => row.count()).toBe(1)
    await row.getByRole('button', { name: 'Edit' }).click()
    await dialog.getByLabel('Reply').fill('{Hi|Hello} [name], we are open 9-17.')
    await dialog.getByRole('button', { name: 'Save intent' }).click()
    await dialog.waitFor({ state: 'detached' })
    await expect.poll(() => row.textContent()).toContain('we are open 9-17')
    const [inst] = await rpc('instances.list', {})
    const [intent] = await rpc('intents.list', { instanceId: inst._id })
    expect(intent).toMatchObject({ keyword: 'hours, open', reply: '{Hi|Hello} [name], we are open 9-17.', action: { send_location: { lat: '28.6139', lng: '77.209', loc: 'Our shop' } } })
    await shot('06-intents')
  })

  it('talks to the bot in Test chat and sees the conversation live', async () => {
    await openTab('Test chat')
    await page.getByTestId('test-chat-input').fill('What are your opening hours?')
    await page.getByRole('button', { name: 'Send', exact: true }).click()
    const log = page.getByTestId('test-chat-log')
    await log.getByText('What are your opening hours?').waitFor()
    // The bot engine answers with the intent's reply, then its location action.
    await log.getByText(/(Hi|Hello) Test customer, we are open 9-17\./).waitFor()
    await log.getByText('Our shop').waitFor()
    // Why the bot answered, under the customer's message.
    await log.getByTestId('bot-decision').getByText('Answered by intent "Opening hours"').waitFor()
    // The action's outcome shows in the bot activity card.
    const activity = page.getByTestId('bot-activity')
    await activity.getByText('intent "Opening hours"', { exact: false }).waitFor()
    expect(await activity.getByText('Location').count()).toBe(1)
    // Live path: a message sent elsewhere to this chat appears without a reload.
    const [inst] = await rpc('instances.list', {})
    await rpc('messages.sendText', { instanceId: inst._id, chatId: '15550100001', message: 'A reply from the shop' })
    await log.getByText('A reply from the shop').waitFor()
    expect(await log.getByTestId('bubble-in').count()).toBe(1)
    await shot('07-test-chat')
  })

  it('answers with the away message when closed, and Test chat says so', async () => {
    const [inst] = await rpc('instances.list', {})
    const days = { monday: false, tuesday: false, wednesday: false, thursday: false, friday: false, saturday: false, sunday: false }
    await rpc('settings.away', { instanceId: inst._id, enabled: true })
    await rpc('settings.updateActiveDays', { instanceId: inst._id, ...days })
    // The reply sent from the desk in the test before paused the bot for this chat: hand it back.
    expect(await rpc('handoff.resume', { instanceId: inst._id, chatId: '15550100001' })).toEqual({ resumed: true })
    try {
      await openTab('Test chat')
      await page.getByTestId('test-chat-input').fill('Anyone there?')
      await page.getByRole('button', { name: 'Send', exact: true }).click()
      const log = page.getByTestId('test-chat-log')
      await log.getByText(/We're closed right now and will answer when we open again soon\./).waitFor()
      await log.getByTestId('bot-decision').getByText('Answered with the away message').waitFor()
      await shot('07b-away-message')
    } finally {
      await rpc('settings.updateActiveDays', { instanceId: inst._id, ...Object.fromEntries(Object.keys(days).map((d) => [d, true])) })
      await rpc('settings.away', { instanceId: inst._id, enabled: false })
    }
  })

  it('changes settings, shows validation messages, and keeps them after a reload', async () => {
    await openTab('Settings')
    const general = page.getByRole('form', { name: 'General' })
    await general.getByLabel('Time zone').fill('Mars/Olympus')
    await general.getByRole('button', { name: 'Save' }).click()
    await general.getByText('must be an IANA time zone', { exact: false }).first().waitFor()
    await general.getByLabel('Time zone').fill('Asia/Kolkata')
    await general.getByLabel('Bot name').fill('Desk Bot')
    await general.getByRole('button', { name: 'Save' }).click()
    await general.getByRole('status').waitFor()
    const days = page.getByRole('form', { name: 'Active days' })
    await days.getByLabel('Sunday').uncheck()
    await days.getByRole('button', { name: 'Save' }).click()
    await days.getByRole('status').waitFor()
    const hours = page.getByRole('form', { name: 'Active hours' })
    await hours.getByLabel('Always active').uncheck()
    await hours.getByLabel('From').fill('08:30')
    await hours.getByLabel('To').fill('18:00')
    await hours.getByRole('button', { name: 'Save' }).click()
    await hours.getByRole('status').waitFor()
    // A lunch break on Monday and a holiday, with time and date pickers.
    const split = page.getByRole('form', { name: 'Split hours and holidays' })
    const monday = split.getByTestId('day-monday')
    await monday.getByRole('button', { name: '+ window' }).click()
    await monday.getByRole('button', { name: '+ window' }).click()
    await split.getByLabel('Monday window 1 to').fill('12:30')
    await split.getByLabel('Monday window 2 from').fill('15:00')
    await split.getByLabel('Monday window 2 to').fill('19:00')
    await split.getByLabel('Holidays').fill('2026-12-25')
    await split.getByRole('button', { name: 'Add holiday' }).click()
    await split.getByRole('button', { name: 'Save' }).click()
    await split.getByRole('status').waitFor()
    const [saved] = await rpc('instances.list', {})
    expect(saved.settings.opening_hours).toEqual({
      ranges: { monday: [{ from: '09:00', to: '12:30' }, { from: '15:00', to: '19:00' }] },
      holidays: ['2026-12-25']
    })

    await page.reload()
    await page.getByRole('form', { name: 'General' }).waitFor()
    expect(await page.getByRole('form', { name: 'General' }).getByLabel('Bot name').inputValue()).toBe('Desk Bot')
    expect(await page.getByRole('form', { name: 'General' }).getByLabel('Time zone').inputValue()).toBe('Asia/Kolkata')
    expect(await page.getByRole('form', { name: 'Active days' }).getByLabel('Sunday').isChecked()).toBe(false)
    expect(await page.getByRole('form', { name: 'Active days' }).getByLabel('Monday').isChecked()).toBe(true)
    expect(await page.getByRole('form', { name: 'Active hours' }).getByLabel('From').inputValue()).toBe('08:30')
    await shot('08-settings')

    // An unsaved change: said on the form, and leaving the tab asks first.
    const general2 = page.getByRole('form', { name: 'General' })
    await general2.getByLabel('Bot name').fill('Not saved Bot')
    await general2.getByTestId('unsaved').waitFor()
    const asked: string[] = []
    page.once('dialog', (d) => (asked.push(d.message()), void d.dismiss()))
    await openTab('Intents')
    await expect.poll(() => asked.length).toBe(1)
    expect(asked[0]).toContain('unsaved changes in General')
    expect(await page.getByRole('tab', { name: 'Settings' }).getAttribute('aria-selected')).toBe('true')
    page.once('dialog', (d) => void d.accept())
    await openTab('Intents')
    await expect.poll(() => page.getByRole('tab', { name: 'Intents' }).getAttribute('aria-selected')).toBe('true')
    await openTab('Settings')
    expect(await page.getByRole('form', { name: 'General' }).getByLabel('Bot name').inputValue()).toBe('Desk Bot')
  })

  it('sends an image from the inbox (upload, pick, caption) and shows it in the conversation', async () => {
    const png = join(serve.dataDir, 'photo.png')
    await writeFile(png, await sharp({ create: { width: 64, height: 48, channels: 3, background: '#e03131' } }).png().toBuffer())
    await openTab('Inbox')
    await page.getByTestId('new-chat').fill('15550100002')
    await page.getByRole('button', { name: 'Open chat' }).click()
    const compose = page.getByRole('form', { name: 'Compose' })
    await pickSendKind(page, compose, 'Image')
    await compose.locator('input[type=file]').setInputFiles(png)
    await expect.poll(() => compose.getByTestId('media-picker').inputValue()).toContain('photo.png')
    await compose.getByTestId('compose-text').fill('Our new logo')
    await compose.getByRole('button', { name: 'Send image' }).click()
    const conv = page.getByTestId('conversation')
    await conv.getByText('Our new logo').waitFor()
    expect(await conv.getByTestId('bubble-out').first().textContent()).toContain('image')
    const [inst] = await rpc('instances.list', {})
    const [sent] = await rpc('messages.list', { instanceId: inst._id, chatId: '15550100002' })
    expect(sent).toMatchObject({ type: 'image', text: 'Our new logo', fromMe: true, source: 'desk' })
    // A person replied from the desk: the bot is paused for this chat, with the time left.
    const handoff = page.getByTestId('handoff-bar')
    await handoff.getByText('Bot paused').waitFor()
    await handoff.getByText(/you replied · 30 min left/).waitFor()
    const files = page.getByTestId('files-card')
    await files.getByText('photo.png').waitFor()
    await shot('09-messages')
    await handoff.getByRole('button', { name: 'Hand back to bot' }).click()
    await handoff.getByText('Bot on').waitFor()
    const pausedChats = (await rpc('handoff.list', { instanceId: inst._id })).map((p: { chatId: string }) => p.chatId)
    expect(pausedChats).not.toContain('15550100002@s.whatsapp.net')
    // The buttons builder: body, two reply buttons and a footer, delivered as numbered text.
    await pickSendKind(page, compose, 'Buttons')
    await compose.getByTestId('compose-text').fill('What would you like?')
    await compose.getByLabel('Button title').fill('Menu')
    await compose.getByRole('button', { name: 'Add button' }).click()
    await compose.getByLabel('Button title').nth(1).fill('Opening hours')
    await compose.getByLabel('Footer').fill('Reply with a number')
    await compose.getByRole('button', { name: 'Send buttons' }).click()
    await conv.getByText('2. Opening hours', { exact: false }).waitFor()
    await files.getByRole('button', { name: 'Delete photo.png' }).click()
    await page.getByRole('dialog', { name: 'Delete file?' }).getByRole('button', { name: 'Delete' }).click()
    await files.getByText('No files yet', { exact: false }).waitFor()
    expect(await rpc('attachments.list', { instanceId: inst._id })).toEqual([])
  })

  it('the inbox: a customer writes, the owner opens the chat (read), answers with a quick reply, resolves', async () => {
    const [inst] = await rpc('instances.list', {})
    await rpc('settings.updateActions', { instanceId: inst._id, send_default_msg: false })
    const ann = { instanceId: inst._id, chatId: '15550100021', pushName: 'Ann' }
    await rpc('sandbox.inbound', { ...ann, message: '*Hi*, do you deliver to _Elm Street_?' })
    await rpc('sandbox.inbound', { ...ann, message: 'Our shop', location: { latitude: 45.4642, longitude: 9.19 } })
    await openTab('Inbox')
    const inbox = page.getByTestId('inbox')
    const row = inbox.getByTestId('conversation-row').filter({ hasText: 'Ann' })
    await expect.poll(() => row.getAttribute('data-unread')).toBe('2')
    expect(await row.getByLabel('Unanswered').count()).toBe(1)

    // A quick reply, saved once, inserted by typing its shortcut.
    const quick = page.getByTestId('quick-replies')
    await quick.getByRole('button', { name: 'Add' }).click()
    await quick.getByLabel('Shortcut').fill('Hours!')
    await quick.getByLabel('Text').fill('We deliver every day from 12 to 23.')
    await quick.getByRole('button', { name: 'Save' }).click()
    await quick.getByText('lower-case letters, digits', { exact: false }).waitFor()
    // Said once, on the field; the alert only points at it.
    expect(await quick.getByText('lower-case letters, digits', { exact: false }).count()).toBe(1)
    expect(await quick.getByRole('alert').textContent()).toContain('Check the field marked in red.')
    await quick.getByLabel('Shortcut').fill('hours')
    await quick.getByRole('button', { name: 'Save' }).click()
    await quick.getByText('/hours').waitFor()

    // Opening the chat reads it: the unread count goes, the customer gets read receipts.
    await row.click()
    await expect.poll(() => row.getAttribute('data-unread')).toBe('0')
    expect((await rpc('inbox.list', { instance_id: inst._id })).find((c: { chatId: string }) => c.chatId === '15550100021@s.whatsapp.net').unread).toBe(0)
    const conv = page.getByTestId('conversation')
    await conv.locator('strong', { hasText: 'Hi' }).waitFor()
    await conv.locator('em', { hasText: 'Elm Street' }).waitFor()
    expect(await conv.getByTestId('map-link').getAttribute('href')).toBe('https://www.google.com/maps/search/?api=1&query=45.4642,9.19')
    const compose = page.getByRole('form', { name: 'Compose' })
    await compose.getByTestId('compose-text').fill('Yes! /ho')
    await compose.getByRole('option', { name: '/hours' }).click()
    expect(await compose.getByTestId('compose-text').inputValue()).toBe('Yes! We deliver every day from 12 to 23.')
    await compose.getByRole('button', { name: 'Send text' }).click()
    await conv.getByText('Yes! We deliver every day', { exact: false }).waitFor()
    await expect.poll(() => conv.getByTestId('sender').last().textContent()).toContain('You')
    await expect.poll(() => row.getByLabel('Unanswered').count()).toBe(0)
    await shot('12-inbox')

    // Resolved: gone from Open, listed under Resolved; the bot answers this chat again.
    await page.getByTestId('chat-view').getByRole('button', { name: 'Resolve' }).click()
    await expect.poll(() => row.count()).toBe(0)
    await inbox.getByText('Resolved', { exact: true }).click()
    await row.getByText('Resolved').waitFor()
    const paused = (await rpc('handoff.list', { instanceId: inst._id })).map((p: { chatId: string }) => p.chatId)
    expect(paused).not.toContain('15550100021@s.whatsapp.net')
    await inbox.getByText('Open', { exact: true }).click()
  })

  it('shows the Surveys and API tabs', async () => {
    await openTab('Surveys')
    await page.getByText('No surveys yet').waitFor()
    await page.getByRole('button', { name: 'New survey' }).click()
    const dialog = page.getByRole('dialog')
    await dialog.getByLabel('Survey title').fill('Feedback')
    await dialog.getByLabel('Question').fill('How did we do?')
    await dialog.getByTestId('closing-msg').fill('Thanks [name], you said: [answer:1]')
    await dialog.getByRole('button', { name: 'Save step' }).click()
    await dialog.waitFor({ state: 'detached' })
    const card = page.getByTestId('survey-card')
    await card.waitFor()
    await card.getByRole('button', { name: 'Add step' }).click()
    await dialog.getByLabel('Question').fill('Anything else?')
    await dialog.getByRole('button', { name: 'Save step' }).click()
    await dialog.waitFor({ state: 'detached' })
    await expect.poll(() => card.locator('tbody tr').count()).toBe(2)
    // Reorder: the second step moves up, and the new order is what the server keeps.
    await card.getByRole('button', { name: 'Move step up' }).nth(1).click()
    await expect.poll(() => card.locator('tbody tr').first().textContent()).toContain('Anything else?')
    const [inst] = await rpc('instances.list', {})
    const steps = await rpc('surveys.list', { instanceId: inst._id })
    expect(steps.map((s: { reply: string; sort_id: number }) => [s.reply, s.sort_id])).toEqual([
      ['Anything else?', 1],
      ['How did we do?', 2]
    ])
    // A customer runs the survey (its first step gets a trigger); it ends with the closing message.
    await rpc('surveys.update', { instanceId: inst._id, id: steps[0]._id, keyword: 'feedback' })
    const chat = { instanceId: inst._id, chatId: '15550100009', pushName: 'Bea' }
    // The settings test set office hours, Sunday off and Monday's windows in Asia/Kolkata: the decision
    // said outside_hours when this ran at night, or on a Sunday there.
    await alwaysOpen(inst._id)
    expect((await rpc('sandbox.inbound', { ...chat, message: 'feedback' })).message.bot).toEqual({ action: 'survey', ref: 'Feedback' })
    await rpc('sandbox.inbound', { ...chat, message: 'Quick' })
    const done = await rpc('sandbox.inbound', { ...chat, message: 'Great pizza' })
    expect(done.replies.map((r: { text: string }) => r.text)).toEqual(['Thanks Bea, you said: Quick'])
    await card.getByRole('button', { name: 'Responses' }).click()
    const handled = card.getByRole('checkbox', { name: 'Handled: Bea' })
    await handled.waitFor()
    await card.getByText('+15550100009', { exact: false }).waitFor()
    // The box follows the server: it is checked once the change is stored.
    await handled.click()
    await expect.poll(async () => (await rpc('surveys.responses', { instanceId: inst._id, id: steps[0]._id }))[0].handled).toBe(true)
    await expect.poll(() => handled.isChecked()).toBe(true)
    await shot('10-surveys')
    await openTab('API')
    expect(await page.getByTestId('base-url').textContent()).toBe(serve.url)
    await page.getByRole('button', { name: 'Show' }).click()
    expect(await page.getByTestId('api-token').textContent()).toBe(serve.token)
    await shot('11-api')
  })

  it('walks the pizzeria scenario at phone, laptop and wide sizes', { timeout: 240_000 }, async () => {
    const [inst] = await rpc('instances.list', {})
    await alwaysOpen(inst._id)
    await rpc('settings.updateActions', { instanceId: inst._id, send_default_msg: false })
    const steps = await rpc('surveys.list', { instanceId: inst._id })
    // The last step tells the owner, with every answer of the run.
    const last = steps.find((st: { sort_id: number }) => st.sort_id === 2)
    await rpc('surveys.update', { instanceId: inst._id, id: last._id, action: { send_notification: { chatapp_number: '15550109999' } } })
    try {
      for (const [n, [width, height]] of SIZES.entries()) {
        await resize(page, { width, height })
        const size = `${width}x${height}`
        const phone = width < 600
        const chatId = `1555020000${n}`
        const customer = { instanceId: inst._id, chatId, pushName: `Guest ${n}` }
        // A customer writes; the bot answers.
        expect((await rpc('sandbox.inbound', { ...customer, message: 'are you open?' })).replies[0].text).toContain('we are open 9-17')
        // The owner replies from the inbox: the bot stays silent for that chat.
        await openTab('Inbox')
        const row = page.getByTestId('conversation-row').filter({ hasText: `Guest ${n}` })
        await row.click()
        const compose = page.getByRole('form', { name: 'Compose' })
        await compose.getByTestId('compose-text').fill('Hi! Marco here, the oven is on until 23.')
        await compose.getByRole('button', { name: 'Send text' }).click()
        const bar = page.getByTestId('handoff-bar')
        await bar.getByText('Bot paused').waitFor()
        const silent = await rpc('sandbox.inbound', { ...customer, message: 'open on sunday?' })
        expect(silent.replies).toEqual([])
        const conv = page.getByTestId('conversation')
        await conv.getByTestId('bot-decision').getByText('No reply: the bot is paused for this chat', { exact: false }).waitFor()
        await shot(`pizzeria-1-paused-${size}`)
        // The pause ends: the bot answers again.
        await bar.getByRole('button', { name: 'Hand back to bot' }).click()
        await bar.getByText('Bot on').waitFor()
        expect((await rpc('sandbox.inbound', { ...customer, message: 'open tomorrow?' })).replies[0].text).toContain('we are open 9-17')
        await conv.getByTestId('bot-decision').getByText('Answered by intent', { exact: false }).last().waitFor()

        // Outside hours (today is a holiday): the away message, and Test chat says why.
        const tz = (await rpc('instances.list', {}))[0].settings.bot_timezone as string
        const localToday = new Intl.DateTimeFormat('en-CA', { timeZone: tz }).format(new Date())
        expect(localToday).toMatch(/^\d{4}-\d{2}-\d{2}$/)
        await rpc('settings.openingHours', { instanceId: inst._id, holidays: [localToday] })
        await rpc('settings.away', { instanceId: inst._id, enabled: true, message: 'Closed today, [name]. Back [next_open].' })
        try {
          await openTab('Test chat')
          await page.getByTestId('test-chat-input').fill(`hello from size ${n}`)
          await page.getByRole('button', { name: 'Send', exact: true }).click()
          const log = page.getByTestId('test-chat-log')
          await log.getByTestId('bot-decision').getByText('Answered with the away message').first().waitFor()
          await shot(`pizzeria-2-away-${size}`)
        } finally {
          await rpc('settings.openingHours', { instanceId: inst._id, holidays: [] })
          await rpc('settings.away', { instanceId: inst._id, enabled: false })
        }

        // A survey ends with its closing message; the owner's notification lists every answer.
        const guest = { instanceId: inst._id, chatId: `1555030000${n}`, pushName: `Bea ${n}` }
        await rpc('sandbox.inbound', { ...guest, message: 'feedback' })
        await rpc('sandbox.inbound', { ...guest, message: `Quick ${n}` })
        const done = await rpc('sandbox.inbound', { ...guest, message: `Great pizza ${n}` })
        expect(done.replies.map((r: { text: string }) => r.text)).toContain(`Thanks Bea ${n}, you said: Quick ${n}`)
        await openTab('Inbox')
        if (phone && (await page.getByRole('button', { name: 'Back to conversations' }).count())) await page.getByRole('button', { name: 'Back to conversations' }).click()
        await page.getByTestId('conversation-row').filter({ hasText: '+15550109999' }).click()
        await page.getByTestId('conversation').getByText(`2. How did we do? — Great pizza ${n}`, { exact: false }).waitFor()
        await page.getByTestId('conversation').getByText(`1. Anything else? — Quick ${n}`, { exact: false }).waitFor()
        await shot(`pizzeria-3-survey-notification-${size}`)
        if (phone) await page.getByRole('button', { name: 'Back to conversations' }).click()

        // A WhatsApp instance whose connection fails shows why, and can be stopped.
        const wa = await rpc('instances.create', { channel: 'baileys', name: `Shop phone ${n}` })
        await rpc('instances.init', { instanceId: wa._id })
        await openTab('Instances')
        const card = page.getByTestId('instance-card').filter({ hasText: `Shop phone ${n}` })
        await expect.poll(() => card.getByTestId('status-reason').textContent(), { timeout: 20_000 }).toMatch(/^connection failed: .+, retrying in [\d.]+ (ms|s|min)$/)
        await shot(`pizzeria-4-failing-${size}`)
        await card.getByRole('button', { name: 'Stop' }).click()
        await expect.poll(() => card.getByTestId('status-badge').textContent()).toBe('DISCONNECTED')
        await rpc('instances.delete', { instanceId: wa._id })
      }
    } finally {
      await resize(page, { width: 1280, height: 900 })
      await rpc('surveys.update', { instanceId: inst._id, id: last._id, action: {} })
    }
    expect(pageErrors).toEqual([])
  })

  it('fits phone, laptop and wide screens: no page-wide horizontal scroll on the inbox and Settings', async () => {
    try {
      for (const [width, height] of SIZES) {
        await resize(page, { width, height })
        const fits = async (what: string) => {
          // A string: this code runs in the page (the tests' tsconfig has no DOM types).
          const overflow = (await page.evaluate('document.documentElement.scrollWidth - window.innerWidth')) as number
          expect(overflow, `${what} at ${width}x${height}`).toBeLessThanOrEqual(0)
        }
        await openTab('Inbox')
        await page.getByTestId('inbox').waitFor()
        await fits('the inbox')
        await shot(`resp-messages-${width}x${height}`)
        // The open chat: beside the list on a laptop, in its place on a phone (with a way back).
        await page.getByTestId('conversation-row').first().click()
        await page.getByRole('form', { name: 'Compose' }).waitFor()
        // The conversation loads its newest page and draws the bubbles on screen after the chat opens.
        await page.getByTestId('conversation').locator('[data-message-id]').first().waitFor()
        await fits('an open chat')
        await shot(`resp-chat-${width}x${height}`)
        if (width < 600) {
          expect(await page.getByTestId('inbox').count()).toBe(0)
          await page.getByRole('button', { name: 'Back to conversations' }).click()
          await page.getByTestId('inbox').waitFor()
        }
        await openTab('Settings')
        await page.getByRole('form', { name: 'General' }).waitFor()
        await fits('Settings')
        await shot(`resp-settings-${width}x${height}`)
        await openTab('Intents')
        await page.getByTestId('intent-row').first().waitFor()
        await fits('Intents')
        await shot(`resp-intents-${width}x${height}`)
        await openTab('Surveys')
        await page.getByTestId('survey-card').first().waitFor()
        await fits('Surveys')
        await shot(`resp-surveys-${width}x${height}`)
      }
    } finally {
      await resize(page, { width: 1280, height: 900 })
    }
  })

  it('moves between tabs with the keyboard', async () => {
    await page.getByRole('tab', { name: 'API' }).focus()
    await page.keyboard.press('ArrowLeft')
    await expect.poll(() => page.getByRole('tab', { name: 'Test chat' }).getAttribute('aria-selected')).toBe('true')
    // Home only moves the focus (Mantine); Enter activates the focused tab.
    await page.keyboard.press('Home')
    await page.keyboard.press('Enter')
    await expect.poll(() => page.getByRole('tab', { name: 'Instances' }).getAttribute('aria-selected')).toBe('true')
  })

  it('names an instance at creation, counts its activity, and shows a banner when its phone unlinks it', async () => {
    await openTab('Instances')
    await page.getByLabel('Name of the new instance').fill('Pizzeria Marco')
    await page.getByRole('button', { name: 'Create instance' }).click()
    const cards = page.getByTestId('instance-card')
    await expect.poll(() => cards.count()).toBe(2)
    const marco = cards.filter({ hasText: 'Pizzeria Marco' })
    await marco.waitFor()
    // The first instance's card counts what the earlier tests did today.
    await expect.poll(() => cards.first().getByTestId('activity').textContent()).toMatch(/Today: \d+ in · \d+ out · bot answered \d+%/)
    const id = await marco.getAttribute('data-instance-id')
    await rpc('instances.init', { instanceId: id })
    await rpc('pairing.sandboxScan', { instanceId: id })
    await expect.poll(() => marco.getByTestId('status-badge').textContent()).toBe('CONNECTED')
    // Unlinking it here tells nobody (the owner did it); the phone removing it does.
    await rpc('sandbox.removeDevice', { instanceId: id })
    const banner = page.getByTestId('connection-banner')
    await banner.getByText('Pizzeria Marco was logged out').waitFor()
    expect(await banner.count()).toBe(1)
    await shot('13-instances-banner')
    await banner.getByRole('button', { name: 'Pair again' }).click()
    await expect.poll(() => page.getByRole('tab', { name: 'Pairing' }).getAttribute('aria-selected')).toBe('true')
    await banner.getByRole('button').last().click()
    await banner.waitFor({ state: 'detached' })
  })

  it('deletes an instance only after confirmation', async () => {
    await openTab('Instances')
    const cards = page.getByTestId('instance-card')
    await expect.poll(() => cards.count()).toBe(2)
    const second = cards.nth(1)
    await second.getByRole('button', { name: 'Delete' }).click()
    const dialog = page.getByRole('dialog', { name: /^Delete .+\?$/ })
    await dialog.getByRole('button', { name: 'Cancel' }).click()
    await dialog.waitFor({ state: 'detached' })
    expect(await cards.count()).toBe(2)
    await second.getByRole('button', { name: 'Delete' }).click()
    await page.getByRole('dialog', { name: /^Delete .+\?$/ }).getByRole('button', { name: 'Delete instance' }).click()
    await expect.poll(() => cards.count()).toBe(1)
    expect((await rpc('instances.list', {})).length).toBe(1)
    expect(pageErrors).toEqual([])
  })
})
