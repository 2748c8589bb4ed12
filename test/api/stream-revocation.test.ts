/**
 * Open event streams end with the credential they were opened with (docs/design.md §21 "Instance
 * limits"): a revoked API key, an ended session (logout, sign-out everywhere), a deleted person, a
 * regenerated account token — their open `GET /rpc/events` streams (bearer or session cookie) close
 * within 1 s, on every worker of a PostgreSQL database too (the revocation travels with the workers'
 * events). Other callers' streams stay open. Real HTTP servers, real streams read with fetch.
 */
import type { AddressInfo } from 'node:net'
import { afterEach, expect, it } from 'vitest'
import type { FastifyInstance } from 'fastify'
import { makeHarness, type Harness } from '../helpers/harness'
import { createTestDatabase, dropTestDatabase } from '../helpers/postgres'
import { buildApiServer } from '../../src/main/api/server'
import { rpcPlugin } from '../../src/main/ui-contract/http-transport'
import { createHandlers } from '../../src/main/ui-contract/handlers'

let harnesses: Harness[] = []
let servers: FastifyInstance[] = []
let aborts: AbortController[] = []
let url: string | undefined
afterEach(async () => {
  for (const a of aborts) a.abort()
  aborts = []
  for (const s of servers) await s.close()
  servers = []
  for (const h of harnesses.reverse()) await h.close()
  harnesses = []
  if (url) await dropTestDatabase(url)
  url = undefined
})

/** A listening server of `h` with the UI contract (/rpc, /rpc/events), as `npm run serve` has; answers its base URL. */
async function serve(h: Harness): Promise<string> {
  const app = await buildApiServer(h.core, { host: '127.0.0.1', version: 'test', accountPlugins: [rpcPlugin(h.core, createHandlers(h.core, { baseUrl: () => '', mode: 'web', defaultChannel: 'sandbox' }))] })
  await app.listen({ host: '127.0.0.1', port: 0 })
  servers.push(app)
  return `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`
}

/** Opens `GET /rpc/events` with `headers`; answers when it ended (ms since epoch of performance), or never. */
async function openStream(base: string, headers: Record<string, string>): Promise<{ ended: Promise<number>; isOpen: () => boolean }> {
  const ctrl = new AbortController()
  aborts.push(ctrl)
  const res = await fetch(`${base}/rpc/events`, { headers, signal: ctrl.signal })
  expect(res.status).toBe(200)
  const reader = res.body!.getReader()
  let open = true
  const ended = (async () => {
    for (;;) {
      const { done } = await reader.read().catch(() => ({ done: true as const }))
      if (done) break
    }
    open = false
    return performance.now()
  })()
  return { ended, isOpen: () => open }
}

/** A person with a session: answers their id, session token and CSRF token. */
async function person(h: Harness, login: string): Promise<{ id: string; token: string; csrf: string }> {
  const created = await h.call({ method: 'POST', url: '/staff', payload: { name: login, login, role: 'agent' } })
  const code = decodeURIComponent(String(created.json.data.invite_url).split('#invite=')[1]!)
  const password = 'a long password 123'
  await h.app.inject({ method: 'POST', url: '/auth/accept-invite', payload: { code, password } })
  const session = (await h.app.inject({ method: 'POST', url: '/auth/password', payload: { login, password } })).json().data
  return { id: created.json.data.id, token: session.token, csrf: session.csrf_token }
}

async function key(h: Harness, name: string): Promise<{ id: string; key: string }> {
  return (await h.call({ method: 'POST', url: '/api-keys', payload: { name, scopes: ['inbox:read'] } })).json.data
}

/** Ms from `from` until `stream` ended; fails when it has not within 1 s. */
async function endsWithinASecond(stream: { ended: Promise<number> }, from: number): Promise<number> {
  const late = new Promise<number>((resolve) => setTimeout(() => resolve(Infinity), 1000))
  const at = await Promise.race([stream.ended, late])
  expect(at - from, 'the stream is still open 1 s later').toBeLessThan(1000)
  return at - from
}

