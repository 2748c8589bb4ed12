/**
 * `npm run dist:linux`: the .deb and the .rpm, offline, from one unpacked app.
 *
 * 1. `electron-vite build` (skipped with `--prebuilt`, when out/ is fresh: `npm test` just built it),
 * 2. `electron-builder --dir --linux` → `<out>/linux-unpacked` (Electron from its releases, or from
 *    `ELECTRON_MIRROR`; the tests serve a stub there),
 * 3. per format, a copy of it with what the installer tools and the updater need: the Electron
 *    `version` file and a `LICENSE` (electron-builder drops both), and `resources/package-type`
 *    (`deb` | `rpm`: electron-updater installs the next update with the same package manager),
 * 4. electron-installer-debian (dpkg-deb) and electron-installer-redhat (rpmbuild): the app in
 *    `/usr/lib/chatapp-desk`, `/usr/bin/chatapp-desk`, a desktop entry, hicolor icons 16–512 px and
 *    the SVG, the dependencies Electron needs on Debian/Ubuntu and Fedora/RHEL,
 * 5. `latest-linux.yml` (scripts/update-info.mjs) listing both with their sha512.
 *
 * electron-builder's own deb and rpm targets need fpm, downloaded from GitHub; these tools need only
 * dpkg-deb and rpmbuild (Debian: `apt-get install rpm`). Options: `--prebuilt`, `--out <dir>`
 * (default dist/), `--only deb|rpm`. Prints one line per package; exits 1 with the tool's message.
 */
import './require-node.mjs'
import { spawn } from 'node:child_process'
import { cp, mkdir, readFile, rm, stat, writeFile } from 'node:fs/promises'
import { existsSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import sharp from 'sharp'
import createDebian from 'electron-installer-debian'
import createRedhat from 'electron-installer-redhat'
import { ELECTRON_HEAP_ARGS } from './heap-flags.mjs'
import { releaseNotes, writeLinuxUpdateInfo } from './update-info.mjs'

const ROOT = fileURLToPath(new URL('..', import.meta.url))
const { values: args } = parseArgs({ options: { prebuilt: { type: 'boolean' }, out: { type: 'string' }, only: { type: 'string' } } })
const OUT = resolve(ROOT, args.out ?? 'dist')
const FORMATS = args.only ? [args.only] : ['deb', 'rpm']
/** Standard hicolor sizes (freedesktop icon theme spec; menus use 16–48, docks and stores up to 512). */
const ICON_SIZES = [16, 24, 32, 48, 64, 128, 256, 512]

const pkg = JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8'))
const electronVersion = JSON.parse(await readFile(join(ROOT, 'node_modules', 'electron', 'package.json'), 'utf8')).version
const NAME = pkg.name
const SUMMARY = 'WhatsApp chat-bot desk for small businesses'
const LICENSE_TEXT = `Chatapp Desk ${pkg.version}
Copyright © 2026 Chatapp Desk. All rights reserved.

The application bundles Electron ${electronVersion} (MIT) and Chromium; their licences are in
/usr/lib/${NAME}/LICENSE.electron.txt and /usr/lib/${NAME}/LICENSES.chromium.html.
`

function run(cmd, argv, env = {}) {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(cmd, argv, { cwd: ROOT, stdio: 'inherit', env: { ...process.env, ...env } })
    child.on('error', reject)
    child.on('exit', (code) => (code === 0 ? resolvePromise() : reject(new Error(`${cmd} ${argv.join(' ')} exited with ${code}`))))
  })
}

/** PNGs at {@link ICON_SIZES} from resources/icon.png, plus the SVG: `{ '16x16': path, …, scalable: path }`. */
async function icons(dir) {
  await mkdir(dir, { recursive: true })
  const out = {}
  for (const size of ICON_SIZES) {
    const file = join(dir, `${size}x${size}.png`)
    await sharp(join(ROOT, 'resources', 'icon.png')).resize(size, size).png().toFile(file)
    out[`${size}x${size}`] = file
  }
  out.scalable = join(ROOT, 'resources', 'icon.svg')
  return out
}

/** A copy of linux-unpacked for one format, with the files the installer tool and the updater read. */
async function stage(unpacked, format) {
  const dir = join(OUT, `linux-${format}-unpacked`)
  await rm(dir, { recursive: true, force: true })
  await cp(unpacked, dir, { recursive: true, verbatimSymlinks: true, preserveTimestamps: true })
  // electron-installer-common reads Electron's version from here (its dependency list depends on it).
  await writeFile(join(dir, 'version'), electronVersion)
  await writeFile(join(dir, 'LICENSE'), LICENSE_TEXT)
  await writeFile(join(dir, 'resources', 'package-type'), format)
  return dir
}

const common = (src, icon) => ({
  src,
  dest: OUT,
  name: NAME,
  productName: pkg.productName,
  genericName: 'Chat-bot desk',
  description: SUMMARY,
  productDescription: pkg.description,
  version: pkg.version,
  bin: NAME,
  // The desktop entry starts the main process with its V8 heap settings (./heap-flags.mjs): the
  // installers' template without the arguments electron-installer-debian's own leaves out.
  execArguments: [...ELECTRON_HEAP_ARGS],
  desktopTemplate: join(ROOT, 'resources', 'linux', 'desktop.ejs'),
  icon,
  categories: ['Network', 'Chat'],
  homepage: pkg.homepage,
  logger: process.env.DEBUG ? console.log : () => {}
})

/** Runs one step and prints how long it took (s): where the time of a slow build goes. */
async function step(name, fn) {
  const started = Date.now()
  const result = await fn()
  console.log(`${name}: ${((Date.now() - started) / 1000).toFixed(1)} s`)
  return result
}

async function main() {
  if (!args.prebuilt) await run(process.execPath, [join(ROOT, 'node_modules', 'electron-vite', 'bin', 'electron-vite.js'), 'build'])
  else if (!existsSync(join(ROOT, 'out', 'main', 'index.js'))) throw new Error('--prebuilt, but out/ is empty: run npm run build first')
  await step('electron-builder --dir', () =>
    run(process.execPath, [join(ROOT, 'node_modules', 'electron-builder', 'cli.js'), '--dir', '--linux', '--x64', '--publish', 'never', `-c.directories.output=${OUT}`])
  )
  const unpacked = join(OUT, 'linux-unpacked')
  const icon = await icons(join(OUT, '.linux-icons'))
  const built = []
  if (FORMATS.includes('deb')) {
    const src = await stage(unpacked, 'deb')
    const { packagePaths } = await step('.deb (electron-installer-debian)', () =>
      createDebian({ ...common(src, icon), arch: 'amd64', section: 'net', maintainer: 'Chatapp Desk <maintainers@chatapp.invalid>' })
    )
    built.push(...packagePaths)
  }
  if (FORMATS.includes('rpm')) {
    const src = await stage(unpacked, 'rpm')
    const { packagePaths } = await step('.rpm (electron-installer-redhat)', () => createRedhat({ ...common(src, icon), arch: 'x86_64', license: 'Proprietary' }))
    built.push(...packagePaths)
  }
  await writeLinuxUpdateInfo(OUT, { version: pkg.version, releaseNotes: await releaseNotes() })
  for (const file of built) console.log(`built ${file} (${((await stat(file)).size / 1024 / 1024).toFixed(1)} MB)`)
  console.log(`built ${join(OUT, 'latest-linux.yml')}`)
}

main().catch((err) => {
  console.error(`dist:linux failed: ${err instanceof Error ? err.message : String(err)}`)
  process.exit(1)
})
