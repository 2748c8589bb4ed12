/**
 * Runs `src/main/serve.ts` as a child process (the real headless server) for tests that need a
 * separate process: crash safety, signals, the ready line.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { mkdtemp } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { Instance } from '../../src/shared/schemas/records'
import { freePort } from './webhook-receiver'

const ROOT = fileURLToPath(new URL('../../', import.meta.url))

export interface ServeProcess {
  child: ChildProcess
  url: string
  output: () => string
  /** Resolves with the exit code (or signal name). */
  exited: Promise<number | string>
}

/** Starts the server; resolves once the ready line is printed. */
export function startServe(env: Record<string, string>, timeoutMs = 20_000): Promise<ServeProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main/serve.ts'], {
    cwd: ROOT,
    env: { ...process.env, NODE_ENV: 'production', CHATAPP_LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe']
  })
  let out = ''
  const exited = new Promise<number | string>((resolve) => child.on('exit', (code, signal) => resolve(code ?? signal ?? -1)))
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL')
      reject(new Error(`serve did not start:\n${out}`))
    }, timeoutMs)
    const onData = (d: Buffer) => {
      out += d.toString()
      const m = /Chatapp API listening on (http:\/\/\S+)/.exec(out)
      if (m) {
        clearTimeout(timer)
        resolve({ child, url: m[1]!, output: () => out, exited })
      }
    }
    child.stdout!.on('data', onData)
    child.stderr!.on('data', (d: Buffer) => (out += d.toString()))
    void exited.then((code) => {
      clearTimeout(timer)
      reject(new Error(`serve exited (${code}) before ready:\n${out}`))
    })
  })
}

/** The bearer token the process tests start the server with. */
export const SERVE_TOKEN = 'test-token-0123456789abcdef'

/** One JSON request to a served API with `token` ({@link SERVE_TOKEN} unless given). */
export async function serveApi(url: string, method: string, path: string, body?: object, token = SERVE_TOKEN): Promise<{ status: number; json: any }> {
  const res = await fetch(url + path, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined
  })
  return { status: res.status, json: (await res.json()) as any }
}

/**
 * A sandbox instance made through the server at `url` and linked (init, then the sandbox's scan), with
 * its credentials as a query string. In database mode it runs on the least-loaded worker. Throws
 * naming the step that did not answer 200.
 */
export async function connectSandbox(url: string): Promise<{ inst: Instance; qs: string }> {
  const made = await serveApi(url, 'POST', '/chatapp/createNewChatapp', { channel: 'sandbox' })
  if (made.status !== 200) throw new Error(`createNewChatapp: ${made.status} ${JSON.stringify(made.json)}`)
  const inst = made.json.data as Instance
  const qs = `session_id=${encodeURIComponent(inst.session_id)}&access_token=${encodeURIComponent(inst.settings.access_token)}`
  for (const step of ['init', 'sandbox/scan']) {
    const res = await serveApi(url, 'POST', `/chatapp/${step}?${qs}`)
    if (res.status !== 200) throw new Error(`${step}: ${res.status} ${JSON.stringify(res.json)}`)
  }
  return { inst, qs }
}

/**
 * A real `serve` worker on the PostgreSQL database `databaseUrl` (docs/design.md §22): a data dir of its own (a
 * new temp dir, `dir`: the caller removes it), a free loopback port with `CHATAPP_WORKER_URL` naming
 * it (so the others can forward to it), the sandbox channel and the tests' token; `env` adds to or
 * overrides these (a lease TTL, the Baileys channel's test server).
 */
export async function startServeWorker(databaseUrl: string, id: string, env: Record<string, string> = {}): Promise<ServeProcess & { dir: string }> {
  const dir = await mkdtemp(join(tmpdir(), `chatapp-worker-${id}-`))
  const port = await freePort()
  const s = await startServe({
    CHATAPP_DATA_DIR: dir,
    CHATAPP_PORT: String(port),
    CHATAPP_CHANNEL: 'sandbox',
    CHATAPP_API_TOKEN: SERVE_TOKEN,
    CHATAPP_DATABASE_URL: databaseUrl,
    CHATAPP_WORKER_ID: id,
    CHATAPP_WORKER_URL: `http://127.0.0.1:${port}`,
    ...env
  })
  return { ...s, dir }
}
