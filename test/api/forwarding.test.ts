/**
 * Any worker answers any request (docs/design.md §22 "Forwarding"): two real `serve` workers
 * on one real PostgreSQL database, 4 sandbox instances. A request for an instance the other worker runs
 * is relayed there (credentials in the query string: the body streamed; in the JSON body: sent again)
 * and answered as the owner answers it; the caller's own authentication applies on the owner; a forged
 * worker signature is refused; an `Idempotency-Key` holds across workers; an owner out of reach answers
 * 503 to a caller that will not wait (`Prefer: wait=0`), and a send that waits is answered by the new
 * owner after the take-over. Leases of 1 500 ms.
 */
import { readdir, rm } from 'node:fs/promises'
import { join } from 'node:path'
import { afterAll, beforeAll, expect, it } from 'vitest'
import type { Instance } from '../../src/shared/schemas/records'
import { createTestDatabase, dropTestDatabase } from '../helpers/postgres'
import { SERVE_TOKEN, serveApi, startServeWorker, type ServeProcess } from '../helpers/serve-process'

const TTL = 1500
let url: string
const dirs: string[] = []
const workers: Record<string, ServeProcess> = {}
/** The 4 instances and the worker each runs on. */
const insts: Array<{ inst: Instance; qs: string; creds: { session_id: string; access_token: string } }> = []

/** Each worker's data dir, by worker id. */
const dirOf: Record<string, string> = {}

/** A real `npm run serve` worker reachable by the other at its own URL. */
async function serveWorker(id: string): Promise<ServeProcess> {
  const s = await startServeWorker(url, id, { CHATAPP_LEASE_TTL_MS: String(TTL) })
  dirs.push(s.dir)
  workers[id] = s
  dirOf[id] = s.dir
  return s
}

async function connectOn(s: ServeProcess): Promise<void> {
  const made = await serveApi(s.url, 'POST', '/chatapp/createNewChatapp', { channel: 'sandbox' })
  expect(made.status).toBe(200)
  const inst = made.json.data as Instance
  const creds = { session_id: inst.session_id, access_token: inst.settings.access_token }
  expect((await serveApi(s.url, 'POST', '/chatapp/init', creds)).status).toBe(200)
  const qs = `session_id=${encodeURIComponent(creds.session_id)}&access_token=${encodeURIComponent(creds.access_token)}`
  expect((await serveApi(s.url, 'POST', `/chatapp/sandbox/scan?${qs}`)).status).toBe(200)
  insts.push({ inst, qs, creds })
}

/** The owner of each instance by session id (GET /cluster). */
async function owners(): Promise<Record<string, string>> {
  const c = await serveApi(workers.a!.url, 'GET', '/cluster')
  return Object.fromEntries(c.json.data.instances.map((i: { session_id: string; owner: string }) => [i.session_id, i.owner]))
}

async function call(base: string, method: string, path: string, body?: object, bearer = SERVE_TOKEN, headers: Record<string, string> = {}) {
  const res = await fetch(base + path, {
    method,
    headers: { authorization: `Bearer ${bearer}`, ...(body ? { 'content-type': 'application/json' } : {}), ...headers },
    body: body ? JSON.stringify(body) : undefined
  })
  return { status: res.status, headers: res.headers, json: (await res.json()) as any }
}

/** The shape of a JSON value: its keys, recursively (values differ between two sends). */
function shape(v: unknown): unknown {
  if (Array.isArray(v)) return v.length ? [shape(v[0])] : []
  if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, shape(x)]).sort())
  return typeof v
}

