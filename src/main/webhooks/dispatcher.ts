/**
 * The webhook dispatcher (docs/design.md §11): sends the outbox's pending deliveries when they are due,
 * signs each attempt by the Standard Webhooks scheme, and records the outcome with the retry rules of
 * {@link classifyAttempt} / {@link nextAttemptAt}.
 *
 * One timer, set for the earliest due delivery; at most `perEndpoint` requests at a time to one URL
 * (so one slow receiver cannot hold every slot, and a fast one is not served one request at a time)
 * and `concurrency` in all. A slot is held from the request until its outcome is applied to the
 * outbox's working set; the outcome's row is written with the outbox's next gathered outcome write,
 * not in the slot's time. Clock, randomness and fetch come in as dependencies so tests drive the
 * schedule without waiting.
 * `close()` clears the timer and aborts requests in flight without recording them: those deliveries
 * stay pending and are sent again after the next start (at-least-once; receivers deduplicate on
 * `webhook-id`).
 */
import { createHmac, createSecretKey, type KeyObject } from 'node:crypto'
import type { Logger } from '../logger'
import type { WebhookDelivery } from '../../shared/schemas/webhooks'
import type { DeliveryOutcome } from '../store/repos/webhook-delivery-repo'
import type { WebhookOutbox } from './outbox'
import type { WebhookPost } from './webhook-transport'
import { classifyAttempt, nextAttemptAt, normalizeSecret, type AttemptResult, type RetryPolicy } from './policy'

/** Time source and timers; epoch milliseconds. */
export interface Clock {
  now(): number
  setTimeout(fn: () => void, ms: number): unknown
  clearTimeout(handle: unknown): void
}

/** The real clock. Timers are unref'd: a pending retry never keeps the process alive by itself. */
export const systemClock: Clock = {
  now: () => Date.now(),
  setTimeout: (fn, ms) => setTimeout(fn, ms).unref(),
  clearTimeout: (h) => clearTimeout(h as NodeJS.Timeout)
}

/** What an instance's deliveries are sent with, read at each attempt (so a changed secret applies). */
export interface DeliveryTarget {
  /** `whsec_…` signing secret. */
  secret: string
  /** requestConfig.headers. */
  headers: Record<string, string>
  /** Request timeout, ms (covers connecting, the answer and its body). */
  timeoutMs: number
}

export interface DispatcherDeps {
  outbox: WebhookOutbox
  /** The target of an instance's deliveries, or undefined when the instance is gone (nothing is sent). */
  target(instanceId: string): DeliveryTarget | undefined
  /** Sends one attempt (./webhook-transport.ts). */
  post: WebhookPost
  /** A reason never to send to `url` (it fails the delivery at once), or null. */
  refuse?: (url: string) => Promise<string | null>
  clock: Clock
  /** Uniform in [0, 1), for the backoff jitter. */
  random: () => number
  policy: RetryPolicy
  logger: Logger
  /** Requests in flight at most, all endpoints together (default 64). */
  concurrency?: number
  /** Requests in flight at most to one endpoint URL (default 16). */
  perEndpoint?: number
  /** Told each recorded attempt outcome (the UI's live delivery log). */
  onRecorded?: (delivery: WebhookDelivery) => void
}

/** Signing keys by secret: a few instances' secrets, dropped all at once past this many. */
const SIGNING_KEYS_KEPT = 64
const signingKeys = new Map<string, KeyObject>()

/** The HMAC key of a `whsec_…` secret. Throws on an empty one. */
function signingKey(secret: string): KeyObject {
  let key = signingKeys.get(secret)
  if (key) return key
  const bytes = Buffer.from(normalizeSecret(secret).slice('whsec_'.length), 'base64')
  if (bytes.length === 0) throw new Error('the webhook secret is empty')
  // A KeyObject made once: createHmac with raw bytes builds one per call, 70 µs against 15 µs (Node 24).
  key = createSecretKey(bytes)
  if (signingKeys.size >= SIGNING_KEYS_KEPT) signingKeys.clear()
  signingKeys.set(secret, key)
  return key
}

/**
 * The Standard Webhooks signature (standardwebhooks.com, "Verifying webhooks"): `v1,` and the base64
 * HMAC-SHA256, keyed by the secret's base64 bytes, of `<id>.<timestamp in s>.<body>`. Computed with
 * node:crypto: the `standardwebhooks` package signs with a pure-JS SHA-256, a tenth of a delivery's
 * CPU at high rates; the tests verify every signature with that package. Throws on a malformed secret.
 */
export function signWebhook(secret: string, id: string, timestampMs: number, body: string): string {
  return `v1,${createHmac('sha256', signingKey(secret)).update(`${id}.${Math.floor(timestampMs / 1000)}.${body}`).digest('base64')}`
}

/** Sent as User-Agent, so receivers can tell these requests apart. */
export const USER_AGENT = 'ChatappDesk-Webhooks/1'
/** setTimeout's longest delay; later timers are re-armed when they fire. */
const MAX_TIMER_MS = 2 ** 31 - 1

