/**
 * Test harness: a core on a fresh temp data dir with the API server built (not listening), driven
 * through Fastify's inject. Helpers create instances and walk them to CONNECTED on the sandbox.
 *
 * `CHATAPP_TEST_DATABASE=postgres` runs the cores on a fresh database of the run's PostgreSQL server
 * instead of the data dir's SQLite file (one per data dir, dropped when the dir is removed), so any
 * API test can be run there by hand: `CHATAPP_TEST_DATABASE=postgres npx vitest run test/api/…`.
 */
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { FastifyInstance, InjectOptions } from 'fastify'
import { buildApiServer } from '../../src/main/api/server'
import { startCore, type Core, type CoreOptions } from '../../src/main/core'
import type { Instance } from '../../src/shared/schemas/records'
import { createTestDatabase, dropTestDatabase } from './postgres'

export interface Harness {
  core: Core
  app: FastifyInstance
  dataDir: string
  token: string
  /** inject with the bearer token added. */
  call(opts: InjectOptions): Promise<{ statusCode: number; json: any; body: string; headers: Record<string, unknown>; rawPayload: Buffer }>
  /** An instance route caller: appends the credentials query `qs`, expects 200 and answers the JSON envelope. */
  instanceApi(qs: string): (method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, payload?: object) => Promise<any>
  /** Creates a sandbox instance; answers its record. */
  createInstance(channel?: 'sandbox' | 'baileys'): Promise<Instance>
  /** Creates a sandbox instance and walks it to CONNECTED; answers record and credentials query. */
  connectedInstance(): Promise<{ inst: Instance; creds: { session_id: string; access_token: string }; qs: string }>
  /** Stops core and server; removes the dir unless keep. */
  close(keep?: boolean): Promise<void>
  /** Stops and starts again on the same data dir. */
  restart(): Promise<Harness>
  /** Starts again on the same data dir after close(true) (the app was down meanwhile). */
  reopen(): Promise<Harness>
}

/** The PostgreSQL database of each data dir, under CHATAPP_TEST_DATABASE=postgres. */
const databases = new Map<string, string>()

async function databaseOf(dir: string): Promise<Partial<CoreOptions>> {
  if (process.env.CHATAPP_TEST_DATABASE !== 'postgres') return {}
  let url = databases.get(dir)
  if (!url) {
    url = await createTestDatabase()
    databases.set(dir, url)
  }
  return { databaseUrl: url }
}

export async function makeHarness(opts: Partial<CoreOptions> = {}, dataDir?: string): Promise<Harness> {
  const dir = dataDir ?? (await mkdtemp(join(tmpdir(), 'chatapp-test-')))
  const core = await startCore({ dataDir: dir, defaultChannel: 'sandbox', ...(await databaseOf(dir)), ...opts })
  // Sessions saved as connected start in the background; tests begin once they have.
  await core.sessions.restored()
  const app = await buildApiServer(core, { host: '127.0.0.1', version: 'test' })
  await app.ready()
  const token = core.account.token()
  const h: Harness = {
    core,
    app,
    dataDir: dir,
    token,
    async call(o) {
      const res = await app.inject({ ...o, headers: { authorization: `Bearer ${token}`, ...(o.headers ?? {}) } })
      let json: unknown
      try {
        json = res.json()
      } catch {
        json = undefined
      }
      return { statusCode: res.statusCode, json, body: res.body, headers: res.headers, rawPayload: res.rawPayload }
    },
    instanceApi(qs) {
      return async (method, url, payload) => {
        const res = await h.call({ method, url: `${url}${url.includes('?') ? '&' : '?'}${qs}`, ...(payload ? { payload } : {}) })
        if (res.statusCode !== 200) throw new Error(`${method} ${url}: ${res.statusCode} ${res.body}`)
        return res.json
      }
    },
    async createInstance(channel = 'sandbox') {
      const res = await h.call({ method: 'POST', url: '/chatapp/createNewChatapp', payload: { channel } })
      if (res.statusCode !== 200) throw new Error(`create failed: ${res.body}`)
      return res.json.data as Instance
    },
    async connectedInstance() {
      const inst = await h.createInstance('sandbox')
      const creds = { session_id: inst.session_id, access_token: inst.settings.access_token }
      const qs = `session_id=${encodeURIComponent(creds.session_id)}&access_token=${encodeURIComponent(creds.access_token)}`
      const init = await h.call({ method: 'POST', url: '/chatapp/init', payload: creds })
      if (init.statusCode !== 200) throw new Error(`init failed: ${init.body}`)
      const scan = await h.call({ method: 'POST', url: `/chatapp/sandbox/scan?${qs}` })
      if (scan.statusCode !== 200) throw new Error(`scan failed: ${scan.body}`)
      return { inst: core.instances.get(inst._id), creds, qs }
    },
    async close(keep = false) {
      await app.close()
      await core.close()
      if (!keep) {
        await rm(dir, { recursive: true, force: true })
        const url = databases.get(dir)
        databases.delete(dir)
        if (url) await dropTestDatabase(url)
      }
    },
    async restart() {
      await h.close(true)
      return makeHarness(opts, dir)
    },
    reopen() {
      return makeHarness(opts, dir)
    }
  }
  return h
}