beforeAll(async () => {
  url = await createTestDatabase()
  const a = await serveWorker('a')
  const b = await serveWorker('b')
  // Each start runs on the least-loaded worker, the one asked on a tie: a, b, a, b.
  for (const s of [a, b, a, b]) await connectOn(s)
  // Worker a hears of the instances made on b through the configuration document's notification.
  let own = await owners()
  for (const deadline = Date.now() + 5000; !insts.every((i) => i.inst.session_id in own) && Date.now() < deadline; ) {
    await new Promise((resolve) => setTimeout(resolve, 20))
    own = await owners()
  }
  if (!insts.every((i) => i.inst.session_id in own)) throw new Error(`worker a did not hear of b's instances within 5 s: ${JSON.stringify(own)}`)
  insts.sort((x, y) => own[x.inst.session_id]!.localeCompare(own[y.inst.session_id]!))
}, 60_000)

afterAll(async () => {
  for (const c of Object.values(workers)) if (c.child.exitCode === null && c.child.signalCode === null) c.child.kill('SIGKILL')
  await Promise.all(Object.values(workers).map((c) => c.exited))
  for (const d of dirs) await rm(d, { recursive: true, force: true })
  if (url) await dropTestDatabase(url)
})

it('a send and a read through the worker that does not run the instance answer as the owner does; each message is stored once', async () => {
  const own = await owners()
  expect(insts.map((i) => own[i.inst.session_id])).toEqual(['a', 'a', 'b', 'b'])
  for (const [n, { inst, qs, creds }] of insts.entries()) {
    const owner = workers[own[inst.session_id]!]!
    const other = workers[own[inst.session_id] === 'a' ? 'b' : 'a']!
    const text = `forwarded ${n}`
    // Credentials in the query string (the body streamed) for even ones, in the JSON body for odd ones.
    const via = (s: ServeProcess, message: string) =>
      n % 2 === 0 ? call(s.url, 'POST', `/chatapp/message?${qs}`, { chatId: '15550001111', message }) : call(s.url, 'POST', '/chatapp/message', { ...creds, chatId: '15550001111', message })
    const direct = await via(owner, `direct ${n}`)
    const forwarded = await via(other, text)
    expect(direct.status, JSON.stringify(direct.json)).toBe(200)
    expect(forwarded.status, JSON.stringify(forwarded.json)).toBe(200)
    expect(shape(forwarded.json)).toEqual(shape(direct.json))
    expect(forwarded.json.message).toBe(direct.json.message)

    // The sandbox's receipts settle first (DELIVERY_ACK a moment after a send), so both reads see one log.
    const sentStatuses = async () => ((await call(owner.url, 'GET', `/chatapp/messages?${qs}&chatId=15550001111`)).json.data as Array<{ fromMe: boolean; status: string }>).filter((m) => m.fromMe).map((m) => m.status)
    await expect.poll(async () => (await sentStatuses()).every((s) => s === 'DELIVERY_ACK')).toBe(true)
    const readOwner = await call(owner.url, 'GET', `/chatapp/messages?${qs}&chatId=15550001111`)
    const readOther = await call(other.url, 'GET', `/chatapp/messages?${qs}&chatId=15550001111`)
    expect(readOther.status).toBe(200)
    expect(readOther.json).toEqual(readOwner.json)
    expect(readOwner.json.data.filter((m: { text: string }) => m.text === text)).toHaveLength(1)
  }
}, 60_000)

