/**
 * LRU caches bounded by entry count. lru-cache's `max` preallocates storage for every entry up front
 * (about 160 KB per 10,000 entries, measured); every WhatsApp session holds several caches, so they
 * are bounded by `maxSize` with a size of 1 per entry instead, which grows storage as entries arrive.
 */
import { LRUCache } from 'lru-cache'

export type LruOptions<K extends NonNullable<unknown>, V extends NonNullable<unknown>> = Omit<LRUCache.Options<K, V, unknown>, 'max' | 'maxSize' | 'sizeCalculation'>

/** An LRU cache of at most `count` entries; `ttl` etc. as lru-cache takes them. */
export function boundedLru<K extends NonNullable<unknown>, V extends NonNullable<unknown>>(count: number, opts: LruOptions<K, V> = {}): LRUCache<K, V> {
  return new LRUCache<K, V>({ ...opts, maxSize: count, sizeCalculation: () => 1 })
}
