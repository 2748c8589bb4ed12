/**
 * The import of a 0.1 data dir holding 100,000 messages (docs/storage.md "Importing a data dir of release 0.1"): how long the first start of
 * this release takes on it, and how much memory the import holds, in batches of 2,000 messages per
 * transaction (the default) against the whole log in one transaction.
 *
 * `node --expose-gc --import tsx bench/legacy-import-bench.ts [runs]` (default 3 runs per setting).
 * The data dir is written once in 0.1's formats (./legacy-data-dir.ts: 2 instances, 1,000 chats
 * each, every bot answer with two status patches, 2,000 pending webhook deliveries); each run copies
 * it to a fresh dir and imports it in a child process of its own, so its peak RSS is its own. Time:
 * `openStorage` until it returns (database created and migrated, import, files moved), wall and CPU
 * (the CPU time shows the cost when other processes share the machine). Memory: the
 * process's peak RSS (getrusage), and the peak JS heap sampled every 20 ms, over the RSS/heap after
 * the modules loaded; and, in one more run per setting, the live heap after a full GC at the end of
 * each step's work and after its commit (what the import holds, garbage aside) and the largest WAL
 * file seen then (what a transaction holds on disk until its checkpoint).
 */
import { spawn } from 'node:child_process'
import { statSync } from 'node:fs'
import { cp, mkdtemp, rm, stat } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { writeLegacyDataDir, type LegacyDirSize } from './legacy-data-dir'

export const SIZE: LegacyDirSize = { messages: 100_000, instances: 2, chats: 1000, deliveries: 2000 }
const SETTINGS: Array<[string, number]> = [
  ['batches of 2,000 (default)', 2000],
  ['one transaction per log', 1_000_000_000]
]

interface RunResult {
  ms: number
  /** CPU time of the import (user + system). */
  cpuMs: number
  peakRssMb: number
  baseRssMb: number
  peakHeapMb: number
  baseHeapMb: number
  /** With `--retained`: the largest live JS heap after a full GC at each step's end and commit (else 0). */
  retainedHeapMb: number
  /** With `--retained`: the largest size of the WAL file seen then (else 0). */
  walMb: number
  messages: number
}

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b)
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2
}

/** One import in this process (the child): copies `template`, imports it, prints the result as JSON. */
async function child(template: string, batchSize: number, retained: boolean): Promise<void> {
  const { openStorage } = await import('../src/main/store/storage')
  const dir = await mkdtemp(join(tmpdir(), 'chatapp-legacy-bench-run-'))
  await cp(template, dir, { recursive: true })
  globalThis.gc?.()
  const baseRss = process.memoryUsage().rss
  const baseHeap = process.memoryUsage().heapUsed
  let peakHeap = baseHeap
  const sampler = setInterval(() => (peakHeap = Math.max(peakHeap, process.memoryUsage().heapUsed)), 20)
  const t0 = performance.now()
  const cpu0 = process.cpuUsage()
  let retainedPeak = 0
  let walPeak = 0
  // A full GC at the end of each step's work (inside its transaction) and after its commit shows what
  // the import keeps alive, not what awaits collection; the WAL holds what a transaction changed.
  const onProgress = retained
    ? () => {
        globalThis.gc!()
        retainedPeak = Math.max(retainedPeak, process.memoryUsage().heapUsed)
        walPeak = Math.max(walPeak, statSync(join(dir, 'chatapp.db-wal'), { throwIfNoEntry: false })?.size ?? 0)
      }
    : undefined
  const storage = await openStorage(dir, { legacyImport: { batchSize, onProgress } })
  const ms = performance.now() - t0
  const cpu = process.cpuUsage(cpu0)
  clearInterval(sampler)
  const { n } = await storage.database.db.selectFrom('messages').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()
  await storage.close()
  await rm(dir, { recursive: true, force: true })
  const result: RunResult = {
    ms,
    cpuMs: (cpu.user + cpu.system) / 1000,
    // maxRSS is in KiB.
    peakRssMb: (process.resourceUsage().maxRSS * 1024) / 2 ** 20,
    baseRssMb: baseRss / 2 ** 20,
    peakHeapMb: peakHeap / 2 ** 20,
    baseHeapMb: baseHeap / 2 ** 20,
    retainedHeapMb: retainedPeak / 2 ** 20,
    walMb: walPeak / 2 ** 20,
    messages: Number(n)
  }
  process.stdout.write(JSON.stringify(result) + '\n')
}

