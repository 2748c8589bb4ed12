/**
 * What a new owner meets on the command line: a Node older than 24 refused in one line by every npm
 * entry (the machine's own old Node, for real), `npm run login-link` handing out a login link while the
 * app runs and while it is stopped, and `npm run restore` keeping its word ("nothing was changed": no
 * tmp/ or folder left behind; no empty replaced-…/ and no word of old data after a restore into an
 * empty folder).
 */
import { execFileSync, spawn } from 'node:child_process'
import { existsSync } from 'node:fs'
import { mkdir, readdir, rm, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { nodeVersionProblem } from '../../../scripts/require-node.mjs'
import { freePort } from '../../helpers/webhook-receiver'
import { SERVE_TOKEN, startServe, type ServeProcess } from '../../helpers/serve-process'
import { seedDataDir, tempDir } from '../store/backup/helpers'

const ROOT = fileURLToPath(new URL('../../../', import.meta.url))

function run(cmd: string, args: string[], env: Record<string, string | undefined> = {}): Promise<{ code: number; out: string; err: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { cwd: ROOT, env: { ...process.env, ...env } as NodeJS.ProcessEnv, stdio: ['ignore', 'pipe', 'pipe'] })
    let out = ''
    let err = ''
    child.stdout.on('data', (d: Buffer) => (out += d.toString()))
    child.stderr.on('data', (d: Buffer) => (err += d.toString()))
    child.on('error', reject)
    child.on('exit', (code) => resolve({ code: code ?? -1, out, err }))
  })
}

/** A command-line entry as the npm script runs it, from its source (the build bundles the same file). */
const cli = (entry: 'login-link' | 'restore' | 'backup', args: string[], env: Record<string, string | undefined> = {}) => run(process.execPath, ['--import', 'tsx', `src/main/cli/${entry}.ts`, ...args], env)

/** A Node older than 24 on this machine (Debian's is 20), or none. */
function oldNode(): { path: string; major: number } | null {
  for (const path of [process.env.CHATAPP_OLD_NODE, '/usr/bin/node', '/usr/local/bin/node']) {
    if (!path || !existsSync(path)) continue
    try {
      const major = Number(execFileSync(path, ['-p', 'process.versions.node.split(".")[0]'], { encoding: 'utf8' }).trim())
      if (major < 24) return { path, major }
    } catch {
      // not a runnable node
    }
  }
  return null
}

describe('a Node older than 24', () => {
  it('is named in one line with the version in force', () => {
    expect(nodeVersionProblem('20.20.2')).toMatch(/^Chatapp Desk needs Node 24 or newer \(this is 20\.x\)\. /)
    expect(nodeVersionProblem('18.0.0')).toMatch(/\(this is 18\.x\)/)
    expect(nodeVersionProblem('24.0.0')).toBeNull()
    expect(nodeVersionProblem('25.1.0')).toBeNull()
  })

  const old = oldNode()
  it.runIf(old)(`is refused by npm ci (postinstall), npm run serve, start, dev and every command: exit 1, no stack (${old?.path})`, { timeout: 120_000 }, async () => {
    const line = `Chatapp Desk needs Node 24 or newer (this is ${old!.major}.x).`
    for (const script of ['serve', 'backup', 'restore', 'db-copy', 'login-link', 'dist-linux', 'update-info', 'built']) {
      const r = await run(old!.path, [`scripts/${script}.mjs`])
      expect(r.code, `${script}: ${r.err}`).toBe(1)
      expect(r.err.startsWith(line), `${script}: ${r.err}`).toBe(true)
      expect(r.err).not.toMatch(/ERR_UNKNOWN_BUILTIN_MODULE|at .*\(.*:\d+:\d+\)/)
    }
    // npm's own scripts with that Node first on the PATH (npm runs them with the `node` it finds there).
    const path = `${join(old!.path, '..')}:${process.env.PATH}`
    for (const script of ['postinstall', 'start', 'dev', 'serve', 'login-link']) {
      const r = await run('npm', ['run', '--silent', script], { PATH: path })
      expect(r.code, `npm run ${script}: ${r.err}`).toBe(1)
      expect(r.err, `npm run ${script}`).toContain(line)
      expect(r.err).not.toContain('ERR_UNKNOWN_BUILTIN_MODULE')
    }
  })
})

