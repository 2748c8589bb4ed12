/**
 * The desktop app on a fresh machine, offline: Electron ≥ 42 has no install script, so `npm start`
 * must fetch the binary itself (`install-electron`) before electron-vite looks for it. Against a
 * loopback mirror serving a stub binary: `npm start` from a `node_modules/electron` without `path.txt`
 * installs it and launches it on the built main entry. Then the packaged app as a user receives it:
 * `electron-builder --dir --linux` builds it offline, and the package holds the built app, every
 * runtime dependency the main bundle imports (and theirs), sharp's native parts outside the archive,
 * and no tests, sources, source maps or dev-only packages.
 */
import { execFile } from 'node:child_process'
import { existsSync } from 'node:fs'
import { builtinModules } from 'node:module'
import { mkdtemp, readdir, readFile, rename, rm, stat } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { listPackage } from '@electron/asar'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startElectronMirror, type ElectronMirror } from '../support/electron-mirror'
import { ELECTRON_HEAP_ARGS } from '../../scripts/heap-flags.mjs'

const run = promisify(execFile)
const ROOT = join(import.meta.dirname, '..', '..')
const ELECTRON_DIR = join(ROOT, 'node_modules', 'electron')
const pkg = JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8')) as { main: string; dependencies: Record<string, string>; devDependencies: Record<string, string> }
const electronVersion = (JSON.parse(await readFile(join(ELECTRON_DIR, 'package.json'), 'utf8')) as { version: string }).version
const linuxX64 = process.platform === 'linux' && process.arch === 'x64'

let mirror: ElectronMirror
let work: string
/** A developer's installed Electron, kept aside while the test plays a fresh machine. */
const aside: Array<[string, string]> = []

beforeAll(async () => {
  mirror = await startElectronMirror(electronVersion)
  work = await mkdtemp(join(tmpdir(), 'chatapp-desktop-'))
  for (const name of ['dist', 'path.txt']) {
    const from = join(ELECTRON_DIR, name)
    if (existsSync(from)) {
      await rename(from, join(work, name))
      aside.push([join(work, name), from])
    }
  }
})

afterAll(async () => {
  // The stub never stays behind; a developer's real binary comes back.
  await rm(join(ELECTRON_DIR, 'dist'), { recursive: true, force: true })
  await rm(join(ELECTRON_DIR, 'path.txt'), { force: true })
  for (const [from, to] of aside) await rename(from, to)
  await mirror.close()
  await rm(work, { recursive: true, force: true })
  await rm(mirror.env.electron_config_cache!, { recursive: true, force: true })
})

