/**
 * The people at the desk (docs/design.md §21 "Audit"), over the HTTP API on a real database: staff invites and
 * passwords, login throttling and lockout, web sessions with the cookie and CSRF, scoped API keys
 * (revoked at once, limited to instances), the audit log, and what an agent sees.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { makeHarness, type Harness } from '../helpers/harness'
import { INVITE_TTL_MS, LOCK_AFTER_FAILURES, LOCK_MS } from '../../src/main/services/people'
import { newPasswordProblem } from '../../src/shared/domain/password-rule'

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

  it('a blank or whitespace-only password is refused (400) by the one rule, and the link still works', async () => {
    const created = await h.call({ method: 'POST', url: '/staff', payload: { name: 'Wes', login: 'wes', role: 'agent', instance_ids: [a.inst._id] } })
    const code = codeOf(created.json.data.invite_url)
    for (const password of [' '.repeat(10), '\t\n'.repeat(6), '\u00a0'.repeat(12), '\u3000'.repeat(10)]) {
      const refused = await raw({ method: 'POST', url: '/auth/accept-invite', payload: { code, password } })
      expect(refused.statusCode, JSON.stringify(password)).toBe(400)
      expect(refused.json.error.details).toEqual([{ field: 'password', problem: newPasswordProblem(password) }])
    }
    expect((await raw({ method: 'POST', url: '/auth/accept-invite', payload: { code, password: '  spaced but long  ' } })).statusCode).toBe(200)
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

  it('counts wrong passwords per login name, not per address: twelve other logins tried from one address leave a login name untried (401, not 429)', async () => {
    const statuses: number[] = []
    for (let i = 0; i < 12; i++) {
      const res = await h.app.inject({ method: 'POST', url: '/auth/password', remoteAddress: '10.9.9.9', payload: { login: `nobody${i}`, password: 'whatever-123' } })
      statuses.push(res.statusCode)
    }
    expect(statuses.every((s) => s === 401)).toBe(true)
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
    await h.call({ method: 'POST', url: `/chatapp/sandbox/inbound?${a.qs}`, payload: { chatId: '15550002222', message: 'hi from A' } })
    await h.call({ method: 'POST', url: `/chatapp/sandbox/inbound?${b.qs}`, payload: { chatId: '15550003333', message: 'hi from B' } })
    const m = await member('jo', 'agent', [a.inst._id])
    const t = (await login('jo', m.password)).json.data.token
    const instances = await raw({ method: 'GET', url: '/chatapp', headers: bearer(t) })
    expect(instances.json.data.map((i: { _id: string }) => i._id)).toEqual([a.inst._id])
    const inbox = await raw({ method: 'GET', url: '/chatapp/inbox', headers: bearer(t) })
    expect(new Set(inbox.json.data.map((c: { instance_id: string }) => c.instance_id))).toEqual(new Set([a.inst._id]))
    expect((await raw({ method: 'GET', url: `/chatapp/inbox?instance_id=${b.inst._id}`, headers: bearer(t) })).statusCode).toBe(404)
    // The webhook's signing secret is the owner's: an agent sees it blanked.
    expect(instances.json.data[0].settings.webhook.secret).toBe('')
    expect((await h.call({ method: 'GET', url: '/chatapp' })).json.data[0].settings.webhook.secret).toMatch(/^whsec_/)
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
    expect(log.find((e) => e.kind === 'login_failed' && e.actor === 'kai')?.detail).toEqual({ reason: 'wrong' })
    expect(log.find((e) => e.kind === 'login' && e.actor === `staff:${m.id}`)?.actor_name).toBe('KAI')
    expect(log.find((e) => e.kind === 'change' && e.actor === `staff:${m.id}`)?.detail).toEqual({ operation: 'settings.updateActions', instance_id: a.inst._id })
    expect(log.some((e) => e.kind === 'key_used')).toBe(true)
    expect(JSON.stringify(log)).not.toContain(m.password)
    expect((await raw({ method: 'GET', url: '/audit', headers: bearer(t) })).statusCode).toBe(403)
  })
})

describe('assignment', () => {
  it('assigns by hand, filters mine/unassigned, keeps a timeline and fires onAssignment', async () => {
    await h.call({ method: 'PUT', url: `/chatapp/setWebhook?${a.qs}`, payload: { webhook_url: 'https://hooks.example.com/chatapp', events: ['onAssignment'] } })
    await h.call({ method: 'PUT', url: `/chatapp/updateActions?${a.qs}`, payload: { send_webhook: true } })
    await h.call({ method: 'POST', url: `/chatapp/sandbox/inbound?${a.qs}`, payload: { chatId: '15550004444', message: 'where is my order?' } })
    const bea = await member('bea', 'agent', [a.inst._id])
    const t = (await login('bea', bea.password)).json.data.token
    const chatId = '15550004444@s.whatsapp.net'
    const mineBefore = await raw({ method: 'GET', url: '/chatapp/inbox?assigned=mine', headers: bearer(t) })
    expect(mineBefore.json.data.map((c: { chatId: string }) => c.chatId)).not.toContain(chatId)
    const assigned = await h.call({ method: 'POST', url: `/chatapp/inbox/assign?${a.qs}`, payload: { chatId, staff_id: bea.id } })
    expect(assigned.json, JSON.stringify(assigned.json)).toMatchObject({ data: { assigned_to: { id: bea.id, name: "BEA" } } })
    const mine = await raw({ method: 'GET', url: '/chatapp/inbox?assigned=mine', headers: bearer(t) })
    expect(mine.json.data.map((c: { chatId: string }) => c.chatId)).toEqual([chatId])
    expect(mine.json.data[0].assigned_to).toEqual({ id: bea.id, name: 'BEA' })
    const unassigned = await h.call({ method: 'GET', url: '/chatapp/inbox?assigned=unassigned' })
    expect(unassigned.json.data.map((c: { chatId: string }) => c.chatId)).not.toContain(chatId)
    const timeline = await h.call({ method: 'GET', url: `/chatapp/inbox/timeline?${a.qs}&chatId=${chatId}` })
    expect(timeline.json.data).toEqual([{ at: expect.any(String), kind: 'assigned', by: { kind: 'owner', name: 'Owner' }, assigned_to: { id: bea.id, name: 'BEA' } }])
    // A desk event's delivery is queued after the answer (it never holds the person up).
    let hook: any
    await expect.poll(async () => (hook = (await h.call({ method: 'GET', url: `/chatapp/webhook/deliveries?${a.qs}` })).json.data.find((d: { event: string }) => d.event === 'onAssignment'))).toMatchObject({ event: 'onAssignment', instance_id: a.inst._id })
    expect(hook.payload.data).toEqual({ chatId, assigned_to: { id: bea.id, name: 'BEA' }, by: { kind: 'owner', name: 'Owner' } })
  })

  it('an agent’s reply takes an unassigned conversation and names them; an agent cannot hand one to someone else', async () => {
    await h.call({ method: 'POST', url: `/chatapp/sandbox/inbound?${a.qs}`, payload: { chatId: '15550005555', message: 'hello?' } })
    const chatId = '15550005555@s.whatsapp.net'
    const lia = await member('lia', 'agent', [a.inst._id])
    const max = await member('max', 'agent', [a.inst._id])
    const t = (await login('lia', lia.password)).json.data.token
    const sent = await raw({ method: 'POST', url: `/chatapp/message?${a.qs}`, payload: { chatId, message: 'Hi, Lia here' }, headers: bearer(t) })
    expect(sent.statusCode).toBe(200)
    const log = await h.call({ method: 'GET', url: `/chatapp/messages?${a.qs}&chatId=${chatId}` })
    const reply = log.json.data.find((m: { text: string }) => m.text === 'Hi, Lia here')
    expect(reply.sent_by).toEqual({ kind: 'staff', id: lia.id, name: 'LIA' })
    await expect.poll(async () => (await h.call({ method: 'GET', url: `/chatapp/inbox?instance_id=${a.inst._id}` })).json.data.find((c: { chatId: string }) => c.chatId === chatId)?.assigned_to).toEqual({ id: lia.id, name: 'LIA' })
    const handOver = await raw({ method: 'POST', url: `/chatapp/inbox/assign?${a.qs}`, payload: { chatId, staff_id: max.id }, headers: bearer(t) })
    expect(handOver.statusCode).toBe(403)
    const giveBack = await raw({ method: 'POST', url: `/chatapp/inbox/assign?${a.qs}`, payload: { chatId, staff_id: null }, headers: bearer(t) })
    expect(giveBack.json.data).toEqual({ assigned_to: null })
  })

  it('round-robin alternates between the agents of the instance who are signed in', async () => {
    const chats = ['15550006661', '15550006662', '15550006663']
    for (const from of chats) await h.call({ method: 'POST', url: `/chatapp/sandbox/inbound?${b.qs}`, payload: { chatId: from, message: 'hi' } })
    const noOne = await h.call({ method: 'POST', url: `/chatapp/inbox/assign?${b.qs}`, payload: { chatId: chats[0], round_robin: true } })
    expect(noOne.statusCode).toBe(409)
    const nia = await member('nia', 'agent', [b.inst._id])
    const oto = await member('oto', 'agent', [b.inst._id])
    await login('nia', nia.password)
    await login('oto', oto.password)
    const picks: string[] = []
    for (const chatId of chats) picks.push((await h.call({ method: 'POST', url: `/chatapp/inbox/assign?${b.qs}`, payload: { chatId, round_robin: true } })).json.data.assigned_to.id)
    expect(picks[0]).not.toBe(picks[1])
    expect(picks[2]).toBe(picks[0])
    expect(new Set(picks)).toEqual(new Set([nia.id, oto.id]))
  })
})

describe('hand-off', () => {
  it('names who took the conversation over', async () => {
    const pia = await member('pia', 'agent', [a.inst._id])
    const t = (await login('pia', pia.password)).json.data.token
    const paused = await raw({ method: 'POST', url: `/chatapp/handoff/pause?${a.qs}`, payload: { chatId: '15550007777' }, headers: bearer(t) })
    expect(paused.statusCode).toBe(200)
    const list = await h.call({ method: 'GET', url: `/chatapp/handoff?${a.qs}` })
    expect(list.json.data.find((p: { chatId: string }) => p.chatId === '15550007777@s.whatsapp.net').taken_by).toEqual({ kind: 'staff', id: pia.id, name: 'PIA' })
  })
})

describe('the audit log’s retention', () => {
  it('follows the longest retention of any instance; while one keeps everything, so does the audit log', async () => {
    const count = async () => (await h.call({ method: 'GET', url: '/audit?limit=500' })).json.data.length as number
    await h.call({ method: 'PUT', url: `/chatapp/retention?${a.qs}`, payload: { days: 30 } })
    const before = await count()
    expect(before).toBeGreaterThan(0)
    offset += 45 * 86_400_000
    try {
      await h.core.retention.run()
      expect(await count()).toBeGreaterThanOrEqual(before) // instance B keeps everything
      await h.call({ method: 'PUT', url: `/chatapp/retention?${b.qs}`, payload: { days: 60 } })
      await h.core.retention.run()
      expect(await count()).toBeGreaterThanOrEqual(before) // 60 days: the entries are 45 days old
      await h.call({ method: 'PUT', url: `/chatapp/retention?${b.qs}`, payload: { days: 40 } })
      await h.core.retention.run()
      // Only the entries of the last minutes (the retention changes themselves) are younger than 40 days.
      const left = (await h.call({ method: 'GET', url: '/audit?limit=500' })).json.data as Array<{ detail: { operation?: string } | null }>
      expect(left.length).toBeGreaterThan(0)
      expect(left.every((e) => e.detail?.operation === 'settings.retention')).toBe(true)
    } finally {
      offset -= 45 * 86_400_000
    }
  })
})
