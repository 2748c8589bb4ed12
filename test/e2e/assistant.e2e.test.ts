/**
 * The assistant in the web UI (docs/assistant.md), in Debian's Chromium against the real headless
 * server (sandbox channel) and a real OpenAI-compatible endpoint on loopback
 * (test/support/openai-fake.ts): the owner picks where the model runs, types the key (stored, never
 * shown again), writes knowledge by hand and imports a question,answer CSV, asks the assistant a
 * question and sees its answer with the knowledge it drew on, then a customer in Test chat gets the
 * model's answer and the "why" line under the question says how it was answered, live; the usage
 * meter counts it. Screenshots at phone, laptop and wide sizes go to test-artifacts/assistant-*.png.
 *
 * Needs `npm run build` first (npm test does it) and /usr/bin/chromium.
 */
import { mkdir } from 'node:fs/promises'
import { join } from 'node:path'
import type { Browser, Locator, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { fullPageShot, launchChromium, logIn, resize, SIZES } from './chromium'
import { startServe, type ServeProcess } from './serve-process'
import { startOpenAiFake, type OpenAiFake } from '../support/openai-fake'

const ARTIFACTS = join(import.meta.dirname, '..', '..', 'test-artifacts')
const KEY = 'sk-e2e-secret-0123456789'

let fake: OpenAiFake
let serve: ServeProcess
let browser: Browser
let page: Page
let inst: string
const pageErrors: string[] = []

const rpc = (method: string, input: unknown) => serve.rpc(method, input)
const section = () => page.getByTestId('assistant-section')
const settingsForm = () => page.getByRole('form', { name: 'Assistant settings' })
const shot = (name: string) => fullPageShot(page, join(ARTIFACTS, `assistant-${name}.png`))
/** What the window shows (the Settings page is long: a full-page picture of it is mostly other sections). */
const view = (name: string) => page.screenshot({ path: join(ARTIFACTS, `assistant-${name}.png`) })
/** Scrolls `el` to the top of the window, below the sticky header (60 px). */
const toTop = async (el: Locator) => {
  const box = await el.boundingBox()
  if (box) await page.evaluate(`window.scrollBy(0, ${Math.round(box.y - 68)})`)
}

async function openTab(name: string): Promise<void> {
  await page.getByRole('tab', { name, exact: true }).click()
}

describe('the assistant in the web UI', { timeout: 150_000 }, () => {
  beforeAll(async () => {
    await mkdir(ARTIFACTS, { recursive: true })
    fake = await startOpenAiFake()
    serve = await startServe()
    inst = (await rpc('instances.create', { channel: 'sandbox', name: 'Trattoria Roma' }))._id
    await rpc('instances.init', { instanceId: inst })
    await rpc('pairing.sandboxScan', { instanceId: inst })
    await vi.waitFor(async () => expect((await rpc('instances.list', {})).find((i: { _id: string }) => i._id === inst).settings.status).toBe('CONNECTED'), { timeout: 20_000, interval: 200 })
    browser = await launchChromium()
    page = await browser.newPage({ viewport: { width: 1366, height: 768 } })
    page.on('pageerror', (e) => pageErrors.push(e.message))
    page.on('dialog', (d) => void d.accept())
    await logIn(page, serve.url, serve.token)
  }, 90_000)

  afterAll(async () => {
    await browser?.close()
    await serve?.stop()
    await fake?.close()
  })

  it('sets the assistant up: a preset fills the endpoint, the key is stored and never shown again', async () => {
    await openTab('Settings')
    await section().waitFor()
    const form = settingsForm()
    // Ollama's preset fills its address on this PC; the test's endpoint is "another server".
    await form.getByLabel('Where the model runs', { exact: true }).click()
    await page.getByRole('option', { name: 'Ollama on this PC' }).click()
    expect(await form.getByLabel('Endpoint (its /v1 address)').inputValue()).toBe('http://127.0.0.1:11434/v1')
    await form.getByLabel('Where the model runs', { exact: true }).click()
    await page.getByRole('option', { name: 'Another OpenAI-compatible server' }).click()
    await form.getByLabel('Endpoint (its /v1 address)').fill(fake.baseUrl)
    await form.getByLabel('Model', { exact: true }).fill('fake-chat')
    await form.getByLabel('API key').fill(KEY)
    await form.getByLabel('Answer customers with the assistant').check({ force: true })
    await form.getByRole('button', { name: 'Save' }).click()
    await form.getByText('stored', { exact: true }).waitFor()
    // Write-only: the field is empty again, the page holds the key nowhere, the API answers only that one is set.
    expect(await form.getByLabel('API key').inputValue()).toBe('')
    expect(await page.content()).not.toContain(KEY)
    const view = await rpc('assistant.get', { instanceId: inst })
    expect(view).toMatchObject({ enabled: true, base_url: fake.baseUrl, model: 'fake-chat', api_key_set: true })
    expect(JSON.stringify(view)).not.toContain(KEY)
  })

  it('refuses this app’s own API as the endpoint, next to the field', async () => {
    const form = settingsForm()
    const own = `${serve.url}/v1`
    await form.getByLabel('Endpoint (its /v1 address)').fill(own)
    await form.getByRole('button', { name: 'Save' }).click()
    await form.getByText(/own API/).first().waitFor()
    expect((await rpc('assistant.get', { instanceId: inst })).base_url).toBe(fake.baseUrl)
    await form.getByLabel('Endpoint (its /v1 address)').fill(fake.baseUrl)
    await form.getByRole('button', { name: 'Save' }).click()
    await expect.poll(async () => (await form.getByText(/own API/).count())).toBe(0)
  })

  it('writes knowledge, imports a CSV of questions and finds it by any part of a word', async () => {
    const knowledge = section().getByTestId('knowledge')
    await knowledge.getByRole('button', { name: 'Add' }).click()
    await knowledge.getByLabel('Title').fill('Delivery')
    await knowledge.getByLabel('Content').fill('We deliver within 5 km of Via Roma, every day from 18:00. Free above 20 euros.')
    await knowledge.getByRole('button', { name: 'Save' }).click()
    await knowledge.getByTestId('knowledge-list').getByText('Delivery', { exact: true }).waitFor()

    const chooser = page.waitForEvent('filechooser')
    await knowledge.getByRole('button', { name: 'Import a file' }).click()
    await (await chooser).setFiles({
      name: 'faq.csv',
      mimeType: 'text/csv',
      buffer: Buffer.from('question,answer\nDo you have gluten-free pizza?,"Yes, every pizza can be made gluten-free for 2 euros more."\nCan I pay by card?,Yes: cards and cash.\n')
    })
    await knowledge.getByTestId('knowledge-list').getByText('faq.csv').first().waitFor()
    const entries = await rpc('knowledge.list', { instanceId: inst })
    expect(entries.map((e: { title: string }) => e.title).sort()).toEqual(['Delivery', 'faq'])

    await knowledge.getByLabel('Search the knowledge').fill('GLUTEN')
    await expect.poll(() => knowledge.getByTestId('knowledge-list').getByRole('button', { name: /^Edit/ }).count()).toBe(1)
    await knowledge.getByTestId('knowledge-list').locator('mark').first().waitFor()
    for (const [width, height] of SIZES) {
      await resize(page, { width, height })
      await toTop(knowledge)
      await view(`knowledge-${width}x${height}`)
    }
    await resize(page, { width: 1366, height: 768 })
    await knowledge.getByLabel('Search the knowledge').fill('')
    await expect.poll(() => knowledge.getByTestId('knowledge-list').getByRole('button', { name: /^Edit/ }).count()).toBe(2)
  })

  it('"Ask your assistant" shows the answer, the knowledge it drew on and what it cost, sending nothing', async () => {
    const ask = section().getByTestId('assistant-ask')
    await ask.getByLabel('Question').fill('Do you deliver on Sundays?')
    await ask.getByRole('button', { name: 'Ask' }).click()
    await ask.getByTestId('ask-reply').getByText(/From our knowledge \(Delivery/).waitFor()
    await ask.getByTestId('ask-sources').getByText('Delivery', { exact: true }).waitFor()
    await ask.getByText(/fake-chat · 132 tokens/).waitFor()
    // What the model was shown: the owner's instructions, the shop's facts and the hand-off tool.
    const sent = fake.chats().at(-1)!
    expect(sent.messages[0]!.content).toContain('Trattoria Roma')
    expect(sent.tools?.map((t) => t.function.name)).toEqual(['handoff_to_human'])
    expect(fake.requests.at(-1)!.headers.authorization).toBe(`Bearer ${KEY}`)
    expect(await rpc('messages.list', { instanceId: inst })).toEqual([])

    // A failing endpoint: the box says why and what the customer would get instead.
    fake.script({ status: 500, message: 'model crashed' })
    await ask.getByRole('button', { name: 'Ask' }).click()
    await ask.getByText('The assistant could not answer').waitFor()
    for (const [width, height] of SIZES) {
      await resize(page, { width, height })
      await toTop(ask)
      await view(`ask-${width}x${height}`)
    }
    await resize(page, { width: 1366, height: 768 })
    await ask.getByRole('button', { name: 'Ask' }).click()
    await ask.getByTestId('ask-reply').getByText(/From our knowledge/).waitFor()
  })

  it('answers a customer in Test chat; the why line and the usage meter follow live', async () => {
    await rpc('assistant.update', { instanceId: inst, debounce_ms: 500 })
    await openTab('Test chat')
    await page.getByTestId('test-chat-input').fill('is delivery free?')
    await page.getByRole('button', { name: 'Send' }).click()
    const chat = page.getByTestId('test-chat-log')
    await chat.getByText(/From our knowledge \(Delivery/).waitFor({ timeout: 15_000 })
    // The question's "why" line turned from "Sent to the assistant…" into how it was answered, without a reload.
    await chat.getByTestId('bot-decision').filter({ hasText: /Answered by the assistant \(fake-chat · 132 tokens/ }).waitFor()
    for (const [width, height] of SIZES) {
      await resize(page, { width, height })
      await shot(`testchat-${width}x${height}`)
    }
    await resize(page, { width: 1366, height: 768 })

    await openTab('Settings')
    const usage = section().getByTestId('assistant-usage')
    // Three dry runs (one failed: no tokens) and this answer: 3 × 132 tokens.
    await expect.poll(() => usage.getByTestId('tokens-today').textContent()).toBe('396 tokens of 200,000')
    await usage.getByRole('cell', { name: '396' }).waitFor()
    for (const [width, height] of SIZES) {
      await resize(page, { width, height })
      await toTop(section())
      await view(`settings-${width}x${height}`)
      await toTop(section().getByTestId('assistant-usage'))
      await view(`usage-${width}x${height}`)
    }
    await resize(page, { width: 1366, height: 768 })
  })

  it('a failing model server: customers get the fallback, and the instance card and the settings say why', async () => {
    await rpc('settings.updateGeneral', { instanceId: inst, default_msg: 'Thanks! A person will answer soon.' })
    fake.script({ status: 503, message: 'overloaded' }, { status: 503, message: 'overloaded' }, { status: 503, message: 'overloaded' })
    for (const n of [1, 2, 3]) await rpc('sandbox.inbound', { instanceId: inst, chatId: `1555020000${n}`, message: 'are you open today?', pushName: `Guest ${n}` })
    await vi.waitFor(async () => expect((await rpc('instances.health', { instanceId: inst })).assistant?.state).toBe('open'), { timeout: 20_000, interval: 200 })
    const guest = await rpc('messages.list', { instanceId: inst, chatId: '15550200001@s.whatsapp.net' })
    expect(guest.map((m: { text: string }) => m.text)).toContain('Thanks! A person will answer soon.')
    await openTab('Instances')
    await page.getByTestId('assistant-circuit-health').getByText(/model server is failing \(HTTP 503/).waitFor()
    await openTab('Settings')
    await section().getByTestId('assistant-circuit').waitFor()
    for (const [width, height] of SIZES) {
      await resize(page, { width, height })
      await toTop(section())
      await view(`circuit-${width}x${height}`)
    }
    await resize(page, { width: 1366, height: 768 })
    expect(pageErrors).toEqual([])
  })

  it('an agent (no Settings tab) sees how the assistant answers beside the Inbox, read-only, never the key, and asks for nothing refused', async () => {
    const PASSWORD = 'agent-password-0123'
    await rpc('assistant.update', { instanceId: inst, instructions: 'Answer in the shop’s friendly tone.' })
    const invite = await rpc('staff.create', { name: 'Bea', login: 'bea', role: 'agent', instance_ids: [inst] })
    const code = decodeURIComponent(invite.invite_url.split('#invite=')[1])
    const accepted = await fetch(`${serve.url}/auth/accept-invite`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ code, password: PASSWORD }) })
    expect(accepted.status).toBe(200)
    const ctx = await browser.newContext({ viewport: { width: 1366, height: 768 } })
    const agent = await ctx.newPage()
    const refused: string[] = []
    agent.on('response', (r) => {
      if (r.url().includes('/rpc/') && r.status() === 403) refused.push(r.url())
    })
    agent.on('pageerror', (e) => pageErrors.push(e.message))
    await agent.goto(serve.url)
    const form = agent.getByRole('form', { name: 'Sign in' })
    await form.getByLabel('Login').fill('bea')
    await form.getByTestId('login-password').fill(PASSWORD)
    await form.getByRole('button', { name: 'Sign in' }).click()
    await agent.getByTestId('instance-picker').waitFor()
    await expect.poll(() => agent.getByRole('tab').allTextContents()).not.toContain('Settings')
    await agent.getByRole('tab', { name: 'Inbox', exact: true }).click()
    const summary = agent.getByTestId('assistant-summary')
    await summary.waitFor()
    const text = await summary.textContent()
    expect(text).toContain('Only the owner or a manager can change these settings.')
    expect(text).toContain('Answer in the shop’s friendly tone.')
    expect(text).toMatch(/Model: \S/)
    expect(await agent.getByRole('form', { name: 'Assistant settings' }).count()).toBe(0)
    expect(await agent.content()).not.toContain(KEY)
    const box = await summary.boundingBox()
    if (box) await agent.evaluate(`window.scrollBy(0, ${Math.round(box.y - 68)})`)
    await agent.screenshot({ path: join(ARTIFACTS, 'assistant-agent-inbox-1366x768.png') })
    // Wide: the same card; on a phone the Inbox shows no side column (quick replies, files, this card).
    await resize(agent, { width: 1920, height: 1080 })
    await summary.waitFor()
    await agent.screenshot({ path: join(ARTIFACTS, 'assistant-agent-inbox-1920x1080.png') })
    await resize(agent, { width: 390, height: 844 })
    await agent.getByTestId('inbox').waitFor()
    expect(await summary.count()).toBe(0)
    expect(refused).toEqual([])
    await ctx.close()
    expect(pageErrors).toEqual([])
  })
})
