/** The circuit breaker of each instance's endpoint (./circuit-breaker.ts), kept in memory per process. */
import type { AssistantCircuit } from '../../shared/schemas/assistant'
import { CircuitBreaker, DEFAULT_CIRCUIT, type CircuitOptions } from './circuit-breaker'

export class Circuits {
  private readonly byInstance = new Map<string, CircuitBreaker>()

  constructor(private readonly opts: CircuitOptions = DEFAULT_CIRCUIT) {}

  /** The instance's breaker (made closed on first use). */
  of(instanceId: string): CircuitBreaker {
    let c = this.byInstance.get(instanceId)
    if (!c) this.byInstance.set(instanceId, (c = new CircuitBreaker(this.opts)))
    return c
  }

  /** Closes an instance's breaker (its settings changed: a new endpoint deserves a fresh start). */
  reset(instanceId: string): void {
    this.byInstance.delete(instanceId)
  }

  /** The instance's state at `now` (epoch ms). */
  view(instanceId: string, now: number): AssistantCircuit {
    return this.byInstance.get(instanceId)?.view(now) ?? { state: 'closed', reason: null, until: null, failures: 0 }
  }
}
