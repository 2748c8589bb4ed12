/**
 * A heavy change (an erasure, a retention run, an import) done as many small writes, so no single
 * transaction holds the database's one writer for long: between two slices the app's other writes
 * (a send, an inbound message) get their turn (docs/storage.md "Heavy jobs in slices").
 *
 * The slice's size adapts to what the rows cost: it starts small, grows while a slice takes less than
 * the target and shrinks when one takes more, so a slice of heavy rows (long texts, search-index
 * entries) and one of light rows both hold the writer for about the target.
 */

export interface SliceOptions {
  /** The time one slice should take, ms (default 5). */
  targetMs?: number
  /** The first slice's size (default 32). */
  first?: number
  /** The largest slice (default 5,000). */
  max?: number
  /** Epoch ms, for tests. */
  now?: () => number
}

/**
 * Calls `step(limit)` until it answers fewer than `limit` (nothing left): each call does at most
 * `limit` units of work in one write and answers how many it did. Answers the units done in all.
 * Rejects with the first step's error (the slices before it stay done: each is a whole write).
 */
export async function inSlices(step: (limit: number) => Promise<number>, opts: SliceOptions = {}): Promise<number> {
  const target = opts.targetMs ?? 5
  const max = opts.max ?? 5000
  const now = opts.now ?? (() => performance.now())
  let limit = Math.min(opts.first ?? 32, max)
  let total = 0
  for (;;) {
    const started = now()
    const done = await step(limit)
    total += done
    if (done < limit) return total
    const took = Math.max(now() - started, 0.1)
    // At most double or halve at a time: one slow slice (the disk, a busy machine) does not swing it.
    limit = Math.max(1, Math.min(max, Math.round(limit * Math.min(2, Math.max(0.5, target / took)))))
  }
}
