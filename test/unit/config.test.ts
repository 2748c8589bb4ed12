/** Headless configuration (docs/design.md §2) and the tunables of the README's table. */
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { startApp } from '../../src/main/app'
import { ConfigError, readServeConfig, readTuning } from '../../src/main/config'

describe('readServeConfig', () => {
  it('has the documented defaults', () => {
    const c = readServeConfig({ HOME: '/home/ann' })
    expect(c).toMatchObject({ host: '127.0.0.1', port: 3210, channel: 'baileys', logLevel: 'info' })
    expect(c.tuning).toEqual({
      fileBytes: 64 * 1024 * 1024,
      jsonBytes: 1024 * 1024,
      surveyIdleMs: 30 * 60_000,
      defaultMessageWindowMs: 24 * 3_600_000,
      sendPacing: { minIntervalMs: 1000, jitterMs: 500 }
    })
  })

  it('reads every tunable', () => {
    expect(
      readTuning({
        CHATAPP_MAX_FILE_MB: '16',
        CHATAPP_MAX_JSON_KB: '256',
        CHATAPP_SURVEY_IDLE_MIN: '10',
        CHATAPP_DEFAULT_MSG_WINDOW_H: '12',
        CHATAPP_SEND_INTERVAL_MS: '0',
        CHATAPP_SEND_JITTER_MS: '250'
      })
    ).toEqual({
      fileBytes: 16 * 1024 * 1024,
      jsonBytes: 256 * 1024,
      surveyIdleMs: 10 * 60_000,
      defaultMessageWindowMs: 12 * 3_600_000,
      sendPacing: { minIntervalMs: 0, jitterMs: 250 }
    })
  })

  it.each([
    ['CHATAPP_PORT', '70000', /CHATAPP_PORT must be a port number/],
    ['CHATAPP_CHANNEL', 'telegram', /CHATAPP_CHANNEL must be baileys or sandbox/],
    ['CHATAPP_API_TOKEN', 'short', /at least 16 characters/],
    ['CHATAPP_MAX_FILE_MB', 'lots', /CHATAPP_MAX_FILE_MB must be a number from 1 to 2048, got "lots"/],
    ['CHATAPP_SURVEY_IDLE_MIN', '0', /CHATAPP_SURVEY_IDLE_MIN must be a number/]
  ])('refuses %s=%s naming the variable', (name, value, message) => {
    expect(() => readServeConfig({ [name]: value })).toThrow(ConfigError)
    expect(() => readServeConfig({ [name]: value })).toThrow(message)
  })
})

describe('startApp', () => {
  it('applies the tunables: a JSON body over CHATAPP_MAX_JSON_KB is a 413', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'chatapp-app-'))
    const config = readServeConfig({ CHATAPP_DATA_DIR: dir, CHATAPP_PORT: '0', CHATAPP_CHANNEL: 'sandbox', CHATAPP_MAX_JSON_KB: '16', CHATAPP_LOG_LEVEL: 'silent' })
    const app = await startApp(config)
    try {
      const auth = { authorization: `Bearer ${app.core.account.token()}`, 'content-type': 'application/json' }
      const small = await fetch(`${app.url}/chatapp/createNewChatapp`, { method: 'POST', headers: auth, body: '{}' })
      expect(small.status).toBe(200)
      const big = await fetch(`${app.url}/chatapp/createNewChatapp`, { method: 'POST', headers: auth, body: JSON.stringify({ pad: 'x'.repeat(20 * 1024) }) })
      expect(big.status).toBe(413)
      expect(app.core.limits.jsonBytes).toBe(16 * 1024)
    } finally {
      await app.close()
      await rm(dir, { recursive: true, force: true })
    }
  })
})
