/**
 * Every dependency with an install script is decided in package.json's `allowScripts`:
 * npm 11 runs unreviewed scripts with a warning today and will skip them once they are blocked by
 * default, so each one is either approved because the app needs it or denied because it does not
 * (README, "Install scripts"). A new dependency with a script fails here until someone decides.
 */
import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { expect, it } from 'vitest'

const ROOT = fileURLToPath(new URL('../../../', import.meta.url))
const read = (file: string) => JSON.parse(readFileSync(`${ROOT}${file}`, 'utf8')) as Record<string, any>

it('decides the install script of every locked package that has one', () => {
  const lock = read('package-lock.json') as { packages: Record<string, { hasInstallScript?: boolean }> }
  const withScripts = Object.entries(lock.packages)
    .filter(([, p]) => p.hasInstallScript)
    .map(([path]) => path.slice(path.lastIndexOf('node_modules/') + 'node_modules/'.length))
  expect(withScripts.length).toBeGreaterThan(0)
  const decided = new Set(Object.keys(read('package.json').allowScripts ?? {}).map((key) => key.replace(/(.)@.*$/, '$1')))
  expect(withScripts.filter((name) => !decided.has(name))).toEqual([])
})
