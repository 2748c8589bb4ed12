/**
 * "Send `default_msg` at most once per contact per window" (docs/design.md §10 step 5). Pure in-memory
 * state with explicit time (`nowMs`, epoch milliseconds); the caller persists it with
 * `toJSON()`/`DefaultMessageWindow.fromJSON()`.
 *
 * - `shouldSend(instanceId, contactId, nowMs)`: true when nothing was sent to that contact by that
 *   instance within the last `windowMs` (default 24 h). A query only.
 * - `markSent(instanceId, contactId, nowMs)`: records a send.
 * - `claim(...)`: both at once; use it when the send is awaited, so two messages arriving during
 *   the send do not both get the default message.
 *
 * Memory bound: at most `maxEntries` contacts (default 50,000; about 100 bytes each). Entries are
 * kept in the order of their last send, so the oldest is dropped first; entries older than the
 * window are pruned from the front on every write. If more than `maxEntries` contacts are written to
 * within one window, the least recently served ones are forgotten early and may get the default
 * message again before their window is over; that is the price of the bound, and far better than the
 * alternative of growing without limit. Pruning assumes `nowMs` does not go backwards by much; if
 * it does, expired entries only linger until the size cap removes them.
 *
 * Throws RangeError on a non-positive `windowMs` or `maxEntries`. `fromJSON` never throws: bad or
 * foreign data gives an empty window (losing it costs at most one extra default message per contact).
 */

export const DEFAULT_WINDOW_MS = 24 * 60 * 60 * 1000
export const DEFAULT_MAX_ENTRIES = 50_000

export interface DefaultMessageWindowOptions {
  windowMs?: number
  maxEntries?: number
}

/** Serialised form: `[instanceId, contactId, sentAtMs]`, oldest send first. */
export interface DefaultMessageWindowJSON {
  version: 1
  windowMs: number
  entries: [string, string, number][]
}

interface Sent {
  instanceId: string
  contactId: string
  at: number
}

function keyOf(instanceId: string, contactId: string): string {
  // NUL never occurs in JIDs or record ids, so the pair is unambiguous.
  return `${instanceId}\u0000${contactId}`
}

export class DefaultMessageWindow {
  readonly windowMs: number
  readonly maxEntries: number
  private readonly sent = new Map<string, Sent>()

  constructor(options: DefaultMessageWindowOptions = {}) {
    const windowMs = options.windowMs ?? DEFAULT_WINDOW_MS
    const maxEntries = options.maxEntries ?? DEFAULT_MAX_ENTRIES
    if (!(windowMs > 0)) throw new RangeError(`default message window: windowMs must be > 0, got ${windowMs}`)
    if (!(maxEntries >= 1)) throw new RangeError(`default message window: maxEntries must be >= 1, got ${maxEntries}`)
    this.windowMs = windowMs
    this.maxEntries = Math.floor(maxEntries)
  }

  get size(): number {
    return this.sent.size
  }

  shouldSend(instanceId: string, contactId: string, nowMs: number): boolean {
    const s = this.sent.get(keyOf(instanceId, contactId))
    return s === undefined || nowMs - s.at >= this.windowMs
  }

  markSent(instanceId: string, contactId: string, nowMs: number): void {
    const key = keyOf(instanceId, contactId)
    // Re-insert so Map order stays "least recently sent first".
    this.sent.delete(key)
    this.sent.set(key, { instanceId, contactId, at: nowMs })
    this.prune(nowMs)
  }

  /** `shouldSend` and, when true, `markSent`, in one step. */
  claim(instanceId: string, contactId: string, nowMs: number): boolean {
    if (!this.shouldSend(instanceId, contactId, nowMs)) return false
    this.markSent(instanceId, contactId, nowMs)
    return true
  }

  /** Moves a contact's entry to another id (a LID now known by its phone number); the later send wins. */
  rekey(instanceId: string, from: string, to: string): boolean {
    const old = this.sent.get(keyOf(instanceId, from))
    if (!old) return false
    this.sent.delete(keyOf(instanceId, from))
    const current = this.sent.get(keyOf(instanceId, to))
    if (!current || current.at < old.at) {
      this.sent.delete(keyOf(instanceId, to))
      this.sent.set(keyOf(instanceId, to), { instanceId, contactId: to, at: old.at })
    }
    return true
  }

  /** Forgets one contact (e.g. the owner wants them greeted again). */
  forget(instanceId: string, contactId: string): boolean {
    return this.sent.delete(keyOf(instanceId, contactId))
  }

  /** Forgets everything, or everything of one instance (it was deleted or logged out). */
  clear(instanceId?: string): void {
    if (instanceId === undefined) return this.sent.clear()
    for (const [k, s] of this.sent) if (s.instanceId === instanceId) this.sent.delete(k)
  }

  /** Drops expired entries from the front, then the oldest beyond `maxEntries`. */
  prune(nowMs: number): void {
    for (const [k, s] of this.sent) {
      if (nowMs - s.at < this.windowMs) break
      this.sent.delete(k)
    }
    for (const k of this.sent.keys()) {
      if (this.sent.size <= this.maxEntries) break
      this.sent.delete(k)
    }
  }

  toJSON(): DefaultMessageWindowJSON {
    return {
      version: 1,
      windowMs: this.windowMs,
      entries: [...this.sent.values()].map((s) => [s.instanceId, s.contactId, s.at])
    }
  }

  /**
   * Restores a window saved by `toJSON`. The options given now win over the saved `windowMs`
   * (the setting may have changed); entries already expired at `nowMs` are dropped when given.
   */
  static fromJSON(json: unknown, options: DefaultMessageWindowOptions = {}, nowMs?: number): DefaultMessageWindow {
    const saved = json as Partial<DefaultMessageWindowJSON> | null
    const windowMs =
      options.windowMs ?? (typeof saved?.windowMs === 'number' && saved.windowMs > 0 ? saved.windowMs : undefined)
    const w = new DefaultMessageWindow({ ...options, windowMs })
    if (!saved || saved.version !== 1 || !Array.isArray(saved.entries)) return w
    const valid = saved.entries.filter(
      (e): e is [string, string, number] =>
        Array.isArray(e) &&
        typeof e[0] === 'string' &&
        typeof e[1] === 'string' &&
        typeof e[2] === 'number' &&
        Number.isFinite(e[2])
    )
    // Sorting restores "least recently sent first" even if the file was edited by hand.
    valid.sort((a, b) => a[2] - b[2])
    for (const [i, c, at] of valid) {
      const key = keyOf(i, c)
      w.sent.delete(key)
      w.sent.set(key, { instanceId: i, contactId: c, at })
    }
    w.prune(nowMs ?? (valid.length > 0 ? valid[valid.length - 1]![2] : 0))
    return w
  }
}
