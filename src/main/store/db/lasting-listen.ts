/**
 * A LISTEN that lasts (PostgreSQL; docs/storage.md "In database mode"). A listening connection that
 * breaks (a server restart, a network cut) hears nothing more, and what was notified meanwhile is gone
 * for good, so a listener that must hear every worker opens it again — after `min` ms, doubling up to
 * `max` — and is told once it listens again (`onRelisten`): it catches up by itself (reads again,
 * tells the UIs to reload). Used by the configuration document and the events between workers.
 */
import type { DatabaseHandle } from './database'
import { backoffDelayMs } from '../../../shared/domain/backoff'

/** The first wait before listening again after a break, ms; it doubles up to {@link RELISTEN_MAX_MS}. */
export const RELISTEN_MIN_MS = 200
/** The longest wait between tries to listen again, ms. */
export const RELISTEN_MAX_MS = 5000

export interface LastingListenOptions {
  /** The listening connection broke; listening again follows. */
  onLost?: (err: Error) => void
  /** Listening again after a break: notifications may have been missed. */
  onRelisten: () => void
  /** A try to listen again failed; the next follows after a longer wait. */
  onRetryFailed?: (err: unknown) => void
  /** The wait before listening again, ms: from `min`, doubling up to `max` (default {@link RELISTEN_MIN_MS} to {@link RELISTEN_MAX_MS}). */
  relistenMs?: { min: number; max: number }
}

/**
 * LISTENs on `channel` through `listen` (DatabaseHandle.listen) until the answered stop function is
 * called, opening a broken connection again. Resolves once first listening; rejects as that LISTEN
 * does (nothing is retried then).
 */
export async function listenLasting(
  listen: NonNullable<DatabaseHandle['listen']>,
  channel: string,
  onNotify: (payload: string) => void,
  opts: LastingListenOptions
): Promise<() => Promise<void>> {
  const min = opts.relistenMs?.min ?? RELISTEN_MIN_MS
  const max = opts.relistenMs?.max ?? RELISTEN_MAX_MS
  let stopped = false
  let current: (() => Promise<void>) | null = null
  let timer: NodeJS.Timeout | null = null
  const lost = (err: Error): void => {
    current = null
    if (stopped) return
    opts.onLost?.(err)
    again(1)
  }
  /** Try number `attempt` (1 = the first after the break) to listen again; no jitter: a worker holds one such listener, so few retry together. */
  const again = (attempt: number): void => {
    timer = setTimeout(() => {
      timer = null
      if (stopped) return
      listen(channel, onNotify, lost).then(
        (stop) => {
          if (stopped) return void stop()
          current = stop
          opts.onRelisten()
        },
        (err: unknown) => {
          opts.onRetryFailed?.(err)
          again(attempt + 1)
        }
      )
    }, backoffDelayMs(attempt, 0, { baseMs: min, maxMs: max, jitter: 0 }))
    timer.unref()
  }
  current = await listen(channel, onNotify, lost)
  return async () => {
    stopped = true
    if (timer) clearTimeout(timer)
    const stop = current
    current = null
    await stop?.()
  }
}
