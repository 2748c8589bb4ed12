/**
 * Webhook deliveries per second to a loopback receiver (docs/design.md §20: the outbox moved from
 * `webhook-outbox.jsonl` into the `webhook_deliveries` table).
 *
 * The webhook service as the core runs it, without the HTTP API in front: `SENDERS` loops each emit
 * durable `message` events (an API send's `onAnyMessage`) one after the other, as sending clients do
 * (each waits until its delivery is stored, as a send's answer does), `EVENTS` in all; the dispatcher
 * sends them over undici's keep-alive agent to a node:http receiver that answers 204 at once. The
 * receiver runs in a child process of its own (so it never shares the service's event loop) and
 * reports when it has seen every distinct `webhook-id`.
 *
 * Per round, on a fresh data dir:
 * - live: "queued/s" = EVENTS / time until every emit resolved (stored); "delivered/s" = EVENTS / time
 *   until the receiver had them all (the senders' rate bounds it: each waits for its commit);
 * - backlog: EVENTS queued while the receiver is down (each attempt refused, retry pending), the
 *   service closed, the receiver started, then a new service on the same data dir (its clock a minute
 *   ahead, so every retry is due): "resumed/s" = EVENTS / time from opening the service until the
 *   receiver had them all: the dispatcher's own rate (sends and outcome writes), loading included.
 *
 * With each, the CPU time of this process (the service; the receiver runs apart) per delivery, which
 * a busy machine moves less than the rates. The medians of `ROUNDS` rounds.
 *
 *   node --import tsx bench/webhook-bench.ts        (WEBHOOK_BENCH_EVENTS, _SENDERS, _ROUNDS)
 *
 * The same file runs against the JSONL outbox of earlier commits (it passes `outboxFile` too, which
 * the table-backed service ignores), to measure before and after on one machine.
 */
import { spawn } from 'node:child_process'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createServer } from 'node:net'
import { createInterface } from 'node:readline'
import { CoreEventBus } from '../src/main/events'
import { silentLogger } from '../src/main/logger'
import { WebhookService } from '../src/main/webhooks/webhook-service'
import type { Instance, LoggedMessage } from '../src/shared/schemas/records'

const EVENTS = Number(process.env.WEBHOOK_BENCH_EVENTS ?? 20_000)
const SENDERS = Number(process.env.WEBHOOK_BENCH_SENDERS ?? 16)
const ROUNDS = Number(process.env.WEBHOOK_BENCH_ROUNDS ?? 5)

/** The receiver: counts distinct webhook-ids, prints DONE once it has `n` of them. */
const RECEIVER = `
const http = require('node:http')
const n = Number(process.argv[1])
const seen = new Set()
const port = Number(process.argv[2] ?? 0)
const server = http.createServer((req, res) => {
  req.resume()
  req.on('end', () => {
    res.writeHead(204).end()
    seen.add(req.headers['webhook-id'])
    if (seen.size === n) console.log('DONE')
  })
})
server.keepAliveTimeout = 60000
server.listen(port, '127.0.0.1', () => console.log('PORT ' + server.address().port))
`

function startReceiver(n: number, port = 0): Promise<{ port: number; done: Promise<void>; stop(): void }> {
  const child = spawn(process.execPath, ['-e', RECEIVER, String(n), String(port)], { stdio: ['ignore', 'pipe', 'inherit'] })
  const lines = createInterface({ input: child.stdout })
  let doneResolve!: () => void
  const done = new Promise<void>((r) => (doneResolve = r))
  return new Promise((resolve, reject) => {
    lines.on('line', (line) => {
      if (line.startsWith('PORT ')) resolve({ port: Number(line.slice(5)), done, stop: () => child.kill() })
      else if (line === 'DONE') doneResolve()
    })
    child.once('exit', (code) => reject(new Error(`receiver exited (${code})`)))
  })
}

function instance(url: string): Instance {
  return {
    _id: 'bench-instance',
    session_id: 'bench-session',
    settings: {
      actions: { send_webhook: true },
      webhook: { url, secret: `whsec_${Buffer.alloc(32, 7).toString('base64')}`, events: ['onAnyMessage'], requestConfig: { headers: {} } }
    }
  } as unknown as Instance
}

function message(i: number): LoggedMessage {
  return {
    id: `BENCH${String(i).padStart(12, '0')}`,
    chatId: '15550001111@s.whatsapp.net',
    fromMe: true,
    pushName: null,
    type: 'text',
    text: 'Your order #1234 is ready for pickup.',
    timestamp: Date.now(),
    status: 'SERVER_ACK',
    source: 'api'
  } as unknown as LoggedMessage
}

/** Opens what the service is built on: the database's delivery repository where this tree has one. */
async function openDeliveries(dir: string): Promise<{ deliveries?: unknown; close(): Promise<void> }> {
  const repoModule = '../src/main/store/repos/webhook-delivery-repo'
  let mod: { WebhookDeliveryRepo: new (x: unknown) => unknown } | null = null
  try {
    mod = await import(repoModule)
  } catch {
    return { close: async () => {} }
  }
  const { openDatabase } = await import('../src/main/store/db/database')
  const database = await openDatabase(join(dir, 'chatapp.db'))
  return { deliveries: new mod!.WebhookDeliveryRepo({ db: database.db, write: (w: never) => database.write(w) }), close: () => database.close() }
}