describe('npm run login-link', () => {
  let dir: string
  let server: ServeProcess | null = null
  beforeAll(() => {
    dir = tempDir('chatapp-login-link-')
  })
  afterEach(async () => {
    if (server && server.child.exitCode === null && server.child.signalCode === null) {
      server.child.kill('SIGTERM')
      await server.exited
    }
    server = null
  })
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true })
  })

  const exchange = (url: string, code: string) => fetch(`${url}/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ code }) })
  const linkOf = (out: string) => /^Log in \(one-time link, 10 min\): (https?:\/\/\S+)\/#login=(\S+)$/m.exec(out)

  it('while the app runs: a link to its address whose code logs in once', { timeout: 60_000 }, async () => {
    const port = String(await freePort())
    const env = { CHATAPP_DATA_DIR: dir, CHATAPP_PORT: port, CHATAPP_CHANNEL: 'sandbox' }
    server = await startServe(env)
    const r = await cli('login-link', [], env)
    expect(r.err).toBe('')
    expect(r.code).toBe(0)
    const link = linkOf(r.out)
    expect(link, r.out).not.toBeNull()
    expect(link![1]).toBe(server.url)
    expect(r.out).not.toContain('not running')
    expect(r.out).toContain('the API tab shows the API token')
    // From a shell that does not know the app's port (CHATAPP_PORT unset here): the link still names
    // where the app listens, not the default 3210.
    const elsewhere = await cli('login-link', [], { CHATAPP_DATA_DIR: dir, CHATAPP_PORT: undefined })
    expect(elsewhere.code, elsewhere.err).toBe(0)
    expect(linkOf(elsewhere.out)![1]).toBe(server.url)
    const first = await exchange(server.url, link![2]!)
    expect(first.status).toBe(200)
    const token = ((await first.json()) as { data: { token: string } }).data.token
    expect((await fetch(`${server.url}/auth/me`, { headers: { authorization: `Bearer ${token}` } })).status).toBe(200)
    const again = await exchange(server.url, link![2]!)
    expect(again.status).toBe(401)
    expect(((await again.json()) as { message: string }).message).toContain('npm run login-link')
    // Only the codes' hashes are kept, and not once they are used.
    expect((await exchange(server.url, linkOf(elsewhere.out)![2]!)).status).toBe(200)
    expect(existsSync(join(dir, 'login-codes.json'))).toBe(false)
    // The app's address is forgotten when it stops.
    expect(existsSync(join(dir, 'app-address.json'))).toBe(true)
    server.child.kill('SIGTERM')
    await server.exited
    expect(existsSync(join(dir, 'app-address.json'))).toBe(false)
  })

  it('while it is stopped: says so, and the link works once the app is started; --url names another address', { timeout: 60_000 }, async () => {
    const port = String(await freePort())
    const env = { CHATAPP_DATA_DIR: dir, CHATAPP_PORT: port, CHATAPP_CHANNEL: 'sandbox', CHATAPP_API_TOKEN: SERVE_TOKEN }
    const r = await cli('login-link', [], env)
    expect(r.code).toBe(0)
    expect(r.out).toContain(`Chatapp is not running on ${dir}: start it`)
    const link = linkOf(r.out)!
    expect(link[1]).toBe(`http://127.0.0.1:${port}`)
    const proxied = await cli('login-link', ['--url', 'https://desk.example.com/chat/'], env)
    expect(linkOf(proxied.out)![1]).toBe('https://desk.example.com/chat')
    expect(await readdir(dir)).toContain('login-codes.json')
    server = await startServe(env)
    const res = await exchange(server.url, link[2]!)
    expect(res.status).toBe(200)
    expect(((await res.json()) as { data: { token: string } }).data.token).toBe(SERVE_TOKEN)
    expect((await exchange(server.url, linkOf(proxied.out)![2]!)).status).toBe(200)
  })

  it('refuses a folder that is not there, and a --url that is not http', async () => {
    const missing = await cli('login-link', ['--data-dir', join(dir, 'nope')])
    expect(missing.code).toBe(2)
    expect(missing.err).toContain('There is no Chatapp data dir at')
    expect(existsSync(join(dir, 'nope'))).toBe(false)
    const bad = await cli('login-link', ['--url', 'ftp://x'], { CHATAPP_DATA_DIR: dir })
    expect(bad.code).toBe(2)
    expect(bad.err).toContain('--url must be an http:// or https:// address')
  })
})

describe('npm run restore keeps its word', () => {
  let work: string
  let archive: string
  beforeAll(async () => {
    work = tempDir('chatapp-restore-words-')
    const desk = join(work, 'desk')
    await (await seedDataDir(desk, 'w')).close()
    archive = join(work, 'desk.tar.gz')
    expect((await cli('backup', ['--out', archive, '--data-dir', desk])).code).toBe(0)
  }, 60_000)
  afterAll(async () => {
    await rm(work, { recursive: true, force: true })
  })

  it('a refused archive into a new folder leaves no folder; into an existing one no tmp/', { timeout: 60_000 }, async () => {
    const text = join(work, 'notes.txt')
    await writeFile(text, 'just some notes\n')
    const fresh = join(work, 'fresh')
    const r = await cli('restore', [text, '--data-dir', fresh])
    expect(r.code).toBe(1)
    expect(r.err).toContain('Nothing was changed.')
    expect(existsSync(fresh)).toBe(false)

    const existing = join(work, 'existing')
    await mkdir(existing)
    await writeFile(join(existing, 'notes.md'), 'mine\n')
    const r2 = await cli('restore', [text, '--data-dir', existing])
    expect(r2.code).toBe(1)
    expect((await readdir(existing)).sort()).toEqual(['notes.md'])
  })

  it('into an empty folder: no empty replaced-…/, no word of old data kept', { timeout: 60_000 }, async () => {
    for (const name of ['empty', 'new']) {
      const target = join(work, name)
      if (name === 'empty') await mkdir(target)
      const r = await cli('restore', [archive, '--data-dir', target])
      expect(r.err).toBe('')
      expect(r.code).toBe(0)
      expect(r.out).toMatch(/^Verifying .*desk\.tar\.gz…\nRestored the backup of \S+ \(Chatapp Desk \S+\) into .*\.\n$/)
      expect(r.out).not.toContain('kept in')
      expect((await readdir(target)).filter((n) => n.startsWith('replaced-') || n === 'tmp')).toEqual([])
      expect(existsSync(join(target, 'chatapp.db'))).toBe(true)
    }
  })
})
