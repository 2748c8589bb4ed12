/**
 * Reads a journaled JSON document of release 0.1 (`chatapp` and `runtime`), with the replay rules of
 * 0.1's `src/main/store/journaled-document.ts` (commit 9aeed71), never writing:
 *
 * - `<name>.json`: the document as of change `$seq` (missing: the defaults; keys missing from it are
 *   filled from the defaults);
 * - `<name>.journal`: JSON Lines `{"seq": n, "ops": [...]}`; lines numbered at or below the
 *   snapshot's `$seq` are skipped (a crash between writing the snapshot and emptying the journal);
 *   the part after the last newline is a torn append, never acknowledged, and is left out; any other
 *   unreadable line stops the read.
 *
 * Ops: `put` a record by `_id` into a top-level list (replacing the one with that id), `remove` one,
 * `set` a value at a key path (undefined deletes the key), `append` to a list, keeping only the newest
 * `keep` (per value of field `by` when given).
 */
import { join } from 'node:path'
import { DataFileError } from '../config/durable-json-file'
import { readTextIfExists } from './read-text'

/** One change of a 0.1 document, as its journal lines carry it. */
export type LegacyDocOp =
  | { op: 'put'; path: string; value: { _id: string; [field: string]: unknown } }
  | { op: 'remove'; path: string; id: string }
  | { op: 'set'; path: string[]; value: unknown }
  | { op: 'append'; path: string; value: unknown; keep?: number; by?: string }

export interface LegacyDocument<T> {
  data: T
  /** The number of the last change applied. */
  seq: number
  /** The files read (for messages and for the move). */
  snapshotFile: string
  journalFile: string
  /** Whether the snapshot / the journal exist. */
  hasSnapshot: boolean
  hasJournal: boolean
}

/**
 * Reads `<dir>/<name>.json` and `<dir>/<name>.journal` as 0.1 opened them. `validate` checks the
 * result (throws naming the bad record). Throws {@link DataFileError} naming the file that is
 * unreadable, unparsable or invalid.
 */
export async function readJournaledDocument<T extends object>(dir: string, name: string, defaults: T, validate?: (data: T) => void): Promise<LegacyDocument<T>> {
  const snapshotFile = join(dir, `${name}.json`)
  const journalFile = join(dir, `${name}.journal`)
  const snapshotText = await readTextIfExists(snapshotFile)
  let raw: Record<string, unknown> = {}
  if (snapshotText !== null) {
    try {
      raw = JSON.parse(snapshotText) as Record<string, unknown>
      if (!raw || typeof raw !== 'object' || Array.isArray(raw)) throw new Error('not a JSON object')
    } catch (err) {
      throw new DataFileError(snapshotFile, err)
    }
  }
  const { $seq, ...rest } = raw
  const data = { ...structuredClone(defaults), ...rest } as Record<string, unknown>
  let seq = typeof $seq === 'number' ? $seq : 0
  const journalText = await readTextIfExists(journalFile)
  const replay = new Replay(data)
  const lines = (journalText ?? '').split('\n')
  // Every line but the last ends with a newline; the last piece (no newline) is a torn append.
  for (let i = 0; i < lines.length - 1; i++) {
    const line = lines[i]!
    if (!line) continue
    let entry: { seq: number; ops: LegacyDocOp[] }
    try {
      entry = JSON.parse(line) as { seq: number; ops: LegacyDocOp[] }
      if (typeof entry?.seq !== 'number' || !Array.isArray(entry.ops)) throw new Error('not a journal entry')
    } catch (err) {
      throw new DataFileError(journalFile, new Error(`line ${i + 1}: ${err instanceof Error ? err.message : String(err)}`))
    }
    if (entry.seq <= seq) continue
    try {
      for (const op of entry.ops) replay.apply(op)
    } catch (err) {
      throw new DataFileError(journalFile, new Error(`line ${i + 1}: ${err instanceof Error ? err.message : String(err)}`))
    }
    seq = entry.seq
  }
  try {
    validate?.(data as T)
  } catch (err) {
    throw new DataFileError(snapshotText !== null ? snapshotFile : journalFile, err)
  }
  return { data: data as T, seq, snapshotFile, journalFile, hasSnapshot: snapshotText !== null, hasJournal: journalText !== null }
}

type Row = { _id: string }

/**
 * Applies ops to a document in place. 0.1 copied on every change (its documents were shared and
 * frozen); a replay owns its freshly parsed document, so it changes it in place and finds records by
 * `_id` through an index per list, rebuilt when a list is replaced.
 */
class Replay {
  private readonly indexes = new Map<string, Map<string, number>>()

  constructor(private readonly doc: Record<string, unknown>) {}

  apply(op: LegacyDocOp): void {
    switch (op.op) {
      case 'put': {
        const list = this.list(op.path)
        const index = this.index(op.path, list)
        const i = index.get(op.value._id)
        if (i !== undefined) list[i] = op.value
        else {
          index.set(op.value._id, list.length)
          list.push(op.value)
        }
        return
      }
      case 'remove':
        this.replace(op.path, this.list(op.path).filter((x) => (x as Row)._id !== op.id))
        return
      case 'append': {
        const list = [...this.list(op.path), op.value]
        if (op.keep === undefined) return this.replace(op.path, list)
        if (op.by === undefined) return this.replace(op.path, list.length > op.keep ? list.slice(list.length - op.keep) : list)
        const by = op.by
        const group = (op.value as Record<string, unknown>)[by]
        const same = list.filter((x) => (x as Record<string, unknown>)[by] === group)
        if (same.length <= op.keep) return this.replace(op.path, list)
        const drop = new Set(same.slice(0, same.length - op.keep))
        return this.replace(op.path, list.filter((x) => !drop.has(x)))
      }
      case 'set': {
        if (!Array.isArray(op.path) || op.path.length === 0) throw new Error('set needs a path')
        const [head, ...rest] = op.path as [string, ...string[]]
        const next = setIn(this.doc[head], rest, op.value)
        this.indexes.delete(head)
        if (next === undefined) delete this.doc[head]
        else this.doc[head] = next
        return
      }
      default:
        throw new Error(`unknown op ${JSON.stringify((op as { op?: unknown }).op)}`)
    }
  }

  private list(path: string): unknown[] {
    const v = this.doc[path]
    if (v === undefined) return (this.doc[path] = [])
    if (!Array.isArray(v)) throw new Error(`${path} is not a list`)
    return v
  }

  private index(path: string, list: unknown[]): Map<string, number> {
    let index = this.indexes.get(path)
    if (!index) {
      index = new Map()
      // Of equal ids the last is the one 0.1 replaced (its index kept the last position).
      for (let i = 0; i < list.length; i++) index.set((list[i] as Row)._id, i)
      this.indexes.set(path, index)
    }
    return index
  }

  private replace(path: string, list: unknown[]): void {
    this.doc[path] = list
    this.indexes.delete(path)
  }
}

/** `obj` with `value` at `path`, as 0.1's setIn (a non-object on the way becomes one; undefined deletes the key). */
function setIn(obj: unknown, path: string[], value: unknown): unknown {
  if (path.length === 0) return value
  const [head, ...rest] = path as [string, ...string[]]
  const base = obj && typeof obj === 'object' ? { ...(obj as Record<string, unknown>) } : {}
  const next = setIn((base as Record<string, unknown>)[head], rest, value)
  if (next === undefined) delete (base as Record<string, unknown>)[head]
  else (base as Record<string, unknown>)[head] = next
  return base
}
