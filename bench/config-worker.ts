/**
 * One worker of bench/config-bench.ts, in a process of its own: the real core and HTTP API
 * (`startCore` + `buildApiServer`, as `serve` runs them) on the PostgreSQL database given as the first
 * argument, worker id the second. The bench needs the worker's configuration store counters
 * (ConfigStore.stats: changes, and those re-applied to another worker's newer document), which the
 * API does not show: it reads them through the core's test seam (`internalsOf`).
 *
 * Prints `CONFIG-WORKER-READY {"url"}` once listening. On a line `stats` on stdin, prints
 * `CONFIG-WORKER-STATS {changes, reapplied, version}`. Exits on SIGTERM after closing the core.
 */
import { mkdtemp, rm } from 'node:fs/promises'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createInterface } from 'node:readline'
import { buildApiServer } from '../src/main/api/server'
import { internalsOf, startCore } from '../src/main/core'
import { silentLogger } from '../src/main/logger'

const [databaseUrl, id] = process.argv.slice(2)
if (!databaseUrl || !id) {
  console.error('usage: config-worker.ts <database url> <worker id>')
  process.exit(2)
}
const CONFIG_BENCH_TOKEN = 'bench-token-0123456789'

const dir = await mkdtemp(join(tmpdir(), `chatapp-config-bench-${id}-`))
// The port is known only once listening; the worker's URL (for forwarding) is not needed: the
// instances are never connected, so none has an owner to forward to.
const core = await startCore({ dataDir: dir, defaultChannel: 'sandbox', databaseUrl, apiToken: CONFIG_BENCH_TOKEN, logger: silentLogger(), worker: { id } })
const app = await buildApiServer(core, { host: '127.0.0.1', version: 'bench' })
await app.listen({ host: '127.0.0.1', port: 0 })
process.stdout.write(`CONFIG-WORKER-READY ${JSON.stringify({ url: `http://127.0.0.1:${(app.server.address() as AddressInfo).port}` })}\n`)

createInterface({ input: process.stdin }).on('line', (line) => {
  if (line.trim() !== 'stats') return
  const store = internalsOf(core).storage.config
  process.stdout.write(`CONFIG-WORKER-STATS ${JSON.stringify({ ...store.stats, version: store.version })}\n`)
})
process.once('SIGTERM', () => {
  void (async () => {
    await app.close()
    await core.close()
    await rm(dir, { recursive: true, force: true })
    process.exit(0)
  })()
})
