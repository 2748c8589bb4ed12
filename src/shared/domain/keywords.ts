/**
 * Keywords, one rule for every face: how a `keyword` field splits into keywords and how keywords and
 * messages are compared (docs/design.md §10 "Matching": case-insensitive, Unicode-normalised (NFKC),
 * whitespace folded). Used by validation (a field that yields no keyword is refused), the bot's
 * matcher and the UI's keyword chips, so the three always agree. Pure, no I/O, never throws.
 *
 * `normalizeText(s)` gives the comparison form used for both keywords and messages:
 *  1. NFKC, so compatibility forms compare equal (fullwidth `ＨＩ` = `hi`, `ﬁ` = `fi`, NBSP = space).
 *  2. Case folding approximated as lower → upper → lower case (locale-independent). A plain
 *     `toLowerCase()` keeps `ß` and Greek final `ς` apart from `ss` / `σ`; going through upper case
 *     applies the full (one-to-many) mappings of Unicode case folding, so `Straße` = `STRASSE` =
 *     `strasse`; the first lower-casing is for capital `ẞ`, whose upper case is itself. Final sigma
 *     is then mapped to `σ` as case folding does. Side effect, accepted: Turkish dotless `ı` folds
 *     to `i` (people type either on a phone).
 *  3. NFKC again, because case mapping can produce non-normalised sequences.
 *  4. Typographic apostrophes `‘ ’` become `'` (phone keyboards send `’` for `don't`).
 *  5. Emoji variation selectors U+FE0E/U+FE0F and the soft hyphen are dropped: they change only the
 *     presentation, and keyboards differ on whether `❤` carries U+FE0F.
 *  6. Runs of whitespace (including U+200B ZERO WIDTH SPACE, an explicit invisible word separator)
 *     become one space; the result is trimmed. ZWJ/ZWNJ are kept: they are meaningful in Indic and
 *     Persian spelling and in emoji sequences.
 *
 * Diacritics stay significant: `café` ≠ `cafe`. DESIGN asks for NFKC only, and stripping marks is not
 * safe across scripts (Devanagari matras and virama, Arabic harakat, Vietnamese tones are letters of
 * the word, not decoration). An owner who wants both spellings lists both keywords.
 */

const WHITESPACE = /[\s\u200B]+/gu
const DROPPED = /[\uFE0E\uFE0F\u00AD]/gu
const APOSTROPHES = /[\u2018\u2019]/gu
const FINAL_SIGMA = /\u03C2/gu

/** The comparison form of a message or keyword (see module doc). */
export function normalizeText(s: string): string {
  return s
    .normalize('NFKC')
    .toLowerCase()
    .toUpperCase()
    .toLowerCase()
    .replace(FINAL_SIGMA, '\u03C3')
    .normalize('NFKC')
    .replace(APOSTROPHES, "'")
    .replace(DROPPED, '')
    .replace(WHITESPACE, ' ')
    .trim()
}

/**
 * Separators of the seed's comma-separated keyword list. Besides `,` (and the fullwidth comma, which
 * NFKC turns into `,`), the Arabic comma `،` and the ideographic comma `、` are what Arabic, Chinese and
 * Japanese keyboards type for "comma"; no keyword sensibly contains them.
 */
const KEYWORD_SEPARATOR = /[,\u060C\u3001]/u

/**
 * The keywords of a `keyword` field as the owner typed them (for display): split on the separators,
 * trimmed, empty items dropped. `hi،hello` is two keywords here exactly as it is for the bot.
 */
export function keywordList(keywordCsv: string | null | undefined): string[] {
  if (!keywordCsv) return []
  return keywordCsv
    .normalize('NFKC')
    .split(KEYWORD_SEPARATOR)
    .map((k) => k.trim())
    .filter((k) => normalizeText(k) !== '')
}

/**
 * Splits a `keyword` field (docs/api-seed.md §2.3/§2.4: comma-separated) into normalised keywords:
 * empty items dropped, duplicates (after normalisation) removed, first-seen order kept. A field whose
 * result is empty can never match: validation refuses it.
 */
export function splitKeywords(keywordCsv: string | null | undefined): string[] {
  if (!keywordCsv) return []
  const out: string[] = []
  const seen = new Set<string>()
  for (const part of normalizeText(keywordCsv).split(KEYWORD_SEPARATOR)) {
    const k = part.trim()
    if (k && !seen.has(k)) {
      seen.add(k)
      out.push(k)
    }
  }
  return out
}
