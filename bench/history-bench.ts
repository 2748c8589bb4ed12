/**
 * A long history through the HTTP API: a data dir of 1,000,000 messages over 10
 * instances and 20,000 chats (one of 100,000 messages) and 100,000 contacts, against the same
 * operations on 1,000 messages, each served by `npm run serve` in a process of its own. Targets: p95 ≤
 * 20 ms for each operation and ≤ 2× the 1k figure; start to listening and idle RSS at 1M ≤ 1.2× an
 * empty data dir; the database's bytes per 1,000 messages reported.
 *
 * Each operation: 20 requests to warm up, then `REQUESTS` sequential requests timed one by one (the
 * latency a person or a script sees), in `ROUNDS` rounds that alternate the two servers, so a change
 * in the machine's load hits both; the table gives the median of the rounds' p95s.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { mkdtemp, rm, stat } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { seedHistory, type Seeded, type SeedShape } from './history-seed'
import { treeRssKb } from './process-tree'

const ROOT = fileURLToPath(new URL('..', import.meta.url))
const REQUESTS = Number(process.env.HISTORY_REQUESTS ?? 200)
const ROUNDS = Number(process.env.HISTORY_ROUNDS ?? 3)
const MESSAGES = Number(process.env.HISTORY_MESSAGES ?? 1_000_000)
const TOKEN = 'history-bench-token-0123456789abcdef'

const LARGE: SeedShape = { instances: 10, chats: 20_000, messages: MESSAGES, bigChat: Math.floor(MESSAGES / 10), contacts: Math.floor(MESSAGES / 10) }
const SMALL: SeedShape = { instances: 10, chats: 20, messages: 1000, bigChat: 100, contacts: 100 }
const EMPTY: SeedShape = { instances: 10, chats: 0, messages: 0, bigChat: 0, contacts: 0 }

interface Served {
  url: string
  child: ChildProcess
  startMs: number
  rssMb: number
}

function percentile(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b)
  return s[Math.min(s.length - 1, Math.floor((s.length * p) / 100))]!
}

function median(xs: number[]): number {
  return percentile(xs, 50)
}

/** Starts `npm run serve` on `dataDir`; answers once it listens, with the time to that and the idle RSS 3 s later. */
async function serve(dataDir: string): Promise<Served> {
  const started = performance.now()
  const child = spawn('npm', ['run', '-s', 'serve'], {
    cwd: ROOT,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, CHATAPP_DATA_DIR: dataDir, CHATAPP_PORT: '0', CHATAPP_CHANNEL: 'sandbox', CHATAPP_API_TOKEN: TOKEN, CHATAPP_LOG_LEVEL: 'warn' }
  })
  const url = await new Promise<string>((resolve, reject) => {
    let out = ''
    child.stdout!.on('data', (c: Buffer) => {
      out += c.toString()
      const m = /Chatapp API listening on (http:\/\/\S+)/.exec(out)
      if (m) resolve(m[1]!)
    })
    child.stderr!.on('data', (c: Buffer) => (out += c.toString()))
    child.once('exit', (code) => reject(new Error(`serve exited (${code}) before listening:\n${out}`)))
  })
  const startMs = performance.now() - started
  await new Promise((r) => setTimeout(r, 3000))
  return { url, child, startMs, rssMb: treeRssKb(child.pid!) / 1024 }
}

async function stop(s: Served): Promise<void> {
  const exited = new Promise((r) => s.child.once('exit', r))
  process.kill(-s.child.pid!, 'SIGTERM')
  await exited
}

/** The operations measured, as request paths on a seeded dir. */
function operations(seed: Seeded): Array<[string, string]> {
  const creds = (instanceId: string) => {
    const i = seed.instances.find((x) => x.id === instanceId)!
    return `session_id=${i.sessionId}&access_token=${i.accessToken}`
  }
  const big = creds(seed.bigChat.instanceId)
  const chat = encodeURIComponent(seed.bigChat.chatId)
  return [
    ['chat list, first page (every instance)', '/chatapp/inbox?limit=50'],
    ['open the largest chat (newest 50)', `/chatapp/messages?${big}&chatId=${chat}&limit=50`],
    ['a page 90 % deep in the largest chat', `/chatapp/messages?${big}&chatId=${chat}&before=${seed.bigChat.deepMessageId}&limit=50`],
    ['message log, first page (/message-log)', `/message-log?${big}&page=1&limit=10`],
    ['search a rare word (10 messages in all)', `/chatapp/messages?${big}&q=zanzibar&limit=50`],
    ['search a common word (20 % of messages), newest 50', `/chatapp/messages?${big}&q=pizza&limit=50`],
    ['search a word part (`labres`), newest 50', `/chatapp/messages?${big}&q=labres&limit=50`],
    ['contacts: search by name', `/contact?${big}&q=Contact%20123&limit=50`]
  ]
}

/** `REQUESTS` sequential requests (after a warm-up); answers each one's latency in ms. Throws on a non-200. */
async function time(url: string, path: string): Promise<number[]> {
  const get = async () => {
    const res = await fetch(url + path, { headers: { authorization: `Bearer ${TOKEN}` } })
    const body = await res.text()
    if (res.status !== 200) throw new Error(`${path}: ${res.status} ${body.slice(0, 300)}`)
  }
  for (let i = 0; i < 20; i++) await get()
  const out: number[] = []
  for (let i = 0; i < REQUESTS; i++) {
    const t0 = performance.now()
    await get()
    out.push(performance.now() - t0)
  }
  return out
}

