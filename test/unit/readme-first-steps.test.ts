/**
 * The README's first steps hold what a new user copies: every file a command sends is in the
 * repository, every `npm run` script exists, no Node older than the baseline is named as enough, the
 * command-line backup and restore name their data dir, and the paging order is stated.
 */
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { expect, it } from 'vitest'

const ROOT = join(import.meta.dirname, '..', '..')
const readme = readFileSync(join(ROOT, 'README.md'), 'utf8')
const scripts = Object.keys((JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts)

it('every file a command sends (-F file=@…, --data-binary @…) is in the repository or made by an earlier step', () => {
  const made = new Set(['chatapp-backup.tar.gz', 'inst.json', 'group.json', 'broadcast.json', 'step1.json'])
  const sent = [...readme.matchAll(/(?:-F [\w]+=@|--data-binary @)([^\s'"]+)/g)].map((m) => m[1]!)
  expect(sent.length).toBeGreaterThan(0)
  for (const file of sent) expect(made.has(file) || existsSync(join(ROOT, file)), file).toBe(true)
})

it('every npm run script it names exists', () => {
  const named = new Set([...readme.matchAll(/npm run ([\w:-]+)/g)].map((m) => m[1]!))
  for (const name of named) expect(scripts, name).toContain(name)
})

it('names Node 24 as the baseline, nowhere an older one as enough', () => {
  expect(readme).toContain('**Node 24 LTS**')
  expect(readme).not.toMatch(/Node ≥ ?2[0-3]|Node >= ?2[0-3]|20\.19/)
})

it('the command-line backup and restore say which data dir', () => {
  const lines = readme.split('\n').filter((l) => /^(\S+=\S+ )*npm run (backup|restore) --/.test(l.trim()))
  expect(lines.length).toBeGreaterThan(0)
  for (const line of lines) expect(line, line).toMatch(/CHATAPP_DATA_DIR=|--data-dir/)
})

it('states the paging order of the message log and of search', () => {
  expect(readme).toMatch(/A page is \*\*oldest → newest\*\*/)
  expect(readme).toMatch(/results are \*\*newest first\*\*/)
})
