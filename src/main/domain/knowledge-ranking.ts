/**
 * How retrieval ranks knowledge passages (docs/assistant.md "Retrieval"). Pure: the assistant ranks
 * with it, and the knowledge repository ranks a text search's passages with it in the same read.
 *
 * - Text: each question term found in a passage adds the term's IDF (BM25's, from how many passages
 *   hold it), so a rare word ("gluten") outweighs a common one ("open"). The search index answers at
 *   most `perTerm` passages a term; a term that filled the cap is in at least that many, and is weighed
 *   as being in half the passages (or the cap, whichever is more): common enough to count little.
 * - Meaning (with an embedding model): cosine similarity between the question's vector and each passage's.
 * - Both lists are fused by reciprocal rank fusion (Cormack, Clarke & Büttcher, SIGIR 2009): a passage's
 *   score is the sum of 1 / (k + rank) over the lists it is in, k = 60, so neither list's scale matters.
 */

/** RRF's constant (the paper's). */
export const RRF_K = 60

/** The terms of a question retrieval looks for: 3+ characters (the index's), at most `max`, the longest first. */
export function questionTerms(folded: readonly string[], max: number): string[] {
  return [...new Set(folded.filter((t) => [...t].length >= 3))].sort((a, b) => b.length - a.length).slice(0, max)
}

/**
 * Passages ranked by the IDF of the question terms they hold, best first (ties: more terms, then
 * older passages). `hits`: per term index, the passages holding it; `total`: the instance's passages.
 */
export function rankByTerms(hits: ReadonlyArray<{ term: number; seq: number }>, total: number, perTerm: number): number[] {
  const perTermCount = new Map<number, number>()
  for (const h of hits) perTermCount.set(h.term, (perTermCount.get(h.term) ?? 0) + 1)
  const idf = new Map<number, number>()
  for (const [term, found] of perTermCount) {
    const df = found >= perTerm ? Math.max(found, total / 2) : found
    idf.set(term, Math.log(1 + (total - df + 0.5) / (df + 0.5)))
  }
  const score = new Map<number, { s: number; n: number }>()
  for (const h of hits) {
    const cur = score.get(h.seq) ?? { s: 0, n: 0 }
    cur.s += idf.get(h.term)!
    cur.n += 1
    score.set(h.seq, cur)
  }
  return [...score.entries()].sort((a, b) => b[1].s - a[1].s || b[1].n - a[1].n || a[0] - b[0]).map(([seq]) => seq)
}

/** `v` scaled to length 1 (a zero vector stays zero). */
export function normalized(v: Float32Array): Float32Array {
  let sum = 0
  for (const x of v) sum += x * x
  const len = Math.sqrt(sum)
  if (len === 0) return v
  const out = new Float32Array(v.length)
  for (let i = 0; i < v.length; i++) out[i] = v[i]! / len
  return out
}

/** The `limit` passages whose (normalised) vectors are closest to `query` (normalised), best first. */
export function rankByVector(query: Float32Array, vectors: ReadonlyArray<{ seq: number; vector: Float32Array }>, limit: number): number[] {
  const scored: Array<[number, number]> = []
  for (const { seq, vector } of vectors) {
    if (vector.length !== query.length) continue
    let dot = 0
    for (let i = 0; i < query.length; i++) dot += query[i]! * vector[i]!
    scored.push([seq, dot])
  }
  return scored
    .sort((a, b) => b[1] - a[1] || a[0] - b[0])
    .slice(0, limit)
    .map(([seq]) => seq)
}

/** Reciprocal rank fusion of ranked lists (best first); the fused list, best first (ties: first list's order). */
export function fuseRanks(lists: ReadonlyArray<readonly number[]>, k = RRF_K): number[] {
  const score = new Map<number, number>()
  const firstSeen = new Map<number, number>()
  let order = 0
  for (const list of lists) {
    list.forEach((seq, rank) => {
      score.set(seq, (score.get(seq) ?? 0) + 1 / (k + rank + 1))
      if (!firstSeen.has(seq)) firstSeen.set(seq, order++)
    })
  }
  return [...score.entries()].sort((a, b) => b[1] - a[1] || firstSeen.get(a[0])! - firstSeen.get(b[0])!).map(([seq]) => seq)
}
