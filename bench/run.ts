/**
 * `npm run bench` (= `node --expose-gc --max-semi-space-size=4 --import tsx bench/run.ts`: the
 * main thread's young generation as the app's, scripts/heap-flags.mjs, for the parts that run the
 * core in this process): every benchmark of the project, printed as markdown tables after one line
 * describing the machine. Speed targets are measured here, not in timed tests. `npm run bench -- match` or `-- wa` runs one part only.
 *
 * - match: keyword index vs a naive regex loop at 10, 1,000 and 10,000 intents (target:
 *   p99 < 0.2 ms and ≥ 50× faster at 10,000 intents).
 * - writes: an intent create at 0 and at 10,000 stored intents, as a ratio (≤ 1.5×).
 * - throughput: sandbox `POST /chatapp/message` under autocannon at 16 and 64 connections against a
 *   bare node:http server, webhooks off and on (docs/benchmarks.md "API send throughput, webhooks off and on": ≥ 0.5× bare; webhooks on ≥ 0.7× off),
 *   and two cheaper routes of the same server (`GET /health`, `GET /intent`) to show where the time goes.
 * - people: a read and a send with the owner's token, a scoped API key and a staff session token, as
 *   ratios of the owner's in the same run (docs/design.md §21: what authenticating a person or key costs).
 * - workers: workers on one PostgreSQL database (a server of its own), docs/design.md §22: a read and a send
 *   through the instance's owner and relayed through the other worker, p50/p99 (what forwarding adds);
 *   sends per second over 6 instances with 1, 2 and 3 `serve` workers (ratios to 1 worker); failover
 *   after kill -9, the median of 5 (./workers-bench.ts). About two minutes.
 * - config: the configuration in database mode (docs/storage.md "In database mode"): settings of 20
 *   and 200 instances changed through 3 workers (processes of their own) at once against 1 worker:
 *   changes/s, p50/p99, changes re-applied on another worker's newer document, refused and lost
 *   changes, the configuration's size; median of 3 rounds (./config-bench.ts). About three minutes.
 * - copy: `npm run db:copy` of a desk of 100,000 messages from SQLite to PostgreSQL and back (docs/design.md §22
 *   §1): rows per second, the check included, median of 3 (./copy-bench.ts). About a minute.
 * - search: the same searches (a common word, a rare one, two words, a part of a word, an accented
 *   word, a word only another instance has) through the message repository on SQLite and on
 *   PostgreSQL, one history of 300,000 messages moved by db:copy: p50/p95 and PostgreSQL / SQLite
 *   ratios (./search-bench.ts). About two minutes.
 * - signal: a Signal session record's size after 100 and 1,500 turns with one contact (docs/benchmarks.md "Signal session record size":
 *   ≤ 1.2×), the product's auth store against libsignal as it is.
 * - auth: the channel credentials in the database (docs/design.md §20 "Storage"): time per keys.set and keys.get in a
 *   real Signal conversation, and the heap of 20 instances' stores (./auth-bench.ts).
 * - start: `npm run serve` to its listening line and the idle RSS of its process tree (docs/benchmarks.md "Start time and idle memory":
 *   ≤ 1.5 s, ≤ 150 MB), against the server run from source under tsx.
 * - history: a data dir of 1,000,000 messages (10 instances, 20,000 chats, 100,000 contacts) against
 *   one of 1,000, through `npm run serve`: chat list, a chat's newest and deep pages, the message log,
 *   search, start time and idle memory, bytes per 1,000 messages (p95 ≤ 20 ms and ≤ 2×
 *   the 1k figure; start and RSS ≤ 1.2× an empty dir). About 5 minutes, most of it seeding.
 * - stalls: at 1,000,000 messages, the longest wait of a /health probe every 5 ms, the server's own
 *   event-loop delay and the longest send while a search, a customer's export (JSON, CSV), a backup,
 *   the customer's erasure, a restore and a retention run of 500,000 messages go on (target ≤ 50 ms;
 *   ./stalls-bench.ts). About ten minutes, most of it seeding and the retention run.
 * - index: a send's writes on SQLite with the message search index brought up to date in each commit
 *   (the app's trigger) against in batches of 64 and 512 sends, and with no index: CPU a send, on the
 *   bench's sentence and on varied texts (./search-index-bench.ts). About a minute.
 * - assistant: the desk's own time around the model call with an endpoint that answers at once
 *   (target p99 ≤ 5 ms), and knowledge retrieval at 10,000 passages on SQLite and PostgreSQL (target
 *   p95 ≤ 5 ms on SQLite) (./assistant-bench.ts). About two minutes.
 * - wa: the real Baileys channel against the protocol test server (in a child process): memory per
 *   connected instance at 1, 10 and 50 instances, bot reply latency over 1,000 messages, and API
 *   send throughput with the send pacing at 0 (./wa-bench.ts). About a minute. It runs in a process
 *   of its own (with --expose-gc): the match bench leaves hundreds of MB of RSS behind, which would
 *   swamp the per-instance memory readings.
 */
