/**
 * Runs `src/main/serve.ts` as a child process (the real headless server) for tests that need a
 * separate process: crash safety, signals, the ready line.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { fileURLToPath } from 'node:url'

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

/** One JSON request to a served API with {@link SERVE_TOKEN}. */
export async function serveApi(url: string, method: string, path: string, body?: object): Promise<{ status: number; json: any }> {
  const res = await fetch(url + path, {
    method,
    headers: { authorization: `Bearer ${SERVE_TOKEN}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined
  })
  return { status: res.status, json: (await res.json()) as any }
}
