/**
 * Writes that must not grow with the data: the time of an intent create (the service
 * call: validation, one row in a group-committed transaction, fsync) with 0 and with 10,000 intents
 * already stored, and the bytes the database (file and WAL) grows per create, in the same run. The
 * target is a ratio: create at 10,000 ≤ 1.5× create at 0.
 */
import { mkdtemp, rm, stat } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { startCore, type Core } from '../src/main/core'

const SAMPLES = 200

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b)
  return s[Math.floor(s.length / 2)]!
}

/** The database's bytes on disk: the file and its write-ahead log. */
async function databaseBytes(dir: string): Promise<number> {
  const size = async (f: string) => (await stat(join(dir, f)).catch(() => ({ size: 0 }))).size
  return (await size('chatapp.db')) + (await size('chatapp.db-wal'))
}

/** Median ms and journal bytes per create, over {@link SAMPLES} sequential creates. */
async function measure(core: Core, dir: string, instId: string, tag: string) {
  const inst = core.instances.get(instId)
  const times: number[] = []
  const before = await databaseBytes(dir)
  for (let i = 0; i < SAMPLES; i++) {
    const t0 = process.hrtime.bigint()
    await core.intents.create(inst, { title: `${tag} ${i}`, keyword: `${tag}${i}`, reply: 'Thanks, we got your message.' })
    times.push(Number(process.hrtime.bigint() - t0) / 1e6)
  }
  const after = await databaseBytes(dir)
  return { median: median(times), p90: [...times].sort((a, b) => a - b)[Math.floor(times.length * 0.9)]!, bytesPerCreate: after >= before ? (after - before) / SAMPLES : NaN }
}

/** Runs the benchmark; prints a markdown table. */
export async function runWriteBench(): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'chatapp-write-bench-'))
  const core = await startCore({ dataDir: dir, defaultChannel: 'sandbox', restoreSessions: false })
  try {
    const inst = await core.instances.create('sandbox')
    const empty = await measure(core, dir, inst._id, 'a')
    // Fill to 10,000 intents (concurrent creates share a transaction).
    const target = 10_000
    for (let n = (await core.intents.list(inst)).length; n < target; n += 500) {
      await Promise.all(Array.from({ length: Math.min(500, target - n) }, (_, i) => core.intents.create(inst, { title: `fill ${n + i}`, keyword: `fill${n + i}`, reply: 'r' })))
    }
    const full = await measure(core, dir, inst._id, 'b')
    console.log('| intents stored | create median ms | create p90 ms | database bytes per create |')
    console.log('| ---: | ---: | ---: | ---: |')
    console.log(`| ${SAMPLES} or fewer | ${empty.median.toFixed(2)} | ${empty.p90.toFixed(2)} | ${Number.isNaN(empty.bytesPerCreate) ? 'checkpointed' : empty.bytesPerCreate.toFixed(0)} |`)
    console.log(`| 10,000 | ${full.median.toFixed(2)} | ${full.p90.toFixed(2)} | ${Number.isNaN(full.bytesPerCreate) ? 'checkpointed' : full.bytesPerCreate.toFixed(0)} |`)
    console.log(`\ncreate at 10,000 / create at 0 (median): **${(full.median / empty.median).toFixed(2)}×** (target ≤ 1.5×)`)
  } finally {
    await core.close()
    await rm(dir, { recursive: true, force: true })
  }
}
