/**
 * The circuit breaker of an instance's model endpoint (docs/assistant.md "When the model fails"):
 * after {@link CircuitOptions.threshold} failed calls in a row, no call is made for a while and the
 * fallback answers at once, so customers do not each wait out a timeout while the model server is down.
 * When the time is up, calls are made again: a success closes the circuit, a failure opens it again
 * for twice as long (up to the maximum). Pure state; times are epoch ms passed in.
 */
import { backoffDelayMs } from '../../shared/domain/backoff'
import type { AssistantCircuit } from '../../shared/schemas/assistant'

export interface CircuitOptions {
  /** Failures in a row that open the circuit. */
  threshold: number
  /** How long it first stays open (ms). */
  openMs: number
  /** The longest it stays open (ms). */
  maxOpenMs: number
}

export const DEFAULT_CIRCUIT: CircuitOptions = { threshold: 3, openMs: 60_000, maxOpenMs: 15 * 60_000 }

export class CircuitBreaker {
  private failures = 0
  private openUntil: number | null = null
  private lastOpenMs = 0
  /** Times it opened since it last closed: each opening lasts twice the one before, up to maxOpenMs. */
  private openings = 0
  private reason: string | null = null

  constructor(private readonly opts: CircuitOptions = DEFAULT_CIRCUIT) {}

  /** Whether a call may be made at `now` (closed, or open with its time up: a trial). */
  allows(now: number): boolean {
    return this.openUntil === null || now >= this.openUntil
  }

  /** A call succeeded: closed, failures forgotten. */
  success(): void {
    this.failures = 0
    this.openUntil = null
    this.lastOpenMs = 0
    this.openings = 0
    this.reason = null
  }

  /** A call failed at `now` for `reason`: opens at the threshold, or again (longer) after a trial. */
  failure(reason: string, now: number): void {
    this.failures += 1
    this.reason = reason
    const trialFailed = this.openUntil !== null && now >= this.openUntil
    if (trialFailed || (this.openUntil === null && this.failures >= this.opts.threshold)) {
      this.openings += 1
      this.lastOpenMs = backoffDelayMs(this.openings, 0, { baseMs: this.opts.openMs, maxMs: this.opts.maxOpenMs, jitter: 0 })
      this.openUntil = now + this.lastOpenMs
    }
  }

  /** The state at `now`, as health and the settings show it. */
  view(now: number): AssistantCircuit {
    const open = this.openUntil !== null && now < this.openUntil
    return { state: open ? 'open' : 'closed', reason: this.reason, until: open ? new Date(this.openUntil!).toISOString() : null, failures: this.failures }
  }
}
