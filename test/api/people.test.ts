/**
 * The people at the desk (issue 27 §5), over the HTTP API on a real database: staff invites and
 * passwords, login throttling and lockout, web sessions with the cookie and CSRF, scoped API keys
 * (revoked at once, limited to instances), the audit log, and what an agent sees.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { makeHarness, type Harness } from '../helpers/harness'
import { INVITE_TTL_MS, LOCK_AFTER_FAILURES, LOCK_MS } from '../../src/main/services/people'

let h: Harness
let offset = 0
const clock = { now: () => Date.now() + offset }
let a: { inst: { _id: string }; qs: string }
let b: { inst: { _id: string }; qs: string }

beforeAll(async () => {
  h = await makeHarness({ clock, passwordCostLog2: 12 })
  a = await h.connectedInstance()
  b = await h.connectedInstance()
})
afterAll(async () => {
  await h.close()
})

/** A request with no credentials but those given. */
async function raw(o: { method: 'GET' | 'POST' | 'PUT' | 'DELETE'; url: string; payload?: object; headers?: Record<string, string> }) {
  const res = await h.app.inject({ method: o.method, url: o.url, payload: o.payload, headers: { 'x-forwarded-for': '', ...o.headers } })
  let json: any
  try {
    json = res.json()
  } catch {
    json = undefined
  }
  return { statusCode: res.statusCode, json, headers: res.headers }
}
const bearer = (token: string) => ({ authorization: `Bearer ${token}` })
/** The one-time code in an invite link (`…/#invite=<code>`). */
const codeOf = (url: string) => decodeURIComponent(url.split('#invite=')[1]!)

/** Creates a member as the owner and accepts the invite; answers id and login. */
async function member(login: string, role: 'manager' | 'agent', instanceIds?: string[]): Promise<{ id: string; login: string; password: string }> {
  const created = await h.call({ method: 'POST', url: '/staff', payload: { name: login.toUpperCase(), login, role, ...(instanceIds ? { instance_ids: instanceIds } : {}) } })
  expect(created.statusCode).toBe(200)
  const code = codeOf(created.json.data.invite_url)
  const password = `pw-${login}-0123456789`
  const accepted = await raw({ method: 'POST', url: '/auth/accept-invite', payload: { code, password } })
  expect(accepted.statusCode).toBe(200)
  return { id: created.json.data.id, login, password }
}

async function login(login: string, password: string) {
  return raw({ method: 'POST', url: '/auth/password', payload: { login, password } })
}

describe('invites', () => {
  it('an invite link sets the password once; a short password is refused and the link still works', async () => {
    const created = await h.call({ method: 'POST', url: '/staff', payload: { name: 'Cleo', login: 'Cleo', role: 'agent', instance_ids: [a.inst._id] } })
    expect(created.json.data).toMatchObject({ login: 'cleo', role: 'agent', active: false, instance_ids: [a.inst._id] })
    const code = codeOf(created.json.data.invite_url)
    const short = await raw({ method: 'POST', url: '/auth/accept-invite', payload: { code, password: 'short' } })
    expect(short.statusCode).toBe(400)
    expect((await raw({ method: 'POST', url: '/auth/accept-invite', payload: { code, password: 'a long enough one' } })).statusCode).toBe(200)
    const again = await raw({ method: 'POST', url: '/auth/accept-invite', payload: { code, password: 'another long one' } })
    expect(again.statusCode).toBe(401)
    expect((await login('CLEO', 'a long enough one')).statusCode).toBe(200)
  })

  it('an invite expires after 72 hours', async () => {
    const created = await h.call({ method: 'POST', url: '/staff', payload: { name: 'Dan', login: 'dan', role: 'manager' } })
    const code = codeOf(created.json.data.invite_url)
    offset += INVITE_TTL_MS + 1000
    try {
      const late = await raw({ method: 'POST', url: '/auth/accept-invite', payload: { code, password: 'a long enough one' } })
      expect(late.statusCode).toBe(401)
      expect(late.json.message).toMatch(/expired/)
    } finally {
      offset -= INVITE_TTL_MS + 1000
    }
  })

  it('a taken login is a 409; an unknown instance a 400', async () => {
    expect((await h.call({ method: 'POST', url: '/staff', payload: { name: 'X', login: 'cleo', role: 'agent' } })).statusCode).toBe(409)
    const bad = await h.call({ method: 'POST', url: '/staff', payload: { name: 'X', login: 'xena', role: 'agent', instance_ids: ['nope'] } })
    expect(bad.statusCode).toBe(400)
    expect(bad.json.error.details[0].field).toBe('instance_ids')
  })
})

