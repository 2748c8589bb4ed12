/**
 * One list of search hits from several instances (the inbox's "Every instance" search), newest first.
 * Each instance answers its own pages, newest first. A hit can be shown once no page still to come
 * can hold a newer one: when it is at least as new as the frontier, the newest among the oldest loaded
 * hits of the instances that may have more. "More" pages the instances at the frontier.
 */
import type { MessageEntryT } from '../../../../shared/operations/results'

/** A hit and the instance it was found in. */
export type SearchHit = MessageEntryT & { instanceId: string }

/** What one instance answered so far. */
export interface SearchStream {
  instanceId: string
  /** Newest first, every page loaded. */
  hits: MessageEntryT[]
  /** The last page was short: nothing older matches. */
  done: boolean
}

export interface MergedHits {
  /** Newest first. */
  shown: SearchHit[]
  /** Instances whose next page lets more hits be shown (none: every hit is shown). */
  next: string[]
}

/** The hits that can be shown in time order, and which instances to page next (see the module doc). */
export function mergeHits(streams: readonly SearchStream[]): MergedHits {
  const open = streams.filter((s) => !s.done && s.hits.length > 0)
  const frontier = open.length ? Math.max(...open.map((s) => s.hits.at(-1)!.timestamp)) : -Infinity
  const shown = streams
    .flatMap((s) => s.hits.map((h) => ({ ...h, instanceId: s.instanceId })))
    .filter((h) => h.timestamp >= frontier)
    .sort((a, b) => b.timestamp - a.timestamp)
  const next = open.filter((s) => s.hits.at(-1)!.timestamp === frontier).map((s) => s.instanceId)
  return { shown, next }
}
