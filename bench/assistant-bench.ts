/**
 * `npm run bench -- assistant`: what the assistant costs the desk (docs/assistant.md; docs/benchmarks.md
 * "The assistant"). The knowledge and the questions are real English: sentences of the README files
 * in node_modules, so the search index sees the word and trigram statistics of real text.
 *
 * 1. The desk's own time around the model call, with an OpenAI-compatible endpoint on loopback that
 *    answers at once (test/support/openai-fake.ts, in a process of its own: ./openai-fake-process.ts): a sandbox instance with 200 knowledge entries
 *    (4,000 passages), 300 distinct questions over 60 chats (each with its history) after 100 to warm
 *    up; from the start of each message's decision (the bot engine's reads, which the assistant's
 *    join: src/main/assistant/assistant-responder.ts `prepare`) until it is scheduled, then its
 *    settings, budget, history and knowledge read, the prompt built and the answer read until the
 *    reply is handed to the outbound path — less the model call (the SDK and the endpoint) and the
 *    debounce (0 here). Wall time, and the main thread's CPU
 *    time in the same spans (what the thread serving every request spends; the SQLite threads' work
 *    is in the wall time only). Target: p99 ≤ 5 ms. Beside it,
 *    the model call through the SDK and, as the same run's baseline, the same request as a bare
 *    `fetch` (what any client pays to call the endpoint).
 * 2. Knowledge retrieval at 10,000 passages: the Retriever (the search index per term, ranked by IDF)
 *    for 300 distinct questions, on SQLite (the desktop's database) and on PostgreSQL (a server of its
 *    own): steady (one retriever, the words it has seen remembered) and cold (nothing remembered).
 *    Target: p95 ≤ 5 ms on SQLite, with the index merged as the desk leaves it once the knowledge stops
 *    changing (src/main/assistant/knowledge/index-merger.ts; the index as written beside it). Beside it, the same with an embedding model (the question embedded
 *    by the endpoint, then 10,000 vectors of 384 dimensions ranked in memory and fused).
 */
import { spawn } from 'node:child_process'
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createInterface } from 'node:readline'
import { constants, PerformanceObserver, type PerformanceEntry } from 'node:perf_hooks'
import { startCore, internalsOf, type Core } from '../src/main/core'
import type { AnswerTiming } from '../src/main/assistant/assistant-responder'
import { EndpointGuard } from '../src/main/assistant/endpoint-guard'
import { IndexMerger } from '../src/main/assistant/knowledge/index-merger'
import { ModelClient } from '../src/main/assistant/model-client'
import { Retriever } from '../src/main/assistant/knowledge/retriever'
import { silentLogger } from '../src/main/logger'
import { openStorage, type Storage } from '../src/main/store/storage'
import { DEFAULT_ASSISTANT, type KnowledgeEntry } from '../src/shared/schemas/assistant'
import { startOpenAiFake } from '../test/support/openai-fake'
import { createDatabase, startPostgres } from '../test/support/postgres-server'

const ANSWERS = Number(process.env.ASSISTANT_ANSWERS ?? 300)
const CHUNKS = Number(process.env.ASSISTANT_CHUNKS ?? 10_000)
const QUESTIONS = Number(process.env.ASSISTANT_QUESTIONS ?? 300)
const WARM_UP = 100

function percentile(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b)
  return s[Math.min(s.length - 1, Math.floor((s.length * p) / 100))]!
}

const fmt = (ms: number) => ms.toFixed(2)

/** A seeded random source (the same knowledge every run). */
function seeded(seed: number): () => number {
  let s = seed
  return () => (s = (s * 16807) % 2147483647) / 2147483647
}

/**
 * Real English sentences: the prose of the README files of the packages in node_modules (code
 * blocks, tables, headings and links left out), in a fixed order. Knowledge made of them has the
 * word and trigram statistics of real text, which the search index's cost depends on; made-up words
 * would share a few trigrams and make every term look common.
 */
