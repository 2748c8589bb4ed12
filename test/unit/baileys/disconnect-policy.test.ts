import { DisconnectReason } from 'baileys'
import { describe, expect, it } from 'vitest'
import {
  BAD_SESSION_LIMIT,
  backoffDelayMs,
  CloseCode,
  decideDisconnect,
  describeClose,
  formatDelay,
  MAX_QUICK_RESTARTS,
  type CloseInfo
} from '../../../src/main/channel/baileys/disconnect-policy'

const base: CloseInfo = { statusCode: undefined, message: '', paired: true, qrShown: false, restartsInRow: 0, badSessionsInRow: 0 }
const decide = (p: Partial<CloseInfo>) => decideDisconnect({ ...base, ...p }).kind

describe('close codes', () => {
  it('match the library DisconnectReason numbers', () => {
    expect(CloseCode.restartRequired).toBe(DisconnectReason.restartRequired)
    expect(CloseCode.loggedOut).toBe(DisconnectReason.loggedOut)
    expect(CloseCode.forbidden).toBe(DisconnectReason.forbidden)
    expect(CloseCode.connectionReplaced).toBe(DisconnectReason.connectionReplaced)
    expect(CloseCode.timedOut).toBe(DisconnectReason.timedOut)
    expect(CloseCode.badSession).toBe(DisconnectReason.badSession)
    expect(CloseCode.multideviceMismatch).toBe(DisconnectReason.multideviceMismatch)
    expect(CloseCode.connectionClosed).toBe(DisconnectReason.connectionClosed)
    expect(CloseCode.unavailableService).toBe(DisconnectReason.unavailableService)
  })
})

describe('decideDisconnect', () => {
  it('515 reconnects at once, but not forever', () => {
    expect(decide({ statusCode: 515 })).toBe('reconnect-now')
    expect(decide({ statusCode: 515, restartsInRow: MAX_QUICK_RESTARTS - 1 })).toBe('reconnect-now')
    expect(decide({ statusCode: 515, restartsInRow: MAX_QUICK_RESTARTS })).toBe('backoff')
  })

  it('401, 403 and 419 are logged out, paired or not', () => {
    for (const statusCode of [401, 403, 419]) {
      expect(decide({ statusCode })).toBe('logged-out')
      expect(decide({ statusCode, paired: false })).toBe('logged-out')
    }
  })

  it('440 is replaced and 411 fatal: no automatic reconnect', () => {
    expect(decide({ statusCode: 440 })).toBe('replaced')
    expect(decide({ statusCode: 411 })).toBe('fatal')
  })

  it('408 after a QR on an unpaired socket is an expired QR', () => {
    expect(decide({ statusCode: 408, paired: false, qrShown: true })).toBe('qr-expired')
    expect(decide({ statusCode: 408, paired: false, message: 'QR refs attempts ended' })).toBe('qr-expired')
  })

  it('408 without a QR is a network timeout (ENOTFOUND and friends): backoff', () => {
    expect(decide({ statusCode: 408, paired: false, message: 'WebSocket Error (getaddrinfo ENOTFOUND web.whatsapp.com)' })).toBe('backoff')
    expect(decide({ statusCode: 408, paired: true, qrShown: false })).toBe('backoff')
  })

  it('428, 503, unknown and missing codes back off', () => {
    for (const statusCode of [428, 503, 502, 599, undefined]) expect(decide({ statusCode })).toBe('backoff')
  })

  it('500 backs off until it repeats on a paired device, then counts as logged out', () => {
    expect(decide({ statusCode: 500, badSessionsInRow: 1 })).toBe('backoff')
    expect(decide({ statusCode: 500, badSessionsInRow: BAD_SESSION_LIMIT - 1 })).toBe('backoff')
    expect(decide({ statusCode: 500, badSessionsInRow: BAD_SESSION_LIMIT })).toBe('logged-out')
    expect(decide({ statusCode: 500, badSessionsInRow: BAD_SESSION_LIMIT + 3, paired: false })).toBe('backoff')
  })

  it('405 backs off and asks for a fresh WA Web version', () => {
    expect(decideDisconnect({ ...base, statusCode: 405 })).toEqual({ kind: 'backoff', refreshVersion: true })
    expect(decideDisconnect({ ...base, statusCode: 428 })).toEqual({ kind: 'backoff', refreshVersion: false })
  })
})

describe('backoffDelayMs', () => {
  const mid = () => 0.5

  it('doubles from 1 s and caps at 60 s (no jitter at the midpoint)', () => {
    const schedule = Array.from({ length: 10 }, (_, i) => backoffDelayMs(i + 1, mid))
    expect(schedule).toEqual([1000, 2000, 4000, 8000, 16000, 32000, 60000, 60000, 60000, 60000])
  })

  it('spreads each delay over ±20 %', () => {
    expect(backoffDelayMs(3, () => 0)).toBe(3200)
    expect(backoffDelayMs(3, () => 0.999999)).toBe(4800)
    expect(backoffDelayMs(50, () => 0)).toBe(48000)
    expect(backoffDelayMs(50, () => 0.999999)).toBe(72000)
  })

  it('never returns a tiny delay for huge attempt numbers or attempt 0', () => {
    expect(backoffDelayMs(10_000, mid)).toBe(60000)
    expect(backoffDelayMs(0, mid)).toBe(1000)
  })

  it('takes custom bounds', () => {
    expect(backoffDelayMs(4, mid, { baseMs: 100, maxMs: 500, jitter: 0 })).toBe(500)
  })
})

describe('describeClose / formatDelay', () => {
  it('unwraps the WebSocket error and keeps the code', () => {
    expect(describeClose(408, 'WebSocket Error (getaddrinfo ENOTFOUND web.whatsapp.com)')).toBe('getaddrinfo ENOTFOUND web.whatsapp.com (408)')
    expect(describeClose(undefined, '')).toBe('connection closed')
    expect(describeClose(401, 'Connection Failure')).toBe('Connection Failure (401)')
  })

  it('formats delays in seconds', () => {
    expect(formatDelay(4000)).toBe('4 s')
    expect(formatDelay(1187)).toBe('1.2 s')
    expect(formatDelay(38399)).toBe('38 s')
    expect(formatDelay(800)).toBe('800 ms')
  })
})
