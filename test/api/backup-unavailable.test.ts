/**
 * Backups and restores the app does not make in some configurations (docs/deploy.md "Backups"): on
 * PostgreSQL, `GET /backup`, `POST /backup/now` and `POST /restore` answer 409 saying to use pg_dump or
 * pg_restore and that nothing was changed (was a 500); with `CHATAPP_MEDIA_DIR`, a backup holds the
 * attachments from that folder, and a restore is refused the same way. Real PostgreSQL, real SQLite file.
 */
import { mkdtemp, readdir, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Readable } from 'node:stream'
import { afterEach, expect, it } from 'vitest'
import { extractBackup } from '../../src/main/store/backup'
import { makeHarness, type Harness } from '../helpers/harness'
import { multipart, png } from '../helpers/fixtures'
import { createTestDatabase, dropTestDatabase } from '../helpers/postgres'
import { ManualClock } from '../helpers/manual-clock'
import { RETRY_MS, START_DELAY_MS } from '../../src/main/services/backup/backup-service'

let h: Harness | undefined
let url: string | undefined
let dirs: string[] = []
afterEach(async () => {
  await h?.close()
  h = undefined
  if (url) await dropTestDatabase(url)
  url = undefined
  for (const d of dirs) await rm(d, { recursive: true, force: true })
  dirs = []
})

async function tempDir(prefix: string): Promise<string> {
  const d = await mkdtemp(join(tmpdir(), prefix))
  dirs.push(d)
  return d
}

const restore = (bytes: Buffer) => h!.call({ method: 'POST', url: '/restore', payload: bytes, headers: { 'content-type': 'application/octet-stream' } })

it('on PostgreSQL: GET /backup, a backup now and POST /restore answer 409 naming pg_dump / pg_restore; nothing changes', async () => {
  // A backup archive made on SQLite, to restore on PostgreSQL.
  const lite = await makeHarness()
  const made = await lite.call({ method: 'GET', url: '/backup' })
  await lite.close()
  expect(made.statusCode).toBe(200)

  url = await createTestDatabase()
  h = await makeHarness({ databaseUrl: url })
  const { qs } = await h.connectedInstance()
  await h.instanceApi(qs)('POST', '/intent', { title: 'Kept', keyword: 'kept', reply: 'r' })

  const backup = await h.call({ method: 'GET', url: '/backup' })
  expect(backup.statusCode, backup.body).toBe(409)
  expect(backup.json).toMatchObject({ status: false, error: { code: 'CONFLICT', details: [{ field: 'backup', problem: 'BACKUP_UNAVAILABLE' }] } })
  expect(backup.json.message).toMatch(/PostgreSQL database: use pg_dump .*Nothing was written\./)
  const now = await h.call({ method: 'POST', url: '/backup/now' })
  expect(now.statusCode, now.body).toBe(409)
  expect(now.json.message).toMatch(/pg_dump/)

  const res = await restore(made.rawPayload)
  expect(res.statusCode, res.body).toBe(409)
  expect(res.json).toMatchObject({ status: false, error: { code: 'CONFLICT', details: [{ field: 'backup', problem: 'BACKUP_UNAVAILABLE' }] } })
  expect(res.json.message).toMatch(/PostgreSQL .*pg_restore.*Nothing was changed\./)
  // Nothing changed: the data is the database's, the instance still runs, no data dir swap happened.
  expect((await h.instanceApi(qs)('GET', '/intent')).data.map((i: { title: string }) => i.title)).toEqual(['Kept'])
  expect(h.core.instances.list()[0]!.settings.status).toBe('CONNECTED')
  expect((await readdir(h.dataDir)).filter((n) => n.startsWith('replaced-') || n === 'restore-in-progress')).toEqual([])
  expect(JSON.stringify([backup.json, res.json])).not.toMatch(/ at .*\.ts:\d+/)
}, 60_000)

it('with CHATAPP_MEDIA_DIR on SQLite: a backup holds the attachments from that folder; a restore is refused with 409 and nothing changes', async () => {
  const mediaDir = await tempDir('chatapp-media-')
  h = await makeHarness({ mediaDir })
  const { qs } = await h.connectedInstance()
  const att = (await h.call({ method: 'POST', url: `/attachment?${qs}`, ...multipart({}, { filename: 'menu.png', contentType: 'image/png', data: await png() }) })).json.data
  expect(await readdir(join(mediaDir, 'attachments'))).toEqual([att._id])

  const made = await h.call({ method: 'GET', url: '/backup' })
  expect(made.statusCode, made.body.slice(0, 300)).toBe(200)
  const extracted = await extractBackup(Readable.from(made.rawPayload), { tmpDir: await tempDir('chatapp-extract-') })
  try {
    expect(extracted.manifest.files.map((f) => f.path)).toContain(`attachments/${att._id}`)
  } finally {
    await extracted.dispose()
  }

  const res = await restore(made.rawPayload)
  expect(res.statusCode, res.body).toBe(409)
  expect(res.json.error).toMatchObject({ code: 'CONFLICT', details: [{ field: 'backup', problem: 'BACKUP_UNAVAILABLE' }] })
  expect(res.json.message).toMatch(/CHATAPP_MEDIA_DIR.*Nothing was changed\./)
  expect(await readdir(join(mediaDir, 'attachments'))).toEqual([att._id])
  expect((await readdir(h.dataDir)).filter((n) => n.startsWith('replaced-'))).toEqual([])
}, 60_000)

it('on PostgreSQL the daily backup, on by default, stops after its first refusal (no hourly retry) and shows the reason', async () => {
  url = await createTestDatabase()
  const clock = new ManualClock()
  h = await makeHarness({ databaseUrl: url, clock, timers: clock })
  expect((await h.core.backups.status()).next_at).not.toBeNull()
  clock.advance(START_DELAY_MS + 1)
  await expect.poll(async () => (await h!.core.backups.status()).last_error, { timeout: 10_000, interval: 20 }).toMatch(/use pg_dump/)
  const status = await h.core.backups.status()
  expect(status).toMatchObject({ daily: true, running: false, next_at: null, backups: [] })
  clock.advance(RETRY_MS + 1)
  expect((await h.core.backups.status()).next_at).toBeNull()
}, 60_000)
