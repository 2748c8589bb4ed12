/**
 * Credentials (docs/design.md §3) and the error envelope (§4) across routes: bearer token, instance
 * credentials from query or body, instance isolation, malformed input, unknown routes, Host check.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { Writable } from 'node:stream'
import pino from 'pino'
import { createHandlers, dispatch } from '../../src/main/ui-contract/handlers'
import { makeHarness, type Harness } from '../helpers/harness'

let h: Harness
beforeEach(async () => {
  h = await makeHarness()
})
afterEach(async () => {
  await h.close()
})

function expectError(res: { statusCode: number; json: any }, status: number, code: string) {
  expect(res.statusCode).toBe(status)
  expect(res.json.status).toBe(false)
  expect(res.json.error.code).toBe(code)
  expect(typeof res.json.message).toBe('string')
  expect(JSON.stringify(res.json)).not.toMatch(/at \S+ \(|node_modules/)
}

describe('bearer token', () => {
  it('is not needed for /health, which answers version and uptime', async () => {
    const res = await h.app.inject({ method: 'GET', url: '/health' })
    expect(res.statusCode).toBe(200)
    expect(res.json()).toMatchObject({ status: true, message: 'ok', data: { version: 'test' } })
    expect(res.json().data.uptime_s).toBeGreaterThanOrEqual(0)
  })

  it.each([
    ['GET', '/chatapp'],
    ['POST', '/chatapp/createNewChatapp'],
    ['DELETE', '/chatapp/abc'],
    ['GET', '/intent'],
    ['POST', '/chatapp/message'],
    ['GET', '/chatapp/scan'],
    ['PUT', '/chatapp/updateGeneral']
  ])('%s %s without a token is a 401', async (method, url) => {
    const res = await h.app.inject({ method: method as 'GET', url })
    expectError({ statusCode: res.statusCode, json: res.json() }, 401, 'UNAUTHORIZED')
    expect(res.headers['www-authenticate']).toBe('Bearer')
  })

  it('rejects a wrong token', async () => {
    const res = await h.app.inject({ method: 'GET', url: '/chatapp', headers: { authorization: 'Bearer nope' } })
    expectError({ statusCode: res.statusCode, json: res.json() }, 401, 'UNAUTHORIZED')
    expect(res.json().message).toBe('Invalid bearer token')
  })

  it('accepts and ignores x-refresh', async () => {
    const res = await h.call({ method: 'GET', url: '/chatapp', headers: { 'x-refresh': 'whatever' } })
    expect(res.statusCode).toBe(200)
  })

  it('refuses a foreign Host header (DNS rebinding)', async () => {
    const res = await h.call({ method: 'GET', url: '/chatapp', headers: { host: 'evil.example:3210' } })
    expect(res.statusCode).toBe(403)
    const ok = await h.call({ method: 'GET', url: '/chatapp', headers: { host: '127.0.0.1:3210' } })
    expect(ok.statusCode).toBe(200)
  })

  it('sends no CORS headers', async () => {
    const res = await h.call({ method: 'GET', url: '/chatapp', headers: { origin: 'http://evil.example' } })
    expect(res.headers['access-control-allow-origin']).toBeUndefined()
  })
})

describe('instance credentials', () => {
  it('missing session_id or access_token is a 400 naming the field', async () => {
    let res = await h.call({ method: 'GET', url: '/intent' })
    expectError(res, 400, 'VALIDATION_ERROR')
    expect(res.json.error.details).toEqual([{ field: 'session_id', problem: 'is required' }])
    const inst = await h.createInstance()
    res = await h.call({ method: 'GET', url: `/intent?session_id=${inst.session_id}` })
    expect(res.json.error.details).toEqual([{ field: 'access_token', problem: 'is required' }])
  })

  it('credentials that match no instance are a 401', async () => {
    const inst = await h.createInstance()
    const res = await h.call({ method: 'GET', url: `/intent?session_id=${inst.session_id}&access_token=wrong` })
    expectError(res, 401, 'UNAUTHORIZED')
    const res2 = await h.call({ method: 'GET', url: '/intent', payload: { session_id: 'nope', access_token: inst.settings.access_token } })
    expectError(res2, 401, 'UNAUTHORIZED')
  })

  it('follow the instances as they come and go: a deleted instance is a 401, later ones are found', async () => {
    const a = await h.createInstance()
    const b = await h.createInstance()
    const creds = (i: typeof a) => ({ session_id: i.session_id, access_token: i.settings.access_token })
    for (const i of [a, b]) expect((await h.call({ method: 'GET', url: '/intent', payload: creds(i) })).statusCode).toBe(200)
    expect((await h.call({ method: 'DELETE', url: `/chatapp/${a._id}` })).statusCode).toBe(200)
    expectError(await h.call({ method: 'GET', url: '/intent', payload: creds(a) }), 401, 'UNAUTHORIZED')
    const c = await h.createInstance()
    for (const i of [b, c]) expect((await h.call({ method: 'GET', url: '/intent', payload: creds(i) })).statusCode).toBe(200)
    // One instance's session id with another's access token names nobody.
    expectError(await h.call({ method: 'GET', url: '/intent', payload: { session_id: b.session_id, access_token: c.settings.access_token } }), 401, 'UNAUTHORIZED')
  })

  it('wrong-typed credentials are a 400', async () => {
    const res = await h.call({ method: 'POST', url: '/intent', payload: { session_id: 5, access_token: 'x', title: 't', keyword: 'k', reply: 'r' } })
    expectError(res, 400, 'VALIDATION_ERROR')
    expect(res.json.error.details[0].field).toBe('session_id')
  })

  it('are read from a GET body as the seed sends them', async () => {
    const inst = await h.createInstance()
    const res = await h.call({ method: 'GET', url: '/intent', payload: { session_id: inst.session_id, access_token: inst.settings.access_token } })
    expect(res.statusCode).toBe(200)
    expect(res.json).toEqual({ status: true, message: 'Intent fetched successfully!', data: [] })
  })

  it("never reach another instance's records", async () => {
    const a = await h.createInstance()
    const b = await h.createInstance()
    const credsA = { session_id: a.session_id, access_token: a.settings.access_token }
    const credsB = { session_id: b.session_id, access_token: b.settings.access_token }
    const created = await h.call({ method: 'POST', url: '/intent', payload: { ...credsA, title: 'A', keyword: 'hello', reply: 'from A' } })
    const id = created.json.data._id
    const survey = await h.call({ method: 'POST', url: '/survey', payload: { ...credsA, title: 'S', keyword: 'start', reply: 'Q1', sort_id: 1, action: {} } })
    for (const req of [
      { method: 'GET', url: `/intent/${id}` },
      { method: 'PUT', url: `/intent/${id}`, extra: { reply: 'hacked' } },
      { method: 'DELETE', url: `/intent/${id}` },
      { method: 'GET', url: `/survey/${survey.json.data._id}` },
      { method: 'DELETE', url: `/survey/${survey.json.data._id}` },
      { method: 'GET', url: `/chatapp/instance/logout/${a._id}` }
    ]) {
      const res = await h.call({ method: req.method as 'GET', url: req.url, payload: { ...credsB, ...(req.extra ?? {}) } })
      expectError(res, 404, 'NOT_FOUND')
    }
    const listB = await h.call({ method: 'GET', url: '/intent', payload: credsB })
    expect(listB.json.data).toEqual([])
    const still = await h.call({ method: 'GET', url: `/intent/${id}`, payload: credsA })
    expect(still.json.data.reply).toBe('from A')
    expect(h.core.instances.get(a._id).settings.status).toBe('DISCONNECTED')
  })
})

describe('malformed input', () => {
  it('bad JSON is a 400 VALIDATION_ERROR', async () => {
    const res = await h.call({ method: 'POST', url: '/intent', headers: { 'content-type': 'application/json' }, payload: '{"title": ' })
    expectError(res, 400, 'VALIDATION_ERROR')
    expect(res.json.message).toMatch(/Malformed JSON/)
  })

  it('an empty body sent as JSON counts as no body; a prototype-poisoning body is refused', async () => {
    const empty = await h.call({ method: 'POST', url: '/chatapp/createNewChatapp', headers: { 'content-type': 'application/json' }, payload: '' })
    expect(empty.statusCode).toBe(200)
    const poisoned = await h.call({ method: 'POST', url: '/chatapp/createNewChatapp', headers: { 'content-type': 'application/json' }, payload: '{"__proto__":{"admin":true}}' })
    expect(poisoned.statusCode).toBe(400)
    expect(poisoned.json.error.code).toBe('VALIDATION_ERROR')
  })

  it('a JSON body over the limit is a 413', async () => {
    const big = 'x'.repeat(1024 * 1024 + 10)
    const res = await h.call({ method: 'POST', url: '/intent', payload: { title: big } })
    expectError(res, 413, 'PAYLOAD_TOO_LARGE')
  })

  it('an unsupported content type is a 415', async () => {
    const res = await h.call({ method: 'POST', url: '/intent', headers: { 'content-type': 'text/xml' }, payload: '<x/>' })
    expectError(res, 415, 'UNSUPPORTED_MEDIA_TYPE')
  })

  it('an unknown route is a 404 in the envelope', async () => {
    const res = await h.call({ method: 'GET', url: '/nope' })
    expectError(res, 404, 'NOT_FOUND')
  })

  it('unknown top-level fields are ignored, unknown action members are a 400', async () => {
    const inst = await h.createInstance()
    const creds = { session_id: inst.session_id, access_token: inst.settings.access_token }
    const ok = await h.call({ method: 'POST', url: '/intent', payload: { ...creds, title: 't', keyword: 'k', reply: 'r', color: 'blue' } })
    expect(ok.statusCode).toBe(200)
    expect(ok.json.data.color).toBeUndefined()
    const bad = await h.call({ method: 'POST', url: '/intent', payload: { ...creds, title: 't', keyword: 'k', reply: 'r', action: { send_locaton: {} } } })
    expectError(bad, 400, 'VALIDATION_ERROR')
    expect(bad.json.error.details).toEqual([{ field: 'action.send_locaton', problem: 'is not an allowed field' }])
  })
})

describe('unexpected errors', () => {
  it('answer 500 naming the request id, without internals, and log the error with that id', async () => {
    const lines: Array<Record<string, unknown>> = []
    const sink = new Writable({
      write(chunk: Buffer, _enc, done) {
        for (const line of chunk.toString().split('\n').filter(Boolean)) lines.push(JSON.parse(line) as Record<string, unknown>)
        done()
      }
    })
    const logged = await makeHarness({ logger: pino({ level: 'info' }, sink) })
    try {
      const { qs } = await logged.connectedInstance()
      logged.core.intents.list = () => {
        throw new Error('disk on fire at /secret/path')
      }
      const res = await logged.call({ method: 'GET', url: `/intent?${qs}` })
      expectError(res, 500, 'INTERNAL')
      expect(res.json.message).not.toContain('/secret/path')
      const reqId = /request (req-[\w-]+)/.exec(res.json.message)![1]
      await expect.poll(() => lines.find((l) => l.reqId === reqId && l.level === 50)).toMatchObject({ msg: 'unhandled error', err: { message: 'disk on fire at /secret/path' } })
    } finally {
      await logged.close()
    }
  })

  it('/rpc: an input nested thousands deep is a 400, not a crash', async () => {
    const handlers = createHandlers(h.core, { baseUrl: () => '', mode: 'web', defaultChannel: 'sandbox' })
    let deep: unknown = 'x'
    for (let i = 0; i < 20_000; i++) deep = { a: deep }
    const result = await dispatch(handlers, 'intents.list', { instanceId: 'x', deep }, () => {})
    expect(result).toMatchObject({ ok: false, error: { code: 'VALIDATION_ERROR' } })
  })
})

describe('token handling', () => {
  it('throttles failed bearer tokens per address: wrong ones answer 429 with Retry-After until the window ends; the right token is never refused', async () => {
    let offset = 0
    const t = await makeHarness({ clock: { now: () => Date.now() + offset } })
    try {
      for (let i = 0; i < 10; i++) {
        const res = await t.app.inject({ method: 'GET', url: '/chatapp', headers: { authorization: `Bearer wrong-${i}` } })
        expect(res.statusCode).toBe(401)
      }
      const blocked = await t.app.inject({ method: 'GET', url: '/chatapp', headers: { authorization: 'Bearer wrong-once-more' } })
      expect(blocked.statusCode).toBe(429)
      expect(blocked.json()).toMatchObject({ status: false, error: { code: 'TOO_MANY_REQUESTS' } })
      expect(Number(blocked.headers['retry-after'])).toBeGreaterThan(0)
      expect((await t.call({ method: 'GET', url: '/chatapp' })).statusCode).toBe(200)
      // The window passes: a wrong token is a 401 again.
      offset += 61_000
      expect((await t.app.inject({ method: 'GET', url: '/chatapp', headers: { authorization: 'Bearer wrong-later' } })).statusCode).toBe(401)
    } finally {
      await t.close()
    }
  })

  it('trades a one-time login code for the token once; a used, unknown or expired code is a 401', async () => {
    let offset = 0
    const t = await makeHarness({ clock: { now: () => Date.now() + offset } })
    try {
      const code = t.core.account.issueLoginCode()
      const login = await t.app.inject({ method: 'POST', url: '/auth/login', payload: { code } })
      expect(login.statusCode).toBe(200)
      expect(login.json()).toEqual({ status: true, message: 'Logged in', data: { token: t.token } })
      expect((await t.app.inject({ method: 'POST', url: '/auth/login', payload: { code } })).statusCode).toBe(401)
      expect((await t.app.inject({ method: 'POST', url: '/auth/login', payload: { code: 'made-up' } })).statusCode).toBe(401)
      const late = t.core.account.issueLoginCode()
      offset += 10 * 60_000 + 1
      expect((await t.app.inject({ method: 'POST', url: '/auth/login', payload: { code: late } })).statusCode).toBe(401)
    } finally {
      await t.close()
    }
  })
})
