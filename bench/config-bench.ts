/**
 * The configuration in database mode under concurrent changes (docs/storage.md "The configuration
 * document" › "In database mode"; docs/design.md §22): workers on one PostgreSQL database (a server of
 * the bench's own, test/support/postgres-server.ts), each a process of its own running the real core
 * and HTTP API (./config-worker.ts), and instances whose settings are changed through every worker at
 * once with `PUT /chatapp/updateGeneral` (a new `bot_name` each time) for CONFIG_SECONDS.
 *
 * The load is the same in every case: CONFIG_LOOPS request loops in all (spread evenly over the
 * workers), each one after another. Each instance belongs to one loop, so its changes are made one at a
 * time and the last one acknowledged is the one that must be stored: after the load the bench reads
 * every instance's `bot_name` from the database and counts the acknowledged changes that are not
 * there (lost). A change answered with an error is a lost user action too (refused).
 *
 * Cases: 1 worker and 200 instances (the baseline), 3 workers and 20 instances, 3 workers and 200.
 * Per case: changes per second, p50/p99 latency, changes another worker's write came before (the
 * workers' ConfigStore.stats.reapplied: made again on the newer document), changes refused, lost, and
 * the configuration's size in the database; ratios of rate and p99 to the baseline.
 *
 * Each case runs CONFIG_ROUNDS times, the cases alternating (1 → 2 → 3, then again), on a fresh
 * database each time; the table gives the median round of each (rate, p50, p99) and the sums of
 * refused and lost changes over every round: the machine is shared, and a single round can fall on a
 * burst of someone else's work.
 *
 * Environment: CONFIG_SECONDS (default 10), CONFIG_LOOPS (default 12), CONFIG_ROUNDS (default 3).
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'
import pg from 'pg'
import { serveApi } from '../test/helpers/serve-process'
import { createDatabase, startPostgres } from '../test/support/postgres-server'

const SECONDS = Number(process.env.CONFIG_SECONDS ?? 10)
const LOOPS = Number(process.env.CONFIG_LOOPS ?? 12)
const ROUNDS = Number(process.env.CONFIG_ROUNDS ?? 3)
const TOKEN = 'bench-token-0123456789'
const CASES: Array<{ workers: number; instances: number }> = [
  { workers: 1, instances: 200 },
  { workers: 3, instances: 20 },
  { workers: 3, instances: 200 }
]
const SCRIPT = fileURLToPath(new URL('./config-worker.ts', import.meta.url))

interface WorkerStats {
  changes: number
  reapplied: number
  version: number | null
}

/** A worker process (./config-worker.ts). */
class Worker {
  readonly child: ChildProcess
  readonly ready: Promise<string>
  private waiting: Array<(s: WorkerStats) => void> = []
  private readonly exited: Promise<unknown>

  constructor(databaseUrl: string, id: string) {
    this.child = spawn(process.execPath, ['--import', 'tsx', SCRIPT, databaseUrl, id], { env: { ...process.env, NODE_ENV: 'production' }, stdio: ['pipe', 'pipe', 'inherit'] })
    this.exited = new Promise((resolve) => this.child.once('exit', resolve))
    this.ready = new Promise((resolve, reject) => {
      void this.exited.then((code) => reject(new Error(`worker ${id} exited (${String(code)}) before ready`)))
      createInterface({ input: this.child.stdout! }).on('line', (line) => {
        if (line.startsWith('CONFIG-WORKER-READY ')) resolve((JSON.parse(line.slice(20)) as { url: string }).url)
        else if (line.startsWith('CONFIG-WORKER-STATS ')) this.waiting.shift()?.(JSON.parse(line.slice(20)) as WorkerStats)
      })
    })
  }

  stats(): Promise<WorkerStats> {
    return new Promise((resolve) => {
      this.waiting.push(resolve)
      this.child.stdin!.write('stats\n')
    })
  }

  async stop(): Promise<void> {
    if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill('SIGTERM')
    await this.exited
  }
}


function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))]!
}

interface Outcome {
  workers: number
  instances: number
  perSecond: number
  p50: number
  p99: number
  changes: number
  reapplied: number
  refused: number
  lost: number
  bytes: number
}

