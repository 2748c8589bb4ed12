/**
 * The webhook outbox (docs/design.md §11): every delivery of every instance, in an append-only file of
 * its own, `<dataDir>/webhook-outbox.jsonl`, apart from the configuration because it changes with
 * every message. The cost of a change does not grow with the number of deliveries (issue 11 §11):
 *
 * - `{"put": delivery}` adds a delivery (or replaces it whole, in a compacted file);
 * - `{"set": id, "fields": {…}}` records an attempt's outcome or a manual retry;
 * - `{"drop": instanceId}` forgets a deleted instance's deliveries.
 *
 * Lines are group-committed: changes made while a write is in flight go out together in the next one,
 * appended whole and fdatasynced ({@link appendDurably}), so a burst of events costs few fsyncs. `add`
 * and `update` resolve once their line is on disk; the dispatcher only sees a delivery after that
 * (at-least-once: a restart finds every delivery not yet delivered). A write that fails takes its
 * changes back in memory and rejects its callers: nothing unacknowledged stays visible.
 *
 * Bounded per instance: delivered entries beyond the newest `keepDelivered` are forgotten, failed ones
 * beyond `maxFailed` lose their oldest; pending ones are bounded by the 24 h retry window. Forgotten
 * entries need no line: when the file holds more than twice the live entries (and at least
 * `compactAfterLines` lines) it is rewritten atomically with the live ones only. Reading the file
 * applies the same bounds, so what memory forgot never comes back.
 *
 * The pending deliveries are indexed by endpoint (their URL), in queue order, so the dispatcher can
 * fill each endpoint's slots without walking the whole outbox.
 */
import { rm, type FileHandle } from 'node:fs/promises'
import { appendDurably, openForAppend, readFileIfExists, writeFileDurably } from '../store/durable-file'
import { DataFileError } from '../store/journaled-document'
import type { DeliveryFilter, WebhookDelivery } from '../../shared/schemas/webhooks'

export interface OutboxLimits {
  /** Delivered entries kept per instance, newest first (default 50); older ones are forgotten. */
  keepDelivered: number
  /** Failed entries kept per instance for a manual retry (default 500); the oldest go first. */
  maxFailed: number
  /** Lines the file may hold before a compaction is considered (default 10,000, a few MB). */
  compactAfterLines: number
}

export const DEFAULT_OUTBOX_LIMITS: OutboxLimits = { keepDelivered: 50, maxFailed: 500, compactAfterLines: 10_000 }

type Line = { put: WebhookDelivery } | { set: string; fields: Partial<WebhookDelivery> } | { drop: string }

interface Waiter {
  resolve: () => void
  reject: (err: unknown) => void
  /** Takes this change back in memory when its write failed. */
  undo: () => void
  /** Runs once the change is on disk. */
  done?: () => void
}

/** Deliveries of one instance by final status, oldest first: what the bounds prune. */
interface Finished {
  delivered: Set<string>
  failed: Set<string>
}

/** The deliveries in the outbox file, as a start would read them (bounds applied). Throws DataFileError. */
export async function readOutboxFile(file: string, limits: Partial<OutboxLimits> = {}): Promise<WebhookDelivery[]> {
  const state = new OutboxState({ ...DEFAULT_OUTBOX_LIMITS, ...limits })
  const text = await readFileIfExists(file).catch((err: unknown) => {
    throw new DataFileError(file, err)
  })
  if (text !== null) state.replay(file, text)
  return [...state.byId.values()]
}

/** The outbox in memory: deliveries by id (creation order), pending ones by endpoint, the bounds. */
class OutboxState {
  readonly byId = new Map<string, WebhookDelivery>()
  /** Pending deliveries on disk, by URL, in queue order. */
  readonly pendingByUrl = new Map<string, Map<string, WebhookDelivery>>()
  private readonly finished = new Map<string, Finished>()

  constructor(private readonly limits: OutboxLimits) {}

  /** Applies the lines of a file's text; answers the bytes and count of whole lines (a torn last line is left out). */
  replay(file: string, text: string): { bytes: number; lines: number } {
    let good = 0
    let count = 0
    const lines = text.split('\n')
    for (let i = 0; i < lines.length - 1; i++) {
      const raw = lines[i]!
      good += Buffer.byteLength(raw) + 1
      if (!raw) continue
      let line: Line
      try {
        line = JSON.parse(raw) as Line
      } catch (err) {
        throw new DataFileError(file, err)
      }
      this.apply(line)
      count++
    }
    return { bytes: good, lines: count }
  }

  apply(line: Line): void {
    if ('put' in line) this.put(line.put)
    else if ('set' in line) {
      const d = this.byId.get(line.set)
      if (d) this.put({ ...d, ...line.fields })
    } else this.dropInstance(line.drop)
  }