it('a revoked key, an ended session (bearer or cookie), a person deleted or signed out everywhere, a new account token: their streams close within 1 s; others stay open', async () => {
  const h = await makeHarness({ passwordCostLog2: 12 })
  harnesses.push(h)
  await h.connectedInstance()
  const base = await serve(h)

  const bystander = await key(h, 'bystander')
  const other = await openStream(base, { authorization: `Bearer ${bystander.key}` })

  const k = await key(h, 'to revoke')
  const byKey = await openStream(base, { authorization: `Bearer ${k.key}` })
  let t = performance.now()
  expect((await h.call({ method: 'DELETE', url: `/api-keys/${k.id}` })).statusCode).toBe(200)
  await endsWithinASecond(byKey, t)

  const ann = await person(h, 'ann')
  const annCookie = await openStream(base, { cookie: `chatapp_session=${ann.token}` })
  const annBearer = await openStream(base, { authorization: `Bearer ${ann.token}` })
  t = performance.now()
  const out = await h.app.inject({ method: 'POST', url: '/auth/logout', headers: { cookie: `chatapp_session=${ann.token}`, 'x-csrf-token': ann.csrf } })
  expect(out.statusCode).toBe(200)
  await endsWithinASecond(annCookie, t)
  await endsWithinASecond(annBearer, t)

  const bob = await person(h, 'bob')
  const bobStream = await openStream(base, { authorization: `Bearer ${bob.token}` })
  t = performance.now()
  expect((await h.call({ method: 'DELETE', url: `/staff/${bob.id}` })).statusCode).toBe(200)
  await endsWithinASecond(bobStream, t)

  const cid = await person(h, 'cid')
  const cidStream = await openStream(base, { authorization: `Bearer ${cid.token}` })
  t = performance.now()
  expect((await h.call({ method: 'POST', url: `/staff/${cid.id}/sign-out` })).statusCode).toBe(200)
  await endsWithinASecond(cidStream, t)

  const ownerStream = await openStream(base, { authorization: `Bearer ${h.token}` })
  t = performance.now()
  expect((await web(base, h.token, 'apiToken.regenerate')).ok).toBe(true)
  await endsWithinASecond(ownerStream, t)

  expect(other.isOpen()).toBe(true)
}, 60_000)

/** A UI contract call over HTTP. */
async function web(base: string, token: string, method: string): Promise<{ ok: boolean }> {
  const res = await fetch(`${base}/rpc/${method}`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: '{}' })
  return (await res.json()) as { ok: boolean }
}

it('on PostgreSQL, a key revoked on one worker closes its stream on another within 1 s', async () => {
  url = await createTestDatabase()
  const one = await makeHarness({ databaseUrl: url, worker: { id: 'one', url: 'http://one.test:3210', leaseTtlMs: 1500 } })
  harnesses.push(one)
  const two = await makeHarness({ databaseUrl: url, worker: { id: 'two', url: 'http://two.test:3210', leaseTtlMs: 1500 } })
  harnesses.push(two)
  const onTwo = await serve(two)
  const k = await key(one, 'script')
  const stream = await openStream(onTwo, { authorization: `Bearer ${k.key}` })
  const ann = await person(one, 'ann')
  const annStream = await openStream(onTwo, { authorization: `Bearer ${ann.token}` })
  let t = performance.now()
  expect((await one.call({ method: 'DELETE', url: `/api-keys/${k.id}` })).statusCode).toBe(200)
  await endsWithinASecond(stream, t)
  t = performance.now()
  expect((await one.app.inject({ method: 'POST', url: '/auth/logout', headers: { authorization: `Bearer ${ann.token}` } })).statusCode).toBe(200)
  await endsWithinASecond(annStream, t)
}, 60_000)
