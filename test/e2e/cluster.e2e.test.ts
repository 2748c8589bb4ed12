/**
 * The workers in the web UI (docs/design.md §22): two `serve` workers on one real
 * PostgreSQL; the owner's Instances tab names the worker running each instance, Settings lists the
 * workers. Screenshots at phone, laptop and wide sizes in test-artifacts/cluster-*.png.
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
let db: string
const workers: ServeProcess[] = []
let browser: Browser
let page: Page

async function worker(id: string): Promise<ServeProcess> {
  const port = await freePort()
  const s = await startServe({ env: { CHATAPP_PORT: String(port), CHATAPP_DATABASE_URL: db, CHATAPP_WORKER_ID: id, CHATAPP_WORKER_URL: `http://127.0.0.1:${port}`, CHATAPP_LEASE_TTL_MS: '3000' } })
  workers.push(s)
  return s
}

/** A sandbox instance named `name`, made and linked through worker `s` (which runs it unless another live worker has fewer). */
async function linkedOn(s: ServeProcess, name: string): Promise<void> {
  const inst = await s.rpc('instances.create', { channel: 'sandbox', name })
  await s.rpc('instances.init', { instanceId: inst._id })
  await s.rpc('pairing.sandboxScan', { instanceId: inst._id })
}

beforeAll(async () => {
  mkdirSync(ARTIFACTS, { recursive: true })
  db = await createTestDatabase()
  // A start goes to the least-loaded live worker: worker-one takes two before worker-two starts.
  const one = await worker('worker-one')
  await linkedOn(one, 'Pizzeria')
  await linkedOn(one, 'Bakery')
  const two = await worker('worker-two')
  await linkedOn(two, 'Florist')
  browser = await launchChromium()
  page = await browser.newPage({ viewport: { width: 1366, height: 768 } })
  await logIn(page, one.url, one.token)
}, 120_000)
afterAll(async () => {
  await browser?.close()
  for (const w of workers) await w.stop()
  if (db) await dropTestDatabase(db)
})

describe('a desk on two workers', () => {
  it('names the worker of each instance on its card, and lists the workers in Settings', async () => {
    await page.getByRole('tab', { name: 'Instances', exact: true }).click()
    const card = (name: string) => page.getByTestId('instance-card').filter({ hasText: name })
    await expect.poll(() => card('Pizzeria').getByTestId('instance-worker').textContent()).toBe('Runs on worker-one')
    await expect.poll(() => card('Florist').getByTestId('instance-worker').textContent()).toBe('Runs on worker-two')
    for (const [width, height] of SIZES) {
      await resize(page, { width, height })
      await fullPageShot(page, join(ARTIFACTS, `cluster-instances-${width}x${height}.png`))
    }
    await page.getByRole('tab', { name: 'Settings', exact: true }).click()
    const rows = page.getByTestId('worker-row')
    await rows.first().waitFor()
    expect(await rows.count()).toBe(2)
    await expect.poll(() => rows.filter({ hasText: 'worker-one' }).textContent()).toContain('2 instances')
    await page.getByRole('region', { name: 'Workers' }).scrollIntoViewIfNeeded()
    for (const [width, height] of SIZES) {
      await resize(page, { width, height })
      await page.getByRole('region', { name: 'Workers' }).screenshot({ path: join(ARTIFACTS, `cluster-workers-${width}x${height}.png`) })
    }
  })
})
