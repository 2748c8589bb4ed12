/**
 * The long history in the web UI (docs/ui.md "The long history"), in Debian's Chromium against the real headless
 * server: the inbox's message search (accents, parts of words, Chinese) opening a chat at the hit; a
 * chat of 5,000 messages opened at its newest page and scrolled back to its first message through a
 * virtualised list; the Contacts screen searching on the server; Settings → History saved; a
 * customer's data exported and erased. Screenshots at phone, laptop and wide sizes go to
 * test-artifacts/history-*.png.
 *
 * Needs `npm run build` first (npm test does it) and /usr/bin/chromium.
 */
import { mkdir, readFile } from 'node:fs/promises'
import { join } from 'node:path'
import type { Browser, Locator, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { fullPageShot, launchChromium, logIn, openSection, resize, SIZES } from './chromium'
import { seedChat } from './seed-history'
import { startServe, type ServeProcess } from './serve-process'

const ARTIFACTS = join(import.meta.dirname, '..', '..', 'test-artifacts')

/** The long chat: 5,000 messages, one of them (the 2,500th) to be found by search. */
const LONG = { chatId: '15550107000', pushName: 'Lou Long', count: 5000 }
const LONG_HIT = 2500
const longText = (i: number) => (i === LONG_HIT ? `Message ${i}: una crème brûlée per favore` : `Message ${i}`)
/** A short chat whose customer writes what the search must find. */
const ZOE = { chatId: '15550107001', pushName: 'Zoë Ämbler' }
const ZOE_SAYS = ['Vorrei un caffè macchiato', '我想订一个披萨', 'Is the terrace open?']

let serve: ServeProcess
let browser: Browser
let page: Page
let instanceId: string
const pageErrors: string[] = []

const rpc = (method: string, input: unknown) => serve.rpc(method, input)
const openTab = (name: string) => openSection(page, name)
const shot = (name: string) => fullPageShot(page, join(ARTIFACTS, `history-${name}.png`))
const conversation = () => page.getByTestId('conversation')
const bubble = (id: string) => conversation().locator(`[data-message-id="${id}"]`)
const seedId = (i: number) => `SEED${LONG.chatId}${String(i).padStart(6, '0')}`

async function fits(what: string, width: number, height: number): Promise<void> {
  const overflow = (await page.evaluate('document.documentElement.scrollWidth - window.innerWidth')) as number
  expect(overflow, `${what} at ${width}x${height}`).toBeLessThanOrEqual(0)
}

/** Whether `el` lies inside the conversation's scroller, as the person sees it. */
async function onScreen(el: Locator): Promise<boolean> {
  const box = await el.boundingBox()
  const port = await conversation().locator('[data-virtuoso-scroller]').boundingBox()
  return !!box && !!port && box.y >= port.y - 1 && box.y + box.height <= port.y + port.height + 1
}

/** Types `words` in the inbox's search box and waits for their results. */
async function search(words: string): Promise<void> {
  await page.getByLabel('Search messages').fill(words)
  await page.locator(`[data-testid="search-results"][data-query="${words}"][data-pending="false"]`).waitFor()
}

/** Scrolls the conversation to its top or bottom, as a person dragging the scrollbar would. */
async function scrollConversation(to: 'top' | 'bottom'): Promise<void> {
  await conversation()
    .locator('[data-virtuoso-scroller]')
    .evaluate((el: { scrollTop: number; scrollHeight: number }, end) => {
      el.scrollTop = end === 'top' ? 0 : el.scrollHeight
    }, to)
}

/** Back from an open chat to the list on a phone (the two take turns there). */
async function backToList(): Promise<void> {
  const back = page.getByRole('button', { name: 'Back to conversations' })
  if (await back.count()) await back.click()
}

describe('the long history in the web UI (sandbox)', { timeout: 120_000 }, () => {
  beforeAll(async () => {
    await mkdir(ARTIFACTS, { recursive: true })
    serve = await startServe()
    const inst = await rpc('instances.create', { channel: 'sandbox', name: 'Trattoria' })
    instanceId = inst._id
    await rpc('instances.init', { instanceId })
    await rpc('pairing.sandboxScan', { instanceId })
    await rpc('settings.updateActions', { instanceId, reply_msgs: false })
    // The API has no bulk path for history: the long chat goes in through the message repository
    // while the server is stopped (./seed-history.ts), then the same data dir serves again.
    await serve.stop(true)
    await seedChat(serve.dataDir, instanceId, { ...LONG, endMs: Date.now() - 3_600_000, text: longText })
    serve = await startServe({ dataDir: serve.dataDir })
    await vi.waitFor(async () => expect((await rpc('instances.list', {}))[0].settings.status).toBe('CONNECTED'), { timeout: 20_000, interval: 200 })
    for (const message of ZOE_SAYS) await rpc('sandbox.inbound', { instanceId, chatId: ZOE.chatId, pushName: ZOE.pushName, message })
    browser = await launchChromium()
    page = await browser.newPage({ viewport: { width: 1366, height: 768 } })
    page.on('pageerror', (e) => pageErrors.push(e.message))
    await logIn(page, serve.url, serve.token)
  }, 90_000)

  afterAll(async () => {
    await browser?.close()
    await serve?.stop()
  })

  it('opens a chat of 5,000 messages at its newest page, follows a new message, and scrolls back to the first through a virtualised list', async () => {
    await openTab('Inbox')
    const asked: Array<{ chatId?: string; before?: string; limit?: number }> = []
    page.on('request', (r) => r.url().endsWith('/rpc/messages.list') && asked.push(JSON.parse(r.postData() ?? '{}')))
    const long = page.getByTestId('conversation-row').filter({ hasText: LONG.pushName })
    const started = Date.now()
    await long.click()
    await bubble(seedId(LONG.count - 1)).waitFor()
    const openedMs = Date.now() - started
    // One page asked for and held, whatever the chat's length; the DOM draws only what is on screen.
    expect(asked.filter((a) => a.chatId === `${LONG.chatId}@s.whatsapp.net`)).toEqual([expect.objectContaining({ limit: 100 })])
    expect(await conversation().getAttribute('data-messages')).toBe('100')
    expect(await onScreen(bubble(seedId(LONG.count - 1)))).toBe(true)
    const drawn = await conversation().locator('[data-message-id]').count()
    expect(drawn).toBeGreaterThan(3)
    expect(drawn).toBeLessThan(60)

    // The same for a chat of three messages, for the record.
    await backToList()
    const started2 = Date.now()
    await page.getByTestId('conversation-row').filter({ hasText: ZOE.pushName }).click()
    await conversation().getByText('Is the terrace open?').waitFor()
    console.log(`opening a chat: 5,000 messages ${openedMs} ms, 3 messages ${Date.now() - started2} ms`)

    await page.getByTestId('conversation-row').filter({ hasText: LONG.pushName }).click()
    await bubble(seedId(LONG.count - 1)).waitFor()
    // At the bottom, a new message shows and stays in view.
    await rpc('sandbox.inbound', { instanceId, chatId: LONG.chatId, pushName: LONG.pushName, message: 'One more thing!' })
    const fresh = conversation().getByText('One more thing!')
    await fresh.waitFor()
    await expect.poll(() => onScreen(fresh)).toBe(true)

    // Scrolling up loads older pages (by cursor) until the first message; what was on screen stays put.
    let pages = 1
    let held = 101
    while ((await page.getByTestId('chat-start').count()) === 0) {
      // The oldest message held (the held ones are the newest `held - 1` seeded and the new one).
      const top = seedId(LONG.count - (held - 1))
      await scrollConversation('top')
      await expect.poll(async () => Number(await conversation().getAttribute('data-messages')) > held || (await page.getByTestId('chat-start').count()) > 0).toBe(true)
      const nowHeld = Number(await conversation().getAttribute('data-messages'))
      if (nowHeld > held) {
        pages++
        // The message that was at the top is still drawn, in view: the list did not jump to the new page's start.
        await expect.poll(() => onScreen(bubble(top)), { message: `page ${pages}: ${top} stays on screen` }).toBe(true)
      }
      held = nowHeld
      expect(pages).toBeLessThan(60)
    }
    await bubble(seedId(0)).waitFor()
    expect(await conversation().getAttribute('data-messages')).toBe(String(LONG.count + 1))
    // The newest 100, then 49 pages of 100 older ones, and one more that says there is nothing older.
    expect(pages).toBe(50)
    expect(asked.filter((a) => a.before !== undefined).length).toBe(50)
    expect(await conversation().locator('[data-message-id]').count()).toBeLessThan(80)
    await backToList()
  })

  it('searches messages for accented, partial and Chinese words and opens the chat at the hit, loading newer pages below it', async () => {
    await openTab('Inbox')
    const inbox = page.getByTestId('inbox')
    const hits = page.getByTestId('search-hit')
    // Without the accent, and part of a word: the match is marked in the snippet as the customer wrote it.
    await search('caffe macchi')
    await expect.poll(() => hits.count()).toBe(1)
    expect(await inbox.getAttribute('data-mode')).toBe('search')
    expect(await hits.first().locator('mark').allTextContents()).toEqual(['caffè', 'macchi'])
    expect(await hits.first().textContent()).toContain(ZOE.pushName)
    await search('披萨')
    await expect.poll(() => hits.count()).toBe(1)
    expect(await hits.first().locator('mark').allTextContents()).toEqual(['披萨'])
    // Back to the conversations: the filters are there again.
    await page.getByRole('button', { name: 'Back to chats' }).click()
    expect(await inbox.getAttribute('data-mode')).toBe('conversations')
    await page.getByLabel('Show conversations').waitFor()

    // A hit deep in the long chat: it opens there, highlighted, with its neighbours on both sides.
    await search('creme brulee')
    await expect.poll(() => hits.count()).toBe(1)
    await hits.first().click()
    const hit = bubble(seedId(LONG_HIT))
    await hit.waitFor()
    expect(await hit.getAttribute('data-flash')).toBe('true')
    await expect.poll(() => onScreen(hit)).toBe(true)
    expect(await bubble(seedId(LONG_HIT - 1)).count()).toBe(1)
    expect(await bubble(seedId(LONG_HIT + 1)).count()).toBe(1)
    expect(await conversation().getAttribute('data-messages')).toBe('101')
    expect(await conversation().getAttribute('data-reached-end')).toBe('false')
    // The highlight goes after a moment.
    await expect.poll(() => hit.getAttribute('data-flash'), { timeout: 5000 }).toBeNull()
    // Scrolling down after the jump loads the newer page (by cursor).
    await scrollConversation('bottom')
    await expect.poll(async () => Number(await conversation().getAttribute('data-messages'))).toBeGreaterThanOrEqual(201)
    // "Latest" goes back to the newest message.
    await page.getByRole('button', { name: 'Go to the latest message' }).click()
    await conversation().getByText('One more thing!').waitFor()
    expect(await conversation().getAttribute('data-reached-end')).toBe('true')
  })

  it('searches every instance at once, hits merged newest first with their instance named, or only the picked one', async () => {
    const bar = await rpc('instances.create', { channel: 'sandbox', name: 'Bar Centrale' })
    await rpc('instances.init', { instanceId: bar._id })
    await rpc('pairing.sandboxScan', { instanceId: bar._id })
    await rpc('settings.updateActions', { instanceId: bar._id, reply_msgs: false })
    await rpc('sandbox.inbound', { instanceId: bar._id, chatId: '15550108001', pushName: 'Ugo', message: 'Un caffè corretto, grazie' })
    await openTab('Inbox')
    const every = page.getByLabel('Every instance')
    expect(await every.isChecked()).toBe(true)
    await search('caffe')
    const hits = page.getByTestId('search-hit')
    await expect.poll(() => hits.count()).toBe(2)
    expect(await page.getByTestId('search-scope').textContent()).toContain('in every instance')
    // Newest first: Ugo wrote after Zoë; each hit names its instance.
    expect(await hits.nth(0).textContent()).toContain('Ugo')
    expect(await hits.nth(0).textContent()).toContain('Bar Centrale')
    expect(await hits.nth(1).textContent()).toContain(ZOE.pushName)
    expect(await hits.nth(1).textContent()).toContain('Trattoria')
    // Only the picked instance (Trattoria, in the header).
    await every.uncheck()
    await page.locator('[data-testid="search-results"][data-pending="false"]').waitFor()
    await expect.poll(() => hits.count()).toBe(1)
    expect(await page.getByTestId('search-scope').textContent()).toContain('in Trattoria')
    expect(await hits.first().textContent()).toContain(ZOE.pushName)
    await every.check()
    await page.getByLabel('Search messages').fill('')
  })

  it('shows the search results and the jumped-to message at phone, laptop and wide sizes', async () => {
    try {
      for (const [width, height] of SIZES) {
        await resize(page, { width, height })
        const size = `${width}x${height}`
        await openTab('Inbox')
        await backToList()
        await search('Message 250')
        await page.getByTestId('search-hit').first().waitFor()
        await fits('the search results', width, height)
        await shot(`search-${size}`)
        await page.getByTestId('search-hit').filter({ hasText: 'crème brûlée' }).click()
        await bubble(seedId(LONG_HIT)).waitFor()
        await expect.poll(() => onScreen(bubble(seedId(LONG_HIT)))).toBe(true)
        await fits('the jumped-to message', width, height)
        await shot(`jump-${size}`)
        await backToList()
      }
      // The same hit clicked again after the chat scrolled away from it opens the chat at it again.
      const hit = page.getByTestId('search-hit').filter({ hasText: 'crème brûlée' })
      await hit.click()
      await bubble(seedId(LONG_HIT)).waitFor()
      await scrollConversation('bottom')
      await bubble(seedId(LONG_HIT)).waitFor({ state: 'detached' })
      await hit.click()
      await expect.poll(() => onScreen(bubble(seedId(LONG_HIT)))).toBe(true)
    } finally {
      await resize(page, { width: 1366, height: 768 })
      await page.getByLabel('Search messages').fill('')
    }
  })

  it('searches contacts on the server, by name without accents, notes, group and label, a page at a time', async () => {
    // The customers who wrote are contacts already (Zoë, and Lou since 'One more thing!').
    const before = (await rpc('contacts.list', { instanceId })).total
    const group = await rpc('contactGroups.create', { instanceId, title: 'Regulars' })
    for (let i = 1; i <= 60; i++) await rpc('contacts.create', { instanceId, name: `Guest ${String(i).padStart(2, '0')}`, number: `+39 333 00000${String(i).padStart(2, '0')}`, ...(i <= 3 ? { group_id: group._id } : {}) })
    // Zoë became a contact when she wrote: notes and a label on her record.
    const {
      items: [zoe]
    } = await rpc('contacts.list', { instanceId, q: ZOE.chatId })
    expect(zoe.name).toBe(ZOE.pushName)
    await rpc('contacts.update', { instanceId, id: zoe._id, notes: 'Orders wholesale on Fridays', labels: ['vip'] })
    await openTab('Contacts')
    const count = page.getByTestId('contact-count')
    const rows = page.getByTestId('contact-table').locator('tbody tr')
    await expect.poll(() => count.textContent()).toBe(`50 of ${before + 60} contacts`)
    expect(await rows.count()).toBe(50)
    await page.getByRole('button', { name: 'Show more' }).click()
    await expect.poll(() => count.textContent()).toBe(`${before + 60} contacts`)
    expect(await rows.count()).toBe(before + 60)

    // Each filter is a request to the server, answered with the matching page.
    const filtered = async (sent: { q?: string; group_id?: string; label?: string }, act: () => Promise<void>) => {
      const asked = page.waitForResponse((r) => {
        if (!r.url().endsWith('/rpc/contacts.list')) return false
        const body = JSON.parse(r.request().postData() ?? '{}') as Record<string, unknown>
        return Object.entries(sent).every(([k, v]) => body[k] === v) && ['q', 'group_id', 'label'].every((k) => k in sent || !(k in body))
      })
      await act()
      await asked
    }
    const box = page.getByLabel('Search contacts')
    await filtered({ q: 'ambler' }, () => box.fill('ambler'))
    await expect.poll(() => count.textContent()).toBe('1 contact')
    expect(await rows.first().textContent()).toContain('Zoë Ämbler')
    await filtered({ q: 'wholesale' }, () => box.fill('wholesale'))
    await expect.poll(() => count.textContent()).toBe('1 contact')
    expect(await rows.first().textContent()).toContain('Zoë Ämbler')
    await filtered({}, () => box.fill(''))
    const groups = page.getByLabel('Contact groups')
    await filtered({ group_id: group._id }, () => groups.getByText('Regulars', { exact: true }).click())
    await expect.poll(() => count.textContent()).toBe('3 contacts')
    await filtered({}, () => groups.getByText('All', { exact: true }).click())
    await filtered({ label: 'vip' }, async () => {
      await page.getByRole('combobox', { name: 'Filter by label' }).click()
      await page.getByRole('option', { name: 'vip' }).click()
    })
    await expect.poll(() => count.textContent()).toBe('1 contact')
    // Picking the label again drops the filter.
    await page.getByRole('combobox', { name: 'Filter by label' }).click()
    await page.getByRole('option', { name: 'vip' }).click()
    await expect.poll(() => count.textContent()).toBe(`50 of ${before + 60} contacts`)
  })

  it('saves Settings → History (retention) and keeps it after a reload', async () => {
    await openTab('Settings')
    const history = page.getByRole('form', { name: 'History' })
    await history.getByLabel('Delete messages after').check()
    await history.getByLabel('Days to keep messages').fill('90')
    await history.getByLabel('Delete files after').check()
    await history.getByLabel('Days to keep media files').fill('30')
    expect(await history.getByTestId('history-explained').textContent()).toContain('older than 90 days are deleted for good')
    await history.getByRole('button', { name: 'Save' }).click()
    await history.getByRole('status').waitFor()
    const retention = async () => (await rpc('instances.list', {})).find((i: { _id: string }) => i._id === instanceId).settings.retention
    expect(await retention()).toEqual({ days: 90, media_days: 30 })
    await page.reload()
    const again = page.getByRole('form', { name: 'History' })
    await again.waitFor()
    expect(await again.getByLabel('Days to keep messages').inputValue()).toBe('90')
    expect(await again.getByLabel('Delete files after').isChecked()).toBe(true)
    try {
      for (const [width, height] of SIZES) {
        await resize(page, { width, height })
        await again.scrollIntoViewIfNeeded()
        await fits('Settings', width, height)
        await again.screenshot({ path: join(ARTIFACTS, `history-settings-${width}x${height}.png`) })
      }
    } finally {
      await resize(page, { width: 1366, height: 768 })
    }
    // Back to keeping everything, as the owner had it.
    await again.getByLabel('Keep every message').check()
    await again.getByLabel('Keep them as long as their message').check()
    await again.getByRole('button', { name: 'Save' }).click()
    await expect.poll(retention).toEqual({ days: null, media_days: null })
  })

  it('exports a customer’s data (JSON, CSV) and erases it after the number is typed: the chat leaves the inbox and the search', async () => {
    await openTab('Inbox')
    await page.getByTestId('conversation-row').filter({ hasText: ZOE.pushName }).click()
    const chat = page.getByTestId('chat-view')
    const menu = chat.getByRole('button', { name: `Customer data of +${ZOE.chatId}` })
    await menu.click()
    const [json] = await Promise.all([page.waitForEvent('download'), page.getByRole('menuitem', { name: 'Export data (JSON)' }).click()])
    expect(json.suggestedFilename()).toBe(`customer-${ZOE.chatId}.json`)
    const exported = JSON.parse(await readFile((await json.path())!, 'utf8'))
    expect(exported.number).toBe(ZOE.chatId)
    expect(exported.contact.name).toBe('Zoë Ämbler')
    expect(exported.messages.map((m: { text: string }) => m.text)).toEqual(ZOE_SAYS)
    await menu.click()
    const [csv] = await Promise.all([page.waitForEvent('download'), page.getByRole('menuitem', { name: 'Export messages (CSV)' }).click()])
    const rows = (await readFile((await csv.path())!, 'utf8')).trim().split('\n')
    expect(rows[0]).toBe('time,chat,direction,source,name,type,text,status')
    expect(rows).toHaveLength(1 + ZOE_SAYS.length)

    // The confirmation, at every size: what goes, that it cannot be undone, export first, the number typed.
    const dialog = page.getByRole('dialog', { name: /^Erase all data of Zoë Ämbler/ })
    try {
      for (const [width, height] of SIZES) {
        await resize(page, { width, height })
        await menu.click()
        await page.getByRole('menuitem', { name: 'Erase data…' }).click()
        await dialog.getByText('This cannot be undone').waitFor()
        await page.getByRole('menu').waitFor({ state: 'detached' })
        await page.screenshot({ path: join(ARTIFACTS, `history-erase-${width}x${height}.png`) })
        if (width !== SIZES.at(-1)![0]) {
          await dialog.getByRole('button', { name: 'Cancel' }).click()
          await dialog.waitFor({ state: 'detached' })
        }
      }
    } finally {
      await resize(page, { width: 1366, height: 768 })
    }
    const erase = dialog.getByRole('button', { name: 'Erase data' })
    expect(await erase.isDisabled()).toBe(true)
    await dialog.getByLabel('Type the number to confirm').fill('+1 555 010 700')
    expect(await erase.isDisabled()).toBe(true)
    await dialog.getByLabel('Type the number to confirm').fill(`+1 555 010 7001`)
    await erase.click()
    const done = page.getByTestId('erase-done')
    await done.getByText(`Erased ${ZOE_SAYS.length} messages`, { exact: false }).waitFor()
    await done.getByRole('button', { name: 'Done' }).click()
    await chat.waitFor({ state: 'detached' })
    await openTab('Inbox')
    await page.getByTestId('conversation-row').filter({ hasText: LONG.pushName }).waitFor()
    expect(await page.getByTestId('conversation-row').filter({ hasText: ZOE.pushName }).count()).toBe(0)
    expect(await rpc('messages.list', { instanceId, chatId: ZOE.chatId })).toEqual([])
    await search('macchiato')
    await page.getByText('No message found').waitFor()
    await page.getByLabel('Search messages').fill('')
  })

  it('erases a customer from the contact editor too', async () => {
    await openTab('Contacts')
    await page.getByLabel('Search contacts').fill('Guest 07')
    await page.getByRole('button', { name: 'Edit Guest 07' }).click()
    const editor = page.getByRole('dialog', { name: 'Contact Guest 07' })
    await editor.getByRole('button', { name: 'Customer data of +393330000007' }).click()
    await page.getByRole('menuitem', { name: 'Erase data…' }).click()
    const dialog = page.getByRole('dialog', { name: 'Erase all data of Guest 07 (+393330000007)?' })
    await dialog.getByLabel('Type the number to confirm').fill('+39 333 000 0007')
    // The erase modal sits inside the editor's form in React's tree: its submit must not also save the contact.
    const saves: string[] = []
    const onRequest = (r: { url(): string }) => void (r.url().endsWith('/rpc/contacts.update') && saves.push(r.url()))
    page.on('request', onRequest)
    await dialog.getByRole('button', { name: 'Erase data' }).click()
    await page.getByTestId('erase-done').getByText('1 contact record', { exact: false }).waitFor()
    page.off('request', onRequest)
    expect(saves).toEqual([])
    await page.getByTestId('erase-done').getByRole('button', { name: 'Done' }).click()
    await editor.waitFor({ state: 'detached' })
    await expect.poll(() => page.getByRole('button', { name: 'Edit Guest 07' }).count()).toBe(0)
    expect((await rpc('contacts.list', { instanceId, q: '393330000007' })).items).toEqual([])
    expect(pageErrors).toEqual([])
  })
})
