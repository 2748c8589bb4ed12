/**
 * A bounded LRU map with an optional time to live, usable as Baileys' `CacheStore`
 * (lib/Types/Socket.d.ts: get/set/del/flushAll, plus mget/mset/mdel for the user-devices cache).
 *
 * Why not the library's default caches: Baileys creates `@cacheable/node-cache` instances per socket
 * when none are passed; each starts an interval (unref'd, but it keeps the cache reachable), has no
 * size bound, and a reconnect makes new ones. Passing these per session instead keeps them across
 * reconnects (the retry counter must survive one), bounds them by entry count, and needs no timer:
 * expired entries are dropped when read and evicted by the LRU bound.
 */
import type { CacheStore } from 'baileys'

export interface BoundedCacheOptions {
  /** Most entries kept; the least recently used is evicted beyond. */
  max: number
  /** Time to live (ms); 0 = no expiry. */
  ttlMs?: number
  /** Epoch ms; injectable for tests. */
  now?: () => number
}

interface Entry<V> {
  value: V
  expires: number
}

export class BoundedCache<V = unknown> {
  private readonly map = new Map<string, Entry<V>>()
  private readonly max: number
  private readonly ttlMs: number
  private readonly now: () => number

  constructor(opts: BoundedCacheOptions) {
    if (!(opts.max >= 1)) throw new RangeError('BoundedCache max must be >= 1')
    this.max = Math.floor(opts.max)
    this.ttlMs = opts.ttlMs ?? 0
    this.now = opts.now ?? Date.now
  }

  get size(): number {
    return this.map.size
  }

  get(key: string): V | undefined {
    const e = this.map.get(key)
    if (!e) return undefined
    if (e.expires && e.expires <= this.now()) {
      this.map.delete(key)
      return undefined
    }
    // Re-insert: Map iteration order is the LRU order.
    this.map.delete(key)
    this.map.set(key, e)
    return e.value
  }

  has(key: string): boolean {
    return this.get(key) !== undefined
  }

  set(key: string, value: V): void {
    this.map.delete(key)
    this.map.set(key, { value, expires: this.ttlMs ? this.now() + this.ttlMs : 0 })
    while (this.map.size > this.max) {
      const oldest = this.map.keys().next().value as string
      this.map.delete(oldest)
    }
  }

  delete(key: string): void {
    this.map.delete(key)
  }

  clear(): void {
    this.map.clear()
  }

  /** This cache as Baileys' CacheStore (with the batch methods the user-devices cache uses). */
  asCacheStore(): CacheStore & {
    mget<T>(keys: string[]): Promise<Record<string, T | undefined>>
    mset<T>(entries: { key: string; value: T }[]): void
    mdel(keys: string[]): void
  } {
    return {
      get: <T>(key: string) => this.get(key) as T | undefined,
      set: <T>(key: string, value: T) => {
        this.set(key, value as unknown as V)
      },
      del: (key: string) => {
        this.delete(key)
      },
      flushAll: () => {
        this.clear()
      },
      mget: async <T>(keys: string[]) => {
        const out: Record<string, T | undefined> = {}
        for (const k of keys) out[k] = this.get(k) as T | undefined
        return out
      },
      mset: <T>(entries: { key: string; value: T }[]) => {
        for (const { key, value } of entries) this.set(key, value as unknown as V)
      },
      mdel: (keys: string[]) => {
        for (const k of keys) this.delete(k)
      }
    }
  }
}
