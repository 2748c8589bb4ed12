/**
 * Keyword index for intents and survey triggers (docs/design.md §10 "Matching"). Pure, in memory, no I/O.
 *
 * Shapes: `KeywordIndex<T>` holds entries `{entryId, keywords[], order, value: T}`; `match(text)`
 * answers `{value, entryId, keyword, exact}` (keyword in normalised form) or null. `order` is any
 * finite number where lower = older record (e.g. `Date.parse(createdAt)`); `add`/`update` throw a
 * TypeError on a non-finite order. Nothing else throws.
 *
 * Rules (§10): text and keywords are compared in `normalizeText` form. A keyword matches when it
 * equals the whole message (`exact`) or its token sequence occurs as a contiguous run of the
 * message's tokens (a whole word or phrase). Best match: exact over contained, then the longest
 * keyword (code points of the normalised form), then the lowest `order`, then the earliest `add`.
 *
 * Tokens come from `Intl.Segmenter` word segmentation (UAX #29 with ICU's rules; printable-ASCII
 * text takes an equivalent regex fast path, verified against the segmenter), so boundaries are
 * right in any script: Devanagari matras and virama and Arabic harakat stay inside their word,
 * `don't`, `3.5` and `e.g` are one token, `hi!` gives `hi` and `!`, and an emoji (with skin tone, ZWJ
 * sequence or flag) is one token of its own. Whitespace is not a token, so `hi  there` and
 * `hi there` are the same phrase; punctuation and symbols are tokens, so `hi there` does not match
 * `hi, there` (the keyword does not stand in the text) while `c++` and `e-mail` work as keywords.
 *
 * Scripts written without spaces (Han, Hiragana, Katakana, Bopomofo, Thai, Lao, Khmer, Myanmar) are
 * tokenised per character (a base plus its combining marks). ICU splits them with a dictionary that
 * is both unstable across ICU builds and often wrong for chat text (it gives `我想|订|餐` for
 * `我想订餐`), and the default UAX #29 rules already put a boundary between every two ideographs.
 * So a CJK/Thai keyword matches any contiguous run of characters, including inside what a dictionary
 * would call a longer word (`订` matches in `我想订餐`); aligning to characters means a Thai keyword
 * never matches half of a consonant-plus-vowel-mark cluster. Hangul is written with spaces and
 * UAX #29 keeps a Hangul word whole, so Korean keywords match whole words (`메뉴` does not match the
 * inflected `메뉴를`; list that form too).
 *
 * Cost: `match` normalises and segments the message once, then walks a token trie from each token:
 * O(tokens × depth of the longest keyword prefix found), independent of the number of entries.
 * `add`/`remove` touch only the entry's own keywords, never rebuild.
 */
import { normalizeText } from '../../shared/domain/keywords'

export interface KeywordMatch<T> {
  value: T
  entryId: string
  /** The matched keyword in normalised form. */
  keyword: string
  /** True when the whole normalised message equals the keyword. */
  exact: boolean
}

const segmenter = new Intl.Segmenter('und', { granularity: 'word' })

/** Scripts written without spaces between words; `scx` so `ー` and CJK iteration marks count. */
const NO_SPACE_SCRIPT =
  /[\p{scx=Han}\p{scx=Hiragana}\p{scx=Katakana}\p{scx=Bopomofo}\p{scx=Thai}\p{scx=Lao}\p{scx=Khmer}\p{scx=Myanmar}]/u
/** A base character with its combining marks: the unit a no-space-script keyword aligns to. */
const CHARACTER = /\P{M}\p{M}*/gu

/**
 * Fast path for printable-ASCII text, the bulk of chat traffic: the UAX #29 word rules restricted
 * to ASCII, as one regex. Letters, digits and `_` form words; `:` `.` `'` join two letters (WB6/7),
 * `.` `,` `;` `'` join two digits (WB11/12); any other character is a token of its own. It is about
 * five times cheaper than `Intl.Segmenter` and allocates far less, which is what keeps the tail
 * latency of `match` low. `FAST_PATH_OK` checks it against the segmenter once at load on the tricky
 * cases, so an ICU build that tailors these rules differently just disables the fast path.
 */
const PRINTABLE_ASCII = /^[\x20-\x7e]*$/
const ASCII_TOKEN = /[A-Za-z0-9_]+(?:(?:(?<=[A-Za-z])[:.'](?=[A-Za-z])|(?<=[0-9])[.,;'](?=[0-9]))[A-Za-z0-9_]+)*|[^ A-Za-z0-9_]/g