  /** Stores `d` (new or replacing), keeping the indexes and bounds; answers the entry it replaced. */
  put(d: WebhookDelivery): WebhookDelivery | undefined {
    const before = this.byId.get(d.id)
    if (before) this.unindex(before)
    this.byId.set(d.id, d)
    this.index(d)
    return before
  }

  /** Removes a delivery (a failed add taken back). */
  remove(id: string): void {
    const d = this.byId.get(id)
    if (!d) return
    this.unindex(d)
    this.byId.delete(id)
  }

  dropInstance(instanceId: string): WebhookDelivery[] {
    const dropped = [...this.byId.values()].filter((d) => d.instance_id === instanceId)
    for (const d of dropped) this.remove(d.id)
    this.finished.delete(instanceId)
    return dropped
  }

  private index(d: WebhookDelivery): void {
    if (d.status === 'pending') {
      let queue = this.pendingByUrl.get(d.url)
      if (!queue) this.pendingByUrl.set(d.url, (queue = new Map<string, WebhookDelivery>()))
      queue.set(d.id, d)
      return
    }
    let fin = this.finished.get(d.instance_id)
    if (!fin) this.finished.set(d.instance_id, (fin = { delivered: new Set(), failed: new Set() }))
    const set = d.status === 'delivered' ? fin.delivered : fin.failed
    set.add(d.id)
    const keep = d.status === 'delivered' ? this.limits.keepDelivered : this.limits.maxFailed
    while (set.size > keep) {
      const oldest = set.values().next().value!
      set.delete(oldest)
      this.byId.delete(oldest)
    }
  }

  private unindex(d: WebhookDelivery): void {
    if (d.status === 'pending') {
      const queue = this.pendingByUrl.get(d.url)
      queue?.delete(d.id)
      if (queue?.size === 0) this.pendingByUrl.delete(d.url)
      return
    }
    const fin = this.finished.get(d.instance_id)
    fin?.delivered.delete(d.id)
    fin?.failed.delete(d.id)
  }
}

export class WebhookOutbox {
  private readonly state: OutboxState
  /** Lines and their waiters not yet written; the head batch may be in flight. */
  private queued: Array<{ line: string; waiter: Waiter }> = []
  private flushing: Promise<void> | null = null
  /** Ids added whose write has not finished: left out of a compaction (their line follows it). */
  private readonly unsynced = new Set<string>()
  private lines = 0
  private closed = false

  private constructor(
    readonly file: string,
    private readonly limits: OutboxLimits,
    private fh: FileHandle,
    private size: number,
    state: OutboxState,
    lines: number
  ) {
    this.state = state
    this.lines = lines
  }

  /**
   * Opens (or creates) the outbox file. A torn last line (a crash mid-append, never acknowledged) is
   * cut off. An outbox of an older version (`webhook-outbox.json`, one JSON document next to it) is
   * carried over once and removed. Throws {@link DataFileError} when the file is unreadable.
   */
  static async open(file: string, limits: Partial<OutboxLimits> = {}): Promise<WebhookOutbox> {
    const all = { ...DEFAULT_OUTBOX_LIMITS, ...limits }
    const state = new OutboxState(all)
    const read = async (f: string) =>
      readFileIfExists(f).catch((err: unknown) => {
        throw new DataFileError(f, err)
      })
    let text = await read(file)
    const legacy = file.replace(/\.jsonl$/, '.json')
    if (text === null && legacy !== file) {
      const old = await read(legacy)
      if (old !== null) {
        let deliveries: WebhookDelivery[]
        try {
          deliveries = (JSON.parse(old) as { deliveries: WebhookDelivery[] }).deliveries
          if (!Array.isArray(deliveries)) throw new Error('no deliveries list')
        } catch (err) {
          throw new DataFileError(legacy, err)
        }
        text = deliveries.map((d) => JSON.stringify({ put: d }) + '\n').join('')
        await writeFileDurably(file, text)
        await rm(legacy, { force: true })
      }
    }
    const loaded = text === null ? { bytes: 0, lines: 0 } : state.replay(file, text)
    const fh = await openForAppend(file)
    if (text !== null && Buffer.byteLength(text) !== loaded.bytes) await fh.truncate(loaded.bytes)
    return new WebhookOutbox(file, all, fh, loaded.bytes, state, loaded.lines)
  }

  /** A delivery by id. */
  get(id: string): WebhookDelivery | undefined {
    return this.state.byId.get(id)
  }

  /**
   * The pending deliveries on disk, by endpoint URL, each queue oldest first. A delivery added a
   * moment ago appears once its write is done. A live view: do not change it.
   */
  pendingByEndpoint(): ReadonlyMap<string, ReadonlyMap<string, WebhookDelivery>> {
    return this.state.pendingByUrl
  }

