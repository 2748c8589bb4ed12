/**
 * Workers on one PostgreSQL database (docs/design.md §22), on a PostgreSQL server of the
 * bench's own (started like the tests' one: test/support/postgres-server.ts). Three parts:
 *
 * 1. What forwarding costs: two workers (two cores with their HTTP servers, in this process), one
 *    sandbox instance run by worker A. The same read (`GET /chatapp/messages`, newest 20) and the same
 *    send (`POST /chatapp/message`) are made one at a time through A (direct) and through B (relayed
 *    to A); p50/p99 of each and what the relay adds.
 * 2. Sends per second over 6 sandbox instances with 1, 2 and 3 workers, each a real `serve` process
 *    (test/helpers/serve-process.ts; 6/N instances each), under autocannon (in this process) with 6
 *    connections per instance: once with every send made to its instance's owner (a proxy with
 *    affinity), once spread over every worker (round robin: (N−1)/N of the sends relayed). Ratios
 *    against 1 worker to the owner in the same run (median of rounds that alternate 1 → 2 → 3); the CPU
 *    each part of the machine used during the counted window (the workers, PostgreSQL, the load
 *    generator, every other process), in cores, from /proc, so the table says where the cores went.
 * 3. Failover after `kill -9`: three workers, six instances; the worker holding the most leases is
 *    killed and the time until all six are CONNECTED on the others (`GET /cluster` + the instance's
 *    status, through a survivor) is taken; then a fresh worker joins (three live again) and the next
 *    run kills the busiest again. The median of 5 runs, with the lease TTL stated.
 *
 * Environment: WORKERS_SECONDS (counted seconds per load, default 5), WORKERS_ROUNDS (default 3),
 * WORKERS_FAILOVER_TTL_MS (default 3000).
 */
import { mkdtemp, rm } from 'node:fs/promises'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { readdirSync, readFileSync } from 'node:fs'
import autocannon from 'autocannon'
import type { FastifyInstance } from 'fastify'
import { buildApiServer } from '../src/main/api/server'
import { startCore, type Core } from '../src/main/core'
import { createDatabase, startPostgres } from '../test/support/postgres-server'
import { SERVE_TOKEN, serveApi, startServeWorker, type ServeProcess } from '../test/helpers/serve-process'

const CALLS = 500
const SECONDS = Number(process.env.WORKERS_SECONDS ?? 5)
const INSTANCES = 6
/** Load connections per instance: 6 divides by 1, 2 and 3 workers. */
const PER_INSTANCE = 6
const FAILOVER_RUNS = 5
const ROUNDS = Number(process.env.WORKERS_ROUNDS ?? 3)
const FAILOVER_TTL_MS = Number(process.env.WORKERS_FAILOVER_TTL_MS ?? 3000)
const SEND_BODY = JSON.stringify({ chatId: '15550001111', message: 'Your order is ready' })

async function freePort(): Promise<number> {
  const s = createServer()
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve))
  const port = (s.address() as { port: number }).port
  await new Promise<void>((resolve) => s.close(() => resolve()))
  return port
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))]!
}

export async function runWorkersBench(): Promise<void> {
  const server = await startPostgres()
  try {
    console.log('### A call through the owner and one relayed to it\n')
    await forwardingLatency(new URL(await createDatabase(server.url, 'workers_bench')))
    console.log(`\n### Sends per second over ${INSTANCES} instances with 1, 2 and 3 workers\n`)
    await sendRate(server.url)
    console.log(`\n### Failover after kill -9 (three workers, six instances, lease TTL ${FAILOVER_TTL_MS} ms)\n`)
    await failover(await createDatabase(server.url, 'workers_failover'))
  } finally {
    await server.stop()
  }
}

