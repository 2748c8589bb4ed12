import { describe, expect, it } from 'vitest'
import { BoundedCache } from '../../../src/main/channel/baileys/bounded-cache'
import { MessageStore } from '../../../src/main/channel/baileys/message-store'
import { waMessage } from '../../helpers/fake-baileys'

describe('BoundedCache', () => {
  it('evicts the least recently used entry beyond max', () => {
    const c = new BoundedCache<number>({ max: 3 })
    c.set('a', 1)
    c.set('b', 2)
    c.set('c', 3)
    expect(c.get('a')).toBe(1) // a is now the most recent
    c.set('d', 4)
    expect(c.size).toBe(3)
    expect(c.get('b')).toBeUndefined()
    expect([c.get('a'), c.get('c'), c.get('d')]).toEqual([1, 3, 4])
  })

  it('expires entries after ttl without any timer', () => {
    let now = 1000
    const c = new BoundedCache<string>({ max: 10, ttlMs: 500, now: () => now })
    c.set('k', 'v')
    now = 1499
    expect(c.get('k')).toBe('v')
    now = 1500
    expect(c.get('k')).toBeUndefined()
    expect(c.size).toBe(0)
  })

  it('works as the library CacheStore, batch methods included', async () => {
    const store = new BoundedCache({ max: 10 }).asCacheStore()
    store.set('x', 1)
    store.mset([{ key: 'y', value: 2 }, { key: 'z', value: 3 }])
    expect(await store.get('x')).toBe(1)
    expect(await store.mget(['x', 'y', 'nope'])).toEqual({ x: 1, y: 2, nope: undefined })
    store.mdel(['x', 'y'])
    store.del('z')
    expect(await store.mget(['x', 'y', 'z'])).toEqual({ x: undefined, y: undefined, z: undefined })
    store.set('w', null)
    expect(await store.get('w')).toBeNull() // a deleted signal key is cached as null, like NodeCache
    await store.flushAll()
    expect(await store.get('w')).toBeUndefined()
  })

  it('memory stays bounded under a long stream of keys', () => {
    const c = new BoundedCache<number>({ max: 100 })
    for (let i = 0; i < 100_000; i++) c.set(`k${i}`, i)
    expect(c.size).toBe(100)
  })
})

describe('MessageStore', () => {
  const msg = (id: string) => waMessage({ key: { id, remoteJid: '15551230000@s.whatsapp.net', fromMe: true }, message: { conversation: id } })

  it('answers getMessage content and knows our own sends', () => {
    const s = new MessageStore(10)
    s.remember(msg('A'), true)
    s.remember(msg('B'), false)
    expect(s.content('A')).toEqual({ conversation: 'A' })
    expect(s.content(undefined)).toBeUndefined()
    expect(s.isOwnSend('A')).toBe(true)
    expect(s.isOwnSend('B')).toBe(false)
    // The echo of an own send does not unmark it.
    s.remember(msg('A'), false)
    expect(s.isOwnSend('A')).toBe(true)
  })

  it('ignores messages without content and stays bounded', () => {
    const s = new MessageStore(5)
    s.remember(waMessage({ key: { id: 'X', remoteJid: 'a@s.whatsapp.net' } }), false)
    expect(s.size).toBe(0)
    for (let i = 0; i < 50; i++) s.remember(msg(`M${i}`), false)
    expect(s.size).toBe(5)
    expect(s.get('M0')).toBeUndefined()
    expect(s.get('M49')?.key.id).toBe('M49')
  })
})
