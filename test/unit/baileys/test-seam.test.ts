import { WA_CERT_DETAILS } from 'baileys'
import { afterEach, describe, expect, it } from 'vitest'
import { applyTestRootKey } from '../../../src/main/channel/baileys'
import { ConfigError, readServeConfig } from '../../../src/main/config'

const original = Buffer.from(WA_CERT_DETAILS.PUBLIC_KEY)
afterEach(() => {
  WA_CERT_DETAILS.PUBLIC_KEY = Buffer.from(original)
})

describe('offline test seam (docs/design.md §5, tests only)', () => {
  it('is off by default', () => {
    const c = readServeConfig({})
    expect(c.waWebSocketUrl).toBeUndefined()
    expect(c.waRootKey).toBeUndefined()
  })

  it('reads CHATAPP_WA_WS_URL and CHATAPP_WA_ROOT_KEY', () => {
    const key = Buffer.alloc(32, 7)
    const c = readServeConfig({ CHATAPP_WA_WS_URL: 'ws://127.0.0.1:9999/ws/chat', CHATAPP_WA_ROOT_KEY: key.toString('base64') })
    expect(c.waWebSocketUrl).toBe('ws://127.0.0.1:9999/ws/chat')
    expect(c.waRootKey).toEqual(key)
    // 33 bytes with the 0x05 type byte is the same key.
    expect(readServeConfig({ CHATAPP_WA_ROOT_KEY: Buffer.concat([Buffer.from([5]), key]).toString('base64') }).waRootKey).toHaveLength(33)
  })

  it('refuses malformed values, naming the variable', () => {
    expect(() => readServeConfig({ CHATAPP_WA_WS_URL: 'http://x' })).toThrow(ConfigError)
    expect(() => readServeConfig({ CHATAPP_WA_ROOT_KEY: Buffer.alloc(16).toString('base64') })).toThrow(/CHATAPP_WA_ROOT_KEY/)
    expect(() => readServeConfig({ CHATAPP_WA_ROOT_KEY: 'not base64 !' })).toThrow(/CHATAPP_WA_ROOT_KEY/)
  })

  it('applyTestRootKey replaces the root the Noise certificate chain is checked against', () => {
    const key = Buffer.alloc(32, 3)
    applyTestRootKey(Buffer.concat([Buffer.from([5]), key]))
    expect(WA_CERT_DETAILS.PUBLIC_KEY).toEqual(key)
  })
})
