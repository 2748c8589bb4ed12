/**
 * `npm run serve` starts the server's main thread with a small young generation
 * (scripts/heap-flags.mjs): scripts/serve.mjs, started without the flag, replaces itself in place with
 * the same start with it (the same process id, so signals and Docker's PID 1 still reach the server),
 * unless the operator set the flag themselves (NODE_OPTIONS). The real script, on the built bundle.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterEach, describe, expect, it } from 'vitest'
import { ELECTRON_HEAP_ARGS, heapFlagsMissing, MAIN_HEAP_FLAGS } from '../../../scripts/heap-flags.mjs'
import builderConfig from '../../../electron-builder'
import pkg from '../../../package.json'

const ROOT = fileURLToPath(new URL('../../../', import.meta.url))
const TOKEN = 'serve-heap-token-0123456789abcdef'
const dirs: string[] = []
const running: Array<{ child: ChildProcess; exited: Promise<unknown> }> = []
afterEach(async () => {
  // A failed assertion leaves its server running: stopped here, whatever the test got to.
  for (const s of running.splice(0)) {
    if (s.child.exitCode === null && s.child.signalCode === null) s.child.kill('SIGKILL')
    await s.exited
  }
  for (const d of dirs.splice(0)) await rm(d, { recursive: true, force: true })
})

/** Starts `node scripts/serve.mjs` on an empty data dir; resolves once it listens. */
async function startScript(env: Record<string, string> = {}) {
  const dir = await mkdtemp(join(tmpdir(), 'chatapp-serve-heap-'))
  dirs.push(dir)
  const child = spawn(process.execPath, ['scripts/serve.mjs'], {
    cwd: ROOT,
    env: { ...process.env, NODE_OPTIONS: '', CHATAPP_DATA_DIR: dir, CHATAPP_PORT: '0', CHATAPP_CHANNEL: 'sandbox', CHATAPP_API_TOKEN: TOKEN, CHATAPP_LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe']
  })
  const exited = new Promise<number | string>((resolve) => child.on('exit', (code, signal) => resolve(code ?? signal ?? -1)))
  running.push({ child, exited })
  let out = ''
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString()
      const m = /listening on (http:\/\/\S+)/.exec(out)
      if (m) resolve(m[1]!)
    })
    child.stderr.on('data', (d: Buffer) => (out += d.toString()))
    void exited.then((code) => reject(new Error(`serve.mjs exited (${code}) before listening:\n${out}`)))
  })
  /** The running process's command line, as the kernel has it now. */
  const cmdline = async () => (await readFile(`/proc/${child.pid}/cmdline`, 'utf8')).split('\0').filter(Boolean)
  return { child, url, exited, cmdline }
}

describe('the young generation flag (pure)', () => {
  it('is missing unless the command line or NODE_OPTIONS sets it, in any of its spellings', () => {
    expect(heapFlagsMissing([], undefined)).toBe(true)
    expect(heapFlagsMissing(['--import', 'tsx'], '--max-old-space-size=512')).toBe(true)
    expect(heapFlagsMissing(['--max-semi-space-size=16'], undefined)).toBe(false)
    expect(heapFlagsMissing(['--max-semi-space-size', '16'], '')).toBe(false)
    expect(heapFlagsMissing([], '--enable-source-maps --max_semi_space_size=2')).toBe(false)
  })
})

describe('the desktop app\'s launchers (Electron takes V8 flags only from its command line)', () => {
  it('pass them as --js-flags: npm start and the AppImage (the .deb and .rpm: test/e2e/linux-packages.test.ts)', () => {
    expect(ELECTRON_HEAP_ARGS).toEqual([`--js-flags=${MAIN_HEAP_FLAGS.join(' ')}`])
    expect(pkg.scripts.start.endsWith(`electron-vite preview -- ${ELECTRON_HEAP_ARGS.join(' ')}`)).toBe(true)
    expect(builderConfig.linux?.executableArgs).toEqual([...ELECTRON_HEAP_ARGS])
  })
})

describe('npm run bench', () => {
  it('runs the core in a process with the same flags (the parts that run it in-process)', () => {
    for (const flag of MAIN_HEAP_FLAGS) expect(pkg.scripts.bench.split(' ')).toContain(flag)
  })
})

describe('scripts/serve.mjs', () => {
  it('runs the server with the flag, in the process it was started as, which stops on SIGTERM', async () => {
    const s = await startScript()
    const args = await s.cmdline()
    expect(args.slice(1, 1 + MAIN_HEAP_FLAGS.length)).toEqual([...MAIN_HEAP_FLAGS])
    expect(args.some((a) => a.endsWith('scripts/serve.mjs'))).toBe(true)
    const health = await fetch(`${s.url}/health`)
    expect(health.status).toBe(200)
    s.child.kill('SIGTERM')
    expect(await s.exited).toBe(0)
  }, 90_000)

  it('leaves an operator\'s own setting (NODE_OPTIONS) as it is', async () => {
    const s = await startScript({ NODE_OPTIONS: '--max-semi-space-size=16' })
    expect((await s.cmdline()).some((a) => a.startsWith('--max-semi-space-size'))).toBe(false)
    s.child.kill('SIGTERM')
    expect(await s.exited).toBe(0)
  }, 90_000)
})
