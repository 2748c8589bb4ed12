/**
 * A JSON document kept as a snapshot plus an append-only journal of changes, so that the cost of a
 * write does not grow with the data (docs/architecture.md "Storage"):
 *
 * - `<name>.json`: the document as of change number `$seq` (a top-level field);
 * - `<name>.journal`: JSON Lines `{"seq": n, "ops": [...]}`, one line per group-committed batch.
 *
 * A change is a list of {@link DocOp}s: `put` a record (by `_id`) into a collection, `remove` one,
 * `set` a value at a path, `append` to a bounded list. The journal is folded into a new snapshot once it
 * outgrows the snapshot (atomic, fsynced, directory fsynced); lines numbered at or below the snapshot's
 * `$seq` are skipped on load, so a crash between the snapshot and the journal's truncation replays
 * nothing twice.
 *
 * Writes: {@link JournaledDocument.apply} changes memory at once (so readers see their own writes) and
 * resolves once the batch is on disk (appended whole and fdatasynced; a short write is continued, a
 * failed one cut back). A failed write undoes the batch — and every later one not yet on disk — in
 * memory and rejects their callers: nothing unacknowledged stays visible, nothing acknowledged is lost.
 *
 * Values in the document are deep-frozen: readers get them without copies and cannot change them;
 * writers produce new records (immer in the repositories).
 */
import type { FileHandle } from 'node:fs/promises'
import { join } from 'node:path'
import { appendDurably, openForAppend, readFileIfExists, writeFileDurably } from './durable-file'

/** The data file exists but cannot be read, parsed or validated. Stops the start; never overwritten. */
export class DataFileError extends Error {
  constructor(
    readonly file: string,
    cause: unknown
  ) {
    super(
      `The data file ${file} is unreadable (${cause instanceof Error ? cause.message : String(cause)}). ` +
        'It was left untouched: restore it from a backup or move it away, then start again.'
    )
    this.name = 'DataFileError'
  }
}

/** One change of a document. `path` names a top-level collection (put/remove/append) or a key path (set). */
export type DocOp =
  | { op: 'put'; path: string; value: { _id: string; [field: string]: unknown } }
  | { op: 'remove'; path: string; id: string }
  | { op: 'set'; path: string[]; value: unknown }
  /** Appends `value`; with `keep`, only the newest `keep` entries stay (per value of field `by`, when given). */
  | { op: 'append'; path: string; value: unknown; keep?: number; by?: string }


/**
 * Freezes what a change made new, after {@link applyOp}: the copied containers on the way from the root.
 * Values put in were deep-frozen before; a new list's elements are frozen already (old ones, or the
 * value put), so a list is frozen without visiting its elements — a write does not walk the data.
 */
function freezeNew<T>(value: T): T {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value)
    if (!Array.isArray(value)) for (const v of Object.values(value)) freezeNew(v)
  }
  return value
}

/** Freezes `value` and everything in it; answers it. */
export function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value)
    for (const v of Object.values(value)) deepFreeze(v)
  }
  return value
}

interface Waiter {
  resolve: () => void
  reject: (err: unknown) => void
}

/** Changes written (or to be written) together as one journal line. */
interface Batch {
  ops: DocOp[]
  waiters: Waiter[]
  /** The document once this batch is applied. */
  after: unknown
}

export interface JournaledDocumentOptions<T> {
  /** The document's files: `<dir>/<name>.json` and `<dir>/<name>.journal`. */
  dir: string
  name: string
  defaults: T
  /** Checks the loaded document; throws (with a message naming the record) when it is not valid. */
  validate?: (data: T) => void
  /** Journal bytes past which it is folded into the snapshot, besides outgrowing the snapshot. */
  compactAfterBytes?: number
}

export class JournaledDocument<T extends object> {
  /** What readers see: every change applied so far, written or not. */
  private data_: T
  /** The document as it is on disk: every change whose write succeeded. */
  private durable: T
  private seq = 0
  private fh: FileHandle | null = null
  private journalBytes = 0
  private snapshotBytes = 0
  /** Batches applied to memory and not yet on disk, oldest first; the first may be in flight. */
  private pending: Batch[] = []
  private inFlight: Batch | null = null
  private flushing: Promise<void> | null = null
  private closed = false

  private constructor(
    private readonly opts: JournaledDocumentOptions<T>,
    data: T
  ) {
    this.data_ = data
    this.durable = data
  }

  get snapshotFile(): string {
    return join(this.opts.dir, `${this.opts.name}.json`)
  }

