/**
 * The one clock of the core: services and the bot read time only through it, so tests drive a manual
 * clock instead of sleeping. Epoch milliseconds.
 */
export interface Clock {
  now(): number
}

export const systemClock: Clock = { now: () => Date.now() }

/** The clock's time as an ISO 8601 UTC string (record timestamps). */
export function isoNow(clock: Clock): string {
  return new Date(clock.now()).toISOString()
}

/** Timers of the core's own schedules (broadcasts, scheduled messages); tests pass a manual clock. */
export interface Timers {
  setTimeout(fn: () => void, ms: number): unknown
  clearTimeout(handle: unknown): void
}

/** setTimeout's longest delay (ms); later moments are reached by re-arming. */
export const MAX_TIMER_MS = 2_147_483_647

/** The real timers, unref'd: a waiting broadcast never keeps the process alive by itself. */
export const systemTimers: Timers = {
  setTimeout: (fn, ms) => setTimeout(fn, Math.min(Math.max(0, ms), MAX_TIMER_MS)).unref(),
  clearTimeout: (h) => clearTimeout(h as NodeJS.Timeout)
}