function runChild(template: string, batchSize: number, retained = false): Promise<RunResult> {
  const script = fileURLToPath(import.meta.url)
  const proc = spawn(process.execPath, ['--expose-gc', '--import', 'tsx', script, '--child', template, String(batchSize), ...(retained ? ['--retained'] : [])], { stdio: ['ignore', 'pipe', 'inherit'] })
  let out = ''
  proc.stdout.on('data', (d: Buffer) => (out += d.toString()))
  return new Promise((resolve, reject) =>
    proc.on('exit', (code) => (code === 0 ? resolve(JSON.parse(out.trim().split('\n').at(-1)!) as RunResult) : reject(new Error(`bench child exited with ${code}: ${out}`))))
  )
}

/** Writes the data dir, runs each setting `runs` times, prints a markdown table of medians. */
export async function runLegacyImportBench(runs = 3): Promise<void> {
  const template = await mkdtemp(join(tmpdir(), 'chatapp-legacy-bench-'))
  try {
    const { logBytes } = await writeLegacyDataDir(template, SIZE)
    const outbox = (await stat(join(template, 'webhook-outbox.jsonl'))).size
    console.log(
      `0.1 data dir: ${SIZE.messages.toLocaleString('en')} messages in ${SIZE.instances} instances × ${SIZE.chats.toLocaleString('en')} chats ` +
        `(${(logBytes / 2 ** 20).toFixed(1)} MB of message logs with status patches), ${SIZE.deliveries.toLocaleString('en')} pending deliveries (${(outbox / 2 ** 20).toFixed(1)} MB); ${runs} runs per setting, medians\n`
    )
    console.log('| setting | import, wall (s) | CPU (s) | messages/s (wall) | peak RSS (MB) | RSS before (MB) | peak JS heap (MB) | heap before (MB) | live heap, max (MB) | WAL, max (MB) |')
    console.log('| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |')
    for (const [name, batch] of SETTINGS) {
      const results: RunResult[] = []
      for (let i = 0; i < runs; i++) results.push(await runChild(template, batch))
      const memory = await runChild(template, batch, true)
      if ([...results, memory].some((r) => r.messages !== SIZE.messages)) throw new Error(`an import did not bring every message: ${results.map((r) => r.messages).join(', ')}`)
      const m = (f: (r: RunResult) => number) => median(results.map(f))
      console.log(
        `| ${name} | ${(m((r) => r.ms) / 1000).toFixed(1)} (${results.map((r) => (r.ms / 1000).toFixed(1)).join(', ')}) | ${(m((r) => r.cpuMs) / 1000).toFixed(1)} | ${Math.round(SIZE.messages / (m((r) => r.ms) / 1000)).toLocaleString('en')} | ` +
          `${m((r) => r.peakRssMb).toFixed(0)} | ${m((r) => r.baseRssMb).toFixed(0)} | ${m((r) => r.peakHeapMb).toFixed(0)} | ${m((r) => r.baseHeapMb).toFixed(0)} | ${memory.retainedHeapMb.toFixed(0)} | ${memory.walMb.toFixed(0)} |`
      )
    }
  } finally {
    await rm(template, { recursive: true, force: true })
  }
}

if (process.argv[2] === '--child') await child(process.argv[3]!, Number(process.argv[4]), process.argv[5] === '--retained')
else if (process.argv[1] === fileURLToPath(import.meta.url)) await runLegacyImportBench(Number(process.argv[2] ?? 3))