it('an upload through the worker that does not run the instance reaches the owner: streamed (credentials in the query string) or sent again from the form read here (credentials in the form), the file byte for byte', async () => {
  const own = await owners()
  const { inst, qs, creds } = insts[3]!
  const owner = workers[own[inst.session_id]!]!
  const other = workers[own[inst.session_id] === 'a' ? 'b' : 'a']!
  // A PDF of 200 kB: several chunks on the wire, relayed as they come.
  const pdf = Buffer.concat([Buffer.from('%PDF-1.4\n'), Buffer.alloc(200_000, 32), Buffer.from('\n%%EOF\n')])
  const form = (withCreds: boolean) => {
    const f = new FormData()
    if (withCreds) for (const [k, v] of Object.entries(creds)) f.append(k, v)
    f.append('chatId', '15550001111')
    f.append('filename', 'Price list.pdf')
    f.append('file', new Blob([pdf], { type: 'application/pdf' }), 'prices.pdf')
    return f
  }
  const post = async (base: string, path: string, body: FormData) => {
    const res = await fetch(base + path, { method: 'POST', headers: { authorization: `Bearer ${SERVE_TOKEN}` }, body })
    return { status: res.status, json: (await res.json()) as any }
  }
  const direct = await post(owner.url, `/chatapp/message/doc?${qs}`, form(false))
  const forwarded = await post(other.url, `/chatapp/message/doc?${qs}`, form(false))
  expect(direct.status, JSON.stringify(direct.json)).toBe(200)
  expect(forwarded.status, JSON.stringify(forwarded.json)).toBe(200)
  expect(shape(forwarded.json)).toEqual(shape(direct.json))
  const inForm = await post(other.url, '/chatapp/message/doc', form(true))
  expect(inForm.status, JSON.stringify(inForm.json)).toBe(200)
  expect(shape(inForm.json)).toEqual(shape(direct.json))
  // An attachment uploaded with the credentials in the form through the other worker: the owner
  // stored it, and its file comes back byte for byte, with its name and type.
  const f = form(true)
  f.delete('chatId')
  const uploaded = await post(other.url, '/attachment', f)
  expect(uploaded.status, JSON.stringify(uploaded.json)).toBe(200)
  const file = await fetch(`${owner.url}/attachment/${uploaded.json.data._id}/file?${qs}`, { headers: { authorization: `Bearer ${SERVE_TOKEN}` } })
  expect(file.status).toBe(200)
  expect(file.headers.get('content-type')).toContain('application/pdf')
  expect(Buffer.from(await file.arrayBuffer()).equals(pdf)).toBe(true)
  // The relaying worker kept no copy: its temp files went once the owner answered.
  await expect.poll(() => readdir(join(dirOf[own[inst.session_id] === 'a' ? 'b' : 'a']!, 'tmp')), { timeout: 5000 }).toEqual([])
}, 30_000)

it("the web UI's /rpc calls with an instanceId are relayed to the owner too: the same answer, the message once", async () => {
  const own = await owners()
  for (const [n, { inst, qs }] of insts.entries()) {
    const owner = workers[own[inst.session_id]!]!
    const other = workers[own[inst.session_id] === 'a' ? 'b' : 'a']!
    const direct = await call(owner.url, 'POST', '/rpc/messages.sendText', { instanceId: inst._id, chatId: '15550001111', message: `rpc direct ${n}` })
    const forwarded = await call(other.url, 'POST', '/rpc/messages.sendText', { instanceId: inst._id, chatId: '15550001111', message: `rpc forwarded ${n}` })
    expect(direct.status, JSON.stringify(direct.json)).toBe(200)
    expect(forwarded.status, JSON.stringify(forwarded.json)).toBe(200)
    expect(forwarded.json).toEqual(direct.json)
    const read = await call(owner.url, 'GET', `/chatapp/messages?${qs}&chatId=15550001111`)
    expect(read.json.data.filter((m: { text: string }) => m.text === `rpc forwarded ${n}`)).toHaveLength(1)
  }
})

it("the caller's own authentication applies on the owner: an API key limited to one instance is refused on another through either worker", async () => {
  const own = await owners()
  const [first, second] = [insts[0]!, insts[2]!]
  expect(own[first.inst.session_id]).not.toBe(own[second.inst.session_id])
  const made = await serveApi(workers.a!.url, 'POST', '/api-keys', { name: 'first only', scopes: ['messages:send'], instance_ids: [first.inst._id] })
  expect(made.status).toBe(200)
  const key = made.json.data.key as string
  for (const s of [workers.a!, workers.b!]) {
    const ok = await call(s.url, 'POST', `/chatapp/message?${first.qs}`, { chatId: '15550001111', message: 'with the key' }, key)
    expect(ok.status, JSON.stringify(ok.json)).toBe(200)
    const refused = await call(s.url, 'POST', `/chatapp/message?${second.qs}`, { chatId: '15550001111', message: 'not with this key' }, key)
    expect(refused.status).toBe(403)
  }
  // A wrong bearer is refused whichever worker it reaches.
  expect((await call(workers.b!.url, 'POST', `/chatapp/message?${first.qs}`, { chatId: '1', message: 'x' }, 'wrong-token')).status).toBe(401)
})

