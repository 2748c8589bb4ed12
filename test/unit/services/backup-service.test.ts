/**
 * The backup service on real storage with a manual clock: the daily schedule (first a minute after
 * the start, then a day after the newest backup), keeping the newest 7 (or the configured N), the
 * settings switch, on-demand backups, the download stream, and a full disk (ENOSPC injected at the
 * archive's write seam) that is logged, leaves no file and is tried again an hour later.
 */
import { readdir, rm } from 'node:fs/promises'
import { join } from 'node:path'
import { Writable } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import { createWriteStream } from 'node:fs'
import { pino } from 'pino'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { injectBackupWriteFault, verifyBackup } from '../../../src/main/store/backup'
import { BackupService, DAY_MS, RETRY_MS, START_DELAY_MS } from '../../../src/main/services/backup'
import type { Storage } from '../../../src/main/store/storage'
import { ManualClock } from '../../helpers/manual-clock'
import { seedDataDir, tempDir } from '../store/backup/helpers'

let dir: string
let storage: Storage
let clock: ManualClock
let logs: Array<{ level: number; msg: string; err?: { message: string } }>
let service: BackupService

function makeService(): BackupService {
  const logger = pino({ level: 'info' }, new Writable({ write: (line, _e, done) => (logs.push(JSON.parse(String(line))), done()) }))
  return new BackupService({ storage, settings: storage.repos.appSettings, clock, timers: clock, logger })
}

beforeEach(async () => {
  dir = tempDir()
  storage = await seedDataDir(dir, 'a')
  clock = new ManualClock()
  logs = []
  service = makeService()
})
afterEach(async () => {
  injectBackupWriteFault(null)
  await service.close()
  await storage.close()
  await rm(dir, { recursive: true, force: true })
})

/** The manual clock's time also moves with the real one: the next timer is due in `ms`, less the ms the test took. */
function expectDueIn(ms: number): void {
  expect(clock.nextIn()).toBeLessThanOrEqual(ms)
  expect(clock.nextIn()).toBeGreaterThan(ms - 5000)
}

const names = async () => (await service.list()).map((b) => b.name)

