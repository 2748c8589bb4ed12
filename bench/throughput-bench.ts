/**
 * API throughput (docs/benchmarks.md "API send throughput, webhooks off and on"): `POST /chatapp/message` on a sandbox instance under
 * autocannon at 16 and 64 connections, as a ratio to a minimal Fastify route doing one durable SQLite
 * insert per request (the fair baseline of a durable send: ≥ 0.7×) and to a bare node:http server
 * (not lower than 0.26×, the figure before the SQLite storage), measured in the same run, and the same
 * with the instance's webhook on (`onAnyMessage`) to a receiver that answers at once, as a ratio to the
 * rate with webhooks off (≥ 0.7×, every event delivered).
 *
 * With `CHATAPP_BENCH_RELEASE_DIR` (a built checkout of release 0.1), release 0.1's own `serve` runs
 * in the same rounds too, and the app's rate is given as a ratio of 0.1's (target ≥ 1×).
 *
 * Each server runs in a child process of its own (the product through scripts/serve.mjs, the baseline
 * through bench/throughput-target.ts), so the load generator
 * (autocannon, in this process) and the receiver (a node:http server here too, counting distinct
 * `webhook-id`s) never share its event loop. Each measurement: a fresh server, `WARMUP_S` of load not
 * counted, then `DURATION_S` counted. Rounds alternate bare → the SQLite route → app → app with webhooks so a change in the
 * machine's load hits all three; the tables give the median of the rounds. "Delivered" waits after the
 * load (up to 60 s) until the receiver has one delivery per answered send; "drain s" is that wait.
 *
 * Where the time goes: on the same `app` server, after the send, two cheaper routes under the same
 * load, as ratios to bare too: `GET /health` (Fastify and the app's global hooks, no token) and
 * `GET /intent` on the instance (the bearer and instance checks, validation, the envelope; no write).
 */
import autocannon from 'autocannon'
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'

/** Kept in step with bench/throughput-target.ts (importing it would start a server). */
const READY = 'THROUGHPUT-TARGET-READY '

const DURATION_S = Number(process.env.THROUGHPUT_SECONDS ?? 5)
const WARMUP_S = 1
const ROUNDS = Number(process.env.THROUGHPUT_ROUNDS ?? 3)
const CONNECTIONS = [16, 64]

type Mode = 'bare' | 'fastify-sqlite' | 'sqlite-floor' | 'release-0.1' | 'app' | 'app-webhooks'

/**
 * A built checkout of release 0.1 (`git worktree add ../chatapp-0.1 e7c8529 && cd ../chatapp-0.1 &&
 * npm ci && npm run build`; docs/benchmarks.md "Send throughput on a durable database"), served the same way in the same rounds, so
 * the app's sends/s are compared with 0.1's in one run. Unset: that row is left out.
 */
const RELEASE_DIR = process.env.CHATAPP_BENCH_RELEASE_DIR
type Cell = Mode | 'app-health' | 'app-read'

interface Target {
  url: string
  path: string
  body: string
  /** Bearer token ('' for the bare server). */
  token: string
  /** `session_id` and `access_token` as a query string ('' for the bare server). */
  query: string
  child: ChildProcessWithoutNullStreams
  /** Removes what the server left (its data dir). */
  cleanup(): Promise<void>
}

interface Run {
  rps: number
  p99: number
  ok: number
  errors: number
  /** Deliveries the receiver saw for this run's sends (webhook runs). */
  delivered?: number
  drainS?: number
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b)
  return s[Math.floor(s.length / 2)]!
}

const TOKEN = 'throughput-bench-token-0123456789'
const BODY = JSON.stringify({ chatId: '15550001111', message: 'Your order #1234 is ready for pickup.' })

/** Collects a child's stdout lines until one matches; other lines go to stderr. */
function waitForLine(child: ChildProcessWithoutNullStreams, what: string, match: (line: string) => string | undefined): Promise<string> {
  const lines = createInterface({ input: child.stdout })
  return new Promise<string>((resolve, reject) => {
    lines.on('line', (line) => {
      const found = match(line)
      if (found !== undefined) resolve(found)
    })
    child.once('exit', (code) => reject(new Error(`${what} exited (${code}) before it was ready`)))
  })
}

/**
 * `bare`: the baseline server (./throughput-target.ts). `app` / `app-webhooks`: the product as
 * `npm run serve` starts it (scripts/serve.mjs: the prebuilt bundle, built first when stale), sandbox
 * channel, a fresh data dir on the default temp disk, log level warn; one CONNECTED sandbox instance
 * set up through the API, with the webhook on (`onAnyMessage`) to `receiverUrl` for `app-webhooks`.
 */
