import { DEFAULT_CONNECTION_CONFIG } from 'baileys'
import { describe, expect, it, vi } from 'vitest'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { libraryVersionFetcher, WaVersionSource } from '../../../src/main/channel/baileys/wa-version'
import { ConfigStore } from '../../../src/main/store/config/config-store'
import { AppSettingsRepo } from '../../../src/main/store/repos/config-repos'
import { createBaileysChannel } from '../../../src/main/channel/baileys'
import { fakeSocketFactory, FakeClock } from '../../helpers/fake-baileys'
import { pino } from 'pino'
import { openTestChannelStore } from '../../helpers/channel-store'

describe('WaVersionSource (the WA Web version, once per app start)', () => {
  it('fetches once for every caller; falls back to the bundled version when the fetch fails or says nothing', async () => {
    const fetch = vi.fn(async () => [2, 3000, 7] as [number, number, number])
    const v = new WaVersionSource({ fetch })
    expect(await Promise.all([v.get(), v.get(), v.get()])).toEqual([[2, 3000, 7], [2, 3000, 7], [2, 3000, 7]])
    expect(fetch).toHaveBeenCalledTimes(1)
    expect(await new WaVersionSource({ fetch: async () => Promise.reject(new Error('offline')) }).get()).toEqual(DEFAULT_CONNECTION_CONFIG.version)
    expect(await new WaVersionSource({ fetch: async () => undefined }).get()).toEqual(DEFAULT_CONNECTION_CONFIG.version)
    expect(await new WaVersionSource({ fetch: null, bundled: [2, 1, 1] }).get()).toEqual([2, 1, 1])
  })

  it('a 405 refreshes at most once per gap, however many instances ask', async () => {
    let now = 0
    let minor = 1
    const fetch = vi.fn(async () => [2, 3000, minor++] as [number, number, number])
    const v = new WaVersionSource({ fetch, now: () => now, refreshGapMs: 60_000 })
    await v.get()
    now = 61_000
    expect(await Promise.all([v.refresh(), v.refresh()])).toEqual([[2, 3000, 2], [2, 3000, 2]])
    expect(fetch).toHaveBeenCalledTimes(2)
  })

  it('the sessions of one channel share one fetch', async () => {
    const db = await openTestChannelStore()
    try {
      const fetchVersion = vi.fn(async () => [2, 3000, 9] as [number, number, number])
      const factory = fakeSocketFactory()
      const channel = createBaileysChannel({ socketFactory: factory, fetchVersion, timers: new FakeClock() })
      const hooks = { onState: () => {}, onQr: () => {}, onMessage: async () => {}, onMessageStatus: () => {}, onChatIdentity: () => {}, onLimits: () => {}, onHistory: async () => ({ added: 0 }), onMessageChange: async () => {} }
      const sessions = ['a', 'b', 'c'].map((id) => channel({ instanceId: id, store: db.store, logger: pino({ level: 'silent' }), hooks }))
      await Promise.all(sessions.map((s) => s.start()))
      expect(fetchVersion).toHaveBeenCalledTimes(1)
      expect(factory.sockets.map((s) => s.config.version)).toEqual([[2, 3000, 9], [2, 3000, 9], [2, 3000, 9]])
      await Promise.all(sessions.map((s) => s.stop()))
    } finally {
      await db.close()
    }
  })
})

/** The library's answer when it could not read the current version (lib/Utils/generics.js): the bundled one, isLatest false. */
const notLatest = async () => ({ version: DEFAULT_CONNECTION_CONFIG.version, isLatest: false, error: new Error('Failed to fetch sw.js: Service Unavailable') })
const latest = (revision: number) => async () => ({ version: [2, 3000, revision] as [number, number, number], isLatest: true })