  /** Queues deliveries; resolves once they are on disk (only then does the dispatcher see them). */
  add(deliveries: WebhookDelivery[]): Promise<void> {
    // Listed at once (the caller's own read), dispatchable only once written.
    const writes = deliveries.map((d) => {
      const unsynced: WebhookDelivery = { ...d, status: 'pending' }
      this.state.byId.set(d.id, unsynced)
      this.unsynced.add(d.id)
      return this.enqueue({ put: d }, {
        undo: () => {
          this.unsynced.delete(d.id)
          if (this.state.byId.get(d.id) === unsynced) this.state.byId.delete(d.id)
        },
        done: () => {
          this.unsynced.delete(d.id)
          if (this.state.byId.get(d.id) === unsynced) this.state.put(d)
        }
      })
    })
    return Promise.all(writes).then(() => undefined)
  }

  /**
   * Applies `patch` to a delivery now (memory) and resolves once it is on disk; a delivery that became
   * delivered or failed may push the instance's oldest ones out. False when the delivery is gone
   * (deleted with its instance meanwhile).
   */
  async update(id: string, patch: Partial<WebhookDelivery>): Promise<boolean> {
    const before = this.state.byId.get(id)
    if (!before) return false
    const after = { ...before, ...patch, id }
    this.state.put(after)
    await this.enqueue({ set: id, fields: patch }, {
      undo: () => {
        if (this.state.byId.get(id) === after) this.state.put(before)
      }
    })
    return true
  }

  /** An instance's deliveries, newest first, optionally of one status, at most `limit` (default 50). */
  list(instanceId: string, filter: DeliveryFilter = {}): WebhookDelivery[] {
    const out: WebhookDelivery[] = []
    const limit = filter.limit ?? 50
    const rows = [...this.state.byId.values()]
    for (let i = rows.length - 1; i >= 0 && out.length < limit; i--) {
      const d = rows[i]!
      if (d.instance_id === instanceId && (!filter.status || d.status === filter.status)) out.push(d)
    }
    return out
  }

  /** Ids of the instances that have deliveries. */
  instanceIds(): string[] {
    return [...new Set([...this.state.byId.values()].map((d) => d.instance_id))]
  }

  /** Drops every delivery of an instance (instance deleted): from memory now, from disk on the returned promise. */
  async removeInstance(instanceId: string): Promise<void> {
    const dropped = this.state.dropInstance(instanceId)
    await this.enqueue({ drop: instanceId }, {
      undo: () => {
        for (const d of dropped) if (!this.state.byId.has(d.id)) this.state.put(d)
      }
    })
  }

  /** Waits for pending writes, compacts when worthwhile, and closes the file. Later changes reject. */
  async close(): Promise<void> {
    while (this.flushing) await this.flushing
    this.closed = true
    if (this.lines > this.state.byId.size) await this.compact()
    await this.fh.close()
  }

  private enqueue(line: Line, change: Omit<Waiter, 'resolve' | 'reject'>): Promise<void> {
    if (this.closed) {
      change.undo()
      return Promise.reject(new Error('the webhook outbox is closed'))
    }
    return new Promise<void>((resolve, reject) => {
      this.queued.push({ line: JSON.stringify(line) + '\n', waiter: { ...change, resolve, reject } })
      if (!this.flushing) this.flushing = this.flush()
    })
  }

  /** Writes queued lines in batches (group commit) until none are left. */
  private async flush(): Promise<void> {
    try {
      while (this.queued.length > 0) {
        const batch = this.queued.splice(0)
        const data = Buffer.from(batch.map((q) => q.line).join(''))
        try {
          this.size = await appendDurably(this.fh, this.file, this.size, data)
        } catch (err) {
          // Newest first, so each undo finds memory as its change left it.
          for (let i = batch.length - 1; i >= 0; i--) batch[i]!.waiter.undo()
          for (const q of batch) q.waiter.reject(err)
          continue
        }
        this.lines += batch.length
        for (const q of batch) {
          q.waiter.done?.()
          q.waiter.resolve()
        }
        if (this.lines > Math.max(this.limits.compactAfterLines, 2 * this.state.byId.size)) await this.compact()
      }
    } finally {
      this.flushing = null
    }
  }

  /**
   * Rewrites the file with the live deliveries only (atomic, fsynced, directory fsynced), then appends
   * to the new file. A failure keeps the old file, which still holds everything.
   */
  private async compact(): Promise<void> {
    // Deliveries added but not yet written are in the queue, not in this text: they follow it.
    const live = [...this.state.byId.values()].filter((d) => !this.unsynced.has(d.id))
    const text = live.map((d) => JSON.stringify({ put: d }) + '\n').join('')
    try {
      await writeFileDurably(this.file, text)
    } catch {
      return
    }
    const fh = await openForAppend(this.file)
    await this.fh.close().catch(() => {})
    this.fh = fh
    this.size = Buffer.byteLength(text)
    this.lines = live.length
  }
}
