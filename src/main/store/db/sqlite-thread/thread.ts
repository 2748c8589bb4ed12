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

let host: ThreadHost
try {
  host = new ThreadHost(openConnection(options), options, (reply: ThreadReply) => port.postMessage(reply))
  port.postMessage({ ready: true } satisfies ThreadReady)
} catch (err) {
  port.postMessage({ ready: false, error: describeError(err) } satisfies ThreadReady)
  process.exit(0)
}
port.on('message', (req: ThreadRequest) => host.handle(req))