async function forwardingLatency(url: URL): Promise<void> {
  const dirs: string[] = []
  const running: Array<{ core: Core; app: FastifyInstance }> = []
  const worker = async (id: string) => {
    const dir = await mkdtemp(join(tmpdir(), 'chatapp-workers-bench-'))
    dirs.push(dir)
    const port = await freePort()
    const core = await startCore({ dataDir: dir, defaultChannel: 'sandbox', databaseUrl: url.toString(), apiToken: 'bench-token-0123456789', worker: { id, url: `http://127.0.0.1:${port}` } })
    const app = await buildApiServer(core, { host: '127.0.0.1', version: 'bench' })
    await app.listen({ host: '127.0.0.1', port })
    running.push({ core, app })
    return `http://127.0.0.1:${port}`
  }
  try {
    const a = await worker('a')
    const b = await worker('b')
    const call = async (base: string, method: string, path: string, body?: object) => {
      const res = await fetch(base + path, { method, headers: { authorization: 'Bearer bench-token-0123456789', 'content-type': 'application/json' }, body: body ? JSON.stringify(body) : undefined })
      const json = (await res.json()) as { data: any }
      if (res.status !== 200) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(json)}`)
      return json
    }
    const inst = (await call(a, 'POST', '/chatapp/createNewChatapp', { channel: 'sandbox' })).data
    const q = `session_id=${inst.session_id}&access_token=${inst.settings.access_token}`
    await call(a, 'POST', `/chatapp/init?${q}`)
    await call(a, 'POST', `/chatapp/sandbox/scan?${q}`)
    for (let i = 0; i < 50; i++) await call(a, 'POST', `/chatapp/sandbox/inbound?${q}`, { chatId: '15550001111', message: `order ${i}` })

    const time = async (base: string, send: boolean) => {
      const ms: number[] = []
      for (let i = 0; i < CALLS; i++) {
        const t = performance.now()
        if (send) await call(base, 'POST', `/chatapp/message?${q}`, { chatId: '15550001111', message: 'Your order is ready' })
        else await call(base, 'GET', `/chatapp/messages?${q}&chatId=15550001111&limit=20`)
        ms.push(performance.now() - t)
      }
      return ms.sort((x, y) => x - y)
    }
    console.log(`${CALLS} calls each, one at a time; worker A runs the instance, B relays to A.\n`)
    console.log('| call | via | p50 ms | p99 ms |')
    console.log('| --- | --- | ---: | ---: |')
    for (const send of [false, true]) {
      await time(b, send) // warm both paths
      const direct = await time(a, send)
      const relayed = await time(b, send)
      const name = send ? 'POST /chatapp/message' : 'GET /chatapp/messages'
      console.log(`| ${name} | A (owner) | ${percentile(direct, 50).toFixed(2)} | ${percentile(direct, 99).toFixed(2)} |`)
      console.log(`| ${name} | B → A | ${percentile(relayed, 50).toFixed(2)} | ${percentile(relayed, 99).toFixed(2)} |`)
      console.log(`| ${name} | added | ${(percentile(relayed, 50) - percentile(direct, 50)).toFixed(2)} | ${(percentile(relayed, 99) - percentile(direct, 99)).toFixed(2)} |`)
    }
  } finally {
    for (const r of running.reverse()) {
      await r.app.close()
      await r.core.close()
    }
    for (const d of dirs) await rm(d, { recursive: true, force: true })
  }
}

/** Workers as real `serve` processes on one database; each reachable by the others at its own URL. */
class ServeCluster {
  readonly live = new Map<string, ServeProcess>()
  private readonly all: ServeProcess[] = []
  private readonly dirs: string[] = []
  constructor(
    private readonly url: string,
    private readonly ttlMs?: number
  ) {}

  async start(id: string): Promise<ServeProcess> {
    const s = await startServeWorker(this.url, id, this.ttlMs ? { CHATAPP_LEASE_TTL_MS: String(this.ttlMs) } : {})
    this.dirs.push(s.dir)
    this.live.set(id, s)
    this.all.push(s)
    return s
  }

  async kill(id: string): Promise<void> {
    const s = this.live.get(id)!
    this.live.delete(id)
    s.child.kill('SIGKILL')
    await s.exited
  }

  async close(): Promise<void> {
    for (const s of this.all) if (s.child.exitCode === null && s.child.signalCode === null) s.child.kill('SIGTERM')
    await Promise.all(this.all.map((s) => s.exited))
    for (const d of this.dirs) await rm(d, { recursive: true, force: true })
  }
}


/** A sandbox instance created through `base` and walked to CONNECTED (on `base` unless another live worker has fewer). */
async function connectOn(base: string): Promise<{ sessionId: string; qs: string }> {
  const made = await serveApi(base, 'POST', '/chatapp/createNewChatapp', { channel: 'sandbox' })
  if (made.status !== 200) throw new Error(`create: ${made.status} ${JSON.stringify(made.json)}`)
  const inst = made.json.data
  const qs = `session_id=${encodeURIComponent(inst.session_id)}&access_token=${encodeURIComponent(inst.settings.access_token)}`
  for (const path of [`/chatapp/init?${qs}`, `/chatapp/sandbox/scan?${qs}`]) {
    const r = await serveApi(base, 'POST', path)
    if (r.status !== 200) throw new Error(`${path}: ${r.status} ${JSON.stringify(r.json)}`)
  }
  return { sessionId: inst.session_id, qs }
}

/** The holder of each instance's unexpired lease, by session id (`GET /cluster` through `base`). */
async function owners(base: string): Promise<Map<string, string | null>> {
  const c = await serveApi(base, 'GET', '/cluster')
  const now = Date.now()
  return new Map(
    c.json.data.instances.map((i: { session_id: string; owner: string | null; lease_expires_at: string | null }) => [
      i.session_id,
      i.owner && i.lease_expires_at && Date.parse(i.lease_expires_at) > now ? i.owner : null
    ])
  )
}

/** Busy and total CPU time of the machine, in clock ticks (/proc/stat's first line). */
function machineTicks(): { busy: number; total: number } {
  const f = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1).map(Number)
  const total = f.reduce((x, y) => x + y, 0)
  const idle = f[3]! + (f[4] ?? 0)
  return { busy: total - idle, total }
}

/** Every process: its parent, its CPU time (user + system, clock ticks) and its command line, from /proc. */
function processTable(): Map<number, { ppid: number; ticks: number; cmd: string }> {
  const table = new Map<number, { ppid: number; ticks: number; cmd: string }>()
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8')
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
      // utime + stime, and cutime + cstime: the time of its children that ended and were reaped (a
      // PostgreSQL backend that exits during the window must not take its time with it).
      const ticks = Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14])
      table.set(Number(entry), { ppid: Number(f[1]), ticks, cmd: readFileSync(`/proc/${entry}/cmdline`, 'utf8').replaceAll('\0', ' ') })
    } catch {
      // The process ended meanwhile.
    }
  }
  return table
}

/** CPU ticks of the process trees rooted at `roots` (a child that ended counts in its parent's cutime once reaped). */
function treeTicks(table: ReturnType<typeof processTable>, roots: number[]): number {
  const children = new Map<number, number[]>()
  for (const [pid, p] of table) children.set(p.ppid, [...(children.get(p.ppid) ?? []), pid])
  let total = 0
  const stack = [...roots]
  while (stack.length > 0) {
    const pid = stack.pop()!
    total += table.get(pid)?.ticks ?? 0
    stack.push(...(children.get(pid) ?? []))
  }
  return total
}

/** The bench server's postmaster: the `postgres` process started with `-p <port>`. */
function postmasterOf(serverUrl: string): number {
  const port = new URL(serverUrl).port
  for (const [pid, p] of processTable()) if (/\/postgres\s/.test(p.cmd) && p.cmd.includes(`-p ${port} `)) return pid
  throw new Error(`no postgres process listening on port ${port}`)
}

const TICKS_PER_S = 100

interface Rate {
  perSecond: number
  non2xx: number
  /** Cores busy during the counted window: the workers, PostgreSQL, this process (autocannon), every other process on the machine. */
  cores: { workers: number; postgres: number; generator: number; others: number }
}

/** `seconds` of sends, all targets at once (each `connections` connections), after 1 s of warm-up not counted. */
async function loadAll(targets: string[], connections: number, seconds: number, workerPids: number[], postmaster: number): Promise<Rate> {
  const run = (duration: number) =>
    Promise.all(
      targets.map((url) =>
        autocannon({ url, method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${SERVE_TOKEN}` }, body: SEND_BODY, connections, duration })
      )
    )
  await run(1)
  const ticks = () => {
    const table = processTable()
    const own = process.cpuUsage()
    // This process alone (autocannon): its tree would hold the workers, its children.
    return { machine: machineTicks(), workers: treeTicks(table, workerPids), postgres: treeTicks(table, [postmaster]), generator: ((own.user + own.system) / 1e6) * TICKS_PER_S }
  }
  const a = ticks()
  const t0 = performance.now()
  const results = await run(seconds)
  const elapsed = (performance.now() - t0) / 1000
  const b = ticks()
  const ok = results.reduce((n, r) => n + r['2xx'], 0)
  const non2xx = results.reduce((n, r) => n + r.non2xx + r.errors + r.timeouts, 0)
  const cores = (t: number) => t / TICKS_PER_S / elapsed
  const workers = cores(b.workers - a.workers)
  const postgres = cores(b.postgres - a.postgres)
  const generator = cores(b.generator - a.generator)
  const machine = cores(b.machine.busy - a.machine.busy)
  return { perSecond: ok / seconds, non2xx, cores: { workers, postgres, generator, others: Math.max(0, machine - workers - postgres - generator) } }
}