describe('login', () => {
  it('answers a session token and sets an HttpOnly SameSite=Strict cookie; never stores the password', async () => {
    const m = await member('erin', 'agent', [a.inst._id])
    const res = await login('erin', m.password)
    expect(res.statusCode).toBe(200)
    expect(res.json.data).toMatchObject({ name: 'ERIN', role: 'agent' })
    expect(res.json.data.token).toMatch(/^cas_/)
    expect(String(res.headers['set-cookie'])).toMatch(/^chatapp_session=cas_[^;]+; Path=\/; HttpOnly; SameSite=Strict; Max-Age=\d+/)
    const stored = await h.core.people.staff.list()
    expect(JSON.stringify(stored)).not.toContain(m.password)
  })

  it(`locks an account after ${LOCK_AFTER_FAILURES} wrong passwords (429 with Retry-After, even with the right one), then lets it in`, async () => {
    const m = await member('finn', 'agent', [a.inst._id])
    for (let i = 1; i < LOCK_AFTER_FAILURES; i++) expect((await login('finn', 'wrong password!')).statusCode).toBe(401)
    const locked = await login('finn', 'wrong password!')
    expect(locked.statusCode).toBe(429)
    expect(Number(locked.headers['retry-after'])).toBeGreaterThan(0)
    expect((await login('finn', m.password)).statusCode).toBe(429)
    offset += LOCK_MS + 1000
    try {
      expect((await login('finn', m.password)).statusCode).toBe(200)
    } finally {
      offset -= LOCK_MS + 1000
    }
  })

  it('throttles an address that fails too often, across logins (429)', async () => {
    const headers = { 'x-test': '1' }
    const statuses: number[] = []
    for (let i = 0; i < 12; i++) {
      const res = await h.app.inject({ method: 'POST', url: '/auth/password', remoteAddress: '10.9.9.9', payload: { login: `nobody${i}`, password: 'whatever-123' }, headers })
      statuses.push(res.statusCode)
    }
    expect(statuses.slice(0, 10).every((s) => s === 401)).toBe(true)
    expect(statuses.slice(10)).toEqual([429, 429])
  })
})

describe('web sessions', () => {
  it('a write with the session cookie needs the CSRF token; reads do not', async () => {
    const m = await member('gus', 'manager')
    const s = (await login('gus', m.password)).json.data
    const cookie = { cookie: `chatapp_session=${s.token}` }
    expect((await raw({ method: 'GET', url: '/chatapp', headers: cookie })).statusCode).toBe(200)
    const crossSite = await raw({ method: 'PUT', url: `/chatapp/updateGeneral?${a.qs}`, payload: { bot_name: 'Hacked' }, headers: cookie })
    expect(crossSite.statusCode).toBe(403)
    expect(crossSite.json.message).toMatch(/X-CSRF-Token/)
    expect(h.core.instances.get(a.inst._id).settings.bot_name).not.toBe('Hacked')
    const wrong = await raw({ method: 'PUT', url: `/chatapp/updateGeneral?${a.qs}`, payload: { bot_name: 'Hacked' }, headers: { ...cookie, 'x-csrf-token': 'nope' } })
    expect(wrong.statusCode).toBe(403)
    const good = await raw({ method: 'PUT', url: `/chatapp/updateGeneral?${a.qs}`, payload: { bot_name: 'Shop A' }, headers: { ...cookie, 'x-csrf-token': s.csrf_token } })
    expect(good.statusCode).toBe(200)
  })

  it('logout ends the session; sign out everywhere ends them all at once', async () => {
    const m = await member('hana', 'agent', [a.inst._id])
    const one = (await login('hana', m.password)).json.data.token
    const two = (await login('hana', m.password)).json.data.token
    const three = (await login('hana', m.password)).json.data.token
    const out = await raw({ method: 'POST', url: '/auth/logout', headers: bearer(one) })
    expect(out.json.data).toEqual({ signed_out: 1 })
    expect(String(out.headers['set-cookie'])).toMatch(/Max-Age=0/)
    expect((await raw({ method: 'GET', url: '/auth/me', headers: bearer(one) })).statusCode).toBe(401)
    expect((await raw({ method: 'GET', url: '/auth/me', headers: bearer(two) })).statusCode).toBe(200)
    const everywhere = await h.call({ method: 'POST', url: `/staff/${m.id}/sign-out` })
    expect(everywhere.json.data).toEqual({ signed_out: 2 })
    for (const t of [two, three]) expect((await raw({ method: 'GET', url: '/auth/me', headers: bearer(t) })).statusCode).toBe(401)
  })

  it('deleting a person ends their sessions at once', async () => {
    const m = await member('ivo', 'agent', [a.inst._id])
    const t = (await login('ivo', m.password)).json.data.token
    expect((await h.call({ method: 'DELETE', url: `/staff/${m.id}` })).statusCode).toBe(200)
    expect((await raw({ method: 'GET', url: '/auth/me', headers: bearer(t) })).statusCode).toBe(401)
  })
})