async function sentences(): Promise<string[]> {
  const root = join(import.meta.dirname, '..', 'node_modules')
  const names = (await readdir(root)).filter((n) => !n.startsWith('.')).sort()
  const out: string[] = []
  for (const name of names) {
    const text = await readFile(join(root, name, 'README.md'), 'utf8').catch(() => '')
    const prose = text
      .replace(/```[\s\S]*?```/g, ' ')
      .split('\n')
      .filter((l) => !/^\s*([#|<>!*-]|\d+\.|\s{4})/.test(l))
      .join(' ')
      .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
      .replace(/`[^`]*`/g, ' ')
      .replace(/https?:\/\/\S+/g, ' ')
      .replace(/\s+/g, ' ')
    for (const sentence of prose.split(/(?<=[.!?])\s+/)) {
      if (sentence.length >= 40 && sentence.length <= 300 && /^[A-Z]/.test(sentence) && (sentence.match(/[a-z]/gi)?.length ?? 0) > sentence.length * 0.7) out.push(sentence)
    }
  }
  if (out.length < 1000) throw new Error(`only ${out.length} sentences in node_modules' READMEs: run npm ci first`)
  return out
}

type Seeded = Array<{ entry: KnowledgeEntry; chunks: Array<{ position: number; title: string; body: string }> }>

/** `n` passages of about 500 characters of those sentences, as entries of 20 passages each. */
function knowledge(pool: readonly string[], n: number, instanceId: string): Seeded {
  const random = seeded(42)
  const pick = () => pool[Math.floor(random() * pool.length)]!
  const out: Seeded = []
  for (let e = 0; e * 20 < n; e++) {
    const title = pick().split(' ').slice(0, 4).join(' ')
    const chunks = Array.from({ length: Math.min(20, n - e * 20) }, (_, position) => {
      let body = ''
      while (body.length < 480) body += `${pick()} `
      return { position, title, body: body.trim() }
    })
    out.push({ entry: { _id: `k${String(e).padStart(6, '0')}`, instance_id: instanceId, title, content: chunks.map((c) => c.body).join('\n\n'), source: 'manual', file_name: null, chunks: chunks.length, createdAt: '2026-11-27T00:00:00.000Z', updatedAt: '2026-11-27T00:00:00.000Z' }, chunks })
  }
  return out
}

/** `n` distinct questions: the first 5 to 12 words of sentences of the pool, asked. */
function questions(pool: readonly string[], n: number): string[] {
  const random = seeded(99)
  const out = new Set<string>()
  while (out.size < n) {
    const words = pool[Math.floor(random() * pool.length)]!.replace(/[.!?]$/, '').split(' ')
    out.add(`${words.slice(0, 5 + Math.floor(random() * 8)).join(' ')}?`)
  }
  return [...out]
}

/** The fake endpoint in a child process (./openai-fake-process.ts): its URL, the latest chat request's body, and its end. */
async function fakeProcess(behaviour: object): Promise<{ baseUrl: string; lastChat(): Promise<string>; close(): Promise<void> }> {
  const child = spawn(process.execPath, ['--import', 'tsx', join(import.meta.dirname, 'openai-fake-process.ts'), JSON.stringify(behaviour)], { stdio: ['pipe', 'pipe', 'inherit'] })
  const lines = createInterface({ input: child.stdout })
  const next = (prefix: string) =>
    new Promise<string>((resolve, reject) => {
      const on = (line: string) => {
        if (!line.startsWith(prefix)) return
        lines.off('line', on)
        resolve(line.slice(prefix.length))
      }
      lines.on('line', on)
      child.once('exit', (code) => reject(new Error(`the fake endpoint's process exited (${code})`)))
    })
  const baseUrl = await next('OPENAI-FAKE-READY ')
  return {
    baseUrl,
    lastChat: () => {
      const body = next('OPENAI-FAKE-LAST ')
      child.stdin.write('last\n')
      return body
    },
    close: async () => {
      const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
      child.stdin.end()
      await exited
    }
  }
}

/** Part 1: the desk's own time around the model call. */
async function ownTime(pool: readonly string[]): Promise<void> {
  // In a process of its own: the endpoint's work and garbage are not the desk's (see that file).
  const fake = await fakeProcess({ reply: 'Yes, we deliver on Sundays too.', usage: { prompt_tokens: 900, completion_tokens: 9 } })
  const dir = await mkdtemp(join(tmpdir(), 'chatapp-assistant-bench-'))
  const timings: AnswerTiming[] = []
  let core: Core | undefined
  try {
    core = await startCore({ dataDir: dir, defaultChannel: 'sandbox', restoreSessions: false, assistant: { onAnswered: (t) => timings.push(t) } })
    const inst = await core.instances.create('sandbox')
    await core.connection.init(inst, undefined)
    await core.sandbox.scan(core.instances.get(inst._id))
    const live = () => core!.instances.get(inst._id)
    await core.assistant.update(live(), { enabled: true, base_url: fake.baseUrl, model: 'fake-chat', debounce_ms: 0, max_replies_per_hour: 500, daily_token_limit: 0 })
    for (const { entry, chunks } of knowledge(pool, 200 * 20, inst._id)) await core.knowledge.create(live(), { title: entry.title, content: chunks.map((c) => c.body).join('\n\n') })
    // A shop's desk answers long after its knowledge was written: its search index merged (what the
    // desk does in the background once changes pause; src/main/assistant/knowledge/index-merger.ts).
    await internalsOf(core).indexMerger.idle()
    const responder = internalsOf(core).responder
    // Each customer has a 10-message history first (5 questions, 5 answers).
    const ask = async (chat: number, text: string) => {
      await core!.sandbox.inbound(live(), { chatId: `1555${String(chat).padStart(7, '0')}`, message: text, pushName: 'Ann' })
      await responder.idle()
    }
    // Warm-up (the JIT compiles the path; each chat gets its history): answers not counted.
    const asked = questions(pool, WARM_UP + ANSWERS)
    for (let i = 0; i < WARM_UP; i++) await ask(i % 60, asked[ANSWERS + i]!)
    timings.length = 0
    // The setup's garbage (4,000 passages chunked and indexed, in this process) collected now: a desk
    // answers long after its knowledge was written, and a full collection of the setup's 100 MB would
    // otherwise fall among the measured answers (`npm run bench` runs with --expose-gc).
    globalThis.gc?.()
    // The main thread's young collections while the answers are measured: an answer that meets one
    // waits for it (what a long one costs is what survives it: docs/benchmarks.md "The model call's garbage").
    const young: number[] = []
    const gcs = new PerformanceObserver((list) => {
      for (const e of list.getEntries()) if ((e as PerformanceEntry & { detail?: { kind?: number } }).detail?.kind === constants.NODE_PERFORMANCE_GC_MINOR) young.push(e.duration)
    })
    gcs.observe({ entryTypes: ['gc'] })
    for (let i = 0; i < ANSWERS; i++) await ask(i % 60, asked[i]!)
    gcs.disconnect()
    // The same request as the desk's last, sent with a bare fetch: the endpoint's own cost.
    const body = await fake.lastChat()
    const bare: number[] = []
    for (let i = 0; i < ANSWERS; i++) {
      const t0 = performance.now()
      const res = await fetch(`${fake.baseUrl}/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body })
      await res.json()
      bare.push(performance.now() - t0)
    }
    const own = timings.map((t) => t.ownMs)
    const ownCpu = timings.map((t) => t.ownCpuMs)
    const model = timings.map((t) => t.modelMs)
    console.log(`${timings.length} answers to distinct questions, each with 10 messages of history and 200 knowledge entries (4,000 passages); the endpoint answers at once.\n`)
    console.log('| | p50 ms | p95 ms | p99 ms |')
    console.log('| --- | ---: | ---: | ---: |')
    console.log(`| the desk's own time around the model call | ${fmt(percentile(own, 50))} | ${fmt(percentile(own, 95))} | ${fmt(percentile(own, 99))} |`)
    console.log(`| the same, the main thread's CPU time | ${fmt(percentile(ownCpu, 50))} | ${fmt(percentile(ownCpu, 95))} | ${fmt(percentile(ownCpu, 99))} |`)
    console.log(`| the model call through the openai SDK | ${fmt(percentile(model, 50))} | ${fmt(percentile(model, 95))} | ${fmt(percentile(model, 99))} |`)
    console.log(`| the same request with a bare fetch (baseline) | ${fmt(percentile(bare, 50))} | ${fmt(percentile(bare, 95))} | ${fmt(percentile(bare, 99))} |`)
    console.log(`| the main thread's young collections meanwhile (${young.length}) | ${fmt(percentile(young, 50))} | ${fmt(percentile(young, 95))} | ${fmt(Math.max(0, ...young))} (longest) |`)
    console.log(`\nown time p99: **${fmt(percentile(own, 99))} ms** wall, **${fmt(percentile(ownCpu, 99))} ms** CPU (target ≤ 5 ms); the SDK's call / a bare fetch (p50): ${(percentile(model, 50) / percentile(bare, 50)).toFixed(2)}×`)
  } finally {
    await core?.close()
    await fake.close()
    await rm(dir, { recursive: true, force: true })
  }
}

/** Seeds `CHUNKS` passages into `storage` for instance `i1`. */
async function seedChunks(storage: Storage, pool: readonly string[]): Promise<void> {
  const batches = knowledge(pool, CHUNKS, 'i1')
  for (let i = 0; i < batches.length; i += 50) await Promise.all(batches.slice(i, i + 50).map(({ entry, chunks }) => storage.repos.knowledge.create(entry, chunks)))
}

/** Vectors of 384 dimensions for every passage (as an embedding model would store them). */
async function seedVectors(storage: Storage): Promise<void> {
  const random = seeded(7)
  for (;;) {
    const batch = await storage.repos.knowledge.withoutEmbedding('i1', 'bench-embed', 500)
    if (batch.length === 0) return
    await storage.repos.knowledge.setEmbeddings('bench-embed', batch.map((c) => ({ seq: c.seq, vector: Float32Array.from({ length: 384 }, () => random() - 0.5) })))
  }
}

/** Part 2: retrieval at `CHUNKS` passages, SQLite and PostgreSQL. */
async function retrieval(pool: readonly string[]): Promise<void> {
  const fake = await startOpenAiFake()
  const random = seeded(3)
  fake.embed = () => Array.from({ length: 384 }, () => random() - 0.5)
  const guard = new EndpointGuard()
  const model = new ModelClient(() => guard.dispatcher())
  const root = await mkdtemp(join(tmpdir(), 'chatapp-retrieval-bench-'))
  const server = await startPostgres()
  const opened: Storage[] = []
  try {
    const databaseUrl = await createDatabase(server.url, 'retrieval')
    const engines: Array<[string, Storage]> = []
    for (const [name, where] of [
      ['SQLite', {}],
      ['PostgreSQL', { databaseUrl }]
    ] as const) {
      const storage = await openStorage(join(root, name), where)
      opened.push(storage)
      await seedChunks(storage, pool)
      engines.push([name, storage])
    }
    const asked = questions(pool, QUESTIONS)
    console.log(`\n${CHUNKS.toLocaleString('en')} passages of about 500 characters (500 entries); ${asked.length} distinct customer questions, each timed on its own. Steady: one retriever answers them in turn (the terms it has seen are remembered); cold: it remembers nothing before each question.\n`)
    console.log('| engine | steady p50 ms | steady p95 ms | steady p95 CPU ms | cold p50 ms | cold p95 ms | with embeddings p50 ms | with embeddings p95 ms | passages found per question |')
    console.log('| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |')
    const results: Record<string, number> = {}
    for (const [name, storage] of engines) {
      const retriever = new Retriever({ knowledge: storage.repos.knowledge, model, logger: silentLogger() })
      const endpoint = { baseUrl: fake.baseUrl, apiKey: null }
      const text = { ...DEFAULT_ASSISTANT }
      const meaning = { ...DEFAULT_ASSISTANT, embedding_model: 'bench-embed' }
      const time = async (settings: typeof text, cold: boolean) => {
        // Each measurement starts with nothing remembered (the same questions are asked in each).
        retriever.forget('i1')
        for (const q of asked.slice(0, 20)) await retriever.find('i1', q, settings, endpoint)
        const wall: number[] = []
        const cpu: number[] = []
        let passages = 0
        for (const q of asked) {
          if (cold) retriever.forget('i1')
          const c0 = process.cpuUsage()
          const t0 = performance.now()
          const found = await retriever.find('i1', q, settings, endpoint)
          wall.push(performance.now() - t0)
          const c = process.cpuUsage(c0)
          cpu.push((c.user + c.system) / 1000)
          passages += found.passages.length
        }
        return { wall, cpu, passages }
      }
      // As the desk holds it a few seconds after the knowledge changed: the index merged
      // (src/main/assistant/knowledge/index-merger.ts). Before that, as written (SQLite only).
      const written = await time(text, false)
      const merger = new IndexMerger({ knowledge: storage.repos.knowledge, logger: silentLogger(), delayMs: 0 })
      merger.kick()
      await merger.idle()
      const steady = await time(text, false)
      const cold = await time(text, true)
      await seedVectors(storage)
      const byMeaning = await time(meaning, false)
      results[name] = percentile(steady.wall, 95)
      results[`${name} cpu`] = percentile(steady.cpu, 95)
      const w = (xs: number[]) => `${fmt(percentile(xs, 50))} | ${fmt(percentile(xs, 95))}`
      console.log(`| ${name} | ${w(steady.wall)} | ${fmt(percentile(steady.cpu, 95))} | ${w(cold.wall)} | ${w(byMeaning.wall)} | ${(steady.passages / asked.length).toFixed(1)} |`)
      if (name === 'SQLite') console.log(`| SQLite, the index as written (not merged yet) | ${w(written.wall)} | ${fmt(percentile(written.cpu, 95))} | | | | ${(written.passages / asked.length).toFixed(1)} |`)
    }
    console.log(`\nretrieval p95 at ${CHUNKS.toLocaleString('en')} passages on SQLite: **${fmt(results.SQLite!)} ms** wall, **${fmt(results['SQLite cpu']!)} ms** CPU (target ≤ 5 ms); PostgreSQL / SQLite: ${(results.PostgreSQL! / results.SQLite!).toFixed(2)}×`)
  } finally {
    for (const s of opened) await s.close()
    await guard.close()
    await fake.close()
    await server.stop()
    await rm(root, { recursive: true, force: true })
  }
}

/** Runs both parts; prints markdown tables. */
export async function runAssistantBench(): Promise<void> {
  const pool = await sentences()
  // ASSISTANT_PART=own or retrieval runs one part alone (a profile of one, a quicker run).
  const part = process.env.ASSISTANT_PART
  if (part !== 'retrieval') await ownTime(pool)
  if (part !== 'own') await retrieval(pool)
}
