/**
 * Outreach end to end (docs/design.md §18), in Debian's Chromium against the real headless server:
 * import 500 contacts with 3 bad rows reported, make a group, broadcast to it with spintax (an opted-out
 * contact and a number not on WhatsApp skipped with reasons), restart the server in the middle and see
 * it finish without a duplicate, see WhatsApp's message capping pause a broadcast with the reason,
 * schedule a weekly message. Screenshots at phone, laptop and wide sizes go to test-artifacts/.
 * The governor's exact schedule on a manual clock and the DST change are proven in
 * test/api/broadcasts.test.ts (a served app runs on the real clock).
 */
import { mkdir, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { fullPageShot, launchChromium, logIn, openSection, resize, SIZES } from './chromium'
import { startServe, type ServeProcess } from './serve-process'

const ARTIFACTS = join(import.meta.dirname, '..', '..', 'test-artifacts')

let serve: ServeProcess
let browser: Browser
let page: Page
let instanceId: string
const pageErrors: string[] = []

async function shot(name: string): Promise<void> {
  await fullPageShot(page, join(ARTIFACTS, `${name}.png`))
}

const rpc = (method: string, input: unknown) => serve.rpc(method, input)


const openTab = (name: string) => openSection(page, name)

async function fits(what: string, width: number, height: number): Promise<void> {
  const overflow = (await page.evaluate('document.documentElement.scrollWidth - window.innerWidth')) as number
  expect(overflow, `${what} at ${width}x${height}`).toBeLessThanOrEqual(0)
}

describe('outreach in the web UI (sandbox)', { timeout: 120_000 }, () => {
  beforeAll(async () => {
    await mkdir(ARTIFACTS, { recursive: true })
    serve = await startServe()
    browser = await launchChromium()
    page = await browser.newPage({ viewport: { width: 1366, height: 768 } })
    page.on('pageerror', (e) => pageErrors.push(e.message))
    page.on('dialog', (d) => void d.accept())
    const inst = await rpc('instances.create', { channel: 'sandbox', name: 'Trattoria' })
    instanceId = inst._id
    await rpc('instances.init', { instanceId })
    await rpc('pairing.sandboxScan', { instanceId })
    await logIn(page, serve.url, serve.token)
  }, 60_000)

  afterAll(async () => {
    await browser?.close()
    await serve?.stop()
  })

  it('imports 500 contacts from a CSV and lists the 3 refused rows with their reasons', async () => {
    const rows = Array.from({ length: 500 }, (_, i) => `Guest ${i};+39 333 ${String(2_000_000 + i)};${i % 50 === 0 ? 'vip' : ''}`)
    rows.splice(20, 0, 'Nobody;;')
    rows.splice(200, 0, 'Typo;+39 3x3;')
    rows.splice(400, 0, 'Twin;+39 333 2000001;')
    const csv = join(serve.dataDir, 'phonebook.csv')
    await writeFile(csv, ['Full name;Mobile;Tags', ...rows].join('\n'))
    await openTab('Contacts')
    await page.getByText('No contacts yet').waitFor()
    const chooser = page.waitForEvent('filechooser')
    await page.getByRole('button', { name: 'Import CSV' }).click()
    await (await chooser).setFiles(csv)
    const dialog = page.getByRole('dialog', { name: 'Import phonebook.csv' })
    await dialog.getByText('503 rows; columns: Full name, Mobile, Tags').waitFor()
    await shot('14-contacts-import-mapping')
    await dialog.getByRole('button', { name: 'Import 503 rows' }).click()
    const report = dialog.getByTestId('import-report')
    await report.getByText('500 contacts imported').waitFor()
    expect(await report.locator('tbody tr').allTextContents()).toEqual(['22no number', '202"+39 3x3" is not a phone number with its country code', '402the same number as line 3'])
    await shot('14-contacts-import-report')
    await dialog.getByRole('button', { name: 'Done' }).click()
    // The list is read a page at a time; the search goes to the server.
    await expect.poll(() => page.getByTestId('contact-count').textContent()).toBe('50 of 500 contacts')
    await page.getByLabel('Search contacts').fill('Guest 450')
    await expect.poll(() => page.getByTestId('contact-table').locator('tbody tr').count()).toBe(1)
    await page.getByLabel('Search contacts').fill('')
  })

  it('makes a group, broadcasts to it with spintax, skips with reasons, and finishes after a restart without a duplicate', async () => {
    // The tasting group: Ada opts out, Bo's number is not on WhatsApp, Cy and Di get it.
    const people = [
      ['Ada', '393334000001'],
      ['Bo', '393334000002'],
      ['Cy', '393334000003'],
      ['Di', '393334000004']
    ] as const
    await page.getByRole('button', { name: '+ New group' }).click()
    await page.getByLabel('Group name').fill('Tasting')
    await page.getByRole('button', { name: 'Create' }).click()
    // The new group is picked: its (empty) list shows, and contacts added now go in it.
    await page.getByText('No contact is in this group or has this label yet.').waitFor()
    for (const [name, number] of people) {
      await page.getByRole('button', { name: 'Add contact' }).click()
      const form = page.getByRole('form', { name: 'Contact' })
      await form.getByLabel('Name').fill(name)
      await form.getByLabel('WhatsApp number').fill(`+${number}`)
      if (name === 'Ada') await form.getByRole('switch', { name: 'Opted out: no broadcasts or scheduled messages' }).check()
      await form.getByRole('button', { name: 'Save' }).click()
      await form.waitFor({ state: 'detached' })
    }
    await expect.poll(() => page.getByTestId('contact-count').textContent()).toBe('4 contacts')
    await shot('15-contacts-group')
    await rpc('sandbox.network', { instanceId, notOnWhatsApp: [people[1][1]] })

    await openTab('Broadcasts')
    const governor = page.getByRole('form', { name: 'Send governor' })
    await governor.getByLabel('Number on WhatsApp since').fill('2019-05-01')
    await governor.getByLabel('Shortest gap (s)').fill('5')
    await governor.getByLabel('Longest gap (s)').fill('6')
    await governor.getByRole('switch', { name: 'Quiet hours: nothing goes out at night' }).uncheck()
    await governor.getByRole('button', { name: 'Save' }).click()
    await governor.getByRole('status').getByText('Saved').waitFor()
    await governor.getByText(/Today’s limit 150/).waitFor()

    const composer = page.getByRole('form', { name: 'New broadcast' })
    await composer.getByRole('combobox', { name: 'Contact group' }).click()
    await page.getByRole('option', { name: 'Tasting' }).click()
    await composer.getByLabel('Message').fill('{Hi|Hello} [name], the tasting is on Friday at 19:00!')
    await composer.getByText('3 people; opted-out contacts').waitFor()
    await composer.getByRole('button', { name: 'Send broadcast' }).click()
    const card = page.getByTestId('broadcast').first()
    await expect.poll(() => card.getByTestId('broadcast-counts').textContent(), { timeout: 20_000 }).toMatch(/^1 of 4 sent/)
    for (const [width, height] of SIZES) {
      await resize(page, { width, height })
      await fits('Broadcasts', width, height)
      await shot(`resp-broadcasts-${width}x${height}`)
    }
    await resize(page, { width: 1366, height: 768 })
    expect(await card.getByText(/Expected to finish/).count()).toBe(1)

    // The app stops in the middle (Di still waiting) and starts again on the same data.
    await serve.stop(true)
    serve = await startServe({ dataDir: serve.dataDir })
    await logIn(page, serve.url, serve.token)
    await openTab('Broadcasts')
    await expect.poll(() => page.getByTestId('broadcast').first().getByTestId('broadcast-counts').textContent(), { timeout: 30_000 }).toBe('2 of 4 sent · 0 waiting · 2 skipped · 0 failed')
    await page.getByTestId('broadcast').first().getByText('done').waitFor()
    await page.getByText('Show the 2 skipped or failed').click()
    await page.getByTestId('broadcast-problems').getByText('opted out (wrote the opt-out word)').waitFor()
    await page.getByTestId('broadcast-problems').getByText(': not on WhatsApp').waitFor()
    await shot('16-broadcast-done')
    const log = await rpc('messages.list', { instanceId, limit: 100 })
    const out = log.filter((m: { fromMe: boolean; source: string }) => m.fromMe && m.source === 'broadcast')
    expect(out.map((m: { chatId: string }) => m.chatId).sort()).toEqual([`${people[2][1]}@s.whatsapp.net`, `${people[3][1]}@s.whatsapp.net`])
    for (const m of out) expect(m.text).toMatch(/^(Hi|Hello) (Cy|Di), the tasting is on Friday at 19:00!$/)
  })

  it('pauses a broadcast when WhatsApp caps the number, and says why', async () => {
    const composer = page.getByRole('form', { name: 'New broadcast' })
    await composer.getByText('To numbers').click()
    await composer.getByRole('textbox', { name: 'Numbers' }).fill('+39 333 5000001\n+39 333 5000002')
    await composer.getByLabel('Message').fill('New menu this week, [name]!')
    await composer.getByRole('button', { name: 'Send broadcast' }).click()
    const card = page.getByTestId('broadcast').first()
    await expect.poll(() => card.getByTestId('broadcast-counts').textContent(), { timeout: 20_000 }).toMatch(/^1 of 2 sent/)
    const until = new Date(Date.now() + 6 * 3_600_000).toISOString()
    await rpc('sandbox.network', { instanceId, limits: { capping: { status: 'CAPPED', used: 250, total: 250, until } } })
    await card.getByTestId('pause-reason').getByText(/WhatsApp caps new chats for this number \(250 of 250 used until \d{4}-\d\d-\d\d \d\d:\d\d \(UTC\)/).waitFor()
    await page.getByTestId('governor-status').getByText('WhatsApp limits this number').waitFor()
    await card.getByRole('button', { name: 'Resume' }).waitFor()
    await shot('17-broadcast-capped')
  })

  it('labels a conversation in the inbox; the label shows on the contact, in its colour', async () => {
    await rpc('sandbox.inbound', { instanceId, chatId: '393336000001', message: 'Do you deliver on Sundays?', pushName: 'Gia' })
    await openTab('Inbox')
    await page.getByTestId('conversation-row').filter({ hasText: 'Gia' }).click()
    const labels = page.getByTestId('chat-view').getByPlaceholder('Add a label (vip, wholesale…)')
    await labels.fill('wholesale')
    await labels.press('Enter')
    await page.getByTestId('conversation-row').filter({ hasText: 'Gia' }).getByText('wholesale').waitFor()
    await shot('18-inbox-labels')
    await openTab('Contacts')
    await page.getByLabel('Search contacts').fill('Gia')
    await page.getByTestId('contact-table').getByText('wholesale').waitFor()
    await page.getByRole('button', { name: 'Labels' }).click()
    const manager = page.getByRole('dialog', { name: 'Labels' })
    await manager.getByLabel('Label wholesale').getByRole('combobox', { name: 'Colour' }).click()
    await page.getByRole('option', { name: 'grape' }).click()
    await expect.poll(async () => (await rpc('labels.list', {})).find((l: { name: string }) => l.name === 'wholesale')?.color).toBe('grape')
    await page.keyboard.press('Escape')
    await manager.waitFor({ state: 'detached' })
    await page.getByLabel('Search contacts').fill('')
    await openTab('Broadcasts')
  })

  it('schedules a weekly message and shows its next run', async () => {
    await page.getByRole('button', { name: 'Schedule' }).click()
    const form = page.getByRole('form', { name: 'Scheduled message' })
    await form.getByLabel('Name').fill('Friday menu')
    await form.getByRole('combobox', { name: 'Contact group' }).click()
    await page.getByRole('option', { name: 'Tasting' }).click()
    await form.getByLabel('Starting').fill('2030-01-04')
    await form.getByLabel('Time').fill('10:00')
    await form.getByText('Fri', { exact: true }).click()
    await form.getByLabel('Message').fill('This Friday: {pizza|pasta} night, [name]!')
    await form.getByRole('button', { name: 'Save' }).click()
    await form.waitFor({ state: 'detached' })
    const row = page.getByTestId('schedules').getByLabel('Schedule Friday menu')
    await row.getByText(/Every week on Fri at 10:00 · next Fri/).waitFor()
    for (const [width, height] of SIZES) {
      await resize(page, { width, height })
      await fits('Broadcasts with a schedule', width, height)
      await shot(`resp-outreach-${width}x${height}`)
      await openTab('Contacts')
      await page.getByLabel('Contact groups').getByText('Tasting', { exact: true }).waitFor()
      await fits('Contacts', width, height)
      await shot(`resp-contacts-${width}x${height}`)
      await openTab('Broadcasts')
    }
    await resize(page, { width: 1366, height: 768 })
    expect(pageErrors).toEqual([])
  })
})
