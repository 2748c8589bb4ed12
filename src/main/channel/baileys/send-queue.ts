/**
 * Per-instance outbound pacing: tasks run one at a time in the order they were queued, with at
 * least `minIntervalMs` plus a random 0…`jitterMs` between the end of one send and the start of the
 * next. A number that fires messages back to back at machine speed is what WhatsApp's spam
 * heuristics look for; a bot answering like a person is not. Times in ms.
 *
 * A task's result or error goes to its caller only; the queue moves on either way.
 * {@link SendQueue.clear} rejects the tasks not yet started (stop, logout).
 */
import { sleep, type Timers } from './timers'

export interface SendQueueOptions {
  minIntervalMs: number
  jitterMs: number
  timers: Timers
  /** [0, 1). */
  random: () => number
}

export const DEFAULT_SEND_PACING = { minIntervalMs: 1000, jitterMs: 500 }

interface Pending {
  run: () => Promise<void>
  reject: (err: unknown) => void
}

export class SendQueue {
  private readonly pending: Pending[] = []
  private running = false
  private lastEnd = Number.NEGATIVE_INFINITY

  constructor(private readonly opts: SendQueueOptions) {}

  /** Tasks queued and not yet started. */
  get size(): number {
    return this.pending.length
  }

  enqueue<T>(task: () => Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.pending.push({
        run: () => Promise.resolve().then(task).then(resolve, reject),
        reject
      })
      void this.drain()
    })
  }

  /** Rejects every task not yet started with `err`. The running one finishes. */
  clear(err: unknown): void {
    for (const p of this.pending.splice(0)) p.reject(err)
  }

  private async drain(): Promise<void> {
    if (this.running) return
    this.running = true
    try {
      for (;;) {
        if (!this.pending.length) return
        const gap = this.opts.minIntervalMs + Math.floor(this.opts.random() * this.opts.jitterMs)
        const wait = this.lastEnd + gap - this.opts.timers.now()
        if (wait > 0) await sleep(this.opts.timers, wait)
        // clear() may have emptied the queue while we waited.
        const next = this.pending.shift()
        if (!next) return
        await next.run()
        this.lastEnd = this.opts.timers.now()
      }
    } finally {
      this.running = false
    }
  }
}