describe('the last good WA Web version, kept across restarts (Baileys #2777, #2731)', () => {
  it('a restart while the fetch fails connects with the last good version, not the bundled one', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'chatapp-waver-'))
    try {
      const first = await ConfigStore.open(join(dir, 'config.json'))
      const v1 = new WaVersionSource({ fetch: libraryVersionFetcher(1000, latest(1_050_000_001)), memory: new AppSettingsRepo(first) })
      expect(await v1.get()).toEqual([2, 3000, 1_050_000_001])
      await first.close()

      // The restart: a new document read from disk, and WhatsApp's page unreachable.
      const second = await ConfigStore.open(join(dir, 'config.json'))
      expect(new AppSettingsRepo(second).waWebVersion()?.version).toEqual([2, 3000, 1_050_000_001])
      const v2 = new WaVersionSource({ fetch: libraryVersionFetcher(1000, notLatest), memory: new AppSettingsRepo(second) })
      expect(await v2.get()).toEqual([2, 3000, 1_050_000_001])
      await second.close()
      // The answer that is not the latest was not written over it.
      const third = await ConfigStore.open(join(dir, 'config.json'))
      expect(new AppSettingsRepo(third).waWebVersion()?.version).toEqual([2, 3000, 1_050_000_001])
      await third.close()
    } finally {
      await rm(dir, { recursive: true, force: true })
    }
  })

  it('only an answer that says it is the latest replaces it; a 405 refresh keeps it when the fetch fails and replaces it when it succeeds', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'chatapp-waver-'))
    const config = await ConfigStore.open(join(dir, 'config.json'))
    try {
      const repo = new AppSettingsRepo(config)
      await repo.setWaWebVersion({ version: [2, 3000, 1_050_000_001], fetchedAt: '2026-11-01T00:00:00.000Z' })
      let answer: () => Promise<{ version: [number, number, number]; isLatest: boolean }> = notLatest
      let now = 0
      const v = new WaVersionSource({ fetch: libraryVersionFetcher(1000, () => answer()), memory: repo, now: () => now, refreshGapMs: 60_000 })
      expect(await v.get()).toEqual([2, 3000, 1_050_000_001])
      now = 61_000
      expect(await v.refresh()).toEqual([2, 3000, 1_050_000_001])
      expect(repo.waWebVersion()?.version).toEqual([2, 3000, 1_050_000_001])
      now = 122_000
      answer = latest(1_050_000_002)
      expect(await v.refresh()).toEqual([2, 3000, 1_050_000_002])
      expect(repo.waWebVersion()?.version).toEqual([2, 3000, 1_050_000_002])
    } finally {
      await config.close()
      await rm(dir, { recursive: true, force: true })
    }
  })

  it("the channel's sessions start from the kept version when the fetch says nothing", async () => {
    const db = await openTestChannelStore()
    try {
      await db.store.waWebVersion.setWaWebVersion({ version: [2, 3000, 1_050_000_003], fetchedAt: '2026-11-01T00:00:00.000Z' })
      const factory = fakeSocketFactory()
      const channel = createBaileysChannel({ socketFactory: factory, fetchVersion: async () => undefined, timers: new FakeClock() })
      const hooks = { onState: () => {}, onQr: () => {}, onMessage: async () => {}, onMessageStatus: () => {}, onChatIdentity: () => {}, onLimits: () => {}, onHistory: async () => ({ added: 0 }), onMessageChange: async () => {} }
      const session = channel({ instanceId: 'a', store: db.store, logger: pino({ level: 'silent' }), hooks })
      await session.start()
      expect(factory.sockets.map((s) => s.config.version)).toEqual([[2, 3000, 1_050_000_003]])
      await session.stop()
    } finally {
      await db.close()
    }
  })

  it('a kept value that is not a version (a hand edit) is ignored', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'chatapp-waver-'))
    try {
      await writeFile(join(dir, 'config.json'), JSON.stringify({ version: 1, account: null, appSettings: { smtp: null, waWebVersion: { version: [2, 'x'], fetchedAt: 'now' } }, instances: [] }))
      const config = await ConfigStore.open(join(dir, 'config.json'))
      const v = new WaVersionSource({ fetch: libraryVersionFetcher(1000, notLatest), memory: new AppSettingsRepo(config) })
      expect(await v.get()).toEqual(DEFAULT_CONNECTION_CONFIG.version)
      await config.close()
    } finally {
      await rm(dir, { recursive: true, force: true })
    }
  })
})
