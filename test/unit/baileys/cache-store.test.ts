import { describe, expect, it } from 'vitest'
import { lruCacheStore } from '../../../src/main/channel/baileys/cache-store'

describe('lruCacheStore (the sessions\' Baileys CacheStore over lru-cache)', () => {
  it('evicts the least recently used entry beyond max', async () => {
    const c = lruCacheStore({ max: 3 })
    c.set('a', 1)
    c.set('b', 2)
    c.set('c', 3)
    expect(c.get('a')).toBe(1) // a is now the most recent
    c.set('d', 4)
    expect(c.size).toBe(3)
    expect(c.get('b')).toBeUndefined()
    expect(await c.mget(['a', 'c', 'd'])).toEqual({ a: 1, c: 3, d: 4 })
  })

  it('expires entries after ttl without any timer', () => {
    let now = 1000
    const c = lruCacheStore({ max: 10, ttlMs: 500, now: () => now })
    c.set('k', 'v')
    now = 1500
    expect(c.get('k')).toBe('v')
    now = 1501
    expect(c.get('k')).toBeUndefined()
  })

  it('works as the library CacheStore, batch methods included; null is a value', async () => {
    const store = lruCacheStore({ max: 10 })
    store.set('x', 1)
    await store.mset([{ key: 'y', value: 2 }, { key: 'z', value: 3 }])
    expect(await store.get('x')).toBe(1)
    expect(await store.mget(['x', 'y', 'nope'])).toEqual({ x: 1, y: 2, nope: undefined })
    await store.mdel(['x', 'y'])
    store.del('z')
    expect(await store.mget(['x', 'y', 'z'])).toEqual({ x: undefined, y: undefined, z: undefined })
    store.set('w', null)
    expect(await store.get('w')).toBeNull() // a deleted signal key is cached as null, like NodeCache
    await store.flushAll()
    expect(await store.get('w')).toBeUndefined()
  })

  it('memory stays bounded under a long stream of keys', () => {
    const c = lruCacheStore({ max: 100 })
    for (let i = 0; i < 100_000; i++) c.set(`k${i}`, i)
    expect(c.size).toBe(100)
  })
})
