/**
 * Benchmarks of the REAL Baileys channel (unmodified library, real websockets and Signal encryption)
 * against the local WhatsApp protocol test server (test/support/wa-server). Run: `npm run bench`, or
 * alone `node --max-semi-space-size=4 --expose-gc --import tsx bench/wa-bench.ts` (the main thread's heap flags of scripts/heap-flags.mjs, as the product runs).
 *
 * Processes. The test server runs in a CHILD process (`test/support/wa-server/cli.ts`, driven over its
 * HTTP control API, control.ts), so its fake phones, contacts and their Signal state never count in
 * the app's memory; the app (`startApp`: core + HTTP API on 127.0.0.1, port 0, as `npm run serve`
 * builds it from `CHATAPP_*` variables) runs in THIS process, so its memory is
 * `process.memoryUsage()` read right after `gc()` (twice). The client side of the driver (fetch) is
 * warmed up before the baseline; the QR text is read from the session (`latestQr`) rather than by
 * decoding the PNG of `/chatapp/scan`, which would load sharp and jsQR into the measured process.
 *
 * 1. Memory per connected instance. Baseline: app started, no instance, idle. Then instances are
 *    added until 1, 10 and 50 exist: each is created (`POST /chatapp/createNewChatapp`, channel
 *    baileys), started (`POST /chatapp/init`), paired with its own account on the server (QR → the
 *    fake phone scans → 515 restart → login) and CONNECTED; pairing runs in parallel batches of
 *    `pairBatch`. After `idleMs` idle, RSS and heapUsed are read. Reported: totals, deltas from the
 *    baseline, delta / N, and the marginal cost per instance since the previous row (which leaves
 *    out one-time costs such as code loaded by the first socket). MB = 2^20 bytes.
 * 2. Reply latency (a fresh app and data dir, one instance): an intent `ping` → `pong`; the send
 *    queue's pacing is 0 (`CHATAPP_SEND_INTERVAL_MS=0`, `CHATAPP_SEND_JITTER_MS=0`) and so is the
 *    "typing…" pause of bot replies (`composingMs: 0`; the product's default is 1,000 ms, added to
 *    every bot reply on purpose). The server times each round itself (`POST …/roundtrip`): from the
 *    contact's encrypted message leaving the server to the bot's reply decrypted by the contact, so
 *    it covers decrypt, inbound pipeline, matching, the send queue, encrypt and both websocket hops.
 *    `warmup` rounds first (not reported), then `roundtrips` rounds one after another. Milliseconds.
 * 3. Send throughput (same instance, pacing 0): `sends` texts to one contact through
 *    `POST /chatapp/message` over HTTP from `concurrency` workers, each awaiting its answer before
 *    its next send. Reported: messages/s as answered by the API (all 200), and messages/s until the
 *    contact decrypted the last one (server long poll `POST …/wait`); both from the first request.
 *    Checks: every message arrived exactly once with the id the API answered, and each worker's
 *    messages arrived in the order that worker sent them (the send queue promises queue order; the
 *    relative order of requests in flight at once is the HTTP server's, not a promise).
 *
 * Numbers depend on the machine and its load; this only reports, nothing is asserted. Failures stop
 * the run with the step that timed out; `WA_BENCH_LOG_LEVEL=warn` shows the app's log and
 * `WA_TEST_DEBUG=1` the server's stanzas (stderr).
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process'
import { rmSync } from 'node:fs'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'
import { startApp, type RunningApp } from '../src/main/app'
import { readServeConfig } from '../src/main/config'

export interface WaBenchOptions {
  /** Instance counts at which memory is read (ascending; instances are added up to each). */
  sizes?: number[]
  /** Instances paired at once. */
  pairBatch?: number
  /** Idle time before each memory reading (ms). */
  idleMs?: number
  warmup?: number
  roundtrips?: number
  sends?: number
  concurrency?: number
  /** Print the tables to stdout (default true). */
  print?: boolean
}