  get journalFile(): string {
    return join(this.opts.dir, `${this.opts.name}.journal`)
  }

  /**
   * Opens the document: the snapshot (missing: the defaults), then the journal's lines after it. Keys
   * missing from the file are filled from the defaults, so older files gain new collections. A torn
   * last journal line (a crash mid-append, never acknowledged) is cut off. Throws {@link DataFileError}
   * on an unreadable or invalid file, leaving it as it is.
   */
  static async open<T extends object>(opts: JournaledDocumentOptions<T>): Promise<JournaledDocument<T>> {
    const snapshotFile = join(opts.dir, `${opts.name}.json`)
    const journalFile = join(opts.dir, `${opts.name}.journal`)
    const snapshotText = await readOptional(snapshotFile)
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
    let data = { ...structuredClone(opts.defaults), ...rest } as T
    let seq = typeof $seq === 'number' ? $seq : 0
    const journalText = (await readOptional(journalFile)) ?? ''
    let goodBytes = 0
    const lines = journalText.split('\n')
    for (let i = 0; i < lines.length - 1; i++) {
      // Every line but the last ends with a newline; the last one (no newline) is a torn append.
      const line = lines[i]!
      goodBytes += Buffer.byteLength(line) + 1
      if (!line) continue
      let entry: { seq: number; ops: DocOp[] }
      try {
        entry = JSON.parse(line) as { seq: number; ops: DocOp[] }
        if (typeof entry.seq !== 'number' || !Array.isArray(entry.ops)) throw new Error('not a journal entry')
      } catch (err) {
        throw new DataFileError(journalFile, err)
      }
      if (entry.seq <= seq) continue
      for (const op of entry.ops) data = applyOp(data, op)
      seq = entry.seq
    }
    try {
      opts.validate?.(data)
    } catch (err) {
      throw new DataFileError(snapshotText !== null ? snapshotFile : journalFile, err)
    }
    const doc = new JournaledDocument(opts, deepFreeze(data))
    doc.seq = seq
    doc.snapshotBytes = snapshotText?.length ?? 0
    doc.fh = await openForAppend(journalFile)
    if (Buffer.byteLength(journalText) !== goodBytes) await doc.fh.truncate(goodBytes)
    doc.journalBytes = goodBytes
    return doc
  }

  /** The document as it is now (written or about to be). Deep-frozen: never mutate. */
  get data(): T {
    return this.data_
  }

  /** Applies `ops` now; resolves once they are on disk, or rejects (and takes them back) when the write fails. */
  apply(ops: DocOp[]): Promise<void> {
    if (this.closed) return Promise.reject(new Error(`the document ${this.opts.name} is closed`))
    if (ops.length === 0) return Promise.resolve()
    let next = this.data_
    for (const op of ops) {
      if ('value' in op) deepFreeze(op.value)
      next = applyOp(next, op)
    }
    this.data_ = freezeNew(next)
    return new Promise<void>((resolve, reject) => {
      const tail = this.pending[this.pending.length - 1]
      // A batch not yet in flight takes more changes: a burst costs one write.
      if (tail && tail !== this.inFlight) {
        tail.ops.push(...ops)
        tail.waiters.push({ resolve, reject })
        tail.after = this.data_
      } else {
        this.pending.push({ ops: [...ops], waiters: [{ resolve, reject }], after: this.data_ })
      }
      if (!this.flushing) this.flushing = this.flush()
    })
  }

  /** Writes what is pending, then stops (later writes reject). */
  /** Waits for pending writes, folds the journal into the snapshot (a clean stop leaves one readable file), and closes. */
  async close(): Promise<void> {
    while (this.flushing) await this.flushing
    this.closed = true
    if (this.fh && (this.journalBytes > 0 || this.snapshotBytes === 0)) await this.compact()
    await this.fh?.close()
    this.fh = null
  }

  private async flush(): Promise<void> {
    try {
      while (this.pending.length > 0) {
        const batch = this.pending[0]!
        this.inFlight = batch
        const seq = this.seq + 1
        const line = Buffer.from(JSON.stringify({ seq, ops: batch.ops }) + '\n')
        try {
          if (!this.fh) throw new Error(`the document ${this.opts.name} is closed`)
          this.journalBytes = await appendDurably(this.fh, this.journalFile, this.journalBytes, line)
        } catch (err) {
          // Every change not on disk is taken back, this batch's and the later ones built on it.
          const failed = this.pending.splice(0)
          this.inFlight = null
          this.data_ = this.durable
          for (const b of failed) for (const w of b.waiters) w.reject(err)
          continue
        }
        this.seq = seq
        this.durable = batch.after as T
        this.pending.shift()
        this.inFlight = null
        for (const w of batch.waiters) w.resolve()
        if (this.journalBytes > Math.max(this.snapshotBytes, this.opts.compactAfterBytes ?? 256 * 1024)) await this.compact()
      }
    } finally {
      this.inFlight = null
      this.flushing = null
    }
  }

