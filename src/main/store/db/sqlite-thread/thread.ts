/**
 * The entry of a SQLite thread (a `node:worker_threads` Worker started by ./sqlite-thread.ts): opens
 * the thread's one connection, says it is ready (or why not), then hands every request to the host
 * (./host.ts). The main thread never runs a statement or a commit's fsync itself (docs/storage.md
 * "Threads"). Built as a file of its own (`sqlite-thread.js`, electron.vite.config.ts).
 */
import { parentPort, workerData } from 'node:worker_threads'
import { describeError } from './error-transport'
import { openConnection, ThreadHost } from './host'
import type { ThreadOptions, ThreadReady, ThreadReply, ThreadRequest } from './protocol'

const options = workerData as ThreadOptions
const port = parentPort!

/**
 * Answers ready in one turn (a batch's writes all answer when its COMMIT returns) go in one message:
 * each `postMessage` costs a serialisation and a wake-up of the main thread, 5 % of the writer's time
 * under load when sent one by one (a CPU profile of `serve` under 16 concurrent sends).
 */
let outbox: ThreadReply[] = []
function flush(): void {
  const batch = outbox
  outbox = []
  port.postMessage(batch.length === 1 ? batch[0] : batch)
}
function answer(reply: ThreadReply): void {
  if (outbox.push(reply) === 1) queueMicrotask(flush)
}

let host: ThreadHost
try {
  host = new ThreadHost(openConnection(options), options, answer)
  port.postMessage({ ready: true } satisfies ThreadReady)
} catch (err) {
  port.postMessage({ ready: false, error: describeError(err) } satisfies ThreadReady)
  process.exit(0)
}
port.on('message', (req: ThreadRequest) => host.handle(req))
