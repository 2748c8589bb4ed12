/**
 * Pure: WhatsApp's text formatting as a tree the UI renders (src/renderer/src/components/FormattedText.tsx).
 * The rules are WhatsApp's own (FAQ "How to format your messages"): `*bold*`, `_italic_`, `~strikethrough~`, `` `inline code` ``
 * and ```` ```monospace``` ````. A marker opens at the start or after a space or punctuation, before a
 * non-space, and closes after a non-space, before the end, a space or punctuation, on the same line;
 * anything else stays literal text. Monospace and inline code are not formatted inside.
 */

export type FormatTag = 'b' | 'i' | 's' | 'code' | 'pre'
export type FormatNode = string | { tag: FormatTag; children: FormatNode[] }

const INLINE: Record<string, FormatTag> = { '*': 'b', _: 'i', '~': 's', '`': 'code' }
const BOUNDARY = /[\s\p{P}\p{S}]/u
const SPACE = /\s/

/** The formatting tree of `text`; plain text is one string. */
export function parseWhatsAppFormat(text: string): FormatNode[] {
  const out: FormatNode[] = []
  let at = 0
  for (const m of text.matchAll(/```([\s\S]+?)```/g)) {
    out.push(...inline(text.slice(at, m.index)))
    out.push({ tag: 'pre', children: [m[1]!] })
    at = m.index + m[0].length
  }
  out.push(...inline(text.slice(at)))
  return merge(out)
}

function inline(text: string): FormatNode[] {
  const out: FormatNode[] = []
  let plain = ''
  let i = 0
  while (i < text.length) {
    const ch = text[i]!
    const tag = INLINE[ch]
    const close = tag && canOpen(text, i) ? closing(text, i) : -1
    if (tag && close > 0) {
      if (plain) out.push(plain)
      plain = ''
      const inner = text.slice(i + 1, close)
      out.push({ tag, children: tag === 'code' ? [inner] : inline(inner) })
      i = close + 1
    } else {
      plain += ch
      i++
    }
  }
  if (plain) out.push(plain)
  return out
}

function canOpen(text: string, i: number): boolean {
  const next = text[i + 1]
  return (i === 0 || BOUNDARY.test(text[i - 1]!)) && next !== undefined && !SPACE.test(next) && next !== text[i]
}

/** The index of the marker closing the one at `open`, or -1. */
function closing(text: string, open: number): number {
  const marker = text[open]!
  for (let j = open + 2; j < text.length; j++) {
    const ch = text[j]!
    if (ch === '\n') return -1
    if (ch === marker && !SPACE.test(text[j - 1]!) && (j === text.length - 1 || BOUNDARY.test(text[j + 1]!))) return j
  }
  return -1
}

/** Adjacent strings joined (the ``` split leaves them apart). */
function merge(nodes: FormatNode[]): FormatNode[] {
  const out: FormatNode[] = []
  for (const n of nodes) {
    if (typeof n === 'string' && typeof out.at(-1) === 'string') out[out.length - 1] = (out.at(-1) as string) + n
    else if (n !== '') out.push(n)
  }
  return out
}