  /** Folds the journal into a new snapshot. A failure keeps the journal (nothing is lost); the next write tries again. */
  private async compact(): Promise<void> {
    const text = JSON.stringify({ ...this.durable, $seq: this.seq })
    try {
      await writeFileDurably(this.snapshotFile, text)
      await this.fh!.truncate(0)
      this.journalBytes = 0
      this.snapshotBytes = text.length
    } catch {
      // The journal still holds every change.
    }
  }
}

/** The file's text or null when missing; a read error is a {@link DataFileError} naming the file. */
function readOptional(file: string): Promise<string | null> {
  return readFileIfExists(file).catch((err: unknown) => {
    throw new DataFileError(file, err)
  })
}

/**
 * Positions of records by `_id` for the frozen lists of a document, so finding a record (and putting a
 * new one) does not scan the list: at 10,000 intents those scans were most of what still grew with the
 * data in a write (issue 11 §9). A list is never changed after it is made; a list made by appending or
 * replacing shares its parent's index, which holds every id of every list sharing it (an id it lacks
 * is in none of them), and a position is trusted only when it is within the list and names that id.
 * Any other new list (a removal) builds its own index at its first lookup.
 */
const positions = new WeakMap<readonly unknown[], Map<string, number>>()

/** The position of the record with `_id` `id` in `list` (a document's frozen list), or -1. */
export function indexOfId(list: readonly { _id: string }[], id: string): number {
  let index = positions.get(list)
  if (!index) {
    index = new Map()
    for (let i = 0; i < list.length; i++) index.set(list[i]!._id, i)
    positions.set(list, index)
  }
  const i = index.get(id)
  if (i === undefined) return -1
  if (i < list.length && list[i]!._id === id) return i
  // The shared index names another position for this id (lists of a branch given up after a failed
  // write, extended differently): rare, so a scan settles it.
  return list.findIndex((x) => x._id === id)
}

/** `root` with one op applied, copying what the op changes (structural sharing, no mutation). */
export function applyOp<T extends object>(root: T, op: DocOp): T {
  const r = root as Record<string, unknown>
  switch (op.op) {
    case 'put': {
      const old = (r[op.path] as Array<{ _id: string }> | undefined) ?? []
      const i = indexOfId(old, op.value._id)
      const list = [...old]
      if (i >= 0) list[i] = op.value
      else list.push(op.value)
      // Same positions for every id, plus the new one at the end: the parent's index serves both.
      const index = positions.get(old)!
      if (i < 0) index.set(op.value._id, list.length - 1)
      positions.set(list, index)
      return { ...root, [op.path]: list }
    }
    case 'remove':
      return { ...root, [op.path]: ((r[op.path] as Array<{ _id: string }> | undefined) ?? []).filter((x) => x._id !== op.id) }
    case 'append': {
      const list = [...((r[op.path] as unknown[] | undefined) ?? []), op.value]
      if (op.keep === undefined) return { ...root, [op.path]: list }
      if (op.by === undefined) return { ...root, [op.path]: list.length > op.keep ? list.slice(list.length - op.keep) : list }
      const group = (op.value as Record<string, unknown>)[op.by]
      const same = list.filter((x) => (x as Record<string, unknown>)[op.by!] === group)
      if (same.length <= op.keep) return { ...root, [op.path]: list }
      const drop = new Set(same.slice(0, same.length - op.keep))
      return { ...root, [op.path]: list.filter((x) => !drop.has(x)) }
    }
    case 'set': {
      if (op.path.length === 0) throw new Error('set needs a path')
      return setIn(root, op.path, op.value) as T
    }
  }
}

/** `obj` with `value` at `path`, copying along the path (undefined value deletes the key). */
function setIn(obj: unknown, path: string[], value: unknown): unknown {
  if (path.length === 0) return value
  const [head, ...rest] = path as [string, ...string[]]
  const base = obj && typeof obj === 'object' ? { ...(obj as Record<string, unknown>) } : {}
  const next = setIn(base[head], rest, value)
  if (next === undefined) delete base[head]
  else base[head] = next
  return base
}
