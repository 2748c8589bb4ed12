/**
 * Watching a failover in the web UI (docs/design.md §22 "Events across workers"): three
 * `serve` workers on one real PostgreSQL, six sandbox instances, the UI open on worker-a. The worker
 * running the most instances is killed with SIGKILL; without a reload, the Instances tab on worker-a
 * shows every instance CONNECTED again with the worker that took it over, and Settings → Workers
 * counts them there: the other workers' state and lease events reach worker-a's event stream.
 * Screenshots at phone, laptop and wide sizes in test-artifacts/cluster-failover-*.png.
 */
import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { freePort } from '../helpers/webhook-receiver'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Browser, Page } from 'playwright-core'
import { createTestDatabase, dropTestDatabase } from '../helpers/postgres'
import { fullPageShot, launchChromium, logIn, resize, SIZES } from './chromium'
import { startServe, type ServeProcess } from './serve-process'

const ARTIFACTS = join(import.meta.dirname, '..', '..', 'test-artifacts')
const TTL_MS = 1500
let db: string
const workers = new Map<string, ServeProcess>()
let browser: Browser
let page: Page
const pageErrors: string[] = []

async function worker(id: string): Promise<ServeProcess> {
  const port = await freePort()
  const s = await startServe({ env: { CHATAPP_PORT: String(port), CHATAPP_DATABASE_URL: db, CHATAPP_WORKER_ID: id, CHATAPP_WORKER_URL: `http://127.0.0.1:${port}`, CHATAPP_LEASE_TTL_MS: String(TTL_MS) } })
  workers.set(id, s)
  return s
}

/** A sandbox instance named `name`, made and linked through worker `s` (which then runs it). */
async function linkedOn(s: ServeProcess, name: string): Promise<void> {
  const inst = await s.rpc('instances.create', { channel: 'sandbox', name })
  await s.rpc('instances.init', { instanceId: inst._id })
  await s.rpc('pairing.sandboxScan', { instanceId: inst._id })
}

const NAMES = ['Pizzeria', 'Bakery', 'Florist', 'Garage', 'Dentist', 'Bookshop']

/** Each card's name, status and worker line, as the page shows them. */
async function cards(p: Page): Promise<string[]> {
  const out: string[] = []
  for (const card of await p.getByTestId('instance-card').all()) {
    const text = async (id: string) => ((await card.getByTestId(id).count()) ? await card.getByTestId(id).textContent() : '')
    out.push(`${await card.locator('p').first().textContent()} | ${await text('status-badge')} | ${await text('instance-worker')}`)
  }
  return out
}

beforeAll(async () => {
  mkdirSync(ARTIFACTS, { recursive: true })
  db = await createTestDatabase()
  // worker-b runs three, worker-c two, worker-a one: the one to kill is not the one the UI is on.
  // A start goes to the least-loaded live worker, so each worker starts as its share is linked.
  const b = await worker('worker-b')
  for (const name of NAMES.slice(0, 3)) await linkedOn(b, name)
  const c = await worker('worker-c')
  for (const name of NAMES.slice(3, 5)) await linkedOn(c, name)
  const a = await worker('worker-a')
  await linkedOn(a, NAMES[5]!)
  browser = await launchChromium()
  page = await browser.newPage({ viewport: { width: 1366, height: 768 } })
  page.on('pageerror', (e) => pageErrors.push(e.stack ?? e.message))
  await logIn(page, a.url, a.token)
}, 120_000)
afterAll(async () => {
  await browser?.close()
  for (const w of workers.values()) await w.stop()
  if (db) await dropTestDatabase(db)
})

describe('a failover watched from another worker’s UI', () => {
  it('kill -9 of the busiest worker: without a reload, every instance shows CONNECTED on the worker that took it over', async () => {
    const a = workers.get('worker-a')!
    const cluster = (await a.rpc('cluster.get', {})) as { workers: Array<{ id: string; instances: number }> }
    const busiest = [...cluster.workers].sort((p, q) => q.instances - p.instances)[0]!.id
    expect(busiest).toBe('worker-b')

    await page.getByRole('tab', { name: 'Instances', exact: true }).click()
    await expect.poll(() => page.getByTestId('instance-card').count()).toBe(6)
    await expect.poll(async () => (await cards(page)).filter((l) => l.includes('| CONNECTED | Runs on worker-b')).length).toBe(3)
    for (const [width, height] of SIZES) {
      await resize(page, { width, height })
      await fullPageShot(page, join(ARTIFACTS, `cluster-failover-before-${width}x${height}.png`))
    }
    await resize(page, { width: 1366, height: 768 })
    const settings = await browser.newPage({ viewport: { width: 1366, height: 768 } })
    settings.on('pageerror', (e) => pageErrors.push(e.stack ?? e.message))
    await logIn(settings, a.url, a.token)
    await settings.getByRole('tab', { name: 'Settings', exact: true }).click()
    await settings.getByTestId('worker-row').first().waitFor()
    // A mark a reload would wipe.
    for (const p of [page, settings]) await p.evaluate('window.__beforeKill = true')

    const killedAt = Date.now()
    await workers.get('worker-b')!.kill()
    try {
      await expect
        .poll(async () => (await cards(page)).filter((l) => l.includes('| CONNECTED | Runs on worker-a') || l.includes('| CONNECTED | Runs on worker-c')).length, { timeout: 30_000, interval: 100 })
        .toBe(6)
    } catch (err) {
      // What the page shows against what worker-a answers now: a stale page, or a failover that did not happen.
      console.log('cards on the page:', await cards(page))
      console.log('cluster.get on worker-a:', JSON.stringify(await a.rpc('cluster.get', {})))
      throw err
    }
    console.log(`UI on worker-a showed all 6 CONNECTED on the others ${Date.now() - killedAt} ms after kill -9 of worker-b (lease TTL ${TTL_MS} ms)`)
    expect(await page.evaluate('window.__beforeKill')).toBe(true)
    expect((await cards(page)).sort()).toEqual(expect.arrayContaining(NAMES.map((n) => expect.stringContaining(n))))
    for (const [width, height] of SIZES) {
      await resize(page, { width, height })
      await fullPageShot(page, join(ARTIFACTS, `cluster-failover-after-${width}x${height}.png`))
    }

    // Settings → Workers, open in a second window since before the kill, counts the six on the two
    // workers left, live too, and says the killed one is not responding.
    // The row's summary, "3 instances · seen 1 s ago" (its last line; the URL above it ends in digits too).
    const rows = settings.getByTestId('worker-row')
    const summary = async (id: string) => (await rows.filter({ hasText: id }).locator('p').last().textContent()) ?? ''
    const count = async (id: string) => Number(/^(\d+) instances? ·/.exec(await summary(id))?.[1] ?? -1)
    await expect.poll(() => summary('worker-b')).toMatch(/^Not responding · last seen \d+ s ago$/)
    await expect.poll(async () => (await count('worker-a')) + (await count('worker-c'))).toBe(6)
    expect(await settings.evaluate('window.__beforeKill')).toBe(true)
    await settings.getByRole('region', { name: 'Workers' }).scrollIntoViewIfNeeded()
    for (const [width, height] of SIZES) {
      await resize(settings, { width, height })
      await settings.getByRole('region', { name: 'Workers' }).screenshot({ path: join(ARTIFACTS, `cluster-failover-workers-${width}x${height}.png`) })
    }
    expect(await page.evaluate('window.__beforeKill')).toBe(true)
    expect(pageErrors).toEqual([])
  }, 90_000)
})