export interface MemoryRow {
  instances: number
  rssMb: number
  heapMb: number
  rssDeltaMb: number
  heapDeltaMb: number
  rssPerInstanceMb: number
  heapPerInstanceMb: number
  /** (this row − previous row) / added instances; the baseline for the first row. */
  rssMarginalMb: number
  heapMarginalMb: number
  /** Wall time to create, pair and connect the instances added for this row (s). */
  pairSeconds: number
}

export interface LatencyResult {
  rounds: number
  warmup: number
  minMs: number
  medianMs: number
  meanMs: number
  p99Ms: number
  maxMs: number
}

export interface ThroughputResult {
  sends: number
  concurrency: number
  apiSeconds: number
  wireSeconds: number
  apiPerSecond: number
  wirePerSecond: number
  allArrived: boolean
  duplicates: number
  inWorkerOrder: boolean
}

export interface WaBenchResult {
  baseline: { rssMb: number; heapMb: number }
  memory: MemoryRow[]
  latency: LatencyResult
  throughput: ThroughputResult
}

const MB = 1024 * 1024
const REPO = fileURLToPath(new URL('..', import.meta.url))
const SERVER_CLI = fileURLToPath(new URL('../test/support/wa-server/cli.ts', import.meta.url))
const TOKEN = 'wa-bench-token-0123456789'

/** Data dirs not removed yet: an interrupted run (SIGINT, a throw past the finally) removes them on exit. */
const liveDirs = new Set<string>()
process.on('exit', () => {
  for (const dir of liveDirs) rmSync(dir, { recursive: true, force: true })
})

/** `gc()`: the flag's global when run with --expose-gc, else the same function enabled at run time. */
function getGc(): () => void {
  const exposed = (globalThis as { gc?: () => void }).gc
  if (exposed) return exposed
  setFlagsFromString('--expose-gc')
  return runInNewContext('gc') as () => void
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))

/** Polls `check` until it answers a value (not undefined); throws `what` after `timeoutMs`. */
async function waitFor<T>(what: string, timeoutMs: number, check: () => T | undefined): Promise<T> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const value = check()
    if (value !== undefined) return value
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`)
    await sleep(20)
  }
}

/** JSON over HTTP with a timeout; throws with the status and body on anything but 2xx. */
async function call(method: string, url: string, body?: unknown, timeoutMs = 15_000): Promise<any> {
  let res: Response
  try {
    res = await fetch(url, {
      method,
      headers: { authorization: `Bearer ${TOKEN}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      signal: AbortSignal.timeout(timeoutMs)
    })
  } catch (err) {
    throw new Error(`${method} ${url}: ${err instanceof Error ? err.message : String(err)}`)
  }
  const text = await res.text()
  if (!res.ok) throw new Error(`${method} ${url} → ${res.status}: ${text.slice(0, 300)}`)
  return text ? JSON.parse(text) : undefined
}

interface TestServer {
  httpUrl: string
  url: string
  rootKey: string
  control(method: string, path: string, body?: unknown, timeoutMs?: number): Promise<any>
  stop(): Promise<void>
}

