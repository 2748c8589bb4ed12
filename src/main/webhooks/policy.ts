/**
 * Webhook delivery decisions, pure (docs/design.md §11): which events an instance wants, the body of an
 * event, how an attempt's outcome is classified, and when the next attempt is due. No I/O, no clock,
 * no randomness of their own: the caller passes `now` (epoch ms) and `random` ([0, 1)), so every rule
 * here is tested without waiting.
 */
import type { ConnectionState, MessageChange } from '../channel/types'
import type { Instance, LoggedMessage, WebhookEvent } from '../../shared/schemas/records'
import type { WebhookPayload } from '../../shared/schemas/webhooks'
import { backoffDelayMs } from '../../shared/domain/backoff'
import { STATUS_CODES } from 'node:http'

/** Retry timing; milliseconds. */
export interface RetryPolicy {
  /** Delay before the first retry (about 1 s). */
  baseDelayMs: number
  /** Longest delay between two attempts (1 h). */
  maxDelayMs: number
  /** Automatic retries stop this long after the event was queued (24 h); the delivery then fails. */
  maxAgeMs: number
  /** Jitter as a fraction of the delay: 0.2 spreads a delay d over [0.8 d, 1.2 d). */
  jitter: number
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = {
  baseDelayMs: 1_000,
  maxDelayMs: 60 * 60 * 1_000,
  maxAgeMs: 24 * 60 * 60 * 1_000,
  jitter: 0.2
}

/** Request timeout when requestConfig.timeout_ms is not set; milliseconds. */
export const DEFAULT_TIMEOUT_MS = 10_000

/**
 * Delay before retry number `attempts` (1 = the retry after the first failed attempt): the app's
 * back-off ({@link backoffDelayMs}: base × 2^(n−1), capped at maxDelayMs, spread by ±jitter so many
 * deliveries failing together do not retry in lockstep) with this policy's timing. Milliseconds, never below 0.
 */
export function backoffDelay(attempts: number, random: number, policy: RetryPolicy = DEFAULT_RETRY_POLICY): number {
  return backoffDelayMs(attempts, random, { baseMs: policy.baseDelayMs, maxMs: policy.maxDelayMs, jitter: policy.jitter })
}

/**
 * Milliseconds a `Retry-After` header asks to wait (delta-seconds or an HTTP date), or undefined when
 * it is missing or unparsable. Past dates give 0.
 */
export function parseRetryAfter(value: string | null | undefined, now: number): number | undefined {
  if (!value) return undefined
  const v = value.trim()
  if (/^\d+$/.test(v)) return Number(v) * 1000
  const at = Date.parse(v)
  if (Number.isNaN(at)) return undefined
  return Math.max(0, at - now)
}

/** What one attempt came to. `status` is the HTTP status when a response arrived. */
export type AttemptResult =
  | { kind: 'response'; status: number; retryAfter?: string | null }
  | { kind: 'network'; error: string }
  | { kind: 'timeout'; timeoutMs: number }

/** The verdict on an attempt: done, try again (transient), or give up now (permanent). */
export type Verdict = { outcome: 'delivered' } | { outcome: 'retry'; error: string; retryAfterMs?: number } | { outcome: 'fail'; error: string }

/**
 * Classifies an attempt (docs/design.md §11): 2xx delivered; network errors, timeouts, 5xx, 408 and 429
 * retry (429/503 with Retry-After honour it); any other status fails at once, since the receiver
 * rejected the request itself and sending it again will not change that. Redirects are not followed
 * (a signed body must not land somewhere the owner did not configure), so 3xx fails too.
 */
export function classifyAttempt(result: AttemptResult, now: number): Verdict {
  if (result.kind === 'network') return { outcome: 'retry', error: `network error: ${result.error}` }
  if (result.kind === 'timeout') return { outcome: 'retry', error: `timed out after ${result.timeoutMs} ms` }
  const { status } = result
  if (status >= 200 && status < 300) return { outcome: 'delivered' }
  // Status and its standard reason only: the receiver's answer is never copied (it could be anyone's page).
  const answered = `HTTP ${status}${STATUS_CODES[status] ? ` ${STATUS_CODES[status]}` : ''}`
  if (status >= 500 || status === 408 || status === 429) {
    const retryAfterMs = parseRetryAfter(result.retryAfter, now)
    return { outcome: 'retry', error: answered, ...(retryAfterMs !== undefined ? { retryAfterMs } : {}) }
  }
  if (status >= 300 && status < 400) return { outcome: 'fail', error: `${answered}: redirects are not followed; set the final URL` }
  return { outcome: 'fail', error: answered }
}

/**
 * When a transient failure is tried again: `now` + the backoff delay for this attempt count, or the
 * receiver's Retry-After when it asks for longer (capped at maxDelayMs). Undefined when that time is
 * past the 24 h window from `createdAt`: the delivery then fails. Epoch ms.
 */
export function nextAttemptAt(
  attempts: number,
  createdAt: number,
  now: number,
  random: number,
  retryAfterMs: number | undefined,
  policy: RetryPolicy = DEFAULT_RETRY_POLICY
): number | undefined {
  let delay = backoffDelay(attempts, random, policy)
  if (retryAfterMs !== undefined) delay = Math.max(delay, Math.min(retryAfterMs, policy.maxDelayMs))
  const at = now + delay
  return at - createdAt > policy.maxAgeMs ? undefined : at
}

/**
 * The webhook events a logged message raises (docs/design.md §11): every message is `onAnyMessage`;
 * inbound ones from contacts are also `onMessage`. Messages typed on the linked phone (`phone`) are
 * outbound for this purpose.
 */
export function messageEvents(message: LoggedMessage): WebhookEvent[] {
  // A placeholder for a message not decrypted yet is no message for scripts; the real one follows.
  if (message.type === 'undecryptable') return []
  return message.source === 'inbound' ? ['onMessage', 'onAnyMessage'] : ['onAnyMessage']
}

/** The webhook event of a change to a logged message (docs/design.md §11). */
export function changeEvent(change: Pick<MessageChange, 'kind'>): WebhookEvent {
  return ({ edit: 'onMessageEdit', delete: 'onMessageDelete', reaction: 'onMessageReaction', poll_vote: 'onPollVote' } as const)[change.kind]
}

/** Whether `inst` wants `event` delivered now: send_webhook on, a URL set, and the event subscribed. */
export function shouldDeliver(inst: Instance, event: WebhookEvent): boolean {
  const s = inst.settings
  return s.actions.send_webhook && typeof s.webhook.url === 'string' && s.webhook.url !== '' && s.webhook.events.includes(event)
}

/** The `data` of an onConnection event. */
export interface ConnectionData {
  state: ConnectionState
  previous: ConnectionState
  reason: string | null
}

/**
 * The JSON body of one event: `{event, instance_id, session_id, data, timestamp}`. Message events
 * carry the log entry as is (senderId, senderPn and senderLid name the sender by phone-number JID and
 * LID where known); `timestamp` is when the event happened, ISO 8601 UTC.
 */
export function buildPayload(inst: Instance, event: WebhookEvent, data: LoggedMessage | ConnectionData | Record<string, unknown>, at: number): WebhookPayload {
  return { event, instance_id: inst._id, session_id: inst.session_id, data: { ...data }, timestamp: new Date(at).toISOString() }
}

/**
 * The secret in the standard `whsec_<base64>` form. Older instances got URL-safe base64 secrets,
 * which the Standard Webhooks libraries cannot decode; the same key bytes re-encoded in standard
 * base64 sign identically and verify everywhere.
 */
export function normalizeSecret(secret: string): string {
  const raw = secret.startsWith('whsec_') ? secret.slice(6) : secret
  if (/^[A-Za-z0-9+/]*={0,2}$/.test(raw) && raw.length % 4 === 0) return `whsec_${raw}`
  return `whsec_${Buffer.from(raw, 'base64url').toString('base64')}`
}
