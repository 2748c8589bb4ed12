/**
 * Reads a message log of release 0.1 (`messages/<instanceId>.jsonl`) with the rules of 0.1's
 * `src/main/store/message-log.ts` (commit 9aeed71), never writing:
 *
 * - a line is an entry (a LoggedMessage) or a patch `{"$patch": id, …fields}`, applied to the newest
 *   entry with that id read so far (none: ignored);
 * - a line that does not parse is skipped and reported (0.1 set it aside in
 *   `<instanceId>.rejected.jsonl`); a torn last line is such a line.
 *
 * One rule more than 0.1: an entry that is not a log entry once its patches are applied (a missing
 * id or time, say) is skipped and reported the same way, since the database refuses it.
 *
 * Unlike 0.1, which showed the newest N (`CHATAPP_MESSAGE_LOG_LIMIT`, 1,000 by default), every entry
 * the file holds is answered: the new store keeps history uncapped.
 *
 * A log is read in two passes over the file, so a long one is never held whole: the first notes
 * which entry (by line) each patch changes and which line holds the newest entry of each id; the
 * second streams the entries with their patches applied.
 */
import { createReadStream } from 'node:fs'
import { makeAjv } from '../../validation'
import { LoggedMessage, type LoggedMessage as LoggedMessageT } from '../../../shared/schemas/records'
import { DataFileError } from '../config/durable-json-file'

/** A line that was skipped: its number (from 1) and why. */
export interface SkippedLine {
  line: number
  reason: string
}

export interface LegacyMessageLog {
  /** The entries, in the file's order, patches applied. Ids may repeat (see {@link latestById}). */
  entries: LoggedMessageT[]
  skipped: SkippedLine[]
}

const PATCH = '$patch'
const validEntry = makeAjv(false).compile(LoggedMessage)

/** What the first pass learnt of a log; {@link MessageLogIndex.entries} is the second pass. */
export interface MessageLogIndex {
  /**
   * The entries in the file's order, patches applied, each checked (a bad one is added to
   * `skipped`); with `latestOnly`, one per id: the newest (the one 0.1 found and patched), in its place.
   */
  entries(opts: { latestOnly: boolean }): AsyncGenerator<LoggedMessageT>
  /** Lines that did not parse (first pass) and entries that are not log entries (second pass), by line. */
  skipped: SkippedLine[]
  /** Entries whose id a later entry has again (left out with `latestOnly`). */
  repeated: number
}

/** Streams the lines of `file` split on "\n" (the last without one), numbered from 1. Missing file: none. */
async function* linesOf(file: string): AsyncGenerator<[number, string]> {
  let rest = ''
  let n = 0
  try {
    for await (const chunk of createReadStream(file, { encoding: 'utf8', highWaterMark: 1 << 20 })) {
      const parts = (rest + (chunk as string)).split('\n')
      rest = parts.pop()!
      for (const line of parts) yield [++n, line]
    }
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return
    throw new DataFileError(file, err)
  }
  yield [++n, rest]
}

type Parsed = { kind: 'entry'; entry: LoggedMessageT } | { kind: 'patch'; target: string; fields: Record<string, unknown> } | { kind: 'bad'; reason: string }

function parseLine(line: string): Parsed {
  let parsed: unknown
  try {
    parsed = JSON.parse(line)
  } catch (err) {
    return { kind: 'bad', reason: err instanceof Error ? err.message : String(err) }
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) return { kind: 'bad', reason: 'not a JSON object' }
  if (PATCH in parsed) {
    const { [PATCH]: target, ...fields } = parsed as Record<string, unknown>
    return { kind: 'patch', target: target as string, fields }
  }
  return { kind: 'entry', entry: parsed as LoggedMessageT }
}

/** The first pass over `file`. Throws DataFileError when the file cannot be read. */
export async function indexMessageLog(file: string): Promise<MessageLogIndex> {
  /** The line of the newest entry of each id (at the end: the one kept with `latestOnly`). */
  const newest = new Map<string, number>()
  /** Patches by the line of the entry they change, in the file's order. */
  const patches = new Map<number, Array<Record<string, unknown>>>()
  const skipped: SkippedLine[] = []
  let repeated = 0
  for await (const [n, line] of linesOf(file)) {
    if (!line) continue
    const p = parseLine(line)
    if (p.kind === 'bad') skipped.push({ line: n, reason: p.reason })
    else if (p.kind === 'entry') {
      if (newest.has(p.entry.id)) repeated++
      newest.set(p.entry.id, n)
    }
    else {
      const at = newest.get(p.target)
      if (at === undefined) continue
      const list = patches.get(at)
      if (list) list.push(p.fields)
      else patches.set(at, [p.fields])
    }
  }
  return {
    skipped,
    repeated,
    async *entries({ latestOnly }) {
      for await (const [n, line] of linesOf(file)) {
        if (!line) continue
        const p = parseLine(line)
        if (p.kind !== 'entry' || (latestOnly && newest.get(p.entry.id) !== n)) continue
        const entry = p.entry
        for (const fields of patches.get(n) ?? []) Object.assign(entry, fields)
        if (validEntry(entry)) {
          yield entry
          continue
        }
        const e = validEntry.errors?.[0]
        skipped.push({ line: n, reason: `not a message log entry: ${e?.instancePath ? e.instancePath.slice(1) + ' ' : ''}${e?.message ?? 'invalid'}` })
      }
    }
  }
}

/** Reads `file` whole (missing: no entries), every entry as 0.1 held it. Throws DataFileError when the file cannot be read. */
export async function readMessageLog(file: string): Promise<LegacyMessageLog> {
  const index = await indexMessageLog(file)
  const entries: LoggedMessageT[] = []
  for await (const e of index.entries({ latestOnly: false })) entries.push(e)
  return { entries, skipped: [...index.skipped].sort((a, b) => a.line - b.line) }
}

/**
 * `entries` with one entry per id, where an id repeats: the newest (the one 0.1 found and patched),
 * in its place. Answers the entries and how many were left out.
 */
export function latestById(entries: readonly LoggedMessageT[]): { entries: LoggedMessageT[]; dropped: number } {
  const last = new Map<string, number>()
  entries.forEach((e, i) => last.set(e.id, i))
  if (last.size === entries.length) return { entries: [...entries], dropped: 0 }
  const out = entries.filter((e, i) => last.get(e.id) === i)
  return { entries: out, dropped: entries.length - out.length }
}
