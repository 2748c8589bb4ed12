/**
 * What forwarding between workers costs (issue 26; docs/design.md §22 "Forwarding"): two workers
 * (two cores with their HTTP servers, in this process) on one PostgreSQL database (a server of its own,
 * started like the tests' one: test/support/postgres-server.ts), one sandbox instance run by worker A.
 * The same read (`GET /chatapp/messages`, newest 20) and the same send (`POST /chatapp/message`) are
 * made one at a time through A (direct) and through B (relayed to A), and the table gives p50/p99 of
 * each and what the relay adds.
 */
import { mkdtemp, rm } from 'node:fs/promises'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import pg from 'pg'
import type { FastifyInstance } from 'fastify'
import { buildApiServer } from '../src/main/api/server'
import { startCore, type Core } from '../src/main/core'
import { startPostgres } from '../test/support/postgres-server'

const CALLS = 500

async function freePort(): Promise<number> {
  const s = createServer()
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve))
  const port = (s.address() as { port: number }).port
  await new Promise<void>((resolve) => s.close(() => resolve()))
  return port
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))]!
}

export async function runWorkersBench(): Promise<void> {
  const server = await startPostgres()
  const admin = new pg.Client({ connectionString: server.url })
  await admin.connect()
  await admin.query('CREATE DATABASE workers_bench')
  await admin.end()
  const url = new URL(server.url)
  url.pathname = '/workers_bench'
  const dirs: string[] = []
  const running: Array<{ core: Core; app: FastifyInstance }> = []
  const worker = async (id: string) => {
    const dir = await mkdtemp(join(tmpdir(), 'chatapp-workers-bench-'))
    dirs.push(dir)
    const port = await freePort()
    const core = await startCore({ dataDir: dir, defaultChannel: 'sandbox', databaseUrl: url.toString(), apiToken: 'bench-token-0123456789', worker: { id, url: `http://127.0.0.1:${port}` } })
    const app = await buildApiServer(core, { host: '127.0.0.1', version: 'bench' })
    await app.listen({ host: '127.0.0.1', port })
    running.push({ core, app })
    return `http://127.0.0.1:${port}`
  }
  try {
    const a = await worker('a')
    const b = await worker('b')
    const call = async (base: string, method: string, path: string, body?: object) => {
      const res = await fetch(base + path, { method, headers: { authorization: 'Bearer bench-token-0123456789', 'content-type': 'application/json' }, body: body ? JSON.stringify(body) : undefined })
      const json = (await res.json()) as { data: any }
      if (res.status !== 200) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(json)}`)
      return json
    }
    const inst = (await call(a, 'POST', '/chatapp/createNewChatapp', { channel: 'sandbox' })).data
    const q = `session_id=${inst.session_id}&access_token=${inst.settings.access_token}`
    await call(a, 'POST', `/chatapp/init?${q}`)
    await call(a, 'POST', `/chatapp/sandbox/scan?${q}`)
    for (let i = 0; i < 50; i++) await call(a, 'POST', `/chatapp/sandbox/inbound?${q}`, { chatId: '15550001111', message: `order ${i}` })

    const time = async (base: string, send: boolean) => {
      const ms: number[] = []
      for (let i = 0; i < CALLS; i++) {
        const t = performance.now()
        if (send) await call(base, 'POST', `/chatapp/message?${q}`, { chatId: '15550001111', message: 'Your order is ready' })
        else await call(base, 'GET', `/chatapp/messages?${q}&chatId=15550001111&limit=20`)
        ms.push(performance.now() - t)
      }
      return ms.sort((x, y) => x - y)
    }
    console.log(`${CALLS} calls each, one at a time; worker A runs the instance, B relays to A.\n`)
    console.log('| call | via | p50 ms | p99 ms |')
    console.log('| --- | --- | ---: | ---: |')
    for (const send of [false, true]) {
      await time(b, send) // warm both paths
      const direct = await time(a, send)
      const relayed = await time(b, send)
      const name = send ? 'POST /chatapp/message' : 'GET /chatapp/messages'
      console.log(`| ${name} | A (owner) | ${percentile(direct, 50).toFixed(2)} | ${percentile(direct, 99).toFixed(2)} |`)
      console.log(`| ${name} | B → A | ${percentile(relayed, 50).toFixed(2)} | ${percentile(relayed, 99).toFixed(2)} |`)
      console.log(`| ${name} | added | ${(percentile(relayed, 50) - percentile(direct, 50)).toFixed(2)} | ${(percentile(relayed, 99) - percentile(direct, 99)).toFixed(2)} |`)
    }
  } finally {
    for (const r of running.reverse()) {
      await r.app.close()
      await r.core.close()
    }
    for (const d of dirs) await rm(d, { recursive: true, force: true })
    await server.stop()
  }
}
