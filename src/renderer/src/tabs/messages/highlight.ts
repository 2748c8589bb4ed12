/** A search snippet cut into plain and matched parts, to draw the matches as <mark> elements (never as HTML). */

export interface SnippetPart {
  text: string
  match: boolean
}

/**
 * `snippet` cut at the `[start, end)` ranges of `highlights` (UTF-16 offsets, as the API answers
 * them): ranges are sorted, clamped to the text, and overlapping or touching ones joined.
 */
export function snippetParts(snippet: string, highlights: ReadonlyArray<readonly [number, number]> = []): SnippetPart[] {
  const ranges = highlights
    .map(([s, e]) => [Math.max(0, Math.min(s, snippet.length)), Math.max(0, Math.min(e, snippet.length))] as [number, number])
    .filter(([s, e]) => e > s)
    .sort((a, b) => a[0] - b[0])
  const joined: Array<[number, number]> = []
  for (const r of ranges) {
    const last = joined.at(-1)
    if (last && r[0] <= last[1]) last[1] = Math.max(last[1], r[1])
    else joined.push([...r])
  }
  const parts: SnippetPart[] = []
  let at = 0
  for (const [s, e] of joined) {
    if (s > at) parts.push({ text: snippet.slice(at, s), match: false })
    parts.push({ text: snippet.slice(s, e), match: true })
    at = e
  }
  if (at < snippet.length) parts.push({ text: snippet.slice(at), match: false })
  return parts
}