describe('API keys', () => {
  it('is shown once, stored hashed, works for its scope, and is refused at once when revoked', async () => {
    const created = await h.call({ method: 'POST', url: '/api-keys', payload: { name: 'orders script', scopes: ['messages:send'] } })
    expect(created.statusCode).toBe(200)
    const { key, id } = created.json.data
    expect(key).toMatch(/^cak_/)
    const listed = await h.call({ method: 'GET', url: '/api-keys' })
    expect(JSON.stringify(listed.json.data)).not.toContain(key)
    const send = await raw({ method: 'POST', url: `/chatapp/message?${a.qs}`, payload: { chatId: '15550001111', message: 'Your order is ready' }, headers: bearer(key) })
    expect(send.statusCode).toBe(200)
    const read = await raw({ method: 'GET', url: `/contact?${a.qs}`, headers: bearer(key) })
    expect(read.statusCode).toBe(403)
    expect(read.json.message).toContain('contacts:read')
    const used = (await h.call({ method: 'GET', url: '/api-keys' })).json.data.find((k: { id: string }) => k.id === id)
    expect(used.last_used_at).not.toBeNull()
    expect((await h.call({ method: 'DELETE', url: `/api-keys/${id}` })).statusCode).toBe(200)
    expect((await raw({ method: 'POST', url: `/chatapp/message?${a.qs}`, payload: { chatId: '15550001111', message: 'again' }, headers: bearer(key) })).statusCode).toBe(401)
  })

  it('a key for instance A is refused on instance B', async () => {
    const { key } = (await h.call({ method: 'POST', url: '/api-keys', payload: { name: 'A only', scopes: ['messages:send', 'messages:read'], instance_ids: [a.inst._id] } })).json.data
    expect((await raw({ method: 'GET', url: `/chatapp/messages?${a.qs}`, headers: bearer(key) })).statusCode).toBe(200)
    const onB = await raw({ method: 'GET', url: `/chatapp/messages?${b.qs}`, headers: bearer(key) })
    expect(onB.statusCode).toBe(403)
    expect(onB.json.message).toContain(b.inst._id)
  })

  it('an unknown scope is a 400 naming the known ones', async () => {
    const res = await h.call({ method: 'POST', url: '/api-keys', payload: { name: 'x', scopes: ['everything'] } })
    expect(res.statusCode).toBe(400)
    expect(res.json.message).toContain('messages:send')
  })
})

describe('an agent', () => {
  it('sees only the instances and conversations they are given', async () => {
    await h.call({ method: 'POST', url: `/chatapp/sandbox/inbound?${a.qs}`, payload: { from: '15550002222', text: 'hi from A' } })
    await h.call({ method: 'POST', url: `/chatapp/sandbox/inbound?${b.qs}`, payload: { from: '15550003333', text: 'hi from B' } })
    const m = await member('jo', 'agent', [a.inst._id])
    const t = (await login('jo', m.password)).json.data.token
    const instances = await raw({ method: 'GET', url: '/chatapp', headers: bearer(t) })
    expect(instances.json.data.map((i: { _id: string }) => i._id)).toEqual([a.inst._id])
    const inbox = await raw({ method: 'GET', url: '/chatapp/inbox', headers: bearer(t) })
    expect(new Set(inbox.json.data.map((c: { instance_id: string }) => c.instance_id))).toEqual(new Set([a.inst._id]))
    expect((await raw({ method: 'GET', url: `/chatapp/inbox?instance_id=${b.inst._id}`, headers: bearer(t) })).statusCode).toBe(404)
    const me = await raw({ method: 'GET', url: '/auth/me', headers: bearer(t) })
    expect(me.json.data).toMatchObject({ kind: 'staff', role: 'agent', instance_ids: [a.inst._id] })
  })
})

describe('the audit log', () => {
  it('lists logins, failed logins, key use and changes, newest first, for the owner only', async () => {
    const m = await member('kai', 'manager')
    await login('kai', 'not the password')
    const t = (await login('kai', m.password)).json.data.token
    await raw({ method: 'PUT', url: `/chatapp/updateActions?${a.qs}`, payload: { reply_msgs: true }, headers: bearer(t) })
    const log = (await h.call({ method: 'GET', url: '/audit?limit=500' })).json.data as Array<{ kind: string; actor: string; actor_name: string | null; detail: any }>
    expect(log.find((e) => e.kind === 'login_failed' && e.actor === 'kai')).toBeDefined()
    expect(log.find((e) => e.kind === 'login' && e.actor === `staff:${m.id}`)?.actor_name).toBe('KAI')
    expect(log.find((e) => e.kind === 'change' && e.actor === `staff:${m.id}`)?.detail).toEqual({ operation: 'settings.updateActions', instance_id: a.inst._id })
    expect(log.some((e) => e.kind === 'key_used')).toBe(true)
    expect(JSON.stringify(log)).not.toContain(m.password)
    expect((await raw({ method: 'GET', url: '/audit', headers: bearer(t) })).statusCode).toBe(403)
  })
})
