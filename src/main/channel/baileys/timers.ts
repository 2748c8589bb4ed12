/**
 * The clock a Baileys session schedules with (reconnect backoff, pairing waits, send pacing).
 *
 * Injected so tests drive the schedule by hand instead of sleeping; the default is Node's timers.
 * Times are milliseconds. Real timers are unref'd: a pending reconnect never keeps the process alive
 * on its own (shutdown stops sessions explicitly anyway).
 */

export type TimerHandle = unknown

export interface Timers {
  setTimeout(fn: () => void, ms: number): TimerHandle
  clearTimeout(handle: TimerHandle): void
  /** Epoch milliseconds. */
  now(): number
}

export const realTimers: Timers = {
  setTimeout(fn, ms) {
    const t = setTimeout(fn, ms)
    t.unref()
    return t
  },
  clearTimeout(handle) {
    clearTimeout(handle as NodeJS.Timeout)
  },
  now: () => Date.now()
}

/** Resolves after `ms` on `timers`. */
export function sleep(timers: Timers, ms: number): Promise<void> {
  if (ms <= 0) return Promise.resolve()
  return new Promise((resolve) => timers.setTimeout(resolve, ms))
}

/**
 * Resolves or rejects like `promise`, or resolves `onTimeout()` after `ms` (the promise keeps running;
 * its later rejection is swallowed). Used where a network call must not block a stop or logout.
 */
export function withTimeout<T>(timers: Timers, promise: Promise<T>, ms: number, onTimeout: () => T): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const handle = timers.setTimeout(() => resolve(onTimeout()), ms)
    promise.then(
      (v) => {
        timers.clearTimeout(handle)
        resolve(v)
      },
      (err) => {
        timers.clearTimeout(handle)
        reject(err instanceof Error ? err : new Error(String(err)))
      }
    )
  })
}