async function dbBytes(dataDir: string): Promise<number> {
  const size = async (f: string) => (await stat(join(dataDir, f)).catch(() => null))?.size ?? 0
  return (await size('chatapp.db')) + (await size('chatapp.db-wal'))
}

/** Runs the benchmark; prints markdown tables. */
export async function runHistoryBench(): Promise<void> {
  const base = await mkdtemp(join(tmpdir(), 'chatapp-history-'))
  try {
    const dirs = { empty: join(base, 'empty'), small: join(base, 'small'), large: join(base, 'large') }
    let t0 = performance.now()
    await seedHistory(dirs.empty, EMPTY, TOKEN)
    const small = await seedHistory(dirs.small, SMALL, TOKEN)
    const large = await seedHistory(dirs.large, LARGE, TOKEN)
    console.log(`Seeded ${LARGE.messages.toLocaleString('en')} messages (${LARGE.chats.toLocaleString('en')} chats, the largest ${LARGE.bigChat.toLocaleString('en')}; ${LARGE.contacts.toLocaleString('en')} contacts; ${LARGE.instances} instances) in ${((performance.now() - t0) / 1000).toFixed(0)} s (setup, not measured).\n`)

    // Start and idle memory: the empty dir against the large one, alternating.
    const starts: Record<'empty' | 'large', Array<{ ms: number; mb: number }>> = { empty: [], large: [] }
    for (let r = 0; r < 3; r++) {
      for (const which of ['empty', 'large'] as const) {
        const s = await serve(dirs[which])
        starts[which].push({ ms: s.startMs, mb: s.rssMb })
        await stop(s)
      }
    }
    const sMs = (w: 'empty' | 'large') => median(starts[w].map((x) => x.ms))
    const sMb = (w: 'empty' | 'large') => median(starts[w].map((x) => x.mb))
    console.log('| `npm run serve` (3 starts each, medians) | empty data dir | 1M messages | ratio | target |')
    console.log('| --- | ---: | ---: | ---: | --- |')
    console.log(`| to listening, ms | ${sMs('empty').toFixed(0)} | ${sMs('large').toFixed(0)} | ${(sMs('large') / sMs('empty')).toFixed(2)}× | ≤ 1.2× |`)
    console.log(`| idle RSS of the process tree, MB | ${sMb('empty').toFixed(0)} | ${sMb('large').toFixed(0)} | ${(sMb('large') / sMb('empty')).toFixed(2)}× | ≤ 1.2× |`)

    const bytes = await dbBytes(dirs.large)
    console.log(`\nDatabase size at ${LARGE.messages.toLocaleString('en')} messages and ${LARGE.contacts.toLocaleString('en')} contacts: ${(bytes / 2 ** 20).toFixed(0)} MiB, ${((bytes / LARGE.messages) * 1000 / 1024).toFixed(0)} KiB per 1,000 messages (text, indexes and the search index).\n`)

    t0 = performance.now()
    const servers = { small: await serve(dirs.small), large: await serve(dirs.large) }
    const ops = { small: operations(small), large: operations(large) }
    const p95: Record<'small' | 'large', number[][]> = { small: ops.small.map(() => []), large: ops.large.map(() => []) }
    const p50: Record<'small' | 'large', number[][]> = { small: ops.small.map(() => []), large: ops.large.map(() => []) }
    try {
      for (let r = 0; r < ROUNDS; r++) {
        for (const which of ['small', 'large'] as const) {
          for (const [i, [, path]] of ops[which].entries()) {
            const lat = await time(servers[which].url, path)
            p95[which][i]!.push(percentile(lat, 95))
            p50[which][i]!.push(percentile(lat, 50))
          }
        }
      }
    } finally {
      await stop(servers.small)
      await stop(servers.large)
    }
    console.log(`${REQUESTS} sequential requests per operation and round, ${ROUNDS} rounds alternating the servers; medians of the rounds' figures (ms):\n`)
    console.log('| operation | 1k: p50 | 1k: p95 | 1M: p50 | 1M: p95 | 1M / 1k (p95) | target (p95 ≤ 20 ms, ≤ 2×) |')
    console.log('| --- | ---: | ---: | ---: | ---: | ---: | --- |')
    for (const [i, [name]] of ops.large.entries()) {
      const a = median(p95.small[i]!)
      const b = median(p95.large[i]!)
      const met = b <= 20 && b / a <= 2 ? 'met' : 'not met'
      console.log(`| ${name} | ${median(p50.small[i]!).toFixed(2)} | ${a.toFixed(2)} | ${median(p50.large[i]!).toFixed(2)} | ${b.toFixed(2)} | ${(b / a).toFixed(2)}× | ${met} |`)
    }
    console.log(`\n(measured in ${((performance.now() - t0) / 1000).toFixed(0)} s)`)
  } finally {
    await rm(base, { recursive: true, force: true })
  }
}