/**
 * Part 2: sends per second over 6 instances with 1, 2 and 3 workers, to the owner and spread over the
 * workers. The three clusters (6 workers, a database each) run at once, idle but for their lease
 * loops, and the rounds go 1 → 2 → 3 workers in turn, so a change in the machine's load hits all three;
 * each cell is the median of the rounds.
 */
async function sendRate(serverUrl: string): Promise<void> {
  const postmaster = postmasterOf(serverUrl)
  const clusters: Array<{ n: number; cluster: ServeCluster; pids: number[]; toOwner: string[]; spread: string[] }> = []
  const measured = new Map<string, Rate[]>()
  try {
    for (const n of [1, 2, 3]) {
      const cluster = new ServeCluster(await createDatabase(serverUrl, `workers_rate_${n}`))
      const entry = { n, cluster, pids: [] as number[], toOwner: [] as string[], spread: [] as string[] }
      clusters.push(entry)
      const ws: Array<{ id: string; s: ServeProcess }> = []
      for (let i = 0; i < n; i++) ws.push({ id: `n${n}w${i + 1}`, s: await cluster.start(`n${n}w${i + 1}`) })
      const insts: Array<{ sessionId: string; qs: string }> = []
      for (let i = 0; i < INSTANCES; i++) insts.push(await connectOn(ws[i % n]!.s.url))
      // Where each runs (init placed it; on a loaded machine a lease may have moved since): its owner's URL.
      const ownerUrl = new Map<string, string>()
      const deadline = Date.now() + 30_000
      while (ownerUrl.size < insts.length) {
        if (Date.now() > deadline) throw new Error(`not every instance has an owner after 30 s`)
        const own = await owners(ws[0]!.s.url)
        for (const i of insts) {
          const w = ws.find((x) => x.id === own.get(i.sessionId))
          if (w) ownerUrl.set(i.sessionId, w.s.url)
        }
      }
      entry.pids = ws.map((w) => w.s.child.pid!)
      entry.toOwner = insts.map((i) => `${ownerUrl.get(i.sessionId)!}/chatapp/message?${i.qs}`)
      entry.spread = insts.flatMap((i) => ws.map((w) => `${w.s.url}/chatapp/message?${i.qs}`))
    }
    for (let round = 0; round < ROUNDS; round++) {
      for (const c of clusters) {
        const owner = await loadAll(c.toOwner, PER_INSTANCE, SECONDS, c.pids, postmaster)
        const spread = await loadAll(c.spread, PER_INSTANCE / c.n, SECONDS, c.pids, postmaster)
        measured.set(`${c.n} owner`, [...(measured.get(`${c.n} owner`) ?? []), owner])
        measured.set(`${c.n} spread`, [...(measured.get(`${c.n} spread`) ?? []), spread])
      }
    }
  } finally {
    for (const c of clusters) await c.cluster.close()
  }
  /** The median round by rate (its CPU figures with it). */
  const median = (key: string): Rate => {
    const rs = [...measured.get(key)!].sort((x, y) => x.perSecond - y.perSecond)
    return rs[Math.floor(rs.length / 2)]!
  }
  const base = median('1 owner').perSecond
  console.log(
    `${SECONDS} s counted per cell (1 s warm-up before), median of ${ROUNDS} rounds; ${PER_INSTANCE} connections per instance (${INSTANCES * PER_INSTANCE} in all), autocannon in this process; every worker a \`serve\` process.`
  )
  console.log(
    '"owner": each send made to its instance\'s worker (a proxy with affinity); "any": spread evenly over the workers, (N−1)/N of them relayed. CPU: cores busy during the median round (2 in all), from /proc: the workers / PostgreSQL / autocannon / every other process on the machine.\n'
  )
  console.log('| workers | via | sends/s | ratio | non-2xx | CPU workers / PostgreSQL / autocannon / others |')
  console.log('| ---: | --- | ---: | ---: | ---: | --- |')
  for (const n of [1, 2, 3]) {
    for (const via of ['owner', 'spread'] as const) {
      const r = median(`${n} ${via}`)
      const c = r.cores
      console.log(
        `| ${n} | ${via === 'owner' ? 'owner' : 'any'} | ${r.perSecond.toFixed(0)} | ${(r.perSecond / base).toFixed(2)} | ${measured.get(`${n} ${via}`)!.reduce((x, y) => x + y.non2xx, 0)} | ${c.workers.toFixed(2)} / ${c.postgres.toFixed(2)} / ${c.generator.toFixed(2)} / ${c.others.toFixed(2)} |`
      )
    }
  }
}