function segmentTokens(normalized: string): string[] {
  const tokens: string[] = []
  for (const { segment } of segmenter.segment(normalized)) {
    if (segment === ' ') continue
    if (NO_SPACE_SCRIPT.test(segment)) {
      for (const ch of segment.match(CHARACTER) ?? []) tokens.push(ch)
    } else {
      tokens.push(segment)
    }
  }
  return tokens
}

const FAST_PATH_PROBE =
  "a:b e.g. x.y.z 3,5 1;2 3.5.6 don't 1'2 a'1 1.a a.1 a_:b _x_ __ a_1.2 10:30 c++ e-mail ok...ok 50% $5 #1 @joe a. .b 'a' ,1 1, !?"
const FAST_PATH_OK = (() => {
  const fast = FAST_PATH_PROBE.match(ASCII_TOKEN) ?? []
  const slow = segmentTokens(FAST_PATH_PROBE)
  return fast.length === slow.length && fast.every((t, i) => t === slow[i])
})()

/**
 * Tokens of an already normalised text (see module doc). Exported for tests and for callers that
 * want to reuse one segmentation.
 */
export function tokenize(normalized: string): string[] {
  if (FAST_PATH_OK && PRINTABLE_ASCII.test(normalized)) return normalized.match(ASCII_TOKEN) ?? []
  return segmentTokens(normalized)
}

/** The segmenter-only tokenisation, for tests that check the fast path against it. */
export const tokenizeWithSegmenter = segmentTokens
/** Whether the ASCII fast path is active in this runtime (its ICU agrees with it). */
export const asciiFastPathActive = FAST_PATH_OK

interface Entry<T> {
  id: string
  order: number
  /** Insertion sequence: last tie-break, so equal `order`s still give a stable winner. */
  seq: number
  value: T
  keywords: { keyword: string; tokens: string[] }[]
}

interface Terminal<T> {
  entry: Entry<T>
  keyword: string
  length: number
}

interface TrieNode<T> {
  next: Map<string, TrieNode<T>> | undefined
  /** Keywords ending here, best first (see `compareTerms`). */
  terms: Terminal<T>[] | undefined
}

/** Negative when `a` ranks before `b` among matches of the same kind (exact or contained). */
function compareTerms<T>(a: Terminal<T>, b: Terminal<T>): number {
  return b.length - a.length || a.entry.order - b.entry.order || a.entry.seq - b.entry.seq
}

function insertSorted<T>(list: Terminal<T>[], term: Terminal<T>): void {
  let lo = 0
  let hi = list.length
  while (lo < hi) {
    const mid = (lo + hi) >>> 1
    if (compareTerms(list[mid]!, term) <= 0) lo = mid + 1
    else hi = mid
  }
  list.splice(lo, 0, term)
}

function removeEntryTerms<T>(list: Terminal<T>[], entry: Entry<T>): void {
  for (let i = list.length - 1; i >= 0; i--) if (list[i]!.entry === entry) list.splice(i, 1)
}

function codePointLength(s: string): number {
  let n = 0
  for (const _ of s) n++
  return n
}

export class KeywordIndex<T> {
  private readonly entries = new Map<string, Entry<T>>()
  private readonly exact = new Map<string, Terminal<T>[]>()
  private root: TrieNode<T> = { next: undefined, terms: undefined }
  private seq = 0

  /** Number of entries (not keywords). */
  get size(): number {
    return this.entries.size
  }

  has(entryId: string): boolean {
    return this.entries.has(entryId)
  }

  /** The entry's normalised keywords, order and value, or undefined. */
  get(entryId: string): { keywords: string[]; order: number; value: T } | undefined {
    const e = this.entries.get(entryId)
    return e && { keywords: e.keywords.map((k) => k.keyword), order: e.order, value: e.value }
  }

  /**
   * Adds an entry, or replaces the one with the same id (it then keeps its place among equal
   * orders). Keywords are normalised here; empty and duplicate ones are ignored, so an entry may
   * end up with no keywords and then never matches.
   */
  add(entryId: string, keywords: readonly string[], order: number, value: T): void {
    if (!Number.isFinite(order)) throw new TypeError(`keyword index: order must be a finite number, got ${order}`)
    const previous = this.entries.get(entryId)
    if (previous) this.unlink(previous)
    const entry: Entry<T> = { id: entryId, order, seq: previous?.seq ?? this.seq++, value, keywords: [] }
    const seen = new Set<string>()
    for (const raw of keywords) {
      const keyword = normalizeText(raw)
      if (!keyword || seen.has(keyword)) continue
      seen.add(keyword)
      entry.keywords.push({ keyword, tokens: tokenize(keyword) })
    }
    this.link(entry)
    this.entries.set(entryId, entry)
  }

