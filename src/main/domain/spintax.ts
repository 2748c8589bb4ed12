/**
 * Spintax expansion for reply texts (docs/design.md §10 "Texts", docs/api-seed.md §2.7 `default_msg`). Pure; never
 * throws.
 *
 * `{a|b|c}` becomes one alternative, chosen with `random()` (a function returning [0, 1), injectable
 * for tests); groups nest (`{Hi|{Hello|Hey} there}`) and only the chosen branch is expanded, so one
 * `random()` call is made per group on the path actually taken. Empty alternatives are allowed
 * (`{|!}` gives "" or "!").
 *
 * Lenient on purpose, because owners type these texts by hand and a reply must always go out:
 * - an unbalanced `{` or `}` is literal text;
 * - a balanced group without a `|` at its own level (`{SAVE10}`, `{}`) is literal too, braces kept:
 *   it cannot mean a choice, and dropping the braces would silently change the owner's text;
 * - a `|` outside any group is literal.
 * There is no escape character.
 */

/** Expands every spintax group of `template` (see module doc). */
export function expandSpintax(template: string, random: () => number = Math.random): string {
  if (!template.includes('{')) return template
  const closeOf = matchBraces(template)
  if (closeOf.size === 0) return template
  return expandRange(template, 0, template.length, closeOf, random)
}

/** Positions of balanced `{` mapped to their `}`; unmatched braces are absent (literal). */
function matchBraces(s: string): Map<number, number> {
  const closeOf = new Map<number, number>()
  const open: number[] = []
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i)
    if (c === 0x7b) open.push(i)
    else if (c === 0x7d && open.length > 0) closeOf.set(open.pop()!, i)
  }
  return closeOf
}

function expandRange(
  s: string,
  start: number,
  end: number,
  closeOf: Map<number, number>,
  random: () => number
): string {
  let out = ''
  let literalFrom = start
  for (let i = start; i < end; i++) {
    const close = s.charCodeAt(i) === 0x7b ? closeOf.get(i) : undefined
    if (close === undefined) continue
    out += s.slice(literalFrom, i)
    out += expandGroup(s, i + 1, close, closeOf, random)
    i = close
    literalFrom = close + 1
  }
  return out + s.slice(literalFrom, end)
}

/** Expands the group whose inside is `s[start, end)`. */
function expandGroup(
  s: string,
  start: number,
  end: number,
  closeOf: Map<number, number>,
  random: () => number
): string {
  const bounds = [start]
  for (let i = start; i < end; i++) {
    const c = s.charCodeAt(i)
    const close = c === 0x7b ? closeOf.get(i) : undefined
    if (close !== undefined) i = close
    else if (c === 0x7c) bounds.push(i + 1)
  }
  if (bounds.length === 1) return '{' + expandRange(s, start, end, closeOf, random) + '}'
  bounds.push(end + 1)
  const n = bounds.length - 1
  const r = random()
  const pick = Number.isFinite(r) ? Math.min(n - 1, Math.max(0, Math.floor(r * n))) : 0
  return expandRange(s, bounds[pick]!, bounds[pick + 1]! - 1, closeOf, random)
}