it('a forged worker signature is refused (401) by the owner and by the other worker; nothing is sent', async () => {
  const own = await owners()
  const { inst, qs } = insts[0]!
  const owner = workers[own[inst.session_id]!]!
  const other = workers[own[inst.session_id] === 'a' ? 'b' : 'a']!
  const forged = { 'x-chatapp-forwarded-by': 'b', 'x-chatapp-forward-ts': String(Date.now()), 'x-chatapp-forward-sig': 'f'.repeat(64) }
  for (const s of [owner, other]) {
    const res = await call(s.url, 'POST', `/chatapp/message?${qs}`, { chatId: '15550001111', message: 'forged' }, SERVE_TOKEN, forged)
    expect(res.status).toBe(401)
    expect(res.json.message).toContain('worker signature')
  }
  const read = await call(owner.url, 'GET', `/chatapp/messages?${qs}&chatId=15550001111`)
  expect(read.json.data.filter((m: { text: string }) => m.text === 'forged')).toHaveLength(0)
})

it('Idempotency-Key across workers: the same send retried 3 times (once through the other worker) sends once and answers the same; another body with the key: 422', async () => {
  const own = await owners()
  const { inst, qs } = insts[1]!
  const owner = workers[own[inst.session_id]!]!
  const other = workers[own[inst.session_id] === 'a' ? 'b' : 'a']!
  const body = { chatId: '15550001111', message: 'exactly once' }
  const key = { 'idempotency-key': 'order-7' }
  const first = await call(owner.url, 'POST', `/chatapp/message?${qs}`, body, SERVE_TOKEN, key)
  expect(first.status).toBe(200)
  for (const s of [owner, other, owner]) {
    const again = await call(s.url, 'POST', `/chatapp/message?${qs}`, body, SERVE_TOKEN, key)
    expect(again.status).toBe(200)
    expect(again.json).toEqual(first.json)
    expect(again.headers.get('idempotent-replayed')).toBe('true')
  }
  const read = await call(owner.url, 'GET', `/chatapp/messages?${qs}&chatId=15550001111`)
  expect(read.json.data.filter((m: { text: string }) => m.text === 'exactly once')).toHaveLength(1)
  const other422 = await call(other.url, 'POST', `/chatapp/message?${qs}`, { ...body, message: 'not this' }, SERVE_TOKEN, key)
  expect(other422.status).toBe(422)
})

it('200 reads through the other worker answer byte for byte as the owner does; the latency each way is printed (npm run bench -- workers measures it)', async () => {
  const own = await owners()
  const { inst, qs } = insts[0]!
  const owner = workers[own[inst.session_id]!]!
  const other = workers[own[inst.session_id] === 'a' ? 'b' : 'a']!
  const measure = async (s: ServeProcess) => {
    const ms: number[] = []
    const bodies = new Set<string>()
    for (let i = 0; i < 200; i++) {
      const t = performance.now()
      const res = await call(s.url, 'GET', `/chatapp/messages?${qs}&chatId=15550001111&limit=5`)
      ms.push(performance.now() - t)
      expect(res.status).toBe(200)
      bodies.add(JSON.stringify(res.json))
    }
    ms.sort((x, y) => x - y)
    return { p50: ms[99]!, p99: ms[197]!, bodies }
  }
  await measure(other) // warm both paths' connections and caches
  const direct = await measure(owner)
  const forwarded = await measure(other)
  console.log(`forwarding latency (200 GET /chatapp/messages): direct p50 ${direct.p50.toFixed(2)} ms p99 ${direct.p99.toFixed(2)} ms; forwarded p50 ${forwarded.p50.toFixed(2)} ms p99 ${forwarded.p99.toFixed(2)} ms`)
  expect(forwarded.p50).toBeGreaterThan(0)
  // Nothing was sent meanwhile: every read, either way, gave the one same answer.
  expect([...forwarded.bodies]).toEqual([...direct.bodies])
  expect(direct.bodies.size).toBe(1)
}, 60_000)