async function startTarget(mode: Mode, receiverUrl: string): Promise<Target> {
  if (mode === 'bare' || mode === 'fastify-sqlite' || mode === 'sqlite-floor') {
    const script = fileURLToPath(new URL('./throughput-target.ts', import.meta.url))
    const child = spawn(process.execPath, ['--import', 'tsx', script, mode], { stdio: ['pipe', 'pipe', 'pipe'] })
    child.stderr.on('data', (c: Buffer) => process.stderr.write(c))
    const ready = await waitForLine(child, mode, (line) => (line.startsWith(READY) ? line.slice(READY.length) : undefined))
    return { ...(JSON.parse(ready) as { url: string; path: string; body: string; token: string }), query: '', child, cleanup: async () => {} }
  }
  const dataDir = await mkdtemp(join(tmpdir(), 'chatapp-throughput-'))
  const serveScript = mode === 'release-0.1' ? join(RELEASE_DIR!, 'scripts/serve.mjs') : fileURLToPath(new URL('../scripts/serve.mjs', import.meta.url))
  const child = spawn(process.execPath, [serveScript], {
    stdio: ['pipe', 'pipe', 'pipe'],
    env: { ...process.env, CHATAPP_DATA_DIR: dataDir, CHATAPP_PORT: '0', CHATAPP_CHANNEL: 'sandbox', CHATAPP_LOG_LEVEL: 'warn', CHATAPP_API_TOKEN: TOKEN }
  })
  child.stderr.on('data', (c: Buffer) => process.stderr.write(c))
  const url = await waitForLine(child, 'npm run serve', (line) => /Chatapp API listening on (\S+)/.exec(line)?.[1])
  const api = async (method: string, path: string, payload?: object): Promise<{ data: Record<string, unknown> }> => {
    const res = await fetch(url + path, {
      method,
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
      body: payload ? JSON.stringify(payload) : undefined
    })
    if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`)
    return (await res.json()) as { data: Record<string, unknown> }
  }
  const inst = (await api('POST', '/chatapp/createNewChatapp', {})).data as { session_id: string; settings: { access_token: string } }
  const creds = { session_id: inst.session_id, access_token: inst.settings.access_token }
  const qs = new URLSearchParams(creds).toString()
  await api('POST', '/chatapp/init', { ...creds, config: { multiDevice: true, setWebhook: false } })
  await api('POST', `/chatapp/sandbox/scan?${qs}`)
  if (mode === 'app-webhooks') {
    await api('PUT', '/chatapp/setWebhook', { ...creds, webhook_url: receiverUrl, events: ['onAnyMessage'], requestConfig: {} })
    await api('PUT', '/chatapp/updateActions', { ...creds, send_default_msg: true, reply_group_msgs: true, reply_unread_msgs: true, reply_msgs: true, multi_device: true, send_webhook: true })
  }
  return { url, path: `/chatapp/message?${qs}`, body: BODY, token: TOKEN, query: qs, child, cleanup: () => rm(dataDir, { recursive: true, force: true }) }
}

async function stopTarget(t: Target): Promise<void> {
  const exited = new Promise<void>((resolve) => t.child.once('exit', () => resolve()))
  t.child.kill('SIGTERM')
  await exited
  await t.cleanup()
}

/** `seconds` of load on the target's send, or with `get` on that path (a GET without a body). */
function load(t: Target, connections: number, seconds: number, get?: string): Promise<autocannon.Result> {
  return autocannon({
    url: t.url + (get ?? t.path),
    method: get ? 'GET' : 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${t.token}` },
    body: get ? undefined : t.body,
    connections,
    duration: seconds
  })
}

/** The cheaper routes measured on the `app` server after its send (see the module's docstring). */
const LADDER = [
  { key: 'app-health', name: 'app, GET /health (no token)', path: () => '/health' },
  { key: 'app-read', name: 'app, GET /intent (token, instance)', path: (t: Target) => `/intent?${t.query}` }
] as const

