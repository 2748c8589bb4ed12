/**
 * `npm run bench -- search`: message search on SQLite against PostgreSQL, one history on both (issue
 * 26 §1: "search keeps working, accents and parts of words included"; docs/storage.md "Search").
 *
 * The history: 300,000 messages over 3 instances and 3,000 chats (bench/history-seed.ts, the same
 * data as the history bench at a smaller size), plus a word only the last instance has. It is seeded
 * into a SQLite data dir and moved to PostgreSQL (a server of its own, fsync off as in the tests) by
 * the app's own `db:copy` (src/main/store/copy), so both engines hold the same rows and fill their
 * search indexes through the migrations' triggers. PostgreSQL is then ANALYZEd, as its autovacuum
 * would do within a minute of such a load, so the planner sees the table sizes a running desk has.
 * It is measured twice: as the load left it, and after `VACUUM ANALYZE`, which also empties the
 * trigram GIN index's pending list (`fastupdate`: recent inserts wait there, up to
 * `gin_pending_list_limit`, 4 MB by default, and every search reads all of it). A live desk is
 * anywhere between the two: its inserts fill the list, autovacuum or a full list empties it.
 *
 * Each search goes through the app's repository (`MessageRepo.search`, newest 50 of the first
 * instance, the whole instance): what the API's `q=` costs below HTTP. Per search and engine: 10
 * calls to warm up, then `ROUNDS` rounds of `RUNS` calls timed one by one, the engines alternating by
 * round so a change in the machine's load hits both; the table gives p50 and p95 over all calls and
 * the ratios PostgreSQL / SQLite. The two engines must answer the same messages (checked).
 */
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import pg from 'pg'
import { copyDesk } from '../src/main/store/copy'
import { openStorage, type Storage } from '../src/main/store/storage'
import { startPostgres } from '../test/support/postgres-server'
import { seedHistory, type SeedShape } from './history-seed'

const MESSAGES = Number(process.env.SEARCH_MESSAGES ?? 300_000)
const RUNS = Number(process.env.SEARCH_RUNS ?? 100)
const ROUNDS = Number(process.env.SEARCH_ROUNDS ?? 3)
/** In every 10th message of the last instance, in no other instance's. */
const OTHER_WORD = 'ipanema'
const SHAPE: SeedShape = { instances: 3, chats: 3000, messages: MESSAGES, bigChat: Math.floor(MESSAGES / 10), contacts: 1000, lastInstanceWord: OTHER_WORD }

/** What is searched in the first instance's messages: the table's label and the query. */
const SEARCHES: Array<[string, string]> = [
  ['a common word (`pizza`, 20 % of messages)', 'pizza'],
  ['a rare word (`zanzibar`, 10 messages in all)', 'zanzibar'],
  ['two words (`pizza entrega`)', 'pizza entrega'],
  ['two words that rarely meet (`pizza zanzibar`)', 'pizza zanzibar'],
  ['a part of a word (`labres` in calabresa)', 'labres'],
  ['an accented word (`olá`)', 'olá'],
  ['the same typed without its accent (`ola`)', 'ola'],
  [`a word only another instance has (\`${OTHER_WORD}\`)`, OTHER_WORD]
]

function percentile(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b)
  return s[Math.min(s.length - 1, Math.floor((s.length * p) / 100))]!
}

/** `n` calls of `search` timed one by one (ms each). */
async function time(n: number, search: () => Promise<unknown>): Promise<number[]> {
  const out: number[] = []
  for (let i = 0; i < n; i++) {
    const t0 = performance.now()
    await search()
    out.push(performance.now() - t0)
  }
  return out
}

