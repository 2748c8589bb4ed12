/**
 * The pure webhook rules (docs/design.md §11): backoff schedule, Retry-After, attempt classification,
 * the 24 h window, which events a message raises, the should-deliver decision, payload and secret.
 */
import { describe, expect, it } from 'vitest'
import { Webhook } from 'standardwebhooks'
import {
  DEFAULT_RETRY_POLICY,
  backoffDelay,
  buildPayload,
  classifyAttempt,
  messageEvents,
  nextAttemptAt,
  normalizeSecret,
  parseRetryAfter,
  shouldDeliver
} from '../../../src/main/webhooks/policy'
import { defaultSettings } from '../../../src/main/services/instances/instance-registry'
import type { Instance, LoggedMessage } from '../../../src/shared/schemas/records'

const HOUR = 3_600_000
const NOW = Date.parse('2026-01-01T00:00:00Z')

describe('backoff', () => {
  it('doubles from about 1 s up to 1 h, without jitter at random 0.5', () => {
    const delays = [1, 2, 3, 4, 5, 12, 13, 30].map((n) => backoffDelay(n, 0.5))
    expect(delays).toEqual([1000, 2000, 4000, 8000, 16000, 2048000, HOUR, HOUR])
  })

  it('jitters within ±20 %', () => {
    expect(backoffDelay(3, 0)).toBe(3200)
    expect(backoffDelay(3, 0.999999)).toBe(4800)
    expect(backoffDelay(30, 0)).toBe(0.8 * HOUR)
  })

  it('takes its timing from the policy', () => {
    expect(backoffDelay(4, 0.5, { baseDelayMs: 10, maxDelayMs: 50, maxAgeMs: 1000, jitter: 0 })).toBe(50)
  })
})

describe('Retry-After', () => {
  it('reads delta-seconds and HTTP dates; ignores garbage', () => {
    expect(parseRetryAfter('120', NOW)).toBe(120_000)
    expect(parseRetryAfter(new Date(NOW + 30_000).toUTCString(), NOW)).toBe(30_000)
    expect(parseRetryAfter(new Date(NOW - 30_000).toUTCString(), NOW)).toBe(0)
    expect(parseRetryAfter('soon', NOW)).toBeUndefined()
    expect(parseRetryAfter(null, NOW)).toBeUndefined()
  })
})

describe('classifyAttempt', () => {
  it('delivers on 2xx only', () => {
    expect(classifyAttempt({ kind: 'response', status: 200 }, NOW)).toEqual({ outcome: 'delivered' })
    expect(classifyAttempt({ kind: 'response', status: 204 }, NOW)).toEqual({ outcome: 'delivered' })
  })

  it('retries network errors, timeouts, 5xx, 408 and 429 (with its Retry-After)', () => {
    expect(classifyAttempt({ kind: 'network', error: 'ECONNREFUSED' }, NOW)).toMatchObject({ outcome: 'retry', error: 'network error: ECONNREFUSED' })
    expect(classifyAttempt({ kind: 'timeout', timeoutMs: 100 }, NOW)).toMatchObject({ outcome: 'retry', error: 'timed out after 100 ms' })
    expect(classifyAttempt({ kind: 'response', status: 503 }, NOW)).toEqual({ outcome: 'retry', error: 'HTTP 503 Service Unavailable' })
    expect(classifyAttempt({ kind: 'response', status: 408 }, NOW).outcome).toBe('retry')
    expect(classifyAttempt({ kind: 'response', status: 429, retryAfter: '7' }, NOW)).toEqual({ outcome: 'retry', error: 'HTTP 429 Too Many Requests', retryAfterMs: 7000 })
  })

  it('fails other 4xx and redirects at once', () => {
    for (const status of [400, 401, 403, 404, 410, 422]) expect(classifyAttempt({ kind: 'response', status }, NOW).outcome).toBe('fail')
    expect(classifyAttempt({ kind: 'response', status: 301 }, NOW)).toMatchObject({ outcome: 'fail', error: expect.stringMatching(/redirects are not followed/) })
  })
})