async function runCase(serverUrl: string, n: number, workerCount: number, instanceCount: number): Promise<Outcome> {
  const databaseUrl = await createDatabase(serverUrl, `config_bench_${n}`)
  const workers: Worker[] = []
  try {
    // The first alone: it makes the schema and the document; the others then start on them.
    workers.push(new Worker(databaseUrl, 'w1'))
    const first = await workers[0]!.ready
    for (let i = 2; i <= workerCount; i++) workers.push(new Worker(databaseUrl, `w${i}`))
    const bases = await Promise.all(workers.map((w) => w.ready))
    const insts: Array<{ session_id: string; access_token: string }> = []
    for (let i = 0; i < instanceCount; i++) {
      const made = await serveApi(first, 'POST', '/chatapp/createNewChatapp', { channel: 'sandbox' }, TOKEN)
      if (made.status !== 200) throw new Error(`create: ${made.status} ${JSON.stringify(made.json)}`)
      insts.push({ session_id: made.json.data.session_id, access_token: made.json.data.settings.access_token })
    }
    // Every worker holds every instance before the load (told by NOTIFY; waited for, not assumed).
    for (;;) {
      const versions = (await Promise.all(workers.map((w) => w.stats()))).map((s) => s.version)
      if (versions.every((v) => v === versions[0])) break
      await new Promise((resolve) => setTimeout(resolve, 20))
    }
    const before = await Promise.all(workers.map((w) => w.stats()))

    const latencies: number[] = []
    const lastAcked = new Map<string, string>()
    let refused = 0
    let seq = 0
    const deadline = performance.now() + SECONDS * 1000
    const t0 = performance.now()
    await Promise.all(
      Array.from({ length: LOOPS }, async (_, loop) => {
        const base = bases[loop % bases.length]!
        const mine = insts.filter((_, i) => i % LOOPS === loop)
        for (let k = 0; performance.now() < deadline; k++) {
          const inst = mine[k % mine.length]!
          const botName = `bot ${++seq}`
          const t = performance.now()
          const r = await serveApi(base, 'PUT', '/chatapp/updateGeneral', { ...inst, bot_name: botName }, TOKEN)
          latencies.push(performance.now() - t)
          if (r.status === 200) lastAcked.set(inst.session_id, botName)
          else if (++refused <= 3) console.error(`refused: ${r.status} ${JSON.stringify(r.json)}`)
        }
      })
    )
    const elapsed = (performance.now() - t0) / 1000
    const after = await Promise.all(workers.map((w) => w.stats()))

    const db = new pg.Client({ connectionString: databaseUrl })
    await db.connect()
    // The document row, and since migration 10 a row per instance (docs/storage.md "In database mode").
    const doc = (await db.query<{ bytes: number }>("SELECT octet_length(body) AS bytes FROM config_document WHERE id = 'config'")).rows[0]!
    const rows = (await db.query<{ body: string }>('SELECT body FROM config_instances')).rows
    await db.end()
    const bytes = Number(doc.bytes) + rows.reduce((n, r) => n + Buffer.byteLength(r.body), 0)
    const stored = new Map(rows.map((r) => JSON.parse(r.body) as { session_id: string; settings: { bot_name: string } }).map((i) => [i.session_id, i.settings.bot_name]))
    let lost = 0
    for (const [sessionId, botName] of lastAcked) if (stored.get(sessionId) !== botName) lost++
    const sum = (k: 'changes' | 'reapplied') => after.reduce((t, s, i) => t + s[k] - before[i]![k], 0)
    latencies.sort((x, y) => x - y)
    return {
      workers: workerCount,
      instances: instanceCount,
      perSecond: latencies.length / elapsed,
      p50: percentile(latencies, 50),
      p99: percentile(latencies, 99),
      changes: sum('changes'),
      reapplied: sum('reapplied'),
      refused,
      lost,
      bytes
    }
  } finally {
    await Promise.all(workers.map((w) => w.stop()))
  }
}

export async function runConfigBench(): Promise<void> {
  const server = await startPostgres()
  try {
    const rounds: Outcome[][] = CASES.map(() => [])
    let n = 0
    for (let round = 0; round < ROUNDS; round++) {
      for (const [i, c] of CASES.entries()) rounds[i]!.push(await runCase(server.url, n++, c.workers, c.instances))
    }
    const median = (xs: number[]) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)]!
    const outcomes = rounds.map((rs) => ({
      ...rs[0]!,
      perSecond: median(rs.map((r) => r.perSecond)),
      p50: median(rs.map((r) => r.p50)),
      p99: median(rs.map((r) => r.p99)),
      changes: rs.reduce((t, r) => t + r.changes, 0),
      reapplied: rs.reduce((t, r) => t + r.reapplied, 0),
      refused: rs.reduce((t, r) => t + r.refused, 0),
      lost: rs.reduce((t, r) => t + r.lost, 0)
    }))
    const base = outcomes[0]!
    console.log(`${LOOPS} request loops in all (spread over the workers), ${SECONDS} s a round, median of ${ROUNDS} rounds; one change = PUT /chatapp/updateGeneral of one instance; counts summed over the rounds.\n`)
    console.log('| workers | instances | changes/s | × 1 worker | p50 ms | p99 ms | p99 × 1 worker | changes stored | re-applied on a newer document | refused | lost | configuration bytes (per instance) |')
    console.log('| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |')
    for (const o of outcomes) {
      console.log(
        `| ${o.workers} | ${o.instances} | ${o.perSecond.toFixed(0)} | ${(o.perSecond / base.perSecond).toFixed(2)} | ${o.p50.toFixed(1)} | ${o.p99.toFixed(1)} | ${(o.p99 / base.p99).toFixed(2)} | ${o.changes} | ${o.reapplied} | ${o.refused} | ${o.lost} | ${o.bytes.toLocaleString('en-US')} (${Math.round(o.bytes / o.instances).toLocaleString('en-US')}) |`
      )
    }
  } finally {
    await server.stop()
  }
}