/** A webhook receiver that answers 204 at once and counts distinct webhook-ids. */
function startReceiver(): Promise<{ server: Server; url: string; seen: Set<string> }> {
  const seen = new Set<string>()
  const server = createServer((req, res) => {
    req.resume()
    req.on('end', () => {
      const id = req.headers['webhook-id']
      if (typeof id === 'string') seen.add(id)
      res.writeHead(204).end()
    })
  })
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => resolve({ server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`, seen }))
  )
}

async function waitFor(cond: () => boolean, timeoutMs: number): Promise<boolean> {
  const end = Date.now() + timeoutMs
  while (!cond()) {
    if (Date.now() > end) return false
    await new Promise((r) => setTimeout(r, 20))
  }
  return true
}

/** Runs the benchmark; prints markdown tables. */
export async function runThroughputBench(): Promise<void> {
  const receiver = await startReceiver()
  const results = new Map<string, Run[]>()
  const add = (mode: Cell, connections: number, run: Run) => {
    const key = `${mode}/${connections}`
    results.set(key, [...(results.get(key) ?? []), run])
  }
  try {
    for (let round = 0; round < ROUNDS; round++) {
      for (const connections of CONNECTIONS) {
        for (const mode of ['bare', 'fastify-sqlite', 'sqlite-floor', ...(RELEASE_DIR ? (['release-0.1'] as const) : []), 'app', 'app-webhooks'] as const) {
          const target = await startTarget(mode, receiver.url)
          try {
            const warm = await load(target, connections, WARMUP_S)
            // Deliveries of the warm-up are waited for and not counted.
            if (mode === 'app-webhooks') await waitFor(() => receiver.seen.size >= warm['2xx'], 60_000)
            const before = receiver.seen.size
            const r = await load(target, connections, DURATION_S)
            const ok = r['2xx']
            const run: Run = { rps: r.requests.mean, p99: r.latency.p99, ok, errors: r.non2xx + r.errors + r.timeouts }
            if (mode === 'app-webhooks') {
              const t0 = Date.now()
              await waitFor(() => receiver.seen.size - before >= ok, 60_000)
              run.drainS = (Date.now() - t0) / 1000
              run.delivered = receiver.seen.size - before
            }
            add(mode, connections, run)
            if (mode === 'app') {
              for (const step of LADDER) {
                await load(target, connections, WARMUP_S, step.path(target))
                const l = await load(target, connections, DURATION_S, step.path(target))
                add(step.key, connections, { rps: l.requests.mean, p99: l.latency.p99, ok: l['2xx'], errors: l.non2xx + l.errors + l.timeouts })
              }
            }
          } finally {
            await stopTarget(target)
          }
          receiver.seen.clear()
        }
      }
    }
  } finally {
    receiver.server.close()
  }

  console.log(`${ROUNDS} rounds of ${DURATION_S} s per cell (after ${WARMUP_S} s of warm-up); medians of the rounds.\n`)
  console.log('| server | connections | req/s | p99 ms | errors | ratio | target |')
  console.log('| --- | ---: | ---: | ---: | ---: | ---: | --- |')
  for (const connections of CONNECTIONS) {
    const get = (mode: Cell) => results.get(`${mode}/${connections}`) ?? []
    const bare = median(get('bare').map((r) => r.rps))
    const sqlite = median(get('fastify-sqlite').map((r) => r.rps))
    const app = median(get('app').map((r) => r.rps))
    const hooks = median(get('app-webhooks').map((r) => r.rps))
    const row = (name: string, runs: Run[], ratio: string, target: string) =>
      console.log(`| ${name} | ${connections} | ${median(runs.map((r) => r.rps)).toFixed(0)} | ${median(runs.map((r) => r.p99)).toFixed(1)} | ${runs.reduce((n, r) => n + r.errors, 0)} | ${ratio} | ${target} |`)
    row('bare node:http', get('bare'), '1', '')
    row('Fastify route, one durable SQLite insert per request', get('fastify-sqlite'), `${(sqlite / bare).toFixed(2)}× bare`, '')
    const floor = median(get('sqlite-floor').map((r) => r.rps))
    row('the storage contract\'s floor: a send\'s writes, prepared statements, group commit, one thread', get('sqlite-floor'), `${(floor / bare).toFixed(2)}× bare${RELEASE_DIR ? `, ${(floor / median(get('release-0.1').map((r) => r.rps))).toFixed(2)}× release 0.1` : ''}`, '')
    const release = median(get('release-0.1').map((r) => r.rps))
    if (RELEASE_DIR) row('release 0.1 (its own serve, same rounds)', get('release-0.1'), `${(release / bare).toFixed(2)}× bare`, '')
    row('app, webhooks off', get('app'), `${(app / sqlite).toFixed(2)}× the SQLite route, ${(app / floor).toFixed(2)}× the floor, ${(app / bare).toFixed(2)}× bare${RELEASE_DIR ? `, ${(app / release).toFixed(2)}× release 0.1` : ''}`, RELEASE_DIR ? '≥ 1× release 0.1' : '≥ 0.7× the SQLite route')
    row('app, webhooks on', get('app-webhooks'), `${(hooks / app).toFixed(2)}× off`, '≥ 0.7× off')
  }
  console.log('\nWhere the time goes: cheaper routes on the same server under the same load.\n')
  console.log('| route | connections | req/s | p99 ms | errors | ratio to bare |')
  console.log('| --- | ---: | ---: | ---: | ---: | ---: |')
  for (const connections of CONNECTIONS) {
    const get = (mode: Cell) => results.get(`${mode}/${connections}`) ?? []
    const bare = median(get('bare').map((r) => r.rps))
    for (const [name, cell] of [['bare node:http', 'bare'], ...LADDER.map((l) => [l.name, l.key]), ['app, POST /chatapp/message', 'app']] as Array<[string, Cell]>) {
      const runs = get(cell)
      const rps = median(runs.map((r) => r.rps))
      console.log(`| ${name} | ${connections} | ${rps.toFixed(0)} | ${median(runs.map((r) => r.p99)).toFixed(1)} | ${runs.reduce((n, r) => n + r.errors, 0)} | ${(rps / bare).toFixed(2)} |`)
    }
  }
  console.log('\n| connections | round | sends answered 200 | deliveries received | drain s |')
  console.log('| ---: | ---: | ---: | ---: | ---: |')
  for (const connections of CONNECTIONS) {
    ;(results.get(`app-webhooks/${connections}`) ?? []).forEach((r, i) =>
      console.log(`| ${connections} | ${i + 1} | ${r.ok} | ${r.delivered} | ${r.drainS?.toFixed(2)} |`)
    )
  }
}
