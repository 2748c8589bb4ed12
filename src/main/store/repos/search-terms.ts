/**
 * What a search box's text becomes (docs/design.md §20 "History"): terms separated by spaces, each
 * found anywhere inside a word, any case and any accents. The trigram index answers terms of 3+
 * characters; shorter ones (two Chinese characters are a word: `披萨`) are checked on the candidates
 * the longer terms found, or by a scan when there is no longer term. Control characters (a NUL sent
 * as `q=abc%00`) separate terms as spaces do: FTS5's query parser reads a NUL as the end of its
 * string and PostgreSQL text cannot hold one, so they never reach a statement. Pure.
 */

/** Spaces and control characters (Unicode Cc): what separates the terms of a search. */
const SEPARATORS = /[\s\p{Cc}]+/gu

/** The search box's text as the statements take it: control characters as spaces, trimmed. */
export function searchText(q: string): string {
  return q.replace(SEPARATORS, ' ').trim()
}

/** Characters of `s` (code points, so an emoji or a CJK character counts once). */
function length(s: string): number {
  return [...s].length
}

/** The terms of a query, folded (see {@link fold}), empty ones dropped. */
export function searchTerms(q: string): string[] {
  return fold(q).split(SEPARATORS).filter(Boolean)
}

/** The terms of 3+ characters (folded): the ones a trigram index answers. */
export function longTerms(q: string): string[] {
  return searchTerms(q).filter((t) => length(t) >= 3)
}

/**
 * The FTS5 query for the terms of 3+ characters, each a quoted phrase (the trigram tokenizer finds a
 * phrase inside words), all required; null when no term is that long.
 */
export function ftsQuery(q: string): string | null {
  const long = longTerms(q)
  if (long.length === 0) return null
  return long.map((t) => `"${t.replace(/"/g, '""')}"`).join(' AND ')
}

/** Lower case without accents (NFKD, combining marks dropped), as the index compares. */
export function fold(s: string): string {
  return s.normalize('NFKD').replace(/\p{M}/gu, '').toLowerCase()
}

/** Whether `text` contains every term (folded) of `q`. */
export function matchesAll(text: string, q: string): boolean {
  const f = fold(text)
  return searchTerms(q).every((t) => f.includes(t))
}

/**
 * A snippet of `text` around the first match of the query's terms: at most `width` characters,
 * `…` where cut, and the ranges (in the snippet, UTF-16 offsets) of every term found in it.
 */
export function snippet(text: string, q: string, width = 120): { snippet: string; highlights: Array<[number, number]> } {
  const terms = searchTerms(q)
  // Folding keeps one character per character for all but a few ligatures; map offsets through
  // a per-character fold so highlights land on the original text.
  const chars = [...text]
  const folded: string[] = chars.map((c) => fold(c))
  const starts: number[] = []
  let pos = 0
  for (const f of folded) {
    starts.push(pos)
    pos += f.length
  }
  const flat = folded.join('')
  const charAt = (offset: number): number => {
    let lo = 0
    let hi = starts.length - 1
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1
      if (starts[mid]! <= offset) lo = mid
      else hi = mid - 1
    }
    return lo
  }
  const ranges: Array<[number, number]> = []
  for (const t of terms) {
    let from = 0
    for (;;) {
      const i = flat.indexOf(t, from)
      if (i < 0) break
      ranges.push([charAt(i), charAt(i + t.length - 1) + 1])
      from = i + t.length
    }
  }
  ranges.sort((a, b) => a[0] - b[0])
  const first = ranges[0]?.[0] ?? 0
  let start = Math.max(0, first - Math.floor(width / 3))
  const end = Math.min(chars.length, start + width)
  start = Math.max(0, Math.min(start, end - width))
  const head = start > 0 ? '…' : ''
  const tail = end < chars.length ? '…' : ''
  const body = chars.slice(start, end)
  const utf16 = (charIndex: number): number => head.length + body.slice(0, charIndex - start).join('').length
  const highlights = ranges
    .filter(([a, b]) => a >= start && b <= end)
    .map(([a, b]): [number, number] => [utf16(a), utf16(b)])
  return { snippet: head + body.join('') + tail, highlights }
}
