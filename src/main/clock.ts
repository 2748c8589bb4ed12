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