  /** Same as `add`; reads better at call sites that know the entry exists. */
  replace(entryId: string, keywords: readonly string[], order: number, value: T): void {
    this.add(entryId, keywords, order, value)
  }

  /**
   * Changes some of an entry's fields. A value-only change does not touch the index. Returns false
   * when there is no such entry.
   */
  update(entryId: string, patch: { keywords?: readonly string[]; order?: number; value?: T }): boolean {
    const e = this.entries.get(entryId)
    if (!e) return false
    if (patch.keywords === undefined && (patch.order === undefined || patch.order === e.order)) {
      if ('value' in patch) e.value = patch.value as T
      return true
    }
    this.add(
      entryId,
      patch.keywords ?? e.keywords.map((k) => k.keyword),
      patch.order ?? e.order,
      'value' in patch ? (patch.value as T) : e.value
    )
    return true
  }

  /** Removes an entry; false when there was none. */
  remove(entryId: string): boolean {
    const e = this.entries.get(entryId)
    if (!e) return false
    this.unlink(e)
    this.entries.delete(entryId)
    return true
  }

  clear(): void {
    this.entries.clear()
    this.exact.clear()
    this.root = { next: undefined, terms: undefined }
  }

  /** The best keyword match for a message (see module doc), or null. */
  match(text: string): KeywordMatch<T> | null {
    const normalized = normalizeText(text)
    if (!normalized) return null
    const exact = this.exact.get(normalized)?.[0]
    if (exact) return { value: exact.entry.value, entryId: exact.entry.id, keyword: exact.keyword, exact: true }

    const tokens = tokenize(normalized)
    let best: Terminal<T> | undefined
    for (let i = 0; i < tokens.length; i++) {
      let node: TrieNode<T> | undefined = this.root
      for (let j = i; j < tokens.length; j++) {
        node = node.next?.get(tokens[j]!)
        if (!node) break
        const top = node.terms?.[0]
        if (top && (!best || compareTerms(top, best) < 0)) best = top
      }
    }
    return best ? { value: best.entry.value, entryId: best.entry.id, keyword: best.keyword, exact: false } : null
  }

  private link(entry: Entry<T>): void {
    for (const { keyword, tokens } of entry.keywords) {
      const term: Terminal<T> = { entry, keyword, length: codePointLength(keyword) }
      let list = this.exact.get(keyword)
      if (!list) this.exact.set(keyword, (list = []))
      insertSorted(list, term)
      if (tokens.length === 0) continue
      let node = this.root
      for (const t of tokens) {
        node.next ??= new Map()
        let child = node.next.get(t)
        if (!child) node.next.set(t, (child = { next: undefined, terms: undefined }))
        node = child
      }
      node.terms ??= []
      insertSorted(node.terms, term)
    }
  }

  private unlink(entry: Entry<T>): void {
    for (const { keyword, tokens } of entry.keywords) {
      const list = this.exact.get(keyword)
      if (list) {
        removeEntryTerms(list, entry)
        if (list.length === 0) this.exact.delete(keyword)
      }
      if (tokens.length === 0) continue
      const path: TrieNode<T>[] = [this.root]
      let node: TrieNode<T> | undefined = this.root
      for (const t of tokens) {
        node = node.next?.get(t)
        if (!node) break
        path.push(node)
      }
      if (!node) continue
      if (node.terms) {
        removeEntryTerms(node.terms, entry)
        if (node.terms.length === 0) node.terms = undefined
      }
      // Prune now-empty branches so a long-running index does not accumulate dead nodes.
      for (let d = tokens.length; d > 0; d--) {
        const n = path[d]!
        if (n.terms || (n.next && n.next.size > 0)) break
        const parent = path[d - 1]!
        parent.next!.delete(tokens[d - 1]!)
        if (parent.next!.size === 0) parent.next = undefined
      }
    }
  }
}

/**
 * The best of `keywords` found in `text` by the same rules, or null. For small one-off lists such as
 * the accepted answers of a survey step; builds a throwaway index.
 */
export function findKeyword(text: string, keywords: readonly string[]): { keyword: string; exact: boolean } | null {
  if (keywords.length === 0) return null
  const index = new KeywordIndex<null>()
  index.add('k', keywords, 0, null)
  const m = index.match(text)
  return m && { keyword: m.keyword, exact: m.exact }
}
