/**
 * Runs an entry of the prebuilt main bundle (out/main/<entry>.js, made by `npm run build` with the web
 * UI) in this same process: the headless server (`npm run serve`) and the command-line tools
 * (`npm run backup`, `npm run restore`). The bundle is rebuilt first only when a source it is made from
 * is newer than the last build, so an unchanged checkout starts in about a second without tsx, instead
 * of rebuilding the Electron parts and the UI on every start (issue 11 §13).
 * Plain JavaScript on purpose: nothing to compile before the check.
 */
import './require-node.mjs'
import { spawnSync } from 'node:child_process'
import { existsSync, readdirSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'

const root = fileURLToPath(new URL('..', import.meta.url))
const inputs = ['src', 'electron.vite.config.ts', 'contract-methods.plugin.ts', 'package.json', 'package-lock.json', 'tsconfig.json']

/** The newest modification time (ms) under `path` (a file or a folder). */
function newest(path) {
  let st
  try {
    st = statSync(path)
  } catch {
    return 0
  }
  if (!st.isDirectory()) return st.mtimeMs
  let max = st.mtimeMs
  for (const entry of readdirSync(path)) max = Math.max(max, newest(join(path, entry)))
  return max
}

/** Whether every output exists and is newer than every input (whoever built them: this or npm run build). */
function built(outputs) {
  if (!outputs.every((f) => existsSync(f))) return false
  const at = Math.min(...outputs.map((f) => statSync(f).mtimeMs))
  return inputs.every((p) => newest(join(root, p)) <= at)
}

/**
 * Builds when needed, then imports out/main/<entry>.js. The build messages go to stderr, so a tool's
 * own output on stdout stays clean.
 */
export async function runBuilt(entry) {
  const outputs = [join(root, 'out', 'main', `${entry}.js`), join(root, 'out', 'renderer', 'index.html')]
  if (!built(outputs)) {
    console.error('Sources changed since the last build: building (electron-vite build)…')
    const started = Date.now()
    const cli = join(root, 'node_modules', 'electron-vite', 'bin', 'electron-vite.js')
    const result = spawnSync(process.execPath, [cli, 'build'], { cwd: root, stdio: ['ignore', 'ignore', 'inherit'] })
    if (result.status !== 0) {
      console.error('The build failed; run npm run build to see why.')
      process.exit(1)
    }
    console.error(`Built in ${((Date.now() - started) / 1000).toFixed(1)} s.`)
  }
  await import(pathToFileURL(outputs[0]).href)
}