/** Spawns `npm run wa-test-server`'s script in a child; it also exits when our end of its stdin closes. */
async function startServerChild(): Promise<TestServer> {
  const child: ChildProcessWithoutNullStreams = spawn(process.execPath, ['--import', 'tsx', SERVER_CLI], {
    cwd: REPO,
    env: { ...process.env, WA_TEST_EXIT_ON_STDIN_END: '1', WA_TEST_DEBUG: process.env.WA_TEST_DEBUG ?? '' },
    stdio: ['pipe', 'pipe', 'pipe']
  })
  // A sync kill on exit: no await is possible there, and the stdin pipe covers a SIGKILL of ours.
  const killOnExit = () => void child.kill('SIGKILL')
  process.once('exit', killOnExit)
  if (process.env.WA_TEST_DEBUG === '1') child.stdout.on('data', (d: Buffer) => process.stderr.write(d))
  let stderr = ''
  child.stderr.on('data', (d: Buffer) => void (stderr = (stderr + String(d)).slice(-4000)))
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)))
  const ready = new Promise<{ url: string; httpUrl: string; rootKey: string }>((resolve, reject) => {
    let out = ''
    const timer = setTimeout(() => reject(new Error(`the test server did not start within 30 s; stderr:\n${stderr}`)), 30_000)
    child.stdout.on('data', (d: Buffer) => {
      out += String(d)
      const nl = out.indexOf('\n')
      if (nl < 0) return
      clearTimeout(timer)
      try {
        resolve(JSON.parse(out.slice(0, nl)))
      } catch {
        reject(new Error(`unexpected first line from the test server: ${out.slice(0, nl)}`))
      }
    })
    void exited.then((code) => {
      clearTimeout(timer)
      reject(new Error(`the test server exited (${code}) before it was ready; stderr:\n${stderr}`))
    })
  })
  let first: Awaited<typeof ready>
  try {
    first = await ready
  } catch (err) {
    // Its pipes would keep this process alive.
    child.kill('SIGKILL')
    process.removeListener('exit', killOnExit)
    throw err
  }
  return {
    ...first,
    control: (method, path, body, timeoutMs) => call(method, `${first.httpUrl}/control${path}`, body, timeoutMs),
    async stop() {
      process.removeListener('exit', killOnExit)
      if (child.exitCode !== null) return
      child.kill('SIGTERM')
      const timer = setTimeout(() => child.kill('SIGKILL'), 3000)
      await exited
      clearTimeout(timer)
    }
  }
}

interface BenchApp {
  app: RunningApp
  dir: string
  api(method: string, path: string, body?: unknown, timeoutMs?: number): Promise<any>
  close(): Promise<void>
}

/** The app as `npm run serve` builds it from the environment, on a temp data dir, port 0. */
async function startBenchApp(server: TestServer): Promise<BenchApp> {
  const dir = await mkdtemp(join(tmpdir(), 'chatapp-wa-bench-'))
  liveDirs.add(dir)
  try {
    const config = readServeConfig({
      CHATAPP_CHANNEL: 'baileys',
      CHATAPP_WA_WS_URL: server.url,
      CHATAPP_WA_ROOT_KEY: server.rootKey,
      CHATAPP_SEND_INTERVAL_MS: '0',
      CHATAPP_SEND_JITTER_MS: '0',
      CHATAPP_DATA_DIR: dir,
      CHATAPP_PORT: '0',
      CHATAPP_API_TOKEN: TOKEN,
      // The library logs every pairing's normal 515 restart as an error; the bench checks outcomes
      // itself. WA_BENCH_LOG_LEVEL=warn shows the app's log (stderr) when something fails.
      CHATAPP_LOG_LEVEL: process.env.WA_BENCH_LOG_LEVEL || 'fatal'
    })
    const app = await startApp(config, { baileys: { composingMs: 0 } })
    return {
      app,
      dir,
      api: (method, path, body, timeoutMs) => call(method, `${app.url}${path}`, body, timeoutMs),
      async close() {
        await app.close()
        await rm(dir, { recursive: true, force: true })
        liveDirs.delete(dir)
      }
    }
  } catch (err) {
    await rm(dir, { recursive: true, force: true })
    liveDirs.delete(dir)
    throw err
  }
}

interface Linked {
  id: string
  creds: { session_id: string; access_token: string }
  qs: string
  account: string
}

