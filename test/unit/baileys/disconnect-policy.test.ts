import { DisconnectReason } from 'baileys'
import { describe, expect, it } from 'vitest'
import {
  CloseCode,
  decideDisconnect,
  describeClose,
  formatDelay,
  MAX_QUICK_RESTARTS,
  type CloseInfo
} from '../../../src/main/channel/baileys/disconnect-policy'

const base: CloseInfo = { statusCode: undefined, message: '', paired: true, qrShown: false, restartsInRow: 0, replacedRecently: false }
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

  it('440 is retried once after a pause; a second 440 within the window stops; 411 is fatal', () => {
    expect(decide({ statusCode: 440 })).toBe('replaced-retry')
    expect(decide({ statusCode: 440, replacedRecently: true })).toBe('replaced')
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

  it('500 (any unknown stream error) backs off on the server-error schedule, never logged out (docs/design.md §13)', () => {
    expect(decideDisconnect({ ...base, statusCode: 500 })).toEqual({ kind: 'backoff', refreshVersion: false, schedule: 'server-error' })
    expect(decideDisconnect({ ...base, statusCode: 500, paired: false })).toEqual({ kind: 'backoff', refreshVersion: false, schedule: 'server-error' })
  })

  it('only 401, 403 and 419 delete credentials', () => {
    const deleting = [400, 401, 403, 404, 405, 408, 411, 419, 428, 429, 440, 500, 501, 503, 515, 599, undefined].filter((statusCode) => decide({ statusCode }) === 'logged-out')
    expect(deleting).toEqual([401, 403, 419])
  })

  it('405 backs off and asks for a fresh WA Web version', () => {
    expect(decideDisconnect({ ...base, statusCode: 405 })).toEqual({ kind: 'backoff', refreshVersion: true, schedule: 'normal' })
    expect(decideDisconnect({ ...base, statusCode: 428 })).toEqual({ kind: 'backoff', refreshVersion: false, schedule: 'normal' })
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
    expect(formatDelay(10 * 60_000)).toBe('10 min')
    expect(formatDelay(90_000)).toBe('1.5 min')
  })
})