describe('nextAttemptAt', () => {
  it('schedules by the backoff, or later when Retry-After asks (capped at 1 h)', () => {
    expect(nextAttemptAt(1, NOW, NOW, 0.5, undefined)).toBe(NOW + 1000)
    expect(nextAttemptAt(1, NOW, NOW, 0.5, 60_000)).toBe(NOW + 60_000)
    expect(nextAttemptAt(1, NOW, NOW, 0.5, 10)).toBe(NOW + 1000)
    expect(nextAttemptAt(1, NOW, NOW, 0.5, 10 * HOUR)).toBe(NOW + HOUR)
  })

  it('gives up when the next attempt would fall past 24 h from creation', () => {
    expect(nextAttemptAt(20, NOW, NOW + 23 * HOUR, 0.5, undefined)).toBe(NOW + 24 * HOUR)
    expect(nextAttemptAt(20, NOW, NOW + 23 * HOUR + 1, 0.5, undefined)).toBeUndefined()
    expect(DEFAULT_RETRY_POLICY.maxAgeMs).toBe(24 * HOUR)
  })

  it('makes about 30 attempts over the 24 h window', () => {
    let t = NOW
    let attempts = 1
    for (;;) {
      const at = nextAttemptAt(attempts, NOW, t, 0.5, undefined)
      if (at === undefined) break
      t = at
      attempts++
    }
    expect(attempts).toBeGreaterThan(25)
    expect(attempts).toBeLessThan(40)
  })
})

function instance(patch: (i: Instance) => void = () => {}): Instance {
  const inst: Instance = {
    _id: 'inst1',
    user_id: 'acc',
    session_id: 'sess1',
    settings: defaultSettings('sandbox'),
    createdAt: '',
    updatedAt: '',
    __v: 0
  }
  inst.settings.actions.send_webhook = true
  inst.settings.webhook.url = 'http://127.0.0.1:9/hook'
  patch(inst)
  return inst
}

const msg = (source: LoggedMessage['source']): LoggedMessage => ({
  id: 'M1',
  chatId: '15550001111@s.whatsapp.net',
  fromMe: source !== 'inbound',
  pushName: 'Ann',
  type: 'text',
  text: 'hi',
  timestamp: NOW,
  status: 'RECEIVED',
  source,
  senderId: '15550001111@s.whatsapp.net',
  senderPn: '15550001111@s.whatsapp.net',
  senderLid: '123456789@lid'
})

describe('events', () => {
  it('inbound messages are onMessage and onAnyMessage; outbound ones onAnyMessage only', () => {
    expect(messageEvents(msg('inbound'))).toEqual(['onMessage', 'onAnyMessage'])
    for (const s of ['api', 'bot', 'phone'] as const) expect(messageEvents(msg(s))).toEqual(['onAnyMessage'])
  })

  it('delivers only with send_webhook on, a URL, and the event subscribed', () => {
    expect(shouldDeliver(instance(), 'onMessage')).toBe(true)
    expect(shouldDeliver(instance(), 'onConnection')).toBe(false)
    expect(shouldDeliver(instance((i) => i.settings.webhook.events.push('onConnection')), 'onConnection')).toBe(true)
    expect(shouldDeliver(instance((i) => (i.settings.actions.send_webhook = false)), 'onMessage')).toBe(false)
    expect(shouldDeliver(instance((i) => (i.settings.webhook.url = null)), 'onMessage')).toBe(false)
    expect(shouldDeliver(instance((i) => (i.settings.webhook.events = ['onAnyMessage'])), 'onMessage')).toBe(false)
  })

  it('builds the body with the message and its sender JIDs', () => {
    const p = buildPayload(instance(), 'onMessage', msg('inbound'), NOW)
    expect(p).toEqual({ event: 'onMessage', instance_id: 'inst1', session_id: 'sess1', data: msg('inbound'), timestamp: '2026-01-01T00:00:00.000Z' })
    expect(p.data).toMatchObject({ senderPn: '15550001111@s.whatsapp.net', senderLid: '123456789@lid' })
  })
})

describe('normalizeSecret', () => {
  it('keeps standard secrets and re-encodes URL-safe ones to the same key', () => {
    const bytes = Buffer.from(Array.from({ length: 32 }, (_, i) => 250 - i))
    const std = `whsec_${bytes.toString('base64')}`
    const url = `whsec_${bytes.toString('base64url')}`
    expect(url).toMatch(/[-_]/)
    expect(normalizeSecret(std)).toBe(std)
    expect(normalizeSecret(url)).toBe(std)
    expect(() => new Webhook(url)).toThrow()
    const date = new Date(NOW)
    expect(new Webhook(normalizeSecret(url)).sign('msg_1', date, 'x')).toBe(new Webhook(std).sign('msg_1', date, 'x'))
  })

  it('new instances get secrets the Standard Webhooks library accepts', () => {
    for (let i = 0; i < 50; i++) {
      const s = defaultSettings('sandbox').webhook.secret
      expect(normalizeSecret(s)).toBe(s)
      expect(() => new Webhook(s)).not.toThrow()
    }
  })
})
