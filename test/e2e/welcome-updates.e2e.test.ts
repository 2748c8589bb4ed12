/**
 * End to end in Debian's Chromium (docs/design.md §19): the first-run welcome and Settings → About with updates.
 *
 * The page is the desktop app's renderer. The Electron window cannot run here (no Electron binary), so
 * the renderer talks to the app over the UI contract's HTTP transport instead of IPC: the same core
 * and HTTP API as `npm run serve`, and, behind the update operations, the desktop's real
 * UpdateController over electron-updater's .deb updater, fed from a loopback update feed (see
 * test/support/update-feed.ts). Only the final quit-and-install is recorded instead of run.
 *
 * Walks: the welcome on a fresh data dir (what the app does, the three first steps, the data folder),
 * its "Try a sandbox bot" landing in a Test chat that answers; then About: up to date, a newer version
 * offered with what's new (automatic download off), downloaded on the owner's click, "Restart to
 * update" asking first while a broadcast sends, and restarting once told to.
 * Screenshots at 390×844, 1366×768 and 1920×1080 go to test-artifacts/.
 */
import { existsSync } from 'node:fs'
import { mkdir, mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startApp, type RunningApp } from '../../src/main/app'
import { readServeConfig } from '../../src/main/config'
import { resolveFeed } from '../../src/main/electron/update-feed'
import { UpdateController } from '../../src/main/electron/updater'
import { createHandlers } from '../../src/main/ui-contract/handlers'
import { rpcPlugin } from '../../src/main/ui-contract/http-transport'
import { webUiPlugin } from '../../src/main/ui-contract/web-ui'
import { silentLogger } from '../../src/main/logger'
import { fillOwnerLogin, launchChromium, resize, SIZES } from './chromium'
import { makeDebUpdater, startLoopbackFeed, type LoopbackFeed, type TestUpdater } from '../support/update-feed'

const ROOT = join(import.meta.dirname, '..', '..')
const ARTIFACTS = join(ROOT, 'test-artifacts')
const UI_DIR = join(ROOT, 'out', 'renderer')
const TOKEN = 'e2e-updates-token-0123456789'
const NOTES = '- Installers a shop can double-click: .deb, .rpm, AppImage, Windows and macOS.\n- Updates arrive by themselves, and wait while a broadcast is sending.\n- A short welcome on the first start.'

let app: RunningApp
let controller: UpdateController
let feed: LoopbackFeed
let updater: TestUpdater
let dataDir: string
let browser: Browser
let page: Page
const installs: boolean[] = []
const pageErrors: string[] = []

async function logIn(p: Page): Promise<void> {
  await p.goto(app.url)
  await fillOwnerLogin(p, TOKEN)
}

/** The About card at each screen size (an element shot: the Settings page above it is long). */
async function shootAbout(name: string): Promise<void> {
  for (const [width, height] of SIZES) {
    await resize(page, { width, height })
    const card = page.getByRole('region', { name: 'About Chatapp Desk' })
    await card.scrollIntoViewIfNeeded()
    // The app's fixed header would cover the card's top in an element shot.
    await card.screenshot({ path: join(ARTIFACTS, `about-${name}-${width}x${height}.png`), style: 'header { visibility: hidden !important; }' })
  }
  await resize(page, { width: 1366, height: 768 })
}

const updatesState = () => page.getByTestId('updates').getAttribute('data-state')