/** Part 3: the median of 5 kill -9 failovers, three workers and six instances each time. */
async function failover(url: string): Promise<void> {
  const cluster = new ServeCluster(url, FAILOVER_TTL_MS)
  const times: number[] = []
  try {
    let next = 1
    // 3, 2 and 1 instances: one worker is the busiest. A start goes to the least-loaded live worker,
    // so each worker starts as its share is linked.
    const insts: Array<{ sessionId: string; qs: string }> = []
    for (const share of [3, 2, 1]) {
      const w = await cluster.start(`w${next++}`)
      for (let i = 0; i < share; i++) insts.push(await connectOn(w.url))
    }
    for (let run = 0; run < FAILOVER_RUNS; run++) {
      const any = [...cluster.live.values()][0]!
      const own = await owners(any.url)
      const load = new Map<string, number>()
      for (const o of own.values()) if (o) load.set(o, (load.get(o) ?? 0) + 1)
      const [busiest, held] = [...load.entries()].sort((x, y) => y[1] - x[1] || x[0].localeCompare(y[0]))[0]!
      const killedAt = performance.now()
      await cluster.kill(busiest)
      const survivors = [...cluster.live.values()]
      const survivorIds = [...cluster.live.keys()]
      const deadline = Date.now() + 60_000
      for (;;) {
        const now = await owners(survivors[0]!.url)
        let up = 0
        for (const i of insts) {
          const o = now.get(i.sessionId)
          if (!o || !survivorIds.includes(o)) continue
          const r = await serveApi(survivors[survivors.length - 1]!.url, 'GET', `/chatapp/instance?${i.qs}`).catch(() => undefined)
          if (r?.status === 200 && r.json.data.instance_data.status === 'CONNECTED') up++
        }
        if (up === insts.length) break
        if (Date.now() > deadline) throw new Error(`failover run ${run + 1}: ${up} of ${insts.length} CONNECTED after 60 s`)
        await new Promise((resolve) => setTimeout(resolve, 20))
      }
      const ms = performance.now() - killedAt
      times.push(ms)
      console.log(`- run ${run + 1}: killed ${busiest} (${held} leases); all ${insts.length} CONNECTED on ${survivorIds.join(', ')} after ${ms.toFixed(0)} ms`)
      // Three live workers again for the next run.
      await cluster.start(`w${next++}`)
    }
  } finally {
    await cluster.close()
  }
  const sorted = [...times].sort((x, y) => x - y)
  console.log(
    `\nmedian ${sorted[Math.floor(sorted.length / 2)]!.toFixed(0)} ms (min ${sorted[0]!.toFixed(0)}, max ${sorted[sorted.length - 1]!.toFixed(0)}) with a ${FAILOVER_TTL_MS} ms lease TTL; bound TTL + TTL/3 + the connect = ${(FAILOVER_TTL_MS * 4) / 3} ms + the connect`
  )
}
