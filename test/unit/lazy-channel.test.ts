/**
 * The lazily loaded channel (docs/benchmarks.md "Start time and idle memory"): the library loads on the first use of a session, once for
 * every session, never for a session only stopped; a failed load is retried on the next use.
 */
import { expect, it, vi } from 'vitest'
import { lazyChannel } from '../../src/main/channel/lazy-channel'
import type { ChannelContext, ChannelFactory, ChannelSession } from '../../src/main/channel/types'

const ctx = { instanceId: 'i1' } as unknown as ChannelContext

function fakeFactory(): { factory: ChannelFactory; started: string[] } {
  const started: string[] = []
  const factory: ChannelFactory = (c) =>
    ({
      kind: 'baileys',
      start: async () => void started.push(c.instanceId),
      stop: async () => {},
      logout: async () => {},
      requestPairingCode: async (phone: string) => `CODE-${phone}`,
      send: async () => ({ key: { id: 'X', fromMe: true, remoteJid: 'j' }, message: {}, messageTimestamp: '1', status: 'PENDING' }),
      addToGroup: async () => []
    }) as unknown as ChannelSession
  return { factory, started }
}

it('loads the library on the first use only, once for every session', async () => {
  const { factory, started } = fakeFactory()
  const load = vi.fn(async () => factory)
  const lazy = lazyChannel('baileys', load)
  const a = lazy(ctx)
  const b = lazy({ ...ctx, instanceId: 'i2' })
  await b.stop()
  expect(load).not.toHaveBeenCalled()
  await a.start()
  expect(await a.requestPairingCode('155')).toBe('CODE-155')
  await b.start()
  expect(load).toHaveBeenCalledTimes(1)
  expect(started).toEqual(['i1', 'i2'])
})

it('retries a failed load on the next use', async () => {
  const { factory } = fakeFactory()
  const load = vi.fn<() => Promise<ChannelFactory>>().mockRejectedValueOnce(new Error('broken install')).mockResolvedValue(factory)
  const lazy = lazyChannel('baileys', load)
  const session = lazy(ctx)
  await expect(session.start()).rejects.toThrow('broken install')
  await session.start()
  expect(load).toHaveBeenCalledTimes(2)
})

it('forwards the optional methods of the real session: a history request reaches it', async () => {
  const fetchHistory = vi.fn(async () => ({ requestId: 'R1', answered: true, received: 3, added: 2 }))
  const base = fakeFactory().factory
  const factory: ChannelFactory = (c) => ({ ...base(c), fetchHistory }) as unknown as ChannelSession
  const session = lazyChannel('baileys', async () => factory)(ctx)
  const anchor = { chatId: '155@s.whatsapp.net', id: 'A', fromMe: false, timestamp: 1000 }
  expect(await session.fetchHistory!(anchor, 10)).toEqual({ requestId: 'R1', answered: true, received: 3, added: 2 })
  expect(fetchHistory).toHaveBeenCalledWith(anchor, 10)
})
