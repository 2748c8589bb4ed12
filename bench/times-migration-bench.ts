/**
 * Migration 11 (times as epoch ms, docs/storage.md "Times") on a large database: how long the first
 * start of this release takes on a version-9 database holding `n` rows in each of the three tables
 * most likely to be large (contacts, webhook deliveries, bot activity: three, three and one time
 * columns), on SQLite and, with `CHATAPP_BENCH_DATABASE_URL` (an empty database), on PostgreSQL.
 * Every tenth row's times are written with an offset, so the value-by-value path runs too.
 *
 * `node --import tsx bench/times-migration-bench.ts [n]` (default 100,000).
 */
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Kysely } from 'kysely'
import { Migrator } from 'kysely/migration'
import { openDatabaseAt, type DatabaseLocation } from '../src/main/store/db/database'
import { MIGRATIONS } from '../src/main/store/db/migrations'
import { openSqliteFile } from '../src/main/store/db/sqlite-thread/sqlite-file'
import { postgresDialect } from '../src/main/store/db/postgres-dialect'

const n = Number(process.argv[2] ?? 100_000)
const NAMES = Object.keys(MIGRATIONS)
const BEFORE = NAMES.indexOf('0011-times-as-ms')

function time(i: number): string {
  const ms = 1_700_000_000_000 + i * 1_000 + (i % 1000)
  // Every tenth: the same instant two hours east, as a client may have sent it.
  return i % 10 === 0 ? new Date(ms + 7_200_000).toISOString().replace('Z', '+02:00') : new Date(ms).toISOString()
}

async function seed(db: Kysely<any>): Promise<void> {
  const { error } = await new Migrator({ db, provider: { getMigrations: async () => ({ ...MIGRATIONS }) } }).migrateTo(NAMES[BEFORE - 1]!)
  if (error) throw error
  for (let start = 0; start < n; start += 500) {
    const ids = Array.from({ length: Math.min(500, n - start) }, (_, k) => start + k)
    await db.transaction().execute(async (trx) => {
      await trx.insertInto('contacts').values(ids.map((i) => ({ id: `c${i}`, instance_id: 'i1', client_id: 'c', name: `Name ${i}`, number: String(15550000000 + i), group_id: null, channel: 'whatsapp', notes: '', opted_out: 0, last_seen_at: time(i), created_at: time(i), updated_at: time(i + 1), v: 0 }))).execute()
      await trx.insertInto('webhook_deliveries').values(ids.map((i) => ({ id: `d${i}`, instance_id: 'i1', event: 'onMessage', url: 'https://hooks.example/in', payload: '{"n":1}', status: 'delivered', attempts: 1, last_error: null, last_status: 200, next_attempt_at: null, created_at: time(i), delivered_at: time(i + 1) }))).execute()
      await trx.insertInto('bot_activity').values(ids.map((i) => ({ instance_id: 'i1', at: time(i), chat_id: 'A', message_id: `m${i}`, matched: 'none', actions: '[]' }))).execute()
    })
  }
}

async function run(label: string, location: DatabaseLocation, bare: () => Promise<{ db: Kysely<any>; close(): Promise<void> }>): Promise<void> {
  const b = await bare()
  await seed(b.db)
  await b.close()
  const started = performance.now()
  const h = await openDatabaseAt(location)
  const ms = performance.now() - started
  console.log(`${label}: ${n.toLocaleString('en')} rows in each of 3 tables (7 time columns) migrated in ${(ms / 1000).toFixed(1)} s; version ${await h.version()}`)
  await h.close()
}

const dir = await mkdtemp(join(tmpdir(), 'chatapp-times-bench-'))
try {
  const file = join(dir, 'chatapp.db')
  await run('SQLite', { file }, async () => {
    const o = await openSqliteFile<any>(file, { readOnly: false })
    return { db: o.db, close: () => o.close() }
  })
  const url = process.env.CHATAPP_BENCH_DATABASE_URL
  if (url) {
    await run('PostgreSQL', { url }, async () => {
      const db = new Kysely<any>({ dialect: postgresDialect(url, 'bench').dialect })
      return { db, close: () => db.destroy() }
    })
  }
} finally {
  await rm(dir, { recursive: true, force: true })
}
