/**
 * kill -9 during the import of a 0.1 data dir, at several points (docs/storage.md "Importing a data dir of release 0.1"): a child process runs
 * the import on a copy of the fixture and is SIGKILLed when it reports the chosen step (it waits
 * there: inside the step's transaction, after its commit, or after a rename of the move); then a
 * start in this process finishes the import. The result must equal an import never interrupted:
 * the same rows in every table (nothing doubled, nothing missing), the same config.json, the old
 * files all in migrated-<date>/.
 */
import { spawn } from 'node:child_process'
import { readdir, rm } from 'node:fs/promises'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { openDatabase } from '../../../../src/main/store/db/database'
import { openStorage } from '../../../../src/main/store/storage'
import { configFile, copyFixture, dumpDatabase } from './legacy-helpers'

const ROOT = fileURLToPath(new URL('../../../../', import.meta.url))
const CHILD = fileURLToPath(new URL('./legacy-import-child.ts', import.meta.url))
/** Small batches, so the message logs and the deliveries take several transactions each. */
const BATCH = 10
const SANDBOX = '6b06fd3f068c1736b6de824b'
const REAL = '6b06fd3e2d329972fede8248'

const dirs: string[] = []
afterAll(async () => {
  for (const d of dirs) await rm(d, { recursive: true, force: true })
})

interface Snapshot {
  db: Record<string, string[]>
  config: unknown
  root: string[]
  migrated: string[]
}

async function snapshot(dir: string): Promise<Snapshot> {
  const s = await openStorage(dir, { legacyImport: { batchSize: BATCH } })
  try {
    const root = (await readdir(dir)).sort()
    const folder = root.find((n) => n.startsWith('migrated-'))!
    return { db: await dumpDatabase(s.database.db), config: await configFile(dir), root, migrated: (await readdir(join(dir, folder))).sort() }
  } finally {
    await s.close()
  }
}

/** Runs the import in a child and SIGKILLs it once it reports `phase step`; resolves with the steps it reported. */
function importUntilKilled(dir: string, phase: string, step: string): Promise<string[]> {
  const child = spawn(process.execPath, ['--import', 'tsx', CHILD, dir, String(BATCH), phase, step], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] })
  let out = ''
  let err = ''
  child.stderr.on('data', (d: Buffer) => (err += d.toString()))
  return new Promise((resolve, reject) => {
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString()
      if (out.includes('HALT\n')) child.kill('SIGKILL')
    })
    child.on('exit', (code, signal) => {
      if (signal === 'SIGKILL') resolve(out.split('\n').filter((l) => l.startsWith('PROGRESS ')).map((l) => l.slice('PROGRESS '.length)))
      else reject(new Error(`the import ended (${code}) before ${phase} ${step}:\n${out}\n${err}`))
    })
  })
}

let reference: Snapshot
beforeAll(async () => {
  const dir = await copyFixture('running')
  dirs.push(dir)
  reference = await snapshot(dir)
  expect(reference.db.messages!.length).toBe(54)
}, 60_000)

describe('kill -9 during the import, then a start', () => {
  it.each([
    ['written', 'config', 'config.json written, its step not recorded'],
    ['written', 'records', 'inside the records transaction'],
    ['committed', `messages/${REAL}/5`, 'after the last batch of a message log'],
    ['committed', `messages/${SANDBOX}/20`, 'between two message batches'],
    ['written', `messages/${SANDBOX}/30`, 'inside a message batch'],
    ['written', 'chat-states', 'inside the read marks and resolves'],
    ['written', `auth/${REAL}`, 'inside the credentials and keys'],
    ['committed', 'webhook-deliveries/10', 'between two delivery batches'],
    ['committed', 'imported', 'after the import committed, before the move'],
    ['moved', 'messages', 'in the middle of the move']
  ])('%s %s (%s): the start finishes it, nothing doubled', async (phase, step) => {
    const dir = await copyFixture('running')
    dirs.push(dir)
    const reported = await importUntilKilled(dir, phase, step)
    expect(reported.at(-1)).toBe(`${phase} ${step}`)
    // The kill landed where it was meant to: a committed step is recorded, a written one is not.
    const db = await openDatabase(join(dir, 'chatapp.db'))
    const recorded = (await db.db.selectFrom('legacy_import').select('step').execute()).map((r) => r.step)
    await db.close()
    if (phase === 'written') expect(recorded).not.toContain(step)
    else expect(recorded).toContain(phase === 'moved' ? 'imported' : step)
    if (phase === 'moved') expect(recorded).not.toContain('moved')

    expect(await snapshot(dir)).toEqual(reference)
  }, 90_000)
})