import { spawn } from 'node:child_process'
import { MAIN_HEAP_FLAGS } from '../scripts/heap-flags.mjs'
import { cpus, loadavg, platform, arch, totalmem } from 'node:os'
import { fileURLToPath } from 'node:url'
import { runAssistantBench } from './assistant-bench'
import { runAuthBench } from './auth-bench'
import { runConfigBench } from './config-bench'
import { runCopyBench } from './copy-bench'
import { runHistoryBench } from './history-bench'
import { runMatchBench } from './match-bench'
import { runPeopleBench } from './people-bench'
import { runSearchBench } from './search-bench'
import { runSearchIndexBench } from './search-index-bench'
import { runSignalBench } from './signal-bench'
import { runStartBench } from './start-bench'
import { runStallsBench } from './stalls-bench'
import { runThroughputBench } from './throughput-bench'
import { runWorkersBench } from './workers-bench'
import { runWriteBench } from './write-bench'

const only = process.argv[2]
if (only !== undefined && !['match', 'writes', 'signal', 'auth', 'start', 'throughput', 'people', 'workers', 'config', 'copy', 'search', 'history', 'stalls', 'index', 'assistant', 'wa'].includes(only)) {
  console.error(`unknown part "${only}": match, writes, signal, auth, start, throughput, people, workers, config, copy, search, history, stalls, index, assistant or wa`)
  process.exit(2)
}
const cpu = cpus()
console.log(
  `node ${process.version}, ${platform()} ${arch()}, ${cpu.length} CPUs (${cpu[0]?.model.trim() ?? 'unknown'}), ` +
    `${(totalmem() / 2 ** 30).toFixed(1)} GiB RAM, load average ${loadavg()[0]!.toFixed(2)} at start\n`
)

/** The in-process parts, in run order: name, heading, runner. */
const PARTS: Array<[string, string, () => unknown]> = [
  ['match', '## Intent matching (KeywordIndex vs naive regex loop)', runMatchBench],
  ['writes', '## Writes at 0 and 10,000 intents', runWriteBench],
  ['signal', '## Signal session record size over a long conversation', runSignalBench],
  ['auth', '## Channel credentials in the database: keys.set, keys.get, memory', runAuthBench],
  ['start', '## Start time and idle memory of npm run serve', runStartBench],
  ['throughput', '## API send throughput, webhooks off and on, against bare node:http', runThroughputBench],
  ['people', '## Who is calling: owner token, API key, staff session', runPeopleBench],
  ['workers', '## Workers on PostgreSQL: a relayed call, sends per second with 1–3 workers, failover after kill -9', runWorkersBench],
  ['config', '## The configuration in database mode: settings changed through 1 and 3 workers at once', runConfigBench],
  ['copy', '## npm run db:copy of 100,000 messages: SQLite to PostgreSQL and back', () => runCopyBench()],
  ['search', '## Message search at 300,000 messages: SQLite against PostgreSQL', runSearchBench],
  ['history', '## A long history through the API: 1,000,000 messages against 1,000', runHistoryBench],
  ['stalls', '## Stalls while heavy work runs, at 1,000,000 messages', runStallsBench],
  ['index', '## The search index in each commit, or in batches: a send\'s writes on SQLite', runSearchIndexBench],
  ['assistant', '## The assistant: the desk\'s own time around the model call, knowledge retrieval at 10,000 passages', runAssistantBench]
]
for (const [name, heading, run] of PARTS) {
  if (only !== undefined && only !== name) continue
  console.log(`\n${heading}\n`)
  await run()
}
if (only === undefined || only === 'wa') {
  console.log('\n## Real Baileys channel against the local protocol test server')
  const script = fileURLToPath(new URL('./wa-bench.ts', import.meta.url))
  // The app in that process runs with the main thread's heap flags, as `npm run serve` and the desktop
  // app run it (scripts/heap-flags.mjs); the other parts run in this process, started with them.
  const child = spawn(process.execPath, [...MAIN_HEAP_FLAGS, '--expose-gc', '--import', 'tsx', script], { stdio: 'inherit' })
  // Our SIGINT reaches the child too (same process group); it cleans up and exits on its own.
  process.on('SIGINT', () => undefined)
  const code = await new Promise<number | null>((resolve) => child.once('exit', (c) => resolve(c)))
  if (code !== 0) {
    console.error(`wa-bench failed (exit ${code})`)
    process.exitCode = 1
  }
}