it('a new instance starts on the least-loaded worker, whichever worker is asked: through the busier one its init is forwarded and runs on the other', async () => {
  const loads = async () => Object.fromEntries((await serveApi(workers.a!.url, 'GET', '/cluster')).json.data.workers.map((w: { id: string; instances: number }) => [w.id, w.instances]))
  expect(await loads()).toEqual({ a: 2, b: 2 })
  const made: Instance[] = []
  const started: string[] = []
  for (let n = 0; n < 2; n++) {
    const inst = (await serveApi(workers.a!.url, 'POST', '/chatapp/createNewChatapp', { channel: 'sandbox' })).json.data as Instance
    made.push(inst)
    const init = await serveApi(workers.a!.url, 'POST', '/chatapp/init', { session_id: inst.session_id, access_token: inst.settings.access_token })
    expect(init.status, JSON.stringify(init.json)).toBe(200)
    started.push((await owners())[inst.session_id]!)
  }
  // A tie stays on the worker asked (a: 3); then b has fewer, so the next start asked of a runs on b.
  expect(started).toEqual(['a', 'b'])
  expect(await loads()).toEqual({ a: 3, b: 3 })
  // Deleted through worker a, the one on b too: the delete is relayed to the worker running it.
  for (const inst of made) expect((await serveApi(workers.a!.url, 'DELETE', `/chatapp/${inst._id}`)).status).toBe(200)
  await expect.poll(loads, { timeout: 5000 }).toEqual({ a: 2, b: 2 })
  expect((await serveApi(workers.b!.url, 'GET', '/chatapp')).json.data.map((i: Instance) => i._id)).not.toContain(made[1]!._id)
})

it('an owner that cannot be reached: with Prefer: wait=0, 503 with Retry-After naming it, nothing done; a send without it waits for the take-over and the new owner answers 200', async () => {
  const own = await owners()
  const { qs } = insts.find((i) => own[i.inst.session_id] === 'a')!
  workers.a!.child.kill('SIGKILL')
  await workers.a!.exited
  const down = await call(workers.b!.url, 'POST', `/chatapp/message?${qs}`, { chatId: '15550001111', message: 'while a is down' }, SERVE_TOKEN, { prefer: 'wait=0' })
  expect(down.status).toBe(503)
  expect(down.headers.get('retry-after')).toBe('5')
  expect(down.json.message).toContain('worker a (http://127.0.0.1:')
  // Connection refused: the request never reached a, so the answer can say nothing was done.
  expect(down.json.message).toContain('nothing was done')
  // One request, not retried: it waits while a's lease lapses and b claims the instance and connects
  // it (up to 1.5 lease times and at least 10 s, docs/design.md §22 "Take-over"), then b answers it itself.
  const asked = Date.now()
  const waited = await call(workers.b!.url, 'POST', `/chatapp/message?${qs}`, { chatId: '15550001111', message: 'after the failover' })
  // Said when it fails: what b answered, and after how long (the wait's bound is 10 s here).
  expect(waited.status, `${JSON.stringify(waited.json)} after ${Date.now() - asked} ms`).toBe(200)
  const read = await call(workers.b!.url, 'GET', `/chatapp/messages?${qs}&chatId=15550001111`)
  expect(read.json.data.filter((m: { text: string }) => m.text === 'while a is down')).toHaveLength(0)
  expect(read.json.data.filter((m: { text: string }) => m.text === 'after the failover')).toHaveLength(1)
}, 30_000)
