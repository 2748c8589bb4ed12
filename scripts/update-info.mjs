/**
 * `latest-linux.yml`, the update info electron-updater's generic provider reads on Linux: the version,
 * each package's file name, base64 sha512 and size, the release date and notes. electron-builder
 * writes it for the AppImage only; the .deb and .rpm come from scripts/dist-linux.mjs, so this adds
 * them (an installed .deb looks for the `.deb` entry, an .rpm for the `.rpm`, by `resources/package-type`).
 * Entries electron-builder wrote (the AppImage with its blockmap size) are kept as they are.
 *
 * CLI: `node scripts/update-info.mjs [dir]` (default `dist`) after the packages are built.
 * Parsed and written with js-yaml, the parser electron-updater reads the file with (its dependency).
 */
import './require-node.mjs'
import { createHash } from 'node:crypto'
import { createReadStream, existsSync } from 'node:fs'
import { readdir, readFile, stat, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import yaml from 'js-yaml'

const ROOT = fileURLToPath(new URL('..', import.meta.url))

/** Base64 sha512 of a file, as latest*.yml carries it (electron-updater compares it after download). */
export function sha512(file) {
  return new Promise((resolve, reject) => {
    const hash = createHash('sha512')
    createReadStream(file)
      .on('data', (chunk) => hash.update(chunk))
      .on('error', reject)
      .on('end', () => resolve(hash.digest('base64')))
  })
}

/** Linux packages of `version` in `dir`: the AppImage (electron-builder), the .deb and the .rpm. */
async function linuxPackages(dir, version) {
  const names = await readdir(dir)
  const debVersion = version.replace(/-/g, '~')
  return names.filter(
    (n) =>
      (n.endsWith('.AppImage') && n.includes(`-${version}-`)) ||
      (n.endsWith('.deb') && n.includes(`_${debVersion}_`)) ||
      (n.endsWith('.rpm') && n.includes(`-${version.replace(/-/g, '_')}-`))
  )
}

/**
 * Writes `<dir>/latest-linux.yml` for `version`, listing every Linux package of that version in `dir`.
 * Answers the written info. Throws when there is no package to list.
 */
export async function writeLinuxUpdateInfo(dir, { version, releaseNotes, releaseDate = new Date().toISOString() }) {
  const file = join(dir, 'latest-linux.yml')
  const previous = existsSync(file) ? yaml.load(await readFile(file, 'utf8')) : null
  const kept = previous?.version === version ? previous.files ?? [] : []
  const packages = await linuxPackages(dir, version)
  if (packages.length === 0) throw new Error(`No Linux package of version ${version} in ${dir}`)
  const files = []
  for (const name of packages) {
    const old = kept.find((f) => f.url === name)
    const size = (await stat(join(dir, name))).size
    const digest = await sha512(join(dir, name))
    // The AppImage's entry carries electron-builder's blockMapSize (differential downloads): keep it when the file is the same.
    files.push(old && old.sha512 === digest ? old : { url: name, sha512: digest, size })
  }
  // The AppImage first: electron-updater's legacy `path`/`sha512` fields name the first file.
  files.sort((a, b) => Number(b.url.endsWith('.AppImage')) - Number(a.url.endsWith('.AppImage')) || a.url.localeCompare(b.url))
  const info = {
    version,
    files,
    path: files[0].url,
    sha512: files[0].sha512,
    releaseDate: previous?.version === version && previous.releaseDate ? previous.releaseDate : releaseDate,
    ...(releaseNotes ? { releaseNotes } : {})
  }
  await writeFile(file, yaml.dump(info, { lineWidth: -1 }))
  return info
}

/** The release notes of this version (docs/release-notes.md, the file electron-builder.ts names). */
export async function releaseNotes() {
  const file = join(ROOT, 'docs', 'release-notes.md')
  return existsSync(file) ? (await readFile(file, 'utf8')).trim() : undefined
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const dir = process.argv[2] ?? join(ROOT, 'dist')
  const { version } = JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8'))
  const info = await writeLinuxUpdateInfo(dir, { version, releaseNotes: await releaseNotes() })
  console.log(`latest-linux.yml: ${info.files.map((f) => f.url).join(', ')}`)
}