/** A loopback port nothing listens on (yet). */
function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number }
      server.close(() => resolve(port))
    })
  })
}

/** The webhook service on `dir` for one instance sending to `url`; `aheadMs` moves its clock. */
async function openService(dir: string, url: string, aheadMs = 0) {
  const store = await openDeliveries(dir)
  const inst = instance(url)
  const events = new CoreEventBus()
  const instances = { all: () => [inst], find: (id: string) => (id === inst._id ? inst : undefined), update: async () => inst }
  const clock = { now: () => Date.now() + aheadMs, setTimeout: (fn: () => void, ms: number) => setTimeout(fn, ms).unref(), clearTimeout: (h: unknown) => clearTimeout(h as NodeJS.Timeout) }
  const service = await WebhookService.open({
    instances,
    outboxFile: join(dir, 'webhook-outbox.jsonl'),
    deliveries: store.deliveries,
    events,
    logger: silentLogger(),
    clock
  } as never)
  await service.start()
  let recorded = 0
  let allAttempted!: () => void
  const attempted = new Promise<void>((r) => (allAttempted = r))
  events.on('delivery', () => {
    if (++recorded === EVENTS) allAttempted()
  })
  return {
    service,
    /** Resolves once EVENTS attempt outcomes were recorded. */
    attempted,
    /** Emits EVENTS durable message events from SENDERS loops; resolves once all are stored. */
    async send() {
      let next = 0
      await Promise.all(
        Array.from({ length: SENDERS }, async () => {
          while (next < EVENTS) await events.emitDurable('message', { instanceId: inst._id, message: message(next++) })
        })
      )
    },
    async close() {
      await service.close()
      await store.close()
    }
  }
}

/** CPU time of this process so far, µs. */
function cpuNow(): number {
  const u = process.cpuUsage()
  return u.user + u.system
}

async function live(): Promise<{ queued: number; delivered: number; liveCpu: number }> {
  const dir = await mkdtemp(join(tmpdir(), 'chatapp-webhook-bench-'))
  const rx = await startReceiver(EVENTS)
  const app = await openService(dir, `http://127.0.0.1:${rx.port}/hook`)
  try {
    const [t0, c0] = [performance.now(), cpuNow()]
    await app.send()
    const queuedMs = performance.now() - t0
    await rx.done
    const deliveredMs = performance.now() - t0
    return { queued: (EVENTS / queuedMs) * 1000, delivered: (EVENTS / deliveredMs) * 1000, liveCpu: (cpuNow() - c0) / EVENTS }
  } finally {
    await app.close()
    rx.stop()
    await rm(dir, { recursive: true, force: true })
  }
}

async function backlog(): Promise<{ resumed: number; resumeCpu: number }> {
  const dir = await mkdtemp(join(tmpdir(), 'chatapp-webhook-bench-'))
  const port = await freePort()
  const url = `http://127.0.0.1:${port}/hook`
  const down = await openService(dir, url)
  await down.send()
  // Every delivery has had its refused attempt recorded (pending, a retry due in about a second).
  await down.attempted
  await down.close()
  const rx = await startReceiver(EVENTS, port)
  try {
    const [t0, c0] = [performance.now(), cpuNow()]
    const up = await openService(dir, url, 60_000)
    await rx.done
    const ms = performance.now() - t0
    const cpu = (cpuNow() - c0) / EVENTS
    await up.close()
    return { resumed: (EVENTS / ms) * 1000, resumeCpu: cpu }
  } finally {
    rx.stop()
    await rm(dir, { recursive: true, force: true })
  }
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!

type Round = { queued: number; delivered: number; liveCpu: number; resumed: number; resumeCpu: number }
const runs: Round[] = []
for (let i = 0; i < ROUNDS; i++) {
  const r: Round = { ...(await live()), ...(await backlog()) }
  runs.push(r)
  console.log(
    `round ${i + 1}: live queued ${r.queued.toFixed(0)}/s, delivered ${r.delivered.toFixed(0)}/s (${r.liveCpu.toFixed(0)} µs CPU each); ` +
      `backlog resumed ${r.resumed.toFixed(0)}/s (${r.resumeCpu.toFixed(0)} µs CPU each)`
  )
}
const m = (k: keyof Round) => median(runs.map((r) => r[k])).toFixed(0)
console.log(
  `\n${EVENTS} events, ${SENDERS} senders, ${ROUNDS} rounds, medians: live queued ${m('queued')}/s, delivered ${m('delivered')}/s, ${m('liveCpu')} µs CPU per delivery; ` +
    `backlog resumed ${m('resumed')}/s, ${m('resumeCpu')} µs CPU per delivery`
)
