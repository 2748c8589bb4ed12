/**
 * Exponential backoff with jitter, the one rule behind every retry of the app that waits longer after
 * each failure: WhatsApp reconnects (channel/baileys/baileys-session.ts), webhook deliveries
 * (webhooks/policy.ts), listening again on PostgreSQL (store/db/lasting-listen.ts), the assistant's
 * circuit breaker (assistant/circuit-breaker.ts) and the web UI's event stream
 * (renderer/src/transport/http-client.ts); each passes its own timing. A lint rule keeps
 * it the only one (eslint.config.js, "no local back-off"). Pure: the caller passes the random draw
 * (any number in [0, 1) when `jitter` is 0).
 */

/** Timing of a backoff; milliseconds. */
export interface BackoffOptions {
  /** First delay. */
  baseMs: number
  /** Cap of the exponential part. */
  maxMs: number
  /** Relative jitter: 0.2 spreads each delay uniformly over [0.8 d, 1.2 d). */
  jitter: number
}

/**
 * Delay before attempt `attempt` (1-based): baseMs·2^(attempt−1) capped at maxMs, times a uniform
 * factor in [1−jitter, 1+jitter) so that many clients failing together do not retry in lockstep.
 * `random` is a draw in [0, 1). Milliseconds, never below 0. Attempts below 1 count as 1.
 */
export function backoffDelayMs(attempt: number, random: number, opts: BackoffOptions): number {
  const n = Math.max(1, Math.floor(attempt))
  // Capping the exponent keeps 2^(n-1) finite for absurd attempt counts.
  const exp = Math.min(opts.maxMs, opts.baseMs * 2 ** Math.min(n - 1, 52))
  const factor = 1 - opts.jitter + 2 * opts.jitter * random
  return Math.max(0, Math.round(exp * factor))
}
