/**
 * No import circles in src: a module never imports, through any chain of static
 * imports (type-only ones too), a module that imports it. A circle makes load order matter and ties
 * two modules into one; the App ↔ InstancesTab circle was one (the tab props type lived in App).
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { expect, it } from 'vitest'

const ROOT = fileURLToPath(new URL('../../../', import.meta.url))
const SRC = join(ROOT, 'src')

/** The .ts/.tsx files under `dir`. */
function sources(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && /\.tsx?$/.test(e.name) && !e.name.endsWith('.d.ts'))
    .map((e) => join(e.parentPath, e.name))
}

/** The files of this tree that `file` imports statically (`import … from`, `export … from`, `import '…'`). */
function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8')
  const out: string[] = []
  for (const m of text.matchAll(/^\s*(?:import|export)\s+(?:[^'"]*?\sfrom\s+)?['"](\.{1,2}\/[^'"]+)['"]/gm)) {
    const base = resolve(dirname(file), m[1]!)
    const found = [base, `${base}.ts`, `${base}.tsx`, join(base, 'index.ts'), join(base, 'index.tsx')].find((p) => /\.tsx?$/.test(p) && existsSync(p))
    if (found) out.push(found)
  }
  return out
}

/** Every circle of the import graph, each as the chain of files that closes it. */
function circles(files: string[]): string[][] {
  const graph = new Map(files.map((f) => [f, importsOf(f)]))
  const found: string[][] = []
  const state = new Map<string, 'open' | 'done'>()
  const stack: string[] = []
  const visit = (f: string) => {
    state.set(f, 'open')
    stack.push(f)
    for (const next of graph.get(f) ?? []) {
      if (state.get(next) === 'open') found.push([...stack.slice(stack.indexOf(next)), next])
      else if (!state.has(next)) visit(next)
    }
    stack.pop()
    state.set(f, 'done')
  }
  for (const f of files) if (!state.has(f)) visit(f)
  return found.map((chain) => chain.map((f) => relative(ROOT, f)))
}

it('finds the imports it is to check', () => {
  // A guard against a reader that sees nothing (and so no circle): App imports its tabs.
  expect(importsOf(join(SRC, 'renderer/src/App.tsx')).map((f) => relative(ROOT, f))).toContain('src/renderer/src/tabs/InstancesTab.tsx')
})

it('has no import circle in src', () => {
  expect(circles(sources(SRC))).toEqual([])
})
