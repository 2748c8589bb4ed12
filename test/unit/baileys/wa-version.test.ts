import { DEFAULT_CONNECTION_CONFIG } from 'baileys'
import { describe, expect, it, vi } from 'vitest'
import { WaVersionSource } from '../../../src/main/channel/baileys/wa-version'
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
      const hooks = { onState: () => {}, onQr: () => {}, onMessage: async () => {}, onMessageStatus: () => {}, onChatIdentity: () => {}, onLimits: () => {} }
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
