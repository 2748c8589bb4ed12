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
 */
import { makeAjv } from '../../validation'
import { LoggedMessage, type LoggedMessage as LoggedMessageT } from '../../../shared/schemas/records'
import { readTextIfExists } from './read-text'

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

/** Reads `file` (missing: no entries). Throws DataFileError when the file cannot be read. */
export async function readMessageLog(file: string): Promise<LegacyMessageLog> {
  const text = (await readTextIfExists(file)) ?? ''
  const entries: Array<{ entry: LoggedMessageT; line: number }> = []
  /** Position in `entries` of the newest entry of each id. */
  const newest = new Map<string, number>()
  const skipped: SkippedLine[] = []
  const lines = text.split('\n')
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!
    if (!line) continue
    let parsed: unknown
    try {
      parsed = JSON.parse(line)
    } catch (err) {
      skipped.push({ line: i + 1, reason: err instanceof Error ? err.message : String(err) })
      continue
    }
    if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) {
      skipped.push({ line: i + 1, reason: 'not a JSON object' })
      continue
    }
    if (PATCH in parsed) {
      const { [PATCH]: target, ...patch } = parsed as Record<string, unknown>
      const at = newest.get(target as string)
      if (at !== undefined) Object.assign(entries[at]!.entry, patch)
      continue
    }
    const entry = parsed as LoggedMessageT
    newest.set(entry.id, entries.length)
    entries.push({ entry, line: i + 1 })
  }
  const valid: LoggedMessageT[] = []
  for (const { entry, line } of entries) {
    if (validEntry(entry)) valid.push(entry)
    else {
      const e = validEntry.errors?.[0]
      skipped.push({ line, reason: `not a message log entry: ${e?.instancePath ? e.instancePath.slice(1) + ' ' : ''}${e?.message ?? 'invalid'}` })
    }
  }
  skipped.sort((a, b) => a.line - b.line)
  return { entries: valid, skipped }
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