describe('automatic daily backups', () => {
  it('runs a minute after the first start, then once a day, keeping the newest 7', async () => {
    await service.start()
    expectDueIn(START_DELAY_MS)
    clock.advance(START_DELAY_MS - 1000)
    expect(await names()).toEqual([])
    clock.advance(1000)
    await vi.waitFor(async () => expect(await names()).toHaveLength(1), { timeout: 15_000 })
    await vi.waitFor(() => expect(clock.pending).toBe(1))
    const made: string[] = [(await names())[0]!]
    for (let day = 1; day <= 9; day++) {
      // Nothing before the day is over…
      clock.advance(DAY_MS - 1000)
      expect(await names()).toHaveLength(Math.min(day, 7))
      // …then one more, and the oldest beyond 7 go.
      clock.advance(1000)
      await vi.waitFor(async () => expect((await names())[0]).not.toBe(made.at(-1)), { timeout: 15_000 })
      await vi.waitFor(() => expect(clock.pending).toBe(1))
      made.push((await names())[0]!)
    }
    expect(await names()).toEqual(made.slice(-7).reverse())
    const list = await service.list()
    expect(list.every((b) => b.size > 1000)).toBe(true)
    expect(Date.parse(list[0]!.created_at) - Date.parse(list[1]!.created_at)).toBeGreaterThanOrEqual(DAY_MS)
    // Every kept file is a sound backup.
    await expect(verifyBackup(join(storage.paths.backups, list[0]!.name), { tmpDir: storage.paths.tmp })).resolves.toMatchObject({ app: { id: 'chatapp-desk' } })
    expect(await readdir(storage.paths.tmp)).toEqual([])
  })

  it('keeps the configured number, and stops and resumes with the daily switch', async () => {
    await storage.repos.appSettings.setBackup({ daily: true, keep: 2 })
    await service.start()
    for (let i = 0; i < 4; i++) {
      clock.advance(i === 0 ? START_DELAY_MS : DAY_MS)
      await vi.waitFor(async () => expect(await names()).toHaveLength(Math.min(i + 1, 2)), { timeout: 15_000 })
      await vi.waitFor(() => expect(clock.pending).toBe(1))
    }
    await storage.repos.appSettings.setBackup({ daily: false, keep: 2 })
    await service.reschedule()
    expect(clock.pending).toBe(0)
    expect(service.status().nextAt).toBeNull()
    await storage.repos.appSettings.setBackup({ daily: true, keep: 2 })
    await service.reschedule()
    const newest = Date.parse((await service.list())[0]!.created_at)
    expect(Date.parse(service.status().nextAt!)).toBe(newest + DAY_MS)
  })

  it('after a restart, due a day after the newest backup, but never sooner than a minute after the start', async () => {
    await service.backupNow()
    await service.close()
    service = makeService()
    await service.start()
    const newest = Date.parse((await service.list())[0]!.created_at)
    expect(Date.parse(service.status().nextAt!)).toBe(newest + DAY_MS)
    await service.close()
    clock.advance(3 * DAY_MS)
    service = makeService()
    await service.start()
    expectDueIn(START_DELAY_MS)
  })

  it('a full disk: logged, no file left (neither in backups/ nor tmp/), tried again an hour later', async () => {
    await service.start()
    // The disk fills up after the first 4 KiB of the archive.
    injectBackupWriteFault(() => 4096)
    clock.advance(START_DELAY_MS)
    await vi.waitFor(() => expect(logs.some((l) => l.msg.startsWith('automatic backup failed'))).toBe(true), { timeout: 15_000 })
    const failure = logs.find((l) => l.msg.startsWith('automatic backup failed'))!
    expect(failure.level).toBe(50)
    expect(failure.err!.message).toMatch(/is full: nothing was saved/)
    expect(service.status().lastError).toMatch(/is full/)
    expect(await readdir(storage.paths.backups)).toEqual([])
    expect(await readdir(storage.paths.tmp)).toEqual([])
    expectDueIn(RETRY_MS)
    injectBackupWriteFault(null)
    clock.advance(RETRY_MS)
    await vi.waitFor(async () => expect(await names()).toHaveLength(1), { timeout: 15_000 })
    await vi.waitFor(() => expect(service.status().lastError).toBeNull())
  })
})

describe('on demand', () => {
  it('backupNow writes one into backups/ (two calls at once share it), and re-arms the daily one a day after it', async () => {
    await service.start()
    const [a, b] = await Promise.all([service.backupNow(), service.backupNow()])
    expect(a).toEqual(b)
    expect(await names()).toEqual([a.name])
    expect(a.name).toMatch(/^chatapp-desk-\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d\.\d{3}Z\.tar\.gz$/)
    expect(Date.parse(service.status().nextAt!)).toBe(Date.parse(a.created_at) + DAY_MS)
    expect(await service.file(a.name)).toBe(join(storage.paths.backups, a.name))
    expect(await service.file('../config.json')).toBeNull()
  })

  it('download streams a fresh archive and removes its staged files after', async () => {
    const download = await service.download()
    expect(download.filename).toMatch(/^chatapp-desk-.*\.tar\.gz$/)
    expect(await readdir(storage.paths.tmp)).toHaveLength(1) // staged while it streams
    const file = join(dir, 'downloaded.tar.gz')
    await pipeline(download.stream, createWriteStream(file))
    await expect(verifyBackup(file, { tmpDir: join(dir, 'verify') })).resolves.toEqual(download.manifest)
    await vi.waitFor(async () => expect(await readdir(storage.paths.tmp)).toEqual([]))
  })

  it('a download abandoned half-way also removes its staged files', async () => {
    const download = await service.download()
    for await (const _ of download.stream) break
    await vi.waitFor(async () => expect(await readdir(storage.paths.tmp)).toEqual([]))
  })
})