/** Create → init → QR → a new account's phone scans → CONNECTED, all through the two HTTP APIs. */
async function linkInstance(b: BenchApp, server: TestServer): Promise<Linked> {
  const inst = (await b.api('POST', '/chatapp/createNewChatapp', { channel: 'baileys' })).data
  const creds = { session_id: inst.session_id as string, access_token: inst.settings.access_token as string }
  const qs = `session_id=${encodeURIComponent(creds.session_id)}&access_token=${encodeURIComponent(creds.access_token)}`
  await b.api('POST', '/chatapp/init', creds)
  const id = inst._id as string
  let qr = await waitFor(`the QR of instance ${id}`, 20_000, () => b.app.core.sessions.latestQr(id) || undefined)
  const phone = await server.control('POST', '/phones', {})
  try {
    await server.control('POST', `/phones/${phone.number}/scan`, { qr })
  } catch (err) {
    // The server retired the first QR's secret (companion_reg_refresh, 409): scan the refreshed QR.
    if (!/→ 409/.test(String(err))) throw err
    const refused = qr
    qr = await waitFor(`the refreshed QR of instance ${id}`, 20_000, () => {
      const shown = b.app.core.sessions.latestQr(id)
      return shown && shown !== refused ? shown : undefined
    })
    await server.control('POST', `/phones/${phone.number}/scan`, { qr })
  }
  await waitFor(`instance ${id} to be CONNECTED`, 20_000, () => (b.app.core.instances.get(id).settings.status === 'CONNECTED' ? true : undefined))
  return { id, creds, qs, account: phone.number as string }
}

function readMemory(gc: () => void): { rss: number; heap: number } {
  // Twice: the first pass may only queue finalizers whose objects the second frees.
  gc()
  gc()
  const m = process.memoryUsage()
  return { rss: m.rss, heap: m.heapUsed }
}

async function memoryBench(server: TestServer, gc: () => void, sizes: number[], pairBatch: number, idleMs: number): Promise<Pick<WaBenchResult, 'baseline' | 'memory'>> {
  const b = await startBenchApp(server)
  try {
    // Warm the driver's HTTP client and both servers' first-request paths before the baseline.
    await server.control('GET', '')
    await b.api('GET', '/chatapp')
    await sleep(idleMs)
    const base = readMemory(gc)
    const rows: MemoryRow[] = []
    const linked: Linked[] = []
    let prev = base
    let prevN = 0
    for (const n of sizes) {
      const t0 = performance.now()
      while (linked.length < n) {
        const batch = Math.min(pairBatch, n - linked.length)
        linked.push(...(await Promise.all(Array.from({ length: batch }, () => linkInstance(b, server)))))
      }
      const pairSeconds = (performance.now() - t0) / 1000
      await sleep(idleMs)
      const connected = b.app.core.instances.list().filter((i) => i.settings.status === 'CONNECTED').length
      if (connected !== n) throw new Error(`${connected} of ${n} instances are CONNECTED after the idle time`)
      const m = readMemory(gc)
      rows.push({
        instances: n,
        rssMb: m.rss / MB,
        heapMb: m.heap / MB,
        rssDeltaMb: (m.rss - base.rss) / MB,
        heapDeltaMb: (m.heap - base.heap) / MB,
        rssPerInstanceMb: (m.rss - base.rss) / MB / n,
        heapPerInstanceMb: (m.heap - base.heap) / MB / n,
        rssMarginalMb: (m.rss - prev.rss) / MB / (n - prevN),
        heapMarginalMb: (m.heap - prev.heap) / MB / (n - prevN),
        pairSeconds
      })
      prev = m
      prevN = n
    }
    return { baseline: { rssMb: base.rss / MB, heapMb: base.heap / MB }, memory: rows }
  } finally {
    await b.close()
  }
}

