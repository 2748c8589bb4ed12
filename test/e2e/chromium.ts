/**
 * Debian's Chromium driven by playwright-core (no downloaded browsers). `.ci/run` installs it with
 * `apt-get install -y chromium`; CHROMIUM_PATH overrides the path.
 */
import { existsSync } from 'node:fs'
import { chromium, type Browser, type Locator, type Page } from 'playwright-core'

/** Phone, laptop and wide screen: every sweep and screenshot uses these. */
export const SIZES = [
  [390, 844],
  [1366, 768],
  [1920, 1080]
] as const

export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium'

export async function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM_PATH)) {
    throw new Error(`No Chromium at ${CHROMIUM_PATH}. Install Debian's package: apt-get install -y chromium (or set CHROMIUM_PATH).`)
  }
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run']
  })
}

/**
 * Sets `page`'s viewport to `size` (CSS px) and waits until the desk has laid itself out for it: the
 * media query's change reaches React a task or more after the resize, and a test that looks at once
 * still sees the old layout (on a phone, no "Back to conversations" yet, and then the list never
 * shows). The app root says its layout in `data-layout` (App.tsx: a phone up to 48em = 768 px); a page
 * without it (the login screen) is laid out by CSS alone.
 */
export async function resize(page: Page, size: { width: number; height: number }): Promise<void> {
  await page.setViewportSize(size)
  const layout = size.width <= 768 ? 'phone' : 'wide'
  // A locator, not a waitForFunction: the desk's CSP forbids the eval a string predicate needs.
  await page.locator(`[data-layout="${layout}"], body:not(:has([data-layout]))`).first().waitFor({ state: 'attached' })
}

/**
 * A full-page screenshot of `page` to `file`, taken from the top of the page: after a test scrolled
 * (clicking a button lower down does), a full-page capture draws the sticky header where the viewport
 * happened to be, over the middle of the page — a picture no user ever sees.
 */
export async function fullPageShot(page: Page, file: string): Promise<void> {
  await page.evaluate('window.scrollTo(0, 0)')
  await page.screenshot({ path: file, fullPage: true })
}

/**
 * Fills the owner's login on the login screen: a desk without staff opens on the API token; one with
 * staff on a person's login and password, the token being the other way in.
 */
export async function fillOwnerLogin(page: Page, token: string): Promise<void> {
  const field = page.getByLabel('API token')
  const other = page.getByRole('button', { name: 'Use the API token (owner)' })
  await field.or(other).first().waitFor()
  if (!(await field.isVisible())) await other.click()
  await field.fill(token)
  await page.getByRole('button', { name: 'Log in' }).click()
}

/** Opens the web UI at `url` and logs in with the API `token`; resolves once the instance picker shows. */
export async function logIn(page: Page, url: string, token: string): Promise<void> {
  await page.goto(url)
  await fillOwnerLogin(page, token)
  await page.getByTestId('instance-picker').waitFor()
}

/** The sections offered: the tab row's, or on a phone the menu's (opened, read, and closed again). */
export async function sectionNames(page: Page): Promise<string[]> {
  await page.locator('[role="tab"]:visible, [data-testid="menu-button"]:visible').first().waitFor()
  const tabs = page.getByRole('tab')
  if ((await tabs.count()) > 0 && (await tabs.first().isVisible())) return tabs.allTextContents()
  await page.getByTestId('menu-button').click()
  const menu = page.getByTestId('menu')
  await menu.waitFor()
  const names = await menu.locator('.mantine-NavLink-label').allTextContents()
  await page.getByTestId('menu-button').click()
  await menu.waitFor({ state: 'detached' })
  return names
}

/** The send kinds the composer `compose` offers (its kind picker opened, read, and closed again). */
export async function sendKinds(page: Page, compose: Locator): Promise<string[]> {
  await compose.getByTestId('send-kind').click()
  const listbox = page.getByRole('listbox')
  await listbox.waitFor()
  const kinds = await listbox.getByRole('option').allTextContents()
  await page.keyboard.press('Escape')
  await listbox.waitFor({ state: 'hidden' })
  return kinds
}

/** Picks the send kind `kind` in the composer `compose`. */
export async function pickSendKind(page: Page, compose: Locator, kind: string): Promise<void> {
  await compose.getByTestId('send-kind').click()
  await page.getByRole('option', { name: kind, exact: true }).click()
}

/**
 * Opens a section of the desk: its tab on a wider screen, the menu's entry on a phone (the tab row
 * does not fit there).
 */
export async function openSection(page: Page, name: string): Promise<void> {
  const tab = page.getByRole('tab', { name, exact: true })
  const menu = page.getByTestId('menu-button')
  // Whichever the screen has: the tab row, or the menu's button.
  await page.locator('[role="tab"]:visible, [data-testid="menu-button"]:visible').first().waitFor()
  if (await tab.isVisible()) return tab.click()
  await menu.click()
  await page.getByTestId('menu').getByRole('link', { name, exact: true }).or(page.getByTestId('menu').getByText(name, { exact: true })).first().click()
  await page.getByTestId('section-title').filter({ hasText: name }).waitFor()
}