/** Runs the benchmark; prints a markdown table. */
export async function runSearchBench(): Promise<void> {
  const server = await startPostgres()
  const root = await mkdtemp(join(tmpdir(), 'chatapp-search-bench-'))
  const opened: Storage[] = []
  try {
    const dir = join(root, 'sqlite')
    let t0 = performance.now()
    const seeded = await seedHistory(dir, SHAPE, 'search-bench-token-0123456789')
    const seedS = (performance.now() - t0) / 1000
    const admin = new pg.Client({ connectionString: server.url })
    await admin.connect()
    await admin.query('CREATE DATABASE search_bench')
    const url = new URL(server.url)
    url.pathname = '/search_bench'
    t0 = performance.now()
    const copy = await copyDesk({ kind: 'dir', dir }, { kind: 'postgres', url: url.toString() })
    if (!copy.ok) throw new Error('the copy to PostgreSQL did not check out')
    const copyS = (performance.now() - t0) / 1000
    await admin.end()
    const analyzer = new pg.Client({ connectionString: url.toString() })
    await analyzer.connect()
    await analyzer.query('ANALYZE')
    await analyzer.end()
    console.log(
      `${MESSAGES.toLocaleString('en')} messages (${SHAPE.instances} instances, ${SHAPE.chats.toLocaleString('en')} chats): seeded into SQLite in ${seedS.toFixed(0)} s, ` +
        `copied to PostgreSQL ${server.url.replace(/^.*@/, '').replace(/\/.*$/, '')} by db:copy in ${copyS.toFixed(0)} s (setup, not measured).\n`
    )

    const sqlite = await openStorage(dir)
    opened.push(sqlite)
    const postgres = await openStorage(join(root, 'pg-worker'), { databaseUrl: url.toString() })
    opened.push(postgres)
    const engines = { sqlite: sqlite.repos.messages, postgres: postgres.repos.messages }
    const instanceId = seeded.instances[0]!.id

    t0 = performance.now()
    type Column = 'sqlite' | 'loaded' | 'vacuumed'
    const lat = SEARCHES.map(() => ({ sqlite: [] as number[], loaded: [] as number[], vacuumed: [] as number[] }))
    const hits: number[] = []
    const search = (engine: 'sqlite' | 'postgres', q: string) => () => engines[engine].search(instanceId, { q, limit: 50 })
    for (const phase of ['loaded', 'vacuumed'] as const) {
      if (phase === 'vacuumed') {
        // What autovacuum does to a table that took many inserts: among others, it moves the GIN
        // index's pending list (fastupdate) into the index proper, which every search reads through.
        const vacuum = new pg.Client({ connectionString: url.toString() })
        await vacuum.connect()
        await vacuum.query('VACUUM ANALYZE')
        await vacuum.end()
      }
      for (const [i, [, q]] of SEARCHES.entries()) {
        const [a, b] = [await search('sqlite', q)(), await search('postgres', q)()]
        const ids = (found: Array<{ id: string }>) => found.map((h) => h.id).join(',')
        if (ids(a) !== ids(b)) throw new Error(`"${q}": SQLite and PostgreSQL answered different messages (${a.length} and ${b.length})`)
        hits[i] = a.length
        for (const engine of ['sqlite', 'postgres'] as const) await time(10, search(engine, q))
        for (let r = 0; r < ROUNDS; r++) {
          for (const engine of (r % 2 === 0 ? ['sqlite', 'postgres'] : ['postgres', 'sqlite']) as Array<'sqlite' | 'postgres'>) {
            const column: Column = engine === 'sqlite' ? 'sqlite' : phase
            lat[i]![column].push(...(await time(RUNS, search(engine, q))))
          }
        }
      }
    }
    console.log(
      `Newest 50 matches in the first instance (of ${SHAPE.instances}) through MessageRepo.search; per engine and search ${ROUNDS} rounds of ${RUNS} calls, ` +
        'alternating; PostgreSQL as the load left it (ANALYZEd) and after VACUUM ANALYZE (SQLite timed beside each, both pooled); ms:\n'
    )
    console.log('| search | hits (≤ 50) | SQLite p50 | SQLite p95 | PG as loaded p50 | p95 | PG vacuumed p50 | p95 | PG / SQLite p50, loaded · vacuumed | p95, loaded · vacuumed |')
    console.log('| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |')
    for (const [i, [label]] of SEARCHES.entries()) {
      const p = (c: Column, n: number) => percentile(lat[i]![c], n)
      const ratio = (n: number) => `${(p('loaded', n) / p('sqlite', n)).toFixed(2)}× · ${(p('vacuumed', n) / p('sqlite', n)).toFixed(2)}×`
      console.log(`| ${label} | ${hits[i]} | ${p('sqlite', 50).toFixed(2)} | ${p('sqlite', 95).toFixed(2)} | ${p('loaded', 50).toFixed(2)} | ${p('loaded', 95).toFixed(2)} | ${p('vacuumed', 50).toFixed(2)} | ${p('vacuumed', 95).toFixed(2)} | ${ratio(50)} | ${ratio(95)} |`)
    }
    console.log(`\n(measured in ${((performance.now() - t0) / 1000).toFixed(0)} s)`)
  } finally {
    for (const s of opened) await s.close()
    await server.stop()
    await rm(root, { recursive: true, force: true })
  }
}
