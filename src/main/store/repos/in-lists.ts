/**
 * Long lists of values in statements (`WHERE id IN (…)`, multi-row `VALUES`) cut into parts of a
 * bounded size: each part's bound values stay far below SQLite's 32,766 and PostgreSQL's 65,535
 * variables (https://www.sqlite.org/limits.html, "Maximum Number Of Host Parameters").
 */

/** Rows or values per statement. */
export const LIST_PART = 250

/** `items` in parts of at most `size`, in order. */
export function chunks<T>(items: readonly T[], size = LIST_PART): T[][] {
  const out: T[][] = []
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size))
  return out
}

/**
 * `values` (at least one) in parts of at most `size` for an `IN (…)` list, each part padded to a
 * power of two by repeating its last value. An IN list of another length is another SQL text, so
 * another prepared statement (the SQLite threads keep them by text, ../db/sqlite-thread/host.ts):
 * padded, the lists of a busy batch take a handful of texts instead of one per length. A value
 * repeated in an IN list matches nothing more.
 */
export function inLists<T>(values: readonly T[], size = LIST_PART): T[][] {
  return chunks(values, size).map((part) => {
    let n = 1
    while (n < part.length) n *= 2
    const padded = part.slice()
    while (padded.length < n) padded.push(part[part.length - 1]!)
    return padded
  })
}
