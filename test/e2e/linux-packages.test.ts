/**
 * The Linux installers as a shop receives them (docs/design.md §19): `npm run dist:linux` builds a .deb and an
 * .rpm offline from one unpacked app (Electron is the stub the loopback mirror serves), then
 *
 * - the .deb is installed with the real `dpkg -i` (missing dependencies from Debian with
 *   `apt-get -f install`, as a user is told to), its files, desktop entry (`desktop-file-validate`),
 *   icons and binary checked, the binary started through the desktop entry's command, and the package
 *   purged with none of its files left behind;
 * - the .rpm is read with the real `rpm -qip` / `-qlp` (Debian cannot install it): name, version,
 *   licence, dependencies, files and its own `package-type`;
 * - `latest-linux.yml` lists both with the sha512 electron-updater will check.
 *
 * Needs `npm run build` first (npm test does it), dpkg-deb and rpmbuild (`apt-get install rpm`; .ci/run
 * installs it). The install needs root or passwordless sudo and skips, saying so, without them, or when
 * a chatapp-desk package is already installed here (the test never replaces a real installation).
 */
import { execFile, spawnSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import { existsSync, lstatSync, readdirSync, readlinkSync } from 'node:fs'
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { promisify } from 'node:util'
import sharp from 'sharp'
import yaml from 'js-yaml'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startElectronMirror, type ElectronMirror } from '../support/electron-mirror'
import { ELECTRON_HEAP_ARGS } from '../../scripts/heap-flags.mjs'

const run = promisify(execFile)
const ROOT = join(import.meta.dirname, '..', '..')
const pkg = JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8')) as { name: string; version: string; homepage: string }
const electronVersion = (JSON.parse(await readFile(join(ROOT, 'node_modules', 'electron', 'package.json'), 'utf8')) as { version: string }).version
const ICON_SIZES = [16, 24, 32, 48, 64, 128, 256, 512]
const NAME = pkg.name

const has = (tool: string) => spawnSync('sh', ['-c', `command -v ${tool}`]).status === 0
const missingTools = ['dpkg-deb', 'rpmbuild', 'rpm'].filter((t) => !has(t))
const linuxX64 = process.platform === 'linux' && process.arch === 'x64'
const buildSkip = !linuxX64 ? 'not linux-x64' : missingTools.length ? `missing ${missingTools.join(', ')} (apt-get install rpm)` : null

/** How this process may run dpkg as root: directly, through passwordless sudo, or not at all (why). */
function rootRunner(): { prefix: string[] } | { skip: string } {
  if (!has('dpkg')) return { skip: 'no dpkg on this system' }
  if (!has('desktop-file-validate')) return { skip: 'no desktop-file-validate (apt-get install desktop-file-utils)' }
  const installed = spawnSync('dpkg-query', ['-W', '-f=${Status}', NAME], { encoding: 'utf8' }).stdout
  if (installed.includes('installed')) return { skip: `a ${NAME} package is already installed here (${installed.trim()}); the test does not replace it` }
  if (process.getuid?.() === 0) return { prefix: [] }
  if (spawnSync('sudo', ['-n', 'true']).status === 0) return { prefix: ['sudo', '-n'] }
  return { skip: 'installing needs root or passwordless sudo' }
}
const root = buildSkip ? { skip: buildSkip } : rootRunner()
const installSkip = 'skip' in root ? root.skip : null

let mirror: ElectronMirror
let out: string
let deb: string
let rpm: string