class ClosingError extends Error {}

export class WebhookDispatcher {
  private timer: unknown = null
  private readonly inflight = new Map<string, { instanceId: string; url: string; controller: AbortController; done: Promise<void> }>()
  /** Requests in flight per endpoint URL. */
  private readonly perUrl = new Map<string, number>()
  /** Requests holding a slot (an attempt whose outcome is not yet applied). */
  private requests = 0
  private stopped = true

  constructor(private readonly deps: DispatcherDeps) {}

  /** Starts sending: pending deliveries already due (e.g. left over from the last run) go at once. */
  start(): void {
    this.stopped = false
    this.schedule()
  }

  /** Looks at the outbox again now (after deliveries were added or requeued). */
  kick(): void {
    this.schedule()
  }

  /** Resolves once the delivery has no attempt in flight (at once when it has none); its outcome is recorded by then. */
  async settled(id: string): Promise<void> {
    await this.inflight.get(id)?.done
  }

  /** Aborts the requests in flight for an instance (deleted); their outcome is not recorded. */
  abortInstance(instanceId: string): void {
    for (const f of this.inflight.values()) {
      if (f.instanceId === instanceId) f.controller.abort(new ClosingError('instance deleted'))
    }
  }

  /** Stops: clears the timer, aborts requests in flight and waits until their bookkeeping is done. */
  async close(): Promise<void> {
    this.stopped = true
    if (this.timer !== null) this.deps.clock.clearTimeout(this.timer)
    this.timer = null
    for (const f of this.inflight.values()) f.controller.abort(new ClosingError('shutting down'))
    await Promise.all([...this.inflight.values()].map((f) => f.done))
  }

  /**
   * Starts every due delivery there is room for and arms the timer for the next one. Each endpoint's
   * queue is read only until its slots are full (a finished request calls this again), so the cost
   * does not grow with the backlog of a busy receiver.
   */
  private schedule(): void {
    if (this.stopped) return
    if (this.timer !== null) this.deps.clock.clearTimeout(this.timer)
    this.timer = null
    const now = this.deps.clock.now()
    const limit = this.deps.concurrency ?? 64
    const perEndpoint = this.deps.perEndpoint ?? 16
    let earliest = Infinity
    for (const [url, queue] of this.deps.outbox.pendingByEndpoint()) {
      if (this.requests >= limit) break
      let busy = this.perUrl.get(url) ?? 0
      for (const d of queue.values()) {
        if (busy >= perEndpoint || this.requests >= limit) break
        const due = d.next_attempt_at ? Date.parse(d.next_attempt_at) : now
        // A retry whose outcome is still being written is counted for the timer, not sent again.
        if (due > now) earliest = Math.min(earliest, due)
        else if (this.inflight.has(d.id)) continue
        else if (this.deps.target(d.instance_id)) {
          this.launch(d)
          busy++
        }
      }
    }
    // When full, the next finished request calls schedule() again; a timer is only for future ones.
    if (earliest !== Infinity) {
      this.timer = this.deps.clock.setTimeout(() => {
        this.timer = null
        this.schedule()
      }, Math.min(MAX_TIMER_MS, Math.max(0, earliest - now)))
    }
  }

  private launch(d: WebhookDelivery): void {
    const controller = new AbortController()
    const url = d.url
    this.perUrl.set(url, (this.perUrl.get(url) ?? 0) + 1)
    this.requests++
    let slotHeld = true
    // The slot is free once the answer is in and its outcome applied to the working set (no longer
    // pending, so schedule() cannot pick it again); the outcome's row is written with the next group
    // commit without holding the slot. Waiting for that write before the next request left the
    // deliveries behind the sends (docs/benchmarks.md "API send throughput, webhooks off and on": with 16 sending clients and a receiver answering at
    // once, 14,942 of 16,061 delivered during the load; then all but the last). If the write fails the
    // outbox takes the change back: the delivery is pending again and sent once more (at-least-once).
    const freeSlot = () => {
      if (!slotHeld) return
      slotHeld = false
      this.requests--
      const left = (this.perUrl.get(url) ?? 1) - 1
      if (left > 0) this.perUrl.set(url, left)
      else this.perUrl.delete(url)
      this.schedule()
    }
    const done = this.attempt(d, controller, freeSlot)
      .catch((err) => this.deps.logger.error({ err, deliveryId: d.id }, 'webhook attempt bookkeeping failed'))
      .finally(() => {
        this.inflight.delete(d.id)
        // Still pending after the write (a retry that may have fallen due meanwhile, or a failed write
        // taken back): look again, since schedule() skipped it while it was in flight.
        if (slotHeld) freeSlot()
        else if (this.deps.outbox.pending(d.id)) this.schedule()
      })
    this.inflight.set(d.id, { instanceId: d.instance_id, url, controller, done })
  }

