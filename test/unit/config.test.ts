/** Headless configuration (docs/design.md §2) and the tunables of the README's table. */
import { existsSync } from 'node:fs'
import { mkdtemp, rm } from 'node:fs/promises'
import { hostname, tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { startApp } from '../../src/main/app'
import { ConfigError, readServeConfig, readTuning } from '../../src/main/config'
import { internalsOf } from '../../src/main/core'
import { createTestDatabase, dropTestDatabase } from '../helpers/postgres'

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

  it('reads CHATAPP_DATABASE_URL (unset: the data dir\'s SQLite file)', () => {
    expect(readServeConfig({ HOME: '/home/ann' }).databaseUrl).toBeUndefined()
    expect(readServeConfig({ CHATAPP_DATABASE_URL: ' postgres://chatapp:pw@db:5432/chatapp ' }).databaseUrl).toBe('postgres://chatapp:pw@db:5432/chatapp')
  })

  it('reads CHATAPP_MEDIA_DIR: an absolute folder (unset: the data dir holds attachments and media)', () => {
    expect(readServeConfig({ HOME: '/home/ann' }).mediaDir).toBeUndefined()
    expect(readServeConfig({ CHATAPP_MEDIA_DIR: ' /srv/chatapp-media ' }).mediaDir).toBe('/srv/chatapp-media')
  })

  it('reads the worker variables: defaults from the host and port, each validated', () => {
    expect(readServeConfig({ CHATAPP_HOST: '10.0.0.5', CHATAPP_PORT: '3300' }).worker).toEqual({
      id: `${hostname()}:3300`,
      url: 'http://10.0.0.5:3300',
      maxInstances: null,
      leaseTtlMs: 15_000
    })
    // Port 0 (any free port): the port is not known yet, so the process id, and no URL unless given.
    expect(readServeConfig({ CHATAPP_PORT: '0' }).worker).toMatchObject({ id: `${hostname()}:${process.pid}`, url: '' })
    expect(readServeConfig({ CHATAPP_HOST: '::1', CHATAPP_PORT: '3300' }).worker.url).toBe('http://[::1]:3300')
    const set = readServeConfig({
      CHATAPP_WORKER_ID: ' w-1 ',
      CHATAPP_WORKER_URL: 'https://w1.internal:8443',
      CHATAPP_WORKER_MAX_INSTANCES: '40',
      CHATAPP_LEASE_TTL_MS: '9000'
    }).worker
    expect(set).toEqual({ id: 'w-1', url: 'https://w1.internal:8443', maxInstances: 40, leaseTtlMs: 9000 })
    expect(() => readServeConfig({ CHATAPP_WORKER_ID: 'two words' })).toThrow(/CHATAPP_WORKER_ID must be/)
    expect(() => readServeConfig({ CHATAPP_WORKER_URL: 'w1:8443' })).toThrow(/CHATAPP_WORKER_URL must be an http/)
    expect(() => readServeConfig({ CHATAPP_WORKER_MAX_INSTANCES: '0' })).toThrow(/CHATAPP_WORKER_MAX_INSTANCES must be a whole number of at least 1/)
    expect(() => readServeConfig({ CHATAPP_WORKER_MAX_INSTANCES: '2.5' })).toThrow(ConfigError)
    expect(() => readServeConfig({ CHATAPP_LEASE_TTL_MS: '500' })).toThrow(/CHATAPP_LEASE_TTL_MS must be a number from 1000 to 120000/)
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
    ['CHATAPP_SURVEY_IDLE_MIN', '0', /CHATAPP_SURVEY_IDLE_MIN must be a number/],
    ['CHATAPP_DATABASE_URL', 'mysql://db/chatapp', /CHATAPP_DATABASE_URL must be a postgres:\/\/ \(or postgresql:\/\/\) URL/],
    ['CHATAPP_MEDIA_DIR', 'shared/media', /CHATAPP_MEDIA_DIR must be an absolute path \(a folder every worker mounts\), got "shared\/media"/]
  ])('refuses %s=%s naming the variable', (name, value, message) => {
    expect(() => readServeConfig({ [name]: value })).toThrow(ConfigError)
    expect(() => readServeConfig({ [name]: value })).toThrow(message)
  })
})

describe('startApp', () => {
  it('CHATAPP_DATABASE_URL keeps what grows on PostgreSQL: no chatapp.db in the data dir, a restart reads the same data back', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'chatapp-app-'))
    const url = await createTestDatabase()
    const config = readServeConfig({ CHATAPP_DATA_DIR: dir, CHATAPP_PORT: '0', CHATAPP_CHANNEL: 'sandbox', CHATAPP_LOG_LEVEL: 'silent', CHATAPP_DATABASE_URL: url })
    let app = await startApp(config)
    try {
      expect(internalsOf(app.core).storage.database.dialect).toBe('postgres')
      await internalsOf(app.core).storage.repos.quickReplies.put({ _id: 'q1', shortcut: 'hi', text: 'Hello!', createdAt: '2026-11-27T00:00:00.000Z', updatedAt: '2026-11-27T00:00:00.000Z' })
      await app.close()
      app = await startApp(config)
      expect((await internalsOf(app.core).storage.repos.quickReplies.all()).map((q) => q.text)).toEqual(['Hello!'])
      expect(existsSync(join(dir, 'chatapp.db'))).toBe(false)
    } finally {
      await app.close()
      await rm(dir, { recursive: true, force: true })
      await dropTestDatabase(url)
    }
  })

  it('CHATAPP_MEDIA_DIR puts attachments and media in that folder, not the data dir', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'chatapp-app-'))
    const media = await mkdtemp(join(tmpdir(), 'chatapp-media-'))
    const app = await startApp(readServeConfig({ CHATAPP_DATA_DIR: dir, CHATAPP_MEDIA_DIR: media, CHATAPP_PORT: '0', CHATAPP_CHANNEL: 'sandbox', CHATAPP_LOG_LEVEL: 'silent' }))
    try {
      expect(internalsOf(app.core).storage.paths).toMatchObject({ root: dir, attachments: join(media, 'attachments'), media: join(media, 'media'), tmp: join(dir, 'tmp') })
      expect(existsSync(join(media, 'attachments'))).toBe(true)
      expect(existsSync(join(dir, 'attachments'))).toBe(false)
    } finally {
      await app.close()
      await rm(dir, { recursive: true, force: true })
      await rm(media, { recursive: true, force: true })
    }
  })

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
