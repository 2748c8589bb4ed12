/**
 * Baileys' `CacheStore` (lib/Types/Socket.d.ts: get/set/del/flushAll, plus mget/mset/mdel for the
 * user-devices cache) over lru-cache, bounded by entry count with an optional time to live.
 *
 * Why not the library's default caches: Baileys creates `@cacheable/node-cache` instances per socket
 * when none are passed; each starts an interval, has no size bound, and a reconnect makes new ones.
 * Passing these per session instead keeps them across reconnects (the retry counter must survive
 * one), bounds them, and needs no timer: lru-cache drops expired entries when read.
 */
import { boundedLru } from '../../lru'
import type { CacheStore, PossiblyExtendedCacheStore } from 'baileys'

export interface CacheStoreOptions {
  /** Most entries kept; the least recently used is evicted beyond. */
  max: number
  /** Time to live (ms); 0 or absent = no expiry. */
  ttlMs?: number
  /** Epoch ms; injectable for tests. */
  now?: () => number
}

/** No `close`: the library would call it when a socket ends, and these caches outlive sockets. */
export type SessionCacheStore = CacheStore & Required<Pick<PossiblyExtendedCacheStore, 'mget' | 'mset' | 'mdel'>> & { readonly size: number }

/** A bounded cache store. Values are boxed: the library caches deleted signal keys as `null`. */
export function lruCacheStore(opts: CacheStoreOptions): SessionCacheStore {
  const cache = boundedLru<string, { v: unknown }>(opts.max, {
    ...(opts.ttlMs ? { ttl: opts.ttlMs, ttlResolution: 0 } : {}),
    ...(opts.now ? { perf: { now: opts.now } } : {})
  })
  const get = <T>(key: string) => cache.get(key)?.v as T | undefined
  return {
    get size() {
      return cache.size
    },
    get,
    set: <T>(key: string, value: T) => {
      cache.set(key, { v: value })
    },
    del: (key: string) => {
      cache.delete(key)
    },
    flushAll: () => {
      cache.clear()
    },
    mget: async <T>(keys: string[]) => Object.fromEntries(keys.map((k) => [k, get<T>(k)])),
    mset: async <T>(entries: { key: string; value: T }[]) => {
      for (const { key, value } of entries) cache.set(key, { v: value })
    },
    mdel: async (keys: string[]) => {
      for (const k of keys) cache.delete(k)
    }
  }
}
