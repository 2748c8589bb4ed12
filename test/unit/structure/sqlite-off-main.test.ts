/**
 * SQLite never runs on the main thread (docs/storage.md "Threads"): in the build the app runs, no
 * module the main thread loads — the desktop app, `npm run serve`, the command-line tools, and every
 * chunk they import — imports `node:sqlite`; only the SQLite threads' own entry does. The lint rule of
 * eslint.config.js keeps the sources so; this checks what ships (a dependency or a bundling change
 * could bring it back).
 */
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { expect, it } from 'vitest'

const OUT = fileURLToPath(new URL('../../../out/main/', import.meta.url))
const MAIN_ENTRIES = ['index.js', 'serve.js', 'backup.js', 'restore.js', 'db-copy.js']

/** The files `file` imports (static and dynamic) within out/main. */
function importsOf(file: string): string[] {
  const text = readFileSync(join(OUT, file), 'utf8')
  const out: string[] = []
  for (const m of text.matchAll(/(?:from\s*|import\s*\(\s*|import\s+)"(\.{1,2}\/[^"]+)"/g)) {
    out.push(join(file, '..', m[1]!).replace(/\\/g, '/'))
  }
  return out
}

it('no module the main thread loads imports node:sqlite; the SQLite thread does', () => {
  expect(existsSync(join(OUT, 'serve.js')), 'run npm run build first').toBe(true)
  const seen = new Set<string>()
  const todo = [...MAIN_ENTRIES]
  while (todo.length > 0) {
    const file = todo.pop()!
    if (seen.has(file)) continue
    seen.add(file)
    todo.push(...importsOf(file))
  }
  expect(seen.size).toBeGreaterThan(MAIN_ENTRIES.length)
  const offenders = [...seen].filter((f) => /(?:from\s*|import\s*\(\s*)"node:sqlite"/.test(readFileSync(join(OUT, f), 'utf8')))
  expect(offenders).toEqual([])
  expect(readFileSync(join(OUT, 'sqlite-thread.js'), 'utf8')).toMatch(/from\s*"node:sqlite"/)
})