function asRoot(cmd: string, args: string[], env: Record<string, string> = {}) {
  const prefix = 'prefix' in root ? root.prefix : []
  const [bin, ...rest] = [...prefix, cmd, ...args]
  return run(bin!, rest, { env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive', ...env }, timeout: 180_000 })
}

const dpkgStatus = () => spawnSync('dpkg-query', ['-W', '-f=${Status}', NAME], { encoding: 'utf8' }).stdout.trim()
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex')

describe.skipIf(buildSkip !== null)(`Linux installers from npm run dist:linux${buildSkip ? ` (skipped: ${buildSkip})` : ''}`, () => {
  beforeAll(async () => {
    if (!existsSync(join(ROOT, 'out', 'main', 'index.js'))) throw new Error('The app is not built: run `npm run build` first (npm test does).')
    mirror = await startElectronMirror(electronVersion)
    out = await mkdtemp(join(tmpdir(), 'chatapp-dist-linux-'))
    const started = Date.now()
    // About 40 s on a quiet 2-core machine, most of it xz-compressing the .deb; minutes when the machine is shared.
    const { stdout } = await run('npm', ['run', 'dist:linux', '--', '--prebuilt', '--out', out], { cwd: ROOT, env: { ...process.env, ...mirror.env }, timeout: 600_000 })
    console.log(`npm run dist:linux: ${((Date.now() - started) / 1000).toFixed(1)} s (${stdout.match(/^.+: [\d.]+ s$/gm)?.join(', ')})`)
    deb = resolve(/built (\S+\.deb)/.exec(stdout)![1]!)
    rpm = resolve(/built (\S+\.rpm)/.exec(stdout)![1]!)
  }, 620_000)

  afterAll(async () => {
    // The package never stays installed after a failed run.
    if (!installSkip && dpkgStatus().includes('installed')) await asRoot('dpkg', ['--purge', NAME]).catch(() => {})
    await mirror?.close()
    if (out) await rm(out, { recursive: true, force: true })
    if (mirror) await rm(mirror.env.electron_config_cache!, { recursive: true, force: true })
  })

  it('builds a .deb and an .rpm of this version, and latest-linux.yml names both with their sha512', async () => {
    expect(deb.endsWith(`${NAME}_${pkg.version}_amd64.deb`)).toBe(true)
    expect(rpm.endsWith(`${NAME}-${pkg.version}-1.x86_64.rpm`)).toBe(true)
    const info = yaml.load(await readFile(join(out, 'latest-linux.yml'), 'utf8')) as { version: string; files: Array<{ url: string; sha512: string; size: number }>; releaseNotes?: string }
    expect(info.version).toBe(pkg.version)
    for (const file of [deb, rpm]) {
      const bytes = await readFile(file)
      const entry = info.files.find((f) => join(out, f.url) === file)
      expect(entry, file).toEqual({ url: file.slice(out.length + 1), sha512: createHash('sha512').update(bytes).digest('base64'), size: bytes.length })
    }
    expect(info.releaseNotes).toBeTruthy()
  })

  it('the .deb declares its name, version, dependencies and holds its package-type, update feed and icons', async () => {
    const field = async (name: string) => (await run('dpkg-deb', ['-f', deb, name])).stdout.trim()
    expect(await field('Package')).toBe(NAME)
    expect(await field('Version')).toBe(pkg.version)
    expect(await field('Architecture')).toBe('amd64')
    const depends = (await field('Depends')).split(/,\s*/)
    for (const lib of ['libgtk-3-0', 'libnotify4', 'libnss3', 'xdg-utils', 'libsecret-1-0']) expect(depends).toContain(lib)
    const read = async (path: string) => (await run('sh', ['-c', `dpkg-deb --fsys-tarfile "$0" | tar -xO "$1"`, deb, `./usr/lib/${NAME}/resources/${path}`])).stdout
    expect(await read('package-type')).toBe('deb')
    expect(yaml.load(await read('app-update.yml'))).toMatchObject({ provider: 'generic', url: expect.stringMatching(/^https:\/\//) })
  })

  it.skipIf(installSkip !== null)(
    `the .deb installs with dpkg -i, starts from its desktop entry, and purges leaving nothing behind${installSkip ? ` (skipped: ${installSkip})` : ''}`,
    async () => {
      const started = Date.now()
      try {
        await asRoot('dpkg', ['-i', deb])
      } catch (err) {
        // What a user does after dpkg -i reports missing libraries: Debian's apt-get fetches them.
        expect(String((err as { stderr?: string }).stderr)).toMatch(/dependency problems|depends on/)
        // A container may come without package lists (they are fetched once per machine).
        if (!readdirSync('/var/lib/apt/lists').some((f) => f.endsWith('_Packages'))) await asRoot('apt-get', ['update'])
        await asRoot('apt-get', ['install', '-f', '-y', '--no-install-recommends'])
      }
      expect(dpkgStatus()).toBe('install ok installed')

      const files = (await run('dpkg', ['-L', NAME])).stdout.trim().split('\n')
      const app = `/usr/lib/${NAME}`
      expect(readlinkSync(`/usr/bin/${NAME}`)).toBe(`../lib/${NAME}/${NAME}`)
      expect(await readFile(`${app}/resources/package-type`, 'utf8')).toBe('deb')
      expect(existsSync(`${app}/resources/app.asar`)).toBe(true)
      const desktop = `/usr/share/applications/${NAME}.desktop`
      await run('desktop-file-validate', [desktop])
      const entry = await readFile(desktop, 'utf8')
      expect(entry).toContain('Name=Chatapp Desk')
      expect(entry).toContain(`Icon=${NAME}`)
      expect(entry).toMatch(/^Categories=.*Network;/m)
      for (const size of ICON_SIZES) {
        const icon = `/usr/share/icons/hicolor/${size}x${size}/apps/${NAME}.png`
        expect(files).toContain(icon)
        expect(await sharp(icon).metadata()).toMatchObject({ width: size, height: size, format: 'png' })
      }
      expect(files).toContain(`/usr/share/icons/hicolor/scalable/apps/${NAME}.svg`)

      // Started the way the menu starts it: the desktop entry's command and its arguments, no file
      // given for %U (the stub records what it ran with): the main process's V8 heap settings
      // (scripts/heap-flags.mjs), which Electron takes only from its command line.
      const [exec, ...execArgs] = /^Exec=(.+)$/m.exec(entry)![1]!.split(' ').filter((a) => a !== '%U')
      expect(execArgs).toEqual([...ELECTRON_HEAP_ARGS])
      const log = join(out, 'started.log')
      await run(exec!, [...execArgs, '--from-test'], { env: { ...process.env, CHATAPP_STUB_LOG: log }, cwd: out })
      expect((await readFile(log, 'utf8')).trim().split('\n')).toEqual([out, ...ELECTRON_HEAP_ARGS, '--from-test'])

      await asRoot('dpkg', ['--purge', NAME])
      expect(dpkgStatus()).not.toContain('installed')
      const left = files.filter((f) => existsSync(f) && !lstatSync(f).isDirectory())
      expect(left).toEqual([])
      expect(existsSync(app)).toBe(false)
      console.log(`install, checks, start and purge: ${((Date.now() - started) / 1000).toFixed(1)} s`)
    },
    200_000
  )

  it('the .rpm reads with rpm -qip / -qlp: name, version, licence, dependencies, files, package-type', async () => {
    const q = async (format: string) => (await run('rpm', ['-qp', '--qf', format, rpm])).stdout
    expect(await q('%{NAME} %{VERSION} %{RELEASE} %{ARCH}')).toBe(`${NAME} ${pkg.version} 1 x86_64`)
    expect(await q('%{URL}')).toBe(pkg.homepage)
    const info = (await run('rpm', ['-qip', rpm])).stdout
    expect(info).toMatch(/^License\s*: \S+/m)
    expect(info).toMatch(/^Summary\s*: .+/m)
    const requires = (await run('rpm', ['-qp', '--requires', rpm])).stdout
    for (const lib of ['gtk3', 'libnotify', 'nss', 'xdg-utils', 'libsecret']) expect(requires).toContain(lib)
    const listed = (await run('rpm', ['-qlp', rpm])).stdout.trim().split('\n')
    for (const f of [`/usr/bin/${NAME}`, `/usr/lib/${NAME}/resources/app.asar`, `/usr/share/applications/${NAME}.desktop`, `/usr/share/icons/hicolor/512x512/apps/${NAME}.png`]) {
      expect(listed).toContain(f)
    }
    // The file's content through its digest in the header (sha256): no cpio needed to unpack it.
    const digests = new Map(
      (await q('[%{FILENAMES}\t%{FILEDIGESTS}\n]'))
        .trim()
        .split('\n')
        .map((l) => l.split('\t') as [string, string])
    )
    expect(await q('%{FILEDIGESTALGO}')).toBe('8')
    expect(digests.get(`/usr/lib/${NAME}/resources/package-type`)).toBe(sha256('rpm'))
  })
})
