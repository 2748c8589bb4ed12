/**
 * A restore never holds the server (docs/storage.md "Backup and restore"): what is not a backup is
 * refused as soon as its first bytes show it — the decompressed stream must start with the tar
 * header of manifest.json — and an archive that unpacks to more than its manifest announces is
 * refused as soon as it does, so a decompression bomb (200 KB of gzip, 200 MB of zeros) costs a
 * moment, not minutes at 100 % CPU; while a backup is checked every other request is answered, and
 * only the final swap answers 503.
 */
import { PassThrough } from 'node:stream'
import { gunzipSync, gzipSync } from 'node:zlib'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { makeHarness, type Harness } from '../helpers/harness'

let h: Harness
let qs: string
beforeAll(async () => {
  h = await makeHarness()
  ;({ qs } = await h.connectedInstance())
})
afterAll(async () => {
  await h?.close()
})

const MB = 1024 * 1024

/** Posts `bytes` to /restore while /health is asked in a loop; answers the restore's answer, its time and /health's slowest answer (ms). */
async function restoreWhileWatching(bytes: Buffer): Promise<{ status: number; body: any; ms: number; slowestHealthMs: number; healthAnswers: number }> {
  const started = performance.now()
  let done = false
  const restore = h
    .call({ method: 'POST', url: '/restore', payload: bytes, headers: { 'content-type': 'application/octet-stream' } })
    .finally(() => (done = true))
  let slowest = 0
  let answers = 0
  while (!done) {
    const t = performance.now()
    const health = await h.app.inject({ method: 'GET', url: '/health' })
    expect(health.statusCode).toBe(200)
    slowest = Math.max(slowest, performance.now() - t)
    answers++
    await new Promise((resolve) => setTimeout(resolve, 5))
  }
  const res = await restore
  return { status: res.statusCode, body: res.json, ms: performance.now() - started, slowestHealthMs: slowest, healthAnswers: answers }
}

it('refuses a gzip of 200 MB of zeros at its first bytes, in under 2 s, while /health answers in under 100 ms', async () => {
  const bomb = gzipSync(Buffer.alloc(200 * MB), { level: 9 })
  expect(bomb.length).toBeLessThan(250 * 1024)
  const r = await restoreWhileWatching(bomb)
  expect(r.status, JSON.stringify(r.body)).toBe(400)
  expect(r.body.error.details).toEqual([{ field: 'backup', problem: 'BACKUP_FOREIGN' }])
  expect(r.body.message).toMatch(/manifest\.json.*Nothing was changed\.$/)
  expect(r.ms).toBeLessThan(2000)
  expect(r.slowestHealthMs).toBeLessThan(100)
}, 30_000)

it('refuses a real backup with 200 MB of zeros after it as soon as it unpacks past what its manifest announces', async () => {
  const archive = (await h.call({ method: 'GET', url: '/backup' })).rawPayload
  const padded = gzipSync(Buffer.concat([gunzipSync(archive), Buffer.alloc(200 * MB)]), { level: 9 })
  const r = await restoreWhileWatching(padded)
  expect(r.status, JSON.stringify(r.body)).toBe(400)
  expect(r.body.error.details).toEqual([{ field: 'backup', problem: 'BACKUP_TAMPERED' }])
  expect(r.body.message).toMatch(/more than its manifest announces/)
  expect(r.ms).toBeLessThan(2000)
  expect(r.slowestHealthMs).toBeLessThan(100)
}, 30_000)

it('answers other requests while a backup is checked: 503 is only for the swap at the end', async () => {
  const archive = (await h.call({ method: 'GET', url: '/backup' })).rawPayload
  const body = new PassThrough()
  const restoring = h.core.restore(body)
  body.write(archive.subarray(0, Math.floor(archive.length / 2)))
  // The first half is being checked: the app serves as usual.
  await expect.poll(() => h.core.isRestoring() || 'checking').toBe('checking')
  const during = await h.call({ method: 'GET', url: `/chatapp/instance?${qs}` })
  expect(during.statusCode, during.body).toBe(200)
  body.end(archive.subarray(Math.floor(archive.length / 2)))
  await restoring
  expect((await h.call({ method: 'GET', url: `/chatapp/instance?${qs}` })).statusCode).toBe(200)
})
