/**
 * `npm run bench -- copy`: `npm run db:copy` of a desk of 100,000 messages (2 instances, 1,000 chats,
 * 1,000 contacts; bench/history-seed.ts) from its SQLite data dir to PostgreSQL, and back to a fresh
 * data dir, three times each: rows per second (every table, the check included) as the median of the
 * three, and the slowest. PostgreSQL is a server of its own started like the tests' (initdb in a temp
 * dir, fsync off): a production server with fsync on commits the one transaction once, so the figure
 * moves little, but say so when quoting it.
 */
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import pg from 'pg'
import { copyDesk, type CopyReport } from '../src/main/store/copy'
import { startPostgres } from '../test/support/postgres-server'
import { seedHistory } from './history-seed'

const RUNS = 3

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b)
  return s[Math.floor(s.length / 2)]!
}

export async function runCopyBench(messages = 100_000): Promise<void> {
  const server = await startPostgres()
  const admin = new pg.Client({ connectionString: server.url })
  await admin.connect()
  const root = await mkdtemp(join(tmpdir(), 'chatapp-copy-bench-'))
  try {
    const source = join(root, 'source')
    const seedStarted = performance.now()
    await seedHistory(source, { instances: 2, chats: 1000, messages, bigChat: Math.floor(messages / 10), contacts: 1000 }, 'bench-token-0123456789')
    console.log(`Seeded ${messages.toLocaleString('en')} messages in ${((performance.now() - seedStarted) / 1000).toFixed(1)} s.\n`)
    const toPg: CopyReport[] = []
    const back: CopyReport[] = []
    for (let i = 0; i < RUNS; i++) {
      await admin.query(`CREATE DATABASE copy_bench_${i}`)
      const url = new URL(server.url)
      url.pathname = `/copy_bench_${i}`
      toPg.push(await copyDesk({ kind: 'dir', dir: source }, { kind: 'postgres', url: url.toString() }))
      back.push(await copyDesk({ kind: 'postgres', url: url.toString() }, { kind: 'dir', dir: join(root, `back-${i}`) }))
      await admin.query(`DROP DATABASE copy_bench_${i} WITH (FORCE)`)
    }
    const line = (name: string, reports: CopyReport[]) => {
      const rate = reports.map((r) => (r.rows / r.ms) * 1000)
      const ms = reports.map((r) => r.ms)
      if (!reports.every((r) => r.ok)) throw new Error(`${name}: a copy did not check out`)
      return `| ${name} | ${reports[0]!.rows.toLocaleString('en')} | ${(median(ms) / 1000).toFixed(1)} s | ${Math.round(median(rate)).toLocaleString('en')} | ${(Math.max(...ms) / 1000).toFixed(1)} s |`
    }
    console.log('| copy (copied, checked, committed) | rows | median time | median rows/s | slowest |')
    console.log('| --- | ---: | ---: | ---: | ---: |')
    console.log(line('SQLite data dir → PostgreSQL', toPg))
    console.log(line('PostgreSQL → new SQLite data dir', back))
  } finally {
    await admin.end()
    await server.stop()
    await rm(root, { recursive: true, force: true })
  }
}