describe.runIf(linuxX64)('the desktop app, offline', () => {
  it('npm start on a fresh machine installs Electron and launches it on the built main entry', async () => {
    expect(existsSync(join(ELECTRON_DIR, 'path.txt'))).toBe(false)
    const log = join(work, 'stub.log')
    await run('npm', ['start'], { cwd: ROOT, env: { ...process.env, ...mirror.env, CHATAPP_STUB_LOG: log }, timeout: 180_000 })
    expect(mirror.requests).toContain(`/v${electronVersion}/electron-v${electronVersion}-linux-x64.zip`)
    expect(await readFile(join(ELECTRON_DIR, 'path.txt'), 'utf8')).toBe('electron')
    const [cwd, entry, ...args] = (await readFile(log, 'utf8')).trim().split('\n')
    expect(cwd).toBe(ROOT)
    expect(entry).toBe('.')
    // The main process's V8 heap settings (scripts/heap-flags.mjs), which Electron takes only from its command line.
    expect(args).toEqual([...ELECTRON_HEAP_ARGS])
    // Electron runs `.` as package.json's main: the entry electron-vite just built.
    expect(pkg.main).toBe('./out/main/index.js')
    expect(existsSync(join(ROOT, pkg.main))).toBe(true)
  }, 200_000)

  it('packages the app with everything it needs and nothing else', async () => {
    const output = join(work, 'dist')
    await run('npx', ['electron-builder', '--dir', '--linux', '--publish', 'never', `-c.directories.output=${output}`, '-c.npmRebuild=false'], {
      cwd: ROOT,
      env: { ...process.env, ...mirror.env },
      timeout: 300_000
    })
    const resources = join(output, 'linux-unpacked', 'resources')
    const asar = join(resources, 'app.asar')
    const files = new Set(listPackage(asar, { isPack: false }).map((f) => f.replace(/\\/g, '/')))
    const unpacked = join(resources, 'app.asar.unpacked')

    // The SQLite threads' code is a file of its own beside the main bundle (docs/storage.md "Threads").
    for (const built of ['/out/main/index.js', '/out/main/sqlite-thread.js', '/out/preload/index.cjs', '/out/renderer/index.html', '/package.json']) expect(files.has(built), built).toBe(true)

    // Every package the main bundle imports (its entry and the chunks it shares with the headless
    // server), and every dependency of each packed package, resolves inside.
    const bundleDir = join(ROOT, 'out', 'main')
    const bundleFiles = [join(bundleDir, 'index.js'), join(bundleDir, 'sqlite-thread.js'), ...(await readdir(join(bundleDir, 'chunks'))).map((f) => join(bundleDir, 'chunks', f))]
    const main = (await Promise.all(bundleFiles.map((f) => readFile(f, 'utf8')))).join('\n')
    const specifiers = [...main.matchAll(/^import\b[^'"]*?["']([^"']+)["']/gm), ...main.matchAll(/\bimport\(\s*["']([^"']+)["']\s*\)/g)].map((m) => m[1]!)
    const imported = new Set(specifiers.filter((s) => !s.startsWith('.') && !s.startsWith('node:') && !builtinModules.includes(s) && s !== 'electron'))
    expect(imported.size).toBeGreaterThan(5)
    const packageOf = (spec: string) => spec.split('/').slice(0, spec.startsWith('@') ? 2 : 1).join('/')
    const has = (dir: string, name: string) => files.has(`${dir}/node_modules/${name}/package.json`) || existsSync(join(unpacked, dir, 'node_modules', name, 'package.json'))
    for (const spec of imported) expect(has('', packageOf(spec)), `main imports ${spec}`).toBe(true)
    const missing: string[] = []
    for (const file of files) {
      const m = /^(.*\/node_modules\/(?:@[^/]+\/)?[^/]+)\/package\.json$/.exec(file)
      if (!m) continue
      const manifest = JSON.parse(await readPacked(asar, m[1]!.slice(1) + '/package.json')) as { dependencies?: Record<string, string>; optionalDependencies?: Record<string, string> }
      for (const dep of Object.keys(manifest.dependencies ?? {})) {
        // Optional ones may be absent by design; type declarations are left out of the package on purpose.
        if (manifest.optionalDependencies?.[dep] || dep.startsWith('@types/')) continue
        // Node's lookup: the package's own node_modules, then each ancestor's.
        const dirs = ancestors(m[1]!)
        if (!dirs.some((d) => has(d, dep))) missing.push(`${m[1]} → ${dep}`)
      }
    }
    expect(missing).toEqual([])

    // sharp loads its native library from outside the archive.
    const native = await readdir(join(unpacked, 'node_modules', '@img', 'sharp-linux-x64', 'lib'))
    expect(native.filter((f) => f.endsWith('.node'))).toHaveLength(1)
    const libvips = await readdir(join(unpacked, 'node_modules', '@img', 'sharp-libvips-linux-x64', 'lib'))
    expect(libvips.some((f) => f.startsWith('libvips'))).toBe(true)

    const shipped = [...files]
    expect(shipped.filter((f) => f.endsWith('.map'))).toEqual([])
    expect(shipped.filter((f) => /^\/(test|src|bench|docs)\//.test(f))).toEqual([])
    const devOnly = Object.keys(pkg.devDependencies).filter((d) => !pkg.dependencies[d])
    expect(devOnly.filter((d) => files.has(`/node_modules/${d}/package.json`))).toEqual([])

    const bytes = (await stat(asar)).size
    console.log(`packaged app: app.asar ${(bytes / 1024 / 1024).toFixed(1)} MB, ${files.size} entries`)
    expect(bytes).toBeGreaterThan(1024 * 1024)
  }, 320_000)
})

/** `/node_modules/a/node_modules/b` → ['/node_modules/a/node_modules/b', '/node_modules/a', '']. */
function ancestors(dir: string): string[] {
  const out = [dir]
  let rest = dir
  for (;;) {
    const i = rest.lastIndexOf('/node_modules/')
    if (i < 0) break
    rest = rest.slice(0, i)
    out.push(rest)
  }
  return out
}

async function readPacked(asar: string, file: string): Promise<string> {
  const { extractFile } = await import('@electron/asar')
  return extractFile(asar, file).toString('utf8')
}