describe('first-run welcome and Settings → About (updates)', { timeout: 60_000 }, () => {
  beforeAll(async () => {
    if (!existsSync(join(UI_DIR, 'index.html'))) throw new Error('The web UI is not built: run `npm run build` first (npm test does).')
    await mkdir(ARTIFACTS, { recursive: true })
    feed = await startLoopbackFeed()
    feed.publish({ version: '0.1.0', bytes: Buffer.from('the installed version') })
    updater = await makeDebUpdater('0.1.0')
    dataDir = await mkdtemp(join(tmpdir(), 'chatapp-e2e-updates-'))
    controller = await UpdateController.open({
      updater: updater.updater,
      feed: resolveFeed({ CHATAPP_UPDATE_URL: feed.url, CHATAPP_UPDATE_ALLOW_HTTP_LOOPBACK: '1' }, null),
      kind: 'deb',
      currentVersion: '0.1.0',
      settingsFile: join(updater.dir, 'user-data', 'update-settings.json'),
      activity: { snapshot: () => app.core.activity.snapshot(), sendsIdle: () => app.core.activity.sendsIdle() },
      quitAndInstall: (silent) => installs.push(silent),
      logger: silentLogger()
    })
    const config = readServeConfig({ CHATAPP_DATA_DIR: dataDir, CHATAPP_PORT: '0', CHATAPP_CHANNEL: 'sandbox', CHATAPP_API_TOKEN: TOKEN, CHATAPP_LOG_LEVEL: 'silent' })
    app = await startApp(config, {
      faces: (core, url) => ({
        publicPlugins: [webUiPlugin(UI_DIR)],
        accountPlugins: [
          rpcPlugin(core, createHandlers(core, { baseUrl: url, mode: 'desktop', defaultChannel: 'sandbox', dataDir, updates: controller }), (listener) =>
            controller.subscribe((status) => listener({ type: 'update', status }))
          )
        ]
      })
    })
    browser = await launchChromium()
    page = await browser.newPage({ viewport: { width: 1366, height: 768 } })
    page.on('pageerror', (e) => pageErrors.push(e.message))
  }, 60_000)

  afterAll(async () => {
    await browser?.close()
    await app?.close()
    await feed?.close()
    await updater?.cleanup()
    if (dataDir) await rm(dataDir, { recursive: true, force: true })
  })

  it('opens on the welcome after a fresh install: what the app does, the first steps, where the data lives', async () => {
    await logIn(page)
    const welcome = page.getByTestId('welcome')
    await welcome.getByRole('heading', { name: 'Welcome to Chatapp Desk' }).waitFor()
    for (const step of ['Create your first instance', 'Link a phone by QR or code', 'Try the Test chat']) await expect.poll(() => welcome.getByText(step, { exact: true }).isVisible()).toBe(true)
    expect(await welcome.getByTestId('data-folder').locator('code').textContent()).toBe(dataDir)
    expect(await welcome.textContent()).toContain('copy the whole folder')
    for (const [width, height] of SIZES) {
      await resize(page, { width, height })
      await page.screenshot({ path: join(ARTIFACTS, `welcome-${width}x${height}.png`), fullPage: true })
    }
    await resize(page, { width: 1366, height: 768 })
  })

  it('"Try a sandbox bot" links a sandbox instance and opens a Test chat that answers', async () => {
    await page.getByRole('button', { name: 'Try a sandbox bot' }).click()
    await page.getByRole('heading', { name: 'Test chat with Test bot' }).waitFor()
    await page.getByTestId('test-chat-input').fill('hello')
    await page.keyboard.press('Enter')
    // The sandbox bot's default message answers a first message.
    await expect.poll(() => page.getByText(/thanks for your message/).count(), { timeout: 10_000 }).toBeGreaterThan(0)
    await page.getByRole('tab', { name: 'Instances', exact: true }).click()
    await page.getByText('Test bot', { exact: true }).first().waitFor()
    expect(await page.getByTestId('welcome').count()).toBe(0)
  })

  it('About: the version, up to date, then a newer version with what is new, downloaded on the owner’s click', async () => {
    await page.getByRole('tab', { name: 'Settings', exact: true }).click()
    const about = page.getByRole('region', { name: 'About Chatapp Desk' })
    await about.scrollIntoViewIfNeeded()
    expect(await about.getByTestId('app-version').textContent()).toBe('0.1.0')
    await about.getByRole('button', { name: 'Check for updates' }).click()
    await expect.poll(updatesState).toBe('up-to-date')
    expect(await about.getByRole('status').textContent()).toMatch(/^Chatapp Desk is up to date \(checked .+\)\.$/)
    await shootAbout('up-to-date')

    await about.getByRole('switch', { name: 'Download updates automatically' }).click({ force: true })
    await expect.poll(() => controller.status().autoDownload).toBe(false)
    feed.publish({ version: '0.2.0', bytes: Buffer.from('chatapp-desk 0.2.0'), releaseNotes: NOTES })
    await about.getByRole('button', { name: 'Check for updates' }).click()
    await expect.poll(updatesState).toBe('available')
    expect(await about.getByTestId('release-notes').textContent()).toBe(NOTES)
    await shootAbout('available')

    await about.getByRole('button', { name: 'Download 0.2.0' }).click()
    await expect.poll(updatesState).toBe('downloaded')
    await about.getByRole('button', { name: 'Restart to update' }).waitFor()
    expect(await about.textContent()).toContain('asks for your administrator password')
    await shootAbout('downloaded')
    // The header offers the update from every tab (on wider screens), and opens About on a click.
    await page.getByRole('tab', { name: 'Instances', exact: true }).click()
    await page.getByRole('button', { name: 'Update ready' }).click()
    // About's top is on screen (boundingBox is relative to the viewport).
    await expect.poll(async () => (await page.locator('#about').boundingBox())?.y ?? -1).toBeGreaterThanOrEqual(0)
    expect((await page.locator('#about').boundingBox())!.y).toBeLessThan(768)
  })

  it('"Restart to update" asks first while a broadcast sends, then restarts when told to', async () => {
    const inst = app.core.instances.list()[0]!
    await app.core.broadcasts.create(inst, { send_type: 'individual', to: '15550002222,15550003333,15550004444,15550005555', message: { text: 'Our new menu is out' } })
    expect((await app.core.activity.snapshot()).broadcasts).toBe(1)
    const about = page.getByRole('region', { name: 'About Chatapp Desk' })
    await about.getByRole('button', { name: 'Restart to update' }).click()
    const ask = about.getByRole('alert').filter({ hasText: 'Restart now?' })
    await ask.waitFor()
    expect(await ask.textContent()).toContain('a broadcast is sending')
    expect(installs).toEqual([])
    await shootAbout('confirm')
    await ask.getByRole('button', { name: 'Restart anyway' }).click()
    await expect.poll(() => installs).toEqual([false])
    await expect.poll(updatesState).toBe('installing')
    expect(pageErrors).toEqual([])
  })
})
