/**
 * People at the desk in the web UI (docs/ui.md "People at the desk"), in Debian's Chromium against the real headless server
 * with two sandbox instances: the owner (API token) adds an agent for the first instance, the agent
 * opens the invite link on a phone, sets a password and is signed in, sees only that instance's chat
 * and the Inbox and Contacts tabs (nothing they open is refused), and replies; the owner's Inbox shows
 * the reply under the agent's name and the conversation assigned to them. Then the owner's API keys
 * (made, used, limited to an instance, revoked) and audit log, a manager opening every tab offered
 * without a refusal, a wrong password, a used invite and signing out. Screenshots of the agent's Inbox and of People, API keys and Audit at phone, laptop and
 * wide sizes go to test-artifacts/people-*.png.
 *
 * Needs `npm run build` first (npm test does it) and /usr/bin/chromium.
 */
import { mkdir } from 'node:fs/promises'
import { join } from 'node:path'
import type { Browser, BrowserContext, Locator, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { fullPageShot, launchChromium, logIn, openSection, resize, sectionNames, sendKinds, SIZES } from './chromium'
import { startServe, type ServeProcess } from './serve-process'

const ARTIFACTS = join(import.meta.dirname, '..', '..', 'test-artifacts')
const SHOT_NAMES: Record<number, string> = { 390: 'phone', 1366: 'laptop', 1920: 'wide' }
const PASSWORD = 'correct horse battery'

let serve: ServeProcess
let browser: Browser
let ownerCtx: BrowserContext
let agentCtx: BrowserContext
let owner: Page
let agent: Page
let pizzeria: string
let bakery: string
let inviteUrl: string
const pageErrors: string[] = []
/** /rpc answers the agent's page got that were refused (403): the UI must not ask for what it may not use. */
const agentRefused: string[] = []

const rpc = (method: string, input: unknown) => serve.rpc(method, input)

/** Calls `/rpc/<method>` with another bearer (an API key); answers the HTTP status. */
async function statusWith(bearer: string, method: string, input: unknown): Promise<number> {
  const res = await fetch(`${serve.url}/rpc/${method}`, { method: 'POST', headers: { authorization: `Bearer ${bearer}`, 'content-type': 'application/json' }, body: JSON.stringify(input) })
  return res.status
}

/** A picture of one card, cut from a full-page capture taken from the top (an element capture scrolls under the sticky header). */
async function cardShot(page: Page, card: Locator, file: string): Promise<void> {
  await page.evaluate('window.scrollTo(0, 0)')
  const box = await card.boundingBox()
  await page.screenshot({ path: join(ARTIFACTS, file), fullPage: true, clip: box! })
}

async function fits(page: Page, what: string): Promise<void> {
  const overflow = (await page.evaluate('document.documentElement.scrollWidth - window.innerWidth')) as number
  expect(overflow, what).toBeLessThanOrEqual(0)
}

async function openTab(page: Page, name: string): Promise<void> {
  await openSection(page, name)
}

/** Picks `option` in the Mantine MultiSelect labelled `label` inside `scope`. */
async function pick(page: Page, scope: Locator, label: string, option: string): Promise<void> {
  await scope.getByLabel(label, { exact: true }).click()
  await page.getByRole('option', { name: option, exact: true }).click()
  await page.keyboard.press('Escape')
}

describe('People at the desk in the web UI (sandbox)', { timeout: 180_000 }, () => {
  beforeAll(async () => {
    await mkdir(ARTIFACTS, { recursive: true })
    serve = await startServe()
    for (const name of ['Pizzeria', 'Bakery']) {
      const inst = await rpc('instances.create', { channel: 'sandbox', name })
      await rpc('instances.init', { instanceId: inst._id })
      await rpc('pairing.sandboxScan', { instanceId: inst._id })
      if (name === 'Pizzeria') pizzeria = inst._id
      else bakery = inst._id
    }
    // A customer writes to each instance.
    await rpc('sandbox.inbound', { instanceId: pizzeria, chatId: '15550100031', pushName: 'Ann', message: 'Do you deliver tonight?' })
    await rpc('sandbox.inbound', { instanceId: bakery, chatId: '15550100032', pushName: 'Bob', message: 'Is there bread left?' })
    browser = await launchChromium()
    ownerCtx = await browser.newContext({ viewport: { width: 1366, height: 768 } })
    agentCtx = await browser.newContext({ viewport: { width: 390, height: 844 } })
    owner = await ownerCtx.newPage()
    agent = await agentCtx.newPage()
    for (const p of [owner, agent]) p.on('pageerror', (e) => pageErrors.push(e.stack ?? e.message))
    agent.on('response', (r) => {
      if (r.url().includes('/rpc/') && r.status() === 403) agentRefused.push(r.url())
    })
    await logIn(owner, serve.url, serve.token)
  }, 120_000)

  afterAll(async () => {
    await browser?.close()
    await serve?.stop()
  })

  it('the owner adds an agent for the first instance and gets the invite link once', async () => {
    await openTab(owner, 'People')
    const card = owner.getByTestId('people-card')
    await card.getByTestId('people-empty').waitFor()
    await card.getByRole('button', { name: 'Add a person' }).click()
    const form = owner.getByRole('form', { name: 'Add a person' })
    await form.getByLabel('Name').fill('Bea Rossi')
    await form.getByLabel('Login').fill('bea')
    await pick(owner, form, 'Instances', 'Pizzeria')
    await form.getByRole('button', { name: 'Add and make the invite link' }).click()
    inviteUrl = (await owner.getByTestId('invite-url').textContent())!
    // The dialog covers the viewport only: a full-page capture would show the page below it uncovered.
    await owner.screenshot({ path: join(ARTIFACTS, 'people-invite-shown-laptop.png') })
    expect(inviteUrl).toMatch(new RegExp(`^${serve.url}/#invite=.+`))
    await owner.getByRole('dialog').getByRole('button', { name: 'Done' }).click()
    const row = card.getByTestId('person-row').filter({ hasText: 'Bea Rossi' })
    await row.getByText('invited', { exact: true }).waitFor()
    expect(await row.textContent()).toContain('bea · Pizzeria')
    expect(await rpc('staff.list', {})).toMatchObject([{ name: 'Bea Rossi', login: 'bea', role: 'agent', instance_ids: [pizzeria], active: false }])
  })

  it('the agent accepts the invite on a phone, sets a password and is signed in with it', async () => {
    await agent.goto(inviteUrl)
    const form = agent.getByRole('form', { name: 'Accept your invite' })
    await form.waitFor()
    // The code leaves the address bar at once.
    expect(agent.url()).not.toContain('invite=')
    await fullPageShot(agent, join(ARTIFACTS, 'people-invite-phone.png'))
    await form.getByTestId('new-password').fill('too short')
    await form.getByTestId('new-password-again').fill('too short')
    expect(await form.getByRole('button', { name: 'Set password and sign in' }).isDisabled()).toBe(true)
    await form.getByTestId('new-password').fill(PASSWORD)
    await form.getByTestId('new-password-again').fill(PASSWORD)
    await form.getByRole('button', { name: 'Set password and sign in' }).click()
    await agent.getByTestId('instance-picker').waitFor()
    expect((await rpc('staff.list', {}))[0].active).toBe(true)
  })

  it('the agent sees the Inbox and Contacts only, and only the first instance’s chat', async () => {
    // A phone: the sections are the menu's.
    await expect.poll(() => sectionNames(agent)).toEqual(['Inbox', 'Contacts'])
    // Only the first instance is theirs (on a phone the picker shows its number; its list, the name).
    await agent.getByTestId('instance-picker').click()
    await expect.poll(() => agent.getByRole('option').allTextContents()).toEqual([expect.stringMatching(/^Pizzeria/)])
    await agent.keyboard.press('Escape')
    const inbox = agent.getByTestId('inbox')
    const rows = inbox.getByTestId('conversation-row')
    await rows.filter({ hasText: 'Ann' }).waitFor()
    expect(await rows.count()).toBe(1)
    expect(await inbox.getByText('Bob').count()).toBe(0)
    // Read-only contacts: no adding, importing or editing.
    await openTab(agent, 'Contacts')
    await agent.getByRole('button', { name: 'Export CSV' }).waitFor()
    expect(await agent.getByRole('button', { name: 'Add contact' }).count()).toBe(0)
    expect(await agent.getByText('+ New group').count()).toBe(0)
    await openTab(agent, 'Inbox')
    await rows.first().waitFor()
  })

  it('the agent replies; the reply carries their name and the conversation becomes theirs', async () => {
    const row = agent.getByTestId('conversation-row').filter({ hasText: 'Ann' })
    await fits(agent, 'agent inbox at 390x844')
    await fullPageShot(agent, join(ARTIFACTS, 'people-agent-inbox-phone.png'))
    await row.click()
    const chat = agent.getByTestId('chat-view')
    await chat.getByText('Do you deliver tonight?').waitFor()
    const compose = agent.getByRole('form', { name: 'Compose' })
    // The kinds that pick one of the bot's files are not offered to an agent.
    expect(await sendKinds(agent, compose)).toEqual(['Text', 'File URL', 'Location', 'Contact', 'Buttons', 'List'])
    await compose.getByTestId('compose-text').fill('Yes, until 23:00. Bea')
    await compose.getByRole('button', { name: 'Send text' }).click()
    const mine = chat.getByTestId('bubble-out').filter({ hasText: 'Yes, until 23:00' })
    // Her own reply reads "You" to her; the owner sees her name (below).
    await expect.poll(() => mine.getByTestId('sender').textContent()).toMatch(/^You · /)
    await expect.poll(() => chat.getByTestId('assign-button').textContent()).toBe('Assigned: Bea Rossi')
    await chat.getByTestId('assignment-line').filter({ hasText: 'Bea Rossi took this conversation' }).waitFor()
    await fits(agent, 'agent chat at 390x844')
    await fullPageShot(agent, join(ARTIFACTS, 'people-agent-chat-phone.png'))
    // The assign menu of an agent: give it back (they cannot list or hand to others).
    await chat.getByTestId('assign-button').click()
    await agent.getByRole('menuitem', { name: 'Unassign' }).waitFor()
    expect(await agent.getByRole('menuitem').allTextContents()).toEqual(['Unassign'])
    await agent.keyboard.press('Escape')
    await agent.getByRole('menuitem').waitFor({ state: 'detached' })
    for (const [width, height] of SIZES.slice(1)) {
      await resize(agent, { width, height })
      await chat.getByText('Yes, until 23:00').waitFor()
      await fits(agent, `agent inbox at ${width}x${height}`)
      await fullPageShot(agent, join(ARTIFACTS, `people-agent-inbox-${SHOT_NAMES[width]}.png`))
    }
    expect(agentRefused).toEqual([])
  })

  it('the owner’s Inbox shows the reply under the agent’s name, assigned to them; the owner assigns the other chat', async () => {
    await openTab(owner, 'Inbox')
    const inbox = owner.getByTestId('inbox')
    const ann = inbox.getByTestId('conversation-row').filter({ hasText: 'Ann' })
    await expect.poll(() => ann.getByTestId('assignee').textContent()).toContain('Bea Rossi')
    await inbox.getByTestId('assigned-filter').getByText('Unassigned').click()
    await inbox.getByTestId('conversation-row').filter({ hasText: 'Bob' }).waitFor()
    await expect.poll(() => ann.count()).toBe(0)
    await inbox.getByTestId('assigned-filter').getByText('All').click()
    await ann.click()
    const chat = owner.getByTestId('chat-view')
    await expect.poll(() => chat.getByTestId('bubble-out').filter({ hasText: 'Yes, until 23:00' }).getByTestId('sender').textContent()).toContain('Bea Rossi')
    await chat.getByTestId('assignment-line').filter({ hasText: 'Bea Rossi took this conversation' }).waitFor()

    // Bob writes to the second instance: Bea does not work on it, so she is not offered.
    await inbox.getByTestId('conversation-row').filter({ hasText: 'Bob' }).click()
    await chat.getByText('Is there bread left?').waitFor()
    await chat.getByTestId('assign-button').click()
    await owner.getByRole('menuitem', { name: 'Assign to me' }).waitFor()
    expect(await owner.getByRole('menuitem').allTextContents()).toEqual(['Assign to me', 'Round-robin (a signed-in agent)'])
    await owner.getByRole('menuitem', { name: 'Assign to me' }).click()
    await expect.poll(() => chat.getByTestId('assign-button').textContent()).toBe('Assigned: Owner')
    await chat.getByTestId('assignment-line').filter({ hasText: 'Owner took this conversation' }).waitFor()
    expect((await rpc('inbox.get', { instanceId: bakery, chatId: '15550100032@s.whatsapp.net' })).assigned_to).toEqual({ id: 'owner', name: 'Owner' })

    // Live: a change made elsewhere (here the API) reaches the agent's open chat and the owner's list.
    await rpc('inbox.assign', { instanceId: pizzeria, chatId: '15550100031@s.whatsapp.net', staff_id: 'owner' })
    await expect.poll(() => agent.getByTestId('assign-button').textContent()).toBe('Assigned: Owner')
    await agent.getByTestId('assignment-line').filter({ hasText: 'Owner took this conversation' }).waitFor()
    await expect.poll(() => ann.getByTestId('assignee').textContent()).toContain('Owner')
  })

  it('the owner makes an API key limited to a scope and an instance, sees it once, and revokes it', async () => {
    await openTab(owner, 'People')
    const card = owner.getByTestId('api-keys-card')
    await card.getByRole('button', { name: 'New key' }).click()
    const form = owner.getByRole('form', { name: 'New API key' })
    await form.getByLabel('Name').fill('CRM sync')
    await pick(owner, form, 'Scopes', 'contacts:read')
    await pick(owner, form, 'Instances', 'Pizzeria')
    await form.getByRole('button', { name: 'Make the key' }).click()
    const key = (await owner.getByTestId('new-key').textContent())!
    await owner.getByText('it will not be shown again', { exact: false }).waitFor()
    await owner.screenshot({ path: join(ARTIFACTS, 'people-key-shown-laptop.png') })
    expect(await statusWith(key, 'contacts.list', { instanceId: pizzeria })).toBe(200)
    expect(await statusWith(key, 'contacts.list', { instanceId: bakery })).toBe(403)
    expect(await statusWith(key, 'contacts.create', { instanceId: pizzeria, name: 'X', number: '15550100099' })).toBe(403)
    await owner.getByRole('dialog').getByRole('button', { name: 'Done' }).click()
    const row = card.getByTestId('key-row').filter({ hasText: 'CRM sync' })
    // Its last use and the address it came from, once the list is read again.
    await owner.reload()
    await openTab(owner, 'People')
    await expect.poll(() => row.textContent()).toMatch(/contacts:read.*Pizzeria · made .* · last used .* from /)
    await row.getByRole('button', { name: 'Revoke' }).click()
    await owner.getByRole('dialog', { name: 'Revoke “CRM sync”?' }).getByRole('button', { name: 'Revoke' }).click()
    await expect.poll(() => row.getAttribute('data-revoked')).toBe('true')
    expect(await statusWith(key, 'contacts.list', { instanceId: pizzeria })).toBe(401)
  })

  it('the audit log lists sign-ins and changes newest first, filtered by kind', async () => {
    const audit = owner.getByTestId('audit-card')
    const rows = audit.getByTestId('audit-row')
    // The log was read when the tab opened, before the key was revoked.
    await audit.getByRole('button', { name: 'Refresh' }).click()
    // The rows read before stay until the new page arrives, with the revocation on top.
    await expect.poll(() => rows.first().textContent()).toContain('Revoked an API key')
    await rows.filter({ hasText: 'Bea Rossi · Signed in' }).waitFor()
    await rows.filter({ hasText: 'Added a person' }).waitFor()
    await rows.filter({ hasText: 'Bea Rossi · Accepted an invite and set a password' }).waitFor()
    await audit.getByLabel('Show').click()
    await owner.getByRole('option', { name: 'Sign-ins', exact: true }).click()
    await expect.poll(async () => (await rows.count()) > 0 && (await audit.locator('[data-testid=audit-row]:not([data-kind=login])').count()) === 0).toBe(true)
    await audit.getByLabel('Show').click()
    await owner.getByRole('option', { name: 'Everything', exact: true }).click()
    await rows.filter({ hasText: 'Revoked an API key' }).first().waitFor()
  })

  it('People, API keys and Audit fit a phone, a laptop and a wide screen', async () => {
    for (const [width, height] of SIZES) {
      await resize(owner, { width, height })
      await owner.getByTestId('person-row').first().waitFor()
      await fits(owner, `People at ${width}x${height}`)
      const size = SHOT_NAMES[width]
      await cardShot(owner, owner.getByTestId('people-card'), `people-people-${size}.png`)
      await cardShot(owner, owner.getByTestId('api-keys-card'), `people-keys-${size}.png`)
      await cardShot(owner, owner.getByTestId('audit-card'), `people-audit-${size}.png`)
    }
  })

  it('a manager signs in with login and password and opens every tab offered without a refusal', async () => {
    const invite = await rpc('staff.create', { name: 'Marco', login: 'marco', role: 'manager' })
    const code = decodeURIComponent(invite.invite_url.split('#invite=')[1])
    const accepted = await fetch(`${serve.url}/auth/accept-invite`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ code, password: PASSWORD }) })
    expect(accepted.status).toBe(200)
    const page = await browser.newPage({ viewport: { width: 1366, height: 768 } })
    const refused: string[] = []
    page.on('response', (r) => {
      if (r.url().includes('/rpc/') && r.status() === 403) refused.push(r.url())
    })
    page.on('pageerror', (e) => pageErrors.push(e.stack ?? e.message))
    await page.goto(serve.url)
    const form = page.getByRole('form', { name: 'Sign in' })
    await form.getByLabel('Login').fill('marco')
    await form.getByTestId('login-password').fill(PASSWORD)
    await form.getByRole('button', { name: 'Sign in' }).click()
    await page.getByTestId('instance-picker').waitFor()
    // The tabs render once the caller's permissions are known, which may follow the picker.
    const offered = ['Instances', 'Pairing', 'Settings', 'Intents', 'Surveys', 'Inbox', 'Contacts', 'Broadcasts', 'Test chat']
    await expect.poll(() => page.getByRole('tab').allTextContents()).toEqual(offered)
    const tabs = offered
    for (const tab of tabs) {
      await openTab(page, tab)
      await expect.poll(() => page.getByRole('tab', { name: tab, exact: true }).getAttribute('aria-selected')).toBe('true')
      // Each tab's first reads have answered: nothing is loading.
      await expect.poll(() => page.locator('.mantine-Loader-root').count()).toBe(0)
    }
    await openTab(page, 'Settings')
    await page.getByText('Settings of Pizzeria').waitFor()
    expect(await page.getByTestId('backup-section').count()).toBe(0)
    await openTab(page, 'Instances')
    expect(await page.getByRole('button', { name: 'Create instance' }).isVisible()).toBe(false)
    expect(refused).toEqual([])
    await page.close()
  })

  it('a wrong password and a used invite say so; signing out ends the session', async () => {
    const other = await browser.newPage({ viewport: { width: 390, height: 844 } })
    await other.goto(serve.url)
    const form = other.getByRole('form', { name: 'Sign in' })
    await form.getByLabel('Login').fill('bea')
    await form.getByTestId('login-password').fill('not the password')
    await form.getByRole('button', { name: 'Sign in' }).click()
    await form.getByRole('alert').getByText('Wrong login or password.').waitFor()
    await fullPageShot(other, join(ARTIFACTS, 'people-login-phone.png'))
    await other.goto('about:blank')
    await other.goto(inviteUrl)
    const invite = other.getByRole('form', { name: 'Accept your invite' })
    await invite.getByTestId('new-password').fill(PASSWORD)
    await invite.getByTestId('new-password-again').fill(PASSWORD)
    await invite.getByRole('button', { name: 'Set password and sign in' }).click()
    await invite.getByRole('alert').getByText('unknown, already used or expired', { exact: false }).waitFor()
    await other.close()

    // The agent signs out everywhere: the session's token is refused from then on.
    await resize(agent, { width: 390, height: 844 })
    const token = (await agent.evaluate("sessionStorage.getItem('chatapp.token')")) as string
    expect(await statusWith(token, 'auth.me', {})).toBe(200)
    await agent.getByTestId('account-menu').click()
    expect(await agent.getByTestId('account-who').textContent()).toBe('Bea Rossi · agent')
    await agent.getByRole('menuitem', { name: 'Sign out everywhere' }).click()
    await agent.getByRole('form', { name: 'Sign in' }).waitFor()
    expect(await agent.evaluate("sessionStorage.getItem('chatapp.token')")).toBeNull()
    expect(await statusWith(token, 'auth.me', {})).toBe(401)
    expect(pageErrors).toEqual([])
  })
})
