/**
 * Starts `src/main/serve.ts` (the real headless server, as `npm run serve` does) as a child process on
 * a fresh data dir with the sandbox channel, a known token and any free port; answers once it printed
 * its ready line `Chatapp API listening on http://HOST:PORT`.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

export interface ServeProcess {
  url: string
  token: string
  dataDir: string
  output(): string
  /** Calls the UI contract over HTTP as the page does (checks the UI itself does not show); throws on an error answer. */
  rpc(method: string, input: unknown): Promise<any>
  /** SIGTERM, wait for exit, remove the data dir (unless `keep`: a restart on it follows). */
  stop(keep?: boolean): Promise<void>
  /** SIGKILL (a crash: nothing released, nothing flushed); resolves once the process is gone. */
  kill(): Promise<void>
}

const ROOT = join(import.meta.dirname, '..', '..')

/**
 * Starts the server on a fresh data dir, or on `dataDir` (a restart). `env` adds to or overrides its
 * environment (e.g. `CHATAPP_WA_WS_URL` and `CHATAPP_WA_ROOT_KEY` of a protocol test server).
 */
export async function startServe(opts: { dataDir?: string; env?: Record<string, string> } = {}): Promise<ServeProcess> {
  const dataDir = opts.dataDir ?? (await mkdtemp(join(tmpdir(), 'chatapp-e2e-')))
  const token = 'e2e-token-0123456789abcdef'
  // Node with tsx's loader (not tsx's binary, which runs the server in a child of its own): the child
  // is the server itself, so SIGTERM and SIGKILL reach it.
  const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'src', 'main', 'serve.ts')], {
    cwd: ROOT,
    // WhatsApp instances point at a closed local port: their connection fails at once, with a reason.
    env: { ...process.env, CHATAPP_DATA_DIR: dataDir, CHATAPP_PORT: '0', CHATAPP_CHANNEL: 'sandbox', CHATAPP_API_TOKEN: token, CHATAPP_LOG_LEVEL: 'warn', CHATAPP_WA_WS_URL: 'ws://127.0.0.1:9', ...opts.env },
    stdio: ['ignore', 'pipe', 'pipe']
  })
  let out = ''
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`serve did not start in 30 s:\n${out}`)), 30_000)
    const onData = (d: Buffer) => {
      out += d.toString()
      const m = /Chatapp API listening on (http:\/\/\S+)/.exec(out)
      if (m) {
        clearTimeout(timer)
        resolve(m[1]!)
      }
    }
    child.stdout!.on('data', onData)
    child.stderr!.on('data', onData)
    child.once('exit', (code) => {
      clearTimeout(timer)
      reject(new Error(`serve exited with ${code}:\n${out}`))
    })
  })
  return {
    url,
    token,
    dataDir,
    output: () => out,
    async rpc(method, input) {
      const res = await fetch(`${url}/rpc/${method}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify(input)
      })
      const body = (await res.json()) as { ok: boolean; data: unknown; error?: unknown }
      if (!body.ok) throw new Error(JSON.stringify(body.error))
      return body.data
    },
    async kill() {
      if (child.exitCode !== null || child.signalCode !== null) return
      const exited = new Promise((r) => child.once('exit', r))
      child.kill('SIGKILL')
      await exited
    },
    async stop(keep = false) {
      if (child.exitCode === null && child.signalCode === null) {
        const exited = new Promise((r) => child.once('exit', r))
        child.kill('SIGTERM')
        await exited
      }
      if (!keep) await rm(dataDir, { recursive: true, force: true })
    }
  }
}
