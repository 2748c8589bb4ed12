/**
 * A clock for webhook tests: time is the real time plus an offset that `advance` moves, and timers
 * fire only when `advance` reaches them. Backoff of seconds to hours runs without waiting, and
 * signature timestamps stay close to the real time (the receiver's verify checks them).
 */
import type { Clock } from '../../src/main/webhooks/dispatcher'

export class ManualClock implements Clock {
  offset = 0
  private seq = 0
  private readonly timers = new Map<number, { at: number; fn: () => void }>()

  now(): number {
    return Date.now() + this.offset
  }

  setTimeout(fn: () => void, ms: number): unknown {
    const id = ++this.seq
    this.timers.set(id, { at: this.now() + ms, fn })
    return id
  }

  clearTimeout(handle: unknown): void {
    this.timers.delete(handle as number)
  }

  /** Timers still armed. */
  get pending(): number {
    return this.timers.size
  }

  /** When the earliest timer fires, ms from now (undefined when none). */
  nextIn(): number | undefined {
    let min = Infinity
    for (const t of this.timers.values()) min = Math.min(min, t.at)
    return min === Infinity ? undefined : min - this.now()
  }

  /** Moves time forward by `ms` and fires every timer that is due, earliest first. */
  advance(ms: number): void {
    this.offset += ms
    for (;;) {
      const now = this.now()
      const due = [...this.timers.entries()].filter(([, t]) => t.at <= now).sort((a, b) => a[1].at - b[1].at)
      if (due.length === 0) return
      for (const [id, t] of due) {
        this.timers.delete(id)
        t.fn()
      }
    }
  }
}
