/**
 * Failed guesses per key — a client address for unknown tokens and one-time codes, a login name for
 * passwords: after {@link AuthThrottleOptions.maxFailures} failures within the window, that key's
 * further wrong guesses are refused (429, Retry-After) until the window of its first failure ends
 * (OWASP Authentication Cheat Sheet, "Protect against automated attacks"). What is refused is the
 * guess, never a valid credential: the callers let a right token or code through (docs/design.md §21).
 * Its own small counter rather than a limiter library: it runs on the core's clock, which tests move.
 * Bounded memory.
 */
import type { Clock } from '../clock'
import { boundedLru } from '../lru'

export interface AuthThrottleOptions {
  maxFailures: number
  windowMs: number
}

export class AuthThrottle {
  private readonly failures = boundedLru<string, { count: number; since: number }>(10_000)

  constructor(
    private readonly clock: Clock,
    private readonly opts: AuthThrottleOptions = { maxFailures: 10, windowMs: 60_000 }
  ) {}

  /** Seconds to wait when `key` is blocked now, else null. */
  blockedFor(key: string): number | null {
    const f = this.current(key)
    if (!f || f.count < this.opts.maxFailures) return null
    return Math.max(1, Math.ceil((f.since + this.opts.windowMs - this.clock.now()) / 1000))
  }

  /** Counts a failed attempt of `key`. */
  fail(key: string): void {
    const f = this.current(key)
    this.failures.set(key, f ? { count: f.count + 1, since: f.since } : { count: 1, since: this.clock.now() })
  }

  private current(key: string): { count: number; since: number } | undefined {
    const f = this.failures.get(key)
    if (f && this.clock.now() - f.since >= this.opts.windowMs) {
      this.failures.delete(key)
      return undefined
    }
    return f
  }
}
