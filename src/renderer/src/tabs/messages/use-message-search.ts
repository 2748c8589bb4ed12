/**
 * The inbox's message search (docs/ui.md "The long history"): `messages.list` with `q` on each instance searched, hits
 * merged newest first (./search-merge.ts), more pages by cursor (`before` = an instance's last hit).
 */
import { useCallback, useEffect, useMemo, useRef, useState } from 'react'
import { call } from '../../store'
import { mergeHits, type SearchHit, type SearchStream } from './search-merge'

/** Hits asked of an instance per page, and roughly how many more a click on "More" shows. */
export const SEARCH_PAGE = 30

export interface MessageSearch {
  hits: SearchHit[]
  /** A search is running (the first page, or more). */
  loading: boolean
  error: unknown
  hasMore: boolean
  more(): Promise<void>
  /** Runs the search again (after an erasure took hits away). */
  refresh(): void
}

async function page(instanceId: string, q: string, before?: string): Promise<SearchStream['hits']> {
  return call('messages.list', { instanceId, q, limit: SEARCH_PAGE, ...(before ? { before } : {}) })
}

/** Searches `q` (trimmed; empty = no search) in `instanceIds`. */
export function useMessageSearch(instanceIds: readonly string[], q: string): MessageSearch {
  const [streams, setStreams] = useState<SearchStream[]>([])
  const [loading, setLoading] = useState(false)
  const [error, setError] = useState<unknown>()
  const [round, setRound] = useState(0)
  const generation = useRef(0)
  const held = useRef(streams)
  held.current = streams
  const ids = instanceIds.join(',')
  const query = q.trim()

  useEffect(() => {
    const g = ++generation.current
    setStreams([])
    setError(undefined)
    if (!query) return setLoading(false)
    setLoading(true)
    Promise.all(instanceIds.map(async (instanceId) => {
      const hits = await page(instanceId, query)
      return { instanceId, hits, done: hits.length < SEARCH_PAGE }
    }))
      .then((s) => g === generation.current && setStreams(s))
      .catch((err: unknown) => g === generation.current && setError(err))
      .finally(() => g === generation.current && setLoading(false))
    // `ids` stands for `instanceIds` (a new array each render).
  }, [ids, query, round])

  const merged = useMemo(() => mergeHits(streams), [streams])

  const more = useCallback(async () => {
    const g = generation.current
    let current = held.current
    const before = mergeHits(current).shown.length
    setLoading(true)
    try {
      // Page the instances at the frontier until a page's worth more can be shown, or nothing is left.
      for (let { shown, next } = mergeHits(current); next.length > 0 && shown.length < before + SEARCH_PAGE; { shown, next } = mergeHits(current)) {
        const pages = await Promise.all(next.map(async (id) => [id, await page(id, query, current.find((s) => s.instanceId === id)!.hits.at(-1)!.id)] as const))
        if (g !== generation.current) return
        current = current.map((s) => {
          const got = pages.find(([id]) => id === s.instanceId)?.[1]
          return got ? { ...s, hits: [...s.hits, ...got], done: got.length < SEARCH_PAGE } : s
        })
        setStreams(current)
      }
    } catch (err) {
      if (g === generation.current) setError(err)
    } finally {
      if (g === generation.current) setLoading(false)
    }
  }, [query])

  return { hits: merged.shown, loading, error, hasMore: merged.next.length > 0, more, refresh: () => setRound((r) => r + 1) }
}
