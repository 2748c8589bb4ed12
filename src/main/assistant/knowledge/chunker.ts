/**
 * How a knowledge entry is cut into the passages search finds and the model reads (docs/assistant.md
 * "Knowledge"). Pure.
 *
 * - Paragraphs (blocks between blank lines) are the unit; short neighbours are joined up to
 *   {@link TARGET_CHARS}, so a passage carries enough context without drowning the few the model sees.
 * - A Markdown heading (`#`…) starts a new passage, and the passages under it begin with it: a
 *   passage found alone still says what it is about.
 * - A question and its answer (`Q: …` / `A: …`, what the CSV import writes) stay one passage of their
 *   own: an FAQ is found question by question.
 * - A paragraph longer than {@link MAX_CHARS} is cut at sentence ends, or at spaces, never inside a word
 *   unless a "word" is longer than the limit.
 */

/** A passage of an entry, in order. */
export interface Chunk {
  position: number
  title: string
  body: string
}

/** Passages are joined up to about this many characters. */
export const TARGET_CHARS = 700
/** No passage is longer than this. */
export const MAX_CHARS = 1500

const HEADING = /^#{1,6}\s+\S/
const QUESTION = /^(q|question)\s*[:.]/i

/** The passages of an entry (at least one when the content has any text). */
export function chunkKnowledge(title: string, content: string): Chunk[] {
  const blocks = content
    .replace(/\r\n?/g, '\n')
    .split(/\n\s*\n/)
    .map((b) => b.trim())
    .filter(Boolean)
  const bodies: string[] = []
  let heading = ''
  let current = ''
  const flush = () => {
    if (current) bodies.push(current)
    current = ''
  }
  for (const block of blocks) {
    const firstLine = block.split('\n', 1)[0]!
    if (HEADING.test(firstLine)) {
      flush()
      heading = firstLine.replace(/^#+\s+/, '').trim()
      const rest = block.slice(firstLine.length).trim()
      if (rest) current = withHeading(heading, rest)
      continue
    }
    if (QUESTION.test(firstLine)) {
      flush()
      for (const piece of splitLong(block)) bodies.push(withHeading(heading, piece))
      continue
    }
    for (const piece of splitLong(block)) {
      if (current && current.length + 2 + piece.length <= TARGET_CHARS) current += `\n\n${piece}`
      else {
        flush()
        current = withHeading(heading, piece)
      }
    }
  }
  flush()
  return bodies.map((body, position) => ({ position, title, body }))
}

function withHeading(heading: string, text: string): string {
  return heading && text.length + heading.length + 1 <= MAX_CHARS ? `${heading}\n${text}` : text
}

/** `text` in pieces of at most {@link MAX_CHARS}: at sentence ends, else at spaces, else hard. */
function splitLong(text: string): string[] {
  if (text.length <= MAX_CHARS) return [text]
  const sentences = text.match(/[^.!?。！？\n]+(?:[.!?。！？]+|\n|$)\s*/gu) ?? [text]
  const pieces: string[] = []
  let current = ''
  for (const s of sentences) {
    if (current.length + s.length <= TARGET_CHARS || current === '') current += s
    else {
      pieces.push(current.trim())
      current = s
    }
    while (current.length > MAX_CHARS) {
      const cut = current.lastIndexOf(' ', MAX_CHARS)
      const at = cut > MAX_CHARS / 2 ? cut : MAX_CHARS
      pieces.push(current.slice(0, at).trim())
      current = current.slice(at)
    }
  }
  if (current.trim()) pieces.push(current.trim())
  return pieces.filter(Boolean)
}

/** Question-and-answer rows as an entry's content: `Q: …` / `A: …` pairs between blank lines. */
export function qaContent(rows: ReadonlyArray<{ question: string; answer: string }>): string {
  return rows.map((r) => `Q: ${r.question.trim()}\nA: ${r.answer.trim()}`).join('\n\n')
}