const quantile = (sorted: number[], q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!

async function latencyBench(b: BenchApp, server: TestServer, inst: Linked, warmup: number, rounds: number): Promise<LatencyResult> {
  await b.api('POST', '/intent', { ...inst.creds, title: 'Ping', keyword: 'ping', reply: 'pong' })
  const contact = '15557770001'
  const roundtrip = async (count: number): Promise<number[]> => {
    const res = await server.control('POST', `/contacts/${contact}/roundtrip`, { text: 'ping', to: inst.account, count, timeoutMs: 5000 }, 10_000 + count * 5000)
    return res.durationsMs as number[]
  }
  // The first round builds the Signal sessions both ways (pre-key messages, usync, key fetch).
  await roundtrip(warmup)
  const d = (await roundtrip(rounds)).sort((x, y) => x - y)
  const replies = (await server.control('GET', `/contacts/${contact}/messages`)).messages as Array<{ text: string | null }>
  if (replies.length !== warmup + rounds || replies.some((m) => m.text !== 'pong')) {
    throw new Error(`expected ${warmup + rounds} "pong" replies, the contact has ${replies.length}`)
  }
  return {
    rounds: d.length,
    warmup,
    minMs: d[0]!,
    medianMs: quantile(d, 0.5),
    meanMs: d.reduce((s, x) => s + x, 0) / d.length,
    p99Ms: quantile(d, 0.99),
    maxMs: d[d.length - 1]!
  }
}

async function throughputBench(b: BenchApp, server: TestServer, inst: Linked, sends: number, concurrency: number): Promise<ThroughputResult> {
  const contact = '15557770002'
  const send = async (message: string): Promise<string> => {
    const res = await b.api('POST', `/chatapp/message?${inst.qs}`, { ...inst.creds, chatId: contact, message })
    const id = res?.data?.message?.key?.id
    if (typeof id !== 'string') throw new Error(`POST /chatapp/message answered no message id: ${JSON.stringify(res).slice(0, 300)}`)
    return id
  }
  // The server knows a contact (answers its devices and keys) once it was named over the control API.
  await server.control('GET', `/contacts/${contact}/messages`)
  // Warm-up: the first send to a contact fetches its devices and pre-keys; not part of the rate.
  await send('warm-up')
  await server.control('POST', `/contacts/${contact}/wait`, { count: 1, timeoutMs: 10_000 }, 15_000)

  const ids: string[][] = Array.from({ length: concurrency }, () => [])
  let next = 0
  const t0 = performance.now()
  const waitAll = server.control('POST', `/contacts/${contact}/wait`, { count: 1 + sends, timeoutMs: 120_000 }, 130_000)
  // Catches here so a failed send does not leave the long poll's rejection unhandled; rethrown below.
  const wire = waitAll.then(() => performance.now() - t0)
  wire.catch(() => undefined)
  await Promise.all(
    ids.map(async (mine, w) => {
      while (next < sends) {
        const k = next++
        mine.push(await send(`bench ${w} ${k}`))
      }
    })
  )
  const apiMs = performance.now() - t0
  const wireMs = await wire

  const got = ((await server.control('GET', `/contacts/${contact}/messages`)).messages as Array<{ id: string }>).slice(1).map((m) => m.id)
  const position = new Map<string, number>()
  got.forEach((id, i) => position.set(id, i))
  const sent = ids.flat()
  const allArrived = got.length === sends && sent.every((id) => position.has(id))
  const inWorkerOrder = ids.every((mine) => mine.every((id, i) => i === 0 || (position.get(id) ?? -1) > (position.get(mine[i - 1]!) ?? -1)))
  return {
    sends,
    concurrency,
    apiSeconds: apiMs / 1000,
    wireSeconds: wireMs / 1000,
    apiPerSecond: sends / (apiMs / 1000),
    wirePerSecond: sends / (wireMs / 1000),
    allArrived,
    duplicates: got.length - position.size,
    inWorkerOrder
  }
}

/** Runs the three benchmarks; prints the tables unless `print: false`. */
export async function runWaBench(options: WaBenchOptions = {}): Promise<WaBenchResult> {
  const sizes = options.sizes ?? [1, 10, 50]
  const gc = getGc()
  const server = await startServerChild()
  const onSignal = (signal: NodeJS.Signals) => {
    // process.exit runs the exit handlers: the child is killed and the temp data dirs removed.
    console.error(`wa-bench: ${signal}, stopping`)
    process.exit(130)
  }
  process.once('SIGINT', onSignal)
  process.once('SIGTERM', onSignal)
  try {
    const memory = await memoryBench(server, gc, sizes, options.pairBatch ?? 10, options.idleMs ?? 1500)
    if (options.print !== false) printMemory(memory)
    const b = await startBenchApp(server)
    try {
      const inst = await linkInstance(b, server)
      const latency = await latencyBench(b, server, inst, options.warmup ?? 50, options.roundtrips ?? 1000)
      if (options.print !== false) printLatency(latency)
      const throughput = await throughputBench(b, server, inst, options.sends ?? 1000, options.concurrency ?? 16)
      if (options.print !== false) printThroughput(throughput)
      return { ...memory, latency, throughput }
    } finally {
      await b.close()
    }
  } finally {
    process.removeListener('SIGINT', onSignal)
    process.removeListener('SIGTERM', onSignal)
    await server.stop()
  }
}

const f1 = (x: number) => x.toFixed(1)
const f2 = (x: number) => x.toFixed(2)

function printMemory({ baseline, memory }: Pick<WaBenchResult, 'baseline' | 'memory'>): void {
  console.log('\n### Memory per connected instance (app process; MB = 2^20 bytes)\n')
  console.log(`baseline (app started, no instance): RSS ${f1(baseline.rssMb)} MB, heapUsed ${f1(baseline.heapMb)} MB; readings after gc(), instances CONNECTED and idle`)
  console.log(
    [
      '| instances | RSS | heapUsed | Δ RSS | Δ heap | Δ RSS / instance | Δ heap / instance | marginal RSS / instance | marginal heap / instance | pairing s |',
      '| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
      ...memory.map(
        (r) =>
          `| ${r.instances} | ${f1(r.rssMb)} | ${f1(r.heapMb)} | ${f1(r.rssDeltaMb)} | ${f1(r.heapDeltaMb)} | ${f2(r.rssPerInstanceMb)} | ${f2(r.heapPerInstanceMb)} | ` +
          `${f2(r.rssMarginalMb)} | ${f2(r.heapMarginalMb)} | ${f1(r.pairSeconds)} |`
      )
    ].join('\n')
  )
}

function printLatency(r: LatencyResult): void {
  console.log('\n### Bot reply latency on the wire (ms)\n')
  console.log(
    `contact's "ping" leaving the server → the intent's "pong" decrypted by the contact, ${r.rounds} rounds one at a time after ${r.warmup} warm-up; send pacing 0, composing pause 0`
  )
  console.log(
    [
      '| rounds | min | median | mean | p99 | max |',
      '| ---: | ---: | ---: | ---: | ---: | ---: |',
      `| ${r.rounds} | ${f2(r.minMs)} | ${f2(r.medianMs)} | ${f2(r.meanMs)} | ${f2(r.p99Ms)} | ${f2(r.maxMs)} |`
    ].join('\n')
  )
}

function printThroughput(r: ThroughputResult): void {
  console.log('\n### Send throughput through the API (one instance, send pacing 0)\n')
  console.log(`${r.sends} texts to one contact via POST /chatapp/message, ${r.concurrency} concurrent clients`)
  console.log(
    [
      '| messages | concurrency | API s | API msg/s | delivered s | delivered msg/s | all arrived once | in order per client |',
      '| ---: | ---: | ---: | ---: | ---: | ---: | :---: | :---: |',
      `| ${r.sends} | ${r.concurrency} | ${f2(r.apiSeconds)} | ${f1(r.apiPerSecond)} | ${f2(r.wireSeconds)} | ${f1(r.wirePerSecond)} | ` +
        `${r.allArrived && r.duplicates === 0 ? 'yes' : `NO (${r.duplicates} duplicates)`} | ${r.inWorkerOrder ? 'yes' : 'NO'} |`
    ].join('\n')
  )
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  runWaBench().catch((err) => {
    console.error(err)
    process.exitCode = 1
  })
}