  /** Records an outcome: in the working set at once (then `applied` runs), in the table when the promise resolves. */
  private async record(id: string, outcome: DeliveryOutcome, applied: () => void): Promise<void> {
    const written = this.deps.outbox.record(id, outcome)
    applied()
    const recorded = await written
    if (recorded) this.deps.onRecorded?.(recorded)
  }

  /** One attempt: send, classify, record; `applied` runs once the outcome is in memory (the slot is free). */
  private async attempt(d: WebhookDelivery, controller: AbortController, applied: () => void): Promise<void> {
    const { clock, policy } = this.deps
    const target = this.deps.target(d.instance_id)
    if (!target) return
    const result = await this.send(d, target, controller)
    if (result === 'aborted') return
    const now = clock.now()
    const attempts = d.attempts + 1
    const lastStatus = result.kind === 'response' ? result.status : null
    if (result.kind === 'invalid') {
      await this.record(d.id, { status: 'failed', attempts, last_error: result.error, last_status: null, next_attempt_at: null }, applied)
      this.deps.logger.warn({ deliveryId: d.id, instanceId: d.instance_id, error: result.error }, 'webhook delivery failed; kept for a manual retry')
      return
    }
    const verdict = classifyAttempt(result, now)
    let patch: DeliveryOutcome
    if (verdict.outcome === 'delivered') {
      patch = { status: 'delivered', attempts, last_error: null, last_status: lastStatus, next_attempt_at: null, delivered_at: new Date(now).toISOString() }
    } else if (verdict.outcome === 'fail') {
      patch = { status: 'failed', attempts, last_error: verdict.error, last_status: lastStatus, next_attempt_at: null }
    } else {
      const at = nextAttemptAt(attempts, Date.parse(d.created_at), now, this.deps.random(), verdict.retryAfterMs, policy)
      patch =
        at === undefined
          ? { status: 'failed', attempts, last_error: `${verdict.error} (gave up: retry window of ${Math.round(policy.maxAgeMs / 3_600_000)} h is over)`, last_status: lastStatus, next_attempt_at: null }
          : { status: 'pending', attempts, last_error: verdict.error, last_status: lastStatus, next_attempt_at: new Date(at).toISOString() }
    }
    await this.record(d.id, patch, applied)
    // A retry is routine (debug); giving up needs the owner's attention (warn).
    const log = { deliveryId: d.id, instanceId: d.instance_id, attempts, error: patch.last_error }
    if (patch.status === 'failed') this.deps.logger.warn(log, 'webhook delivery failed; kept for a manual retry')
    else if (patch.status === 'pending') this.deps.logger.debug({ ...log, next: patch.next_attempt_at }, 'webhook delivery will be retried')
  }

  /** Sends the request; answers what happened, 'aborted' when close()/delete cut it short. */
  private async send(
    d: WebhookDelivery,
    target: DeliveryTarget,
    controller: AbortController
  ): Promise<AttemptResult | { kind: 'invalid'; error: string } | 'aborted'> {
    const refused = await this.deps.refuse?.(d.url)
    if (refused) return { kind: 'invalid', error: refused }
    const body = JSON.stringify(d.payload)
    const now = this.deps.clock.now()
    let headers: Record<string, string>
    try {
      // requestConfig headers first, so they can never replace the signature or the content type;
      // Headers checks their names and values (a bad one fails the delivery at once).
      const custom = Object.keys(target.headers).length > 0 ? Object.fromEntries(new Headers(target.headers)) : {}
      headers = {
        ...custom,
        'content-type': 'application/json',
        'user-agent': USER_AGENT,
        'webhook-id': d.id,
        'webhook-timestamp': String(Math.floor(now / 1000)),
        'webhook-signature': signWebhook(target.secret, d.id, now, body)
      }
    } catch (err) {
      // A bad header or secret will not get better by retrying.
      return { kind: 'invalid', error: `cannot build the request: ${(err as Error).message}` }
    }
    let timedOut = false
    const timer = this.deps.clock.setTimeout(() => {
      timedOut = true
      controller.abort(new Error('timeout'))
    }, target.timeoutMs)
    try {
      // The answer's body is never read: only its status counts, and nothing of it is kept.
      const res = await this.deps.post(d.url, { headers, body, signal: controller.signal })
      return { kind: 'response', status: res.status, retryAfter: res.retryAfter }
    } catch (err) {
      if (timedOut) return { kind: 'timeout', timeoutMs: target.timeoutMs }
      if (controller.signal.aborted) return 'aborted'
      // undici names the error by `code`; fetch wraps it as the `cause` of a TypeError.
      const e = err as { code?: string; message?: string; cause?: { code?: string; message?: string } }
      return { kind: 'network', error: e.code ?? e.cause?.code ?? e.cause?.message ?? e.message ?? String(err) }
    } finally {
      this.deps.clock.clearTimeout(timer)
    }
  }
}
