/**
 * Debian's Chromium driven by playwright-core (no downloaded browsers). `.ci/run` installs it with
 * `apt-get install -y chromium`; CHROMIUM_PATH overrides the path.
 */
import { existsSync } from 'node:fs'
import { chromium, type Browser, type Page } from 'playwright-core'

/** Phone, laptop and wide screen (issue 13 §7): every sweep and screenshot uses these. */
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
 * A full-page screenshot of `page` to `file`, taken from the top of the page: after a test scrolled
 * (clicking a button lower down does), a full-page capture draws the sticky header where the viewport
 * happened to be, over the middle of the page — a picture no user ever sees.
 */
export async function fullPageShot(page: Page, file: string): Promise<void> {
  await page.evaluate('window.scrollTo(0, 0)')
  await page.screenshot({ path: file, fullPage: true })
}

/** Opens the web UI at `url` and logs in with the API `token`; resolves once the instance picker shows. */
export async function logIn(page: Page, url: string, token: string): Promise<void> {
  await page.goto(url)
  // The login screen opens on a person's login and password; the owner's token is the other way in.
  await page.getByRole('button', { name: 'Use the API token (owner)' }).click()
  await page.getByLabel('API token').fill(token)
  await page.getByRole('button', { name: 'Log in' }).click()
  await page.getByTestId('instance-picker').waitFor()
}
