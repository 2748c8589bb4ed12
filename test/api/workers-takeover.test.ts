/**
 * A take-over as a client sees it (docs/design.md §22 "Take-over"): two real `serve` workers on one
 * real PostgreSQL database, worker b allowed one instance (`CHATAPP_WORKER_MAX_INSTANCES=1`) and
 * running X, worker a running Y. After `kill -9` of a, Y's lease lapses and no worker can take it
 * over (b is full): its status, read through b, is CONNECTING — not the dead owner's CONNECTED — and a
 * send answers 409 saying so at once when the caller asks `Prefer: wait=0`. A send asked without it
 * waits: once b has room (X deleted) b claims Y, connects it, and the waiting send answers 200, stored
 * once. Leases of 3 000 ms (a change waits up to 10 s).
 */
import { rm } from 'node:fs/promises'
import { afterAll, expect, it } from 'vitest'
import type { Instance } from '../../src/shared/schemas/records'
import { createTestDatabase, dropTestDatabase } from '../helpers/postgres'
import { connectSandbox, SERVE_TOKEN, serveApi, startServeWorker, type ServeProcess } from '../helpers/serve-process'

const TTL = 3000
const CHAT = '15550002222'
let url: string | undefined
const workers: ServeProcess[] = []
const dirs: string[] = []

afterAll(async () => {
  for (const w of workers) if (w.child.exitCode === null && w.child.signalCode === null) w.child.kill('SIGKILL')
  await Promise.all(workers.map((w) => w.exited))
  for (const d of dirs) await rm(d, { recursive: true, force: true })
  if (url) await dropTestDatabase(url)
})

async function serveWorker(id: string, env: Record<string, string> = {}): Promise<ServeProcess> {
  const s = await startServeWorker(url!, id, { CHATAPP_LEASE_TTL_MS: String(TTL), ...env })
  workers.push(s)
  dirs.push(s.dir)
  return s
}

/** A sandbox instance made and linked through `s` (on `s` unless another live worker has fewer). */
const connectOn = (s: ServeProcess) => connectSandbox(s.url)

async function call(base: string, method: string, path: string, body?: object, headers: Record<string, string> = {}) {
  const res = await fetch(base + path, {
    method,
    headers: { authorization: `Bearer ${SERVE_TOKEN}`, ...(body ? { 'content-type': 'application/json' } : {}), ...headers },
    body: body ? JSON.stringify(body) : undefined
  })
  return { status: res.status, json: (await res.json()) as any }
}

it('kill -9 of the owner while no worker has room: the status reads CONNECTING, a send with Prefer: wait=0 says so (409); a waiting send is answered 200 by the new owner once one has room, stored once', async () => {
  url = await createTestDatabase()
  const a = await serveWorker('a')
  const b = await serveWorker('b', { CHATAPP_WORKER_MAX_INSTANCES: '1' })
  const y = await connectOn(a)
  const x = await connectOn(b)
  const cluster = await serveApi(b.url, 'GET', '/cluster')
  const ownerOf = (inst: Instance) => cluster.json.data.instances.find((i: { session_id: string }) => i.session_id === inst.session_id)?.owner
  expect([ownerOf(y.inst), ownerOf(x.inst)]).toEqual(['a', 'b'])
  expect((await call(b.url, 'POST', `/chatapp/message?${y.qs}`, { chatId: CHAT, message: 'before the kill' })).status).toBe(200)

  a.child.kill('SIGKILL')
  await a.exited

  // While a's lease runs, b cannot reach the owner (503); once it lapsed, nobody holds Y.
  const status = async () => {
    const r = await call(b.url, 'GET', `/chatapp/instance?${y.qs}`)
    return r.status === 200 ? r.json.data.instance_data.status : r.status
  }
  await expect.poll(status, { timeout: 3 * TTL, interval: 100 }).not.toBe(503)
  const info = await call(b.url, 'GET', `/chatapp/instance?${y.qs}`)
  expect(info.json.data.instance_data).toMatchObject({ status: 'CONNECTING', phone_connected: false })
  const list = await call(b.url, 'GET', '/chatapp')
  expect(list.json.data.find((i: Instance) => i._id === y.inst._id).settings.status).toBe('CONNECTING')
  // X runs on b: its own status stays as it is.
  expect(list.json.data.find((i: Instance) => i._id === x.inst._id).settings.status).toBe('CONNECTED')

  const refused = await call(b.url, 'POST', `/chatapp/message?${y.qs}`, { chatId: CHAT, message: 'not waiting' }, { prefer: 'wait=0' })
  expect(refused.status).toBe(409)
  expect(refused.json.message).toContain('status CONNECTING')
  expect(refused.json.message).not.toContain('status CONNECTED')

  // A send that waits; meanwhile b gets room (X deleted), claims Y and connects it.
  const waiting = call(b.url, 'POST', `/chatapp/message?${y.qs}`, { chatId: CHAT, message: 'waited for the take-over' })
  expect((await call(b.url, 'DELETE', `/chatapp/${x.inst._id}`)).status).toBe(200)
  const sent = await waiting
  // The answer's message says why when it is not 200. Under load this was now and then 409: the
  // take-over ended when CONNECTED was reported, before it was stored (test/unit/services/take-over-state.test.ts).
  expect(sent.status, JSON.stringify(sent.json)).toBe(200)
  expect(await status()).toBe('CONNECTED')

  const history = await call(b.url, 'GET', `/chatapp/messages?${y.qs}&chatId=${CHAT}`)
  const texts = (history.json.data as Array<{ text: string }>).map((m) => m.text)
  expect(texts.filter((t) => t === 'waited for the take-over')).toHaveLength(1)
  expect(texts).not.toContain('not waiting')
  expect(texts).toContain('before the kill')
}, 90_000)
