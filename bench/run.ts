/**
 * `npm run bench` (= `node --expose-gc --import tsx bench/run.ts`): every benchmark of the project,
 * printed as markdown tables after one line describing the machine. Speed targets are measured
 * here, not in timed tests. `npm run bench -- match` or `-- wa` runs one part only.
 *
 * - match: keyword index vs a naive regex loop at 10, 1,000 and 10,000 intents (issue 3 target:
 *   p99 < 0.2 ms and ≥ 50× faster at 10,000 intents).
 * - writes: an intent create at 0 and at 10,000 stored intents, as a ratio (issue 11 §9: ≤ 1.5×).
 * - throughput: sandbox `POST /chatapp/message` under autocannon at 16 and 64 connections against a
 *   bare node:http server, webhooks off and on (issue 11 §11: ≥ 0.5× bare; webhooks on ≥ 0.7× off).
 * - signal: a Signal session record's size after 100 and 1,500 turns with one contact (issue 11 §12:
 *   ≤ 1.2×), the product's auth store against libsignal as it is.
 * - start: `npm run serve` to its listening line and the idle RSS of its process tree (issue 11 §13:
 *   ≤ 1.5 s, ≤ 150 MB), against the server run from source under tsx.
 * - wa: the real Baileys channel against the protocol test server (in a child process): memory per
 *   connected instance at 1, 10 and 50 instances, bot reply latency over 1,000 messages, and API
 *   send throughput with the send pacing at 0 (./wa-bench.ts). About a minute. It runs in a process
 *   of its own (with --expose-gc): the match bench leaves hundreds of MB of RSS behind, which would
 *   swamp the per-instance memory readings.
 */
import { spawn } from 'node:child_process'
import { cpus, loadavg, platform, arch, totalmem } from 'node:os'
import { fileURLToPath } from 'node:url'
import { runMatchBench } from './match-bench'
import { runSignalBench } from './signal-bench'
import { runStartBench } from './start-bench'
import { runThroughputBench } from './throughput-bench'
import { runWriteBench } from './write-bench'

const only = process.argv[2]
if (only !== undefined && only !== 'match' && only !== 'wa' && only !== 'writes' && only !== 'throughput' && only !== 'signal' && only !== 'start') {
  console.error(`unknown part "${only}": match, writes, throughput, signal, start or wa`)
  process.exit(2)
}
const cpu = cpus()
console.log(
  `node ${process.version}, ${platform()} ${arch()}, ${cpu.length} CPUs (${cpu[0]?.model.trim() ?? 'unknown'}), ` +
    `${(totalmem() / 2 ** 30).toFixed(1)} GiB RAM, load average ${loadavg()[0]!.toFixed(2)} at start\n`
)

if (only === undefined || only === 'match') {
  console.log('## Intent matching (KeywordIndex vs naive regex loop)\n')
  runMatchBench()
}
if (only === undefined || only === 'writes') {
  console.log('\n## Configuration writes at 0 and 10,000 intents\n')
  await runWriteBench()
}
if (only === undefined || only === 'signal') {
  console.log('\n## Signal session record size over a long conversation\n')
  await runSignalBench()
}
if (only === undefined || only === 'start') {
  console.log('\n## Start time and idle memory of npm run serve\n')
  await runStartBench()
}
if (only === undefined || only === 'throughput') {
  console.log('\n## API send throughput, webhooks off and on, against bare node:http\n')
  await runThroughputBench()
}
if (only === undefined || only === 'wa') {
  console.log('\n## Real Baileys channel against the local protocol test server')
  const script = fileURLToPath(new URL('./wa-bench.ts', import.meta.url))
  const child = spawn(process.execPath, ['--expose-gc', '--import', 'tsx', script], { stdio: 'inherit' })
  // Our SIGINT reaches the child too (same process group); it cleans up and exits on its own.
  process.on('SIGINT', () => undefined)
  const code = await new Promise<number | null>((resolve) => child.once('exit', (c) => resolve(c)))
  if (code !== 0) {
    console.error(`wa-bench failed (exit ${code})`)
    process.exitCode = 1
  }
}
