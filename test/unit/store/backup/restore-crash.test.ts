/**
 * A crash at any step of a restore leaves a data dir that starts on the old data or the new data,
 * whole: the restore runs in a child process that is killed (SIGKILL) at each logged step in turn,
 * then the data dir is opened as the app opens it (openStorage finishes an interrupted restore).
 * Also: a crash while finishing an interrupted restore, and a failure while running that is undone.
 * (Child processes: minutes on a busy machine.)
 */
import { spawn } from 'node:child_process'
import { existsSync, statSync } from 'node:fs'
import { cp, mkdtemp, readdir, rm, symlink } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createBackup, restoreBackup, storageSource } from '../../../../src/main/store/backup'
import { openStorage } from '../../../../src/main/store/storage'
import { INSTANCE, checksums, seedDataDir, tempDir } from './helpers'

const CHILD = fileURLToPath(new URL('./restore-child.ts', import.meta.url))
const ROOT = fileURLToPath(new URL('../../../../', import.meta.url))

let work: string
let oldTemplate: string
let archive: string
let oldSums: Record<string, string>

beforeAll(async () => {
  work = tempDir()
  const a = await seedDataDir(join(work, 'new-source'), 'a')
  archive = join(work, 'a.tar.gz')
  await createBackup(storageSource(a), archive)
  await a.close()
  oldTemplate = join(work, 'old-template')
  await (await seedDataDir(oldTemplate, 'b')).close()
  oldSums = await checksums(oldTemplate)
})
afterAll(() => rm(work, { recursive: true, force: true }))

interface ChildRun {
  steps: string[]
  finished: boolean
}

/** Runs the child; with `stopAt`, kills it with SIGKILL once it reports that step. */
function runChild(args: string[], stopAt?: string): Promise<ChildRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', CHILD, ...args], { cwd: ROOT, env: { ...process.env, STOP_AT: stopAt ?? '' }, stdio: ['ignore', 'pipe', 'pipe'] })
    let out = ''
    let err = ''
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString()
      if (stopAt && out.includes(`STEP ${stopAt}\n`)) child.kill('SIGKILL')
    })
    child.stderr.on('data', (d: Buffer) => (err += d.toString()))
    child.on('error', reject)
    child.on('exit', (code, signal) => {
      const steps = [...out.matchAll(/^STEP (.+)$/gm)].map((m) => m[1]!)
      if (stopAt ? signal !== 'SIGKILL' : code !== 0) return reject(new Error(`child ended ${code ?? signal}: ${out}\n${err}`))
      resolve({ steps, finished: out.includes('FINISHED') })
    })
  })
}

/** Which data a data dir starts on: its account's tag, with the records checked whole. */
async function startAndRead(dir: string): Promise<'old' | 'new'> {
  const storage = await openStorage(dir)
  try {
    const tag = storage.repos.account.get()?._id === 'acct-a' ? 'a' : 'b'
    const messages = await storage.repos.messages.list(INSTANCE, { limit: 100 })
    expect(messages).toHaveLength(50)
    expect(messages.every((m) => m.text.startsWith(`${tag} message`))).toBe(true)
    expect((await readdir(storage.paths.attachments)).sort()).toEqual([`att-${tag}-1`, `att-${tag}-2`])
    const creds = await storage.database.db.selectFrom('auth_creds').select('creds').execute()
    expect(creds.map((c) => JSON.parse(c.creds).noiseKey)).toEqual([tag.repeat(32)])
    expect(existsSync(join(dir, 'restore-in-progress'))).toBe(false)
    return tag === 'a' ? 'new' : 'old'
  } finally {
    await storage.close()
  }
}

describe('a crash during a restore', () => {
  let allSteps: string[] = []

  it('runs to the end in a child process, naming its steps', { timeout: 60_000 }, async () => {
    const dir = join(work, 'full')
    await cp(oldTemplate, dir, { recursive: true })
    const run = await runChild(['restore', dir, archive])
    expect(run.finished).toBe(true)
    allSteps = run.steps
    expect(allSteps[0]).toBe('verified')
    expect(allSteps[1]).toBe('staged')
    expect(allSteps).toContain('aside:chatapp.db')
    expect(allSteps).toContain('aside:config.json')
    expect(allSteps).toContain('in:chatapp.db')
    expect(allSteps.at(-1)).toBe('done')
    expect(await startAndRead(dir)).toBe('new')
  })

  it('at each step, then a start: the old data before the commit point, the new data after it, the old data kept whole', { timeout: 300_000 }, async () => {
    expect(allSteps.length).toBeGreaterThan(8)
    for (const step of allSteps) {
      const dir = join(work, `crash-${step.replace(/[:.]/g, '_')}`)
      await cp(oldTemplate, dir, { recursive: true })
      const run = await runChild(['restore', dir, archive], step)
      expect(run.steps.at(-1)).toBe(step)
      expect(run.finished).toBe(false)
      const expected = step === 'verified' ? 'old' : 'new'
      expect(await startAndRead(dir), `killed at ${step}`).toBe(expected)
      const replaced = (await readdir(dir)).filter((n) => n.startsWith('replaced-'))
      if (expected === 'old') {
        expect(replaced).toEqual([])
        expect(await readdir(join(dir, 'tmp'))).toEqual([])
      } else {
        expect(replaced).toHaveLength(1)
        // The old data, moved aside, is byte for byte what was in place.
        expect(await checksums(join(dir, replaced[0]!))).toEqual(oldSums)
      }
    }
  })

  it('a crash while finishing an interrupted restore: the next start still finishes it', { timeout: 60_000 }, async () => {
    const dir = join(work, 'crash-twice')
    await cp(oldTemplate, dir, { recursive: true })
    await runChild(['restore', dir, archive], 'aside:config.json')
    const second = await runChild(['finish', dir], 'in:chatapp.db')
    expect(second.steps).not.toContain('aside:chatapp.db') // already aside: not done twice
    expect(await startAndRead(dir)).toBe('new')
  })
})

describe('a crash while putting the previous data back (revertRestore)', () => {
  // Its steps after the commit point are a restore's (covered one by one above): one of each kind here.
  it('at its commit point, moving aside, putting in, then a start: the previous data, whole', { timeout: 300_000 }, async () => {
    const full = join(work, 'revert-full')
    await cp(oldTemplate, full, { recursive: true })
    const { replacedDir } = await restoreBackup(full, archive)
    const run = await runChild(['revert', full, replacedDir])
    expect(run.finished).toBe(true)
    expect(await startAndRead(full)).toBe('old')
    expect(run.steps).toContain('in:chatapp.db')
    const steps = ['staged', 'aside:chatapp.db', 'in:chatapp.db']
    for (const step of steps) {
      const dir = join(work, `revert-${step.replace(/[:.]/g, '_')}`)
      await cp(oldTemplate, dir, { recursive: true })
      const restored = await restoreBackup(dir, archive)
      await runChild(['revert', dir, restored.replacedDir], step)
      expect(await startAndRead(dir), `killed at ${step}`).toBe('old')
      // The restored data went aside whole; the emptied folder of the previous data is gone.
      const aside = (await readdir(dir)).filter((n) => n.startsWith('replaced-'))
      expect(aside).toHaveLength(1)
      const kept = await openStorage(join(dir, aside[0]!))
      try {
        expect(kept.repos.account.get()?._id).toBe('acct-a')
      } finally {
        await kept.close()
      }
    }
  })
})

describe('a failure while restoring (not a crash)', () => {
  // A real failure of rename(2), which no permission check lets root bypass: the replaced-<time>/
  // folder is made a link to a folder on another file system (/dev/shm), so moving aside meets EXDEV.
  const otherFs = '/dev/shm'
  const canCrossDevices = existsSync(otherFs) && statSync(otherFs).dev !== statSync(tmpdir()).dev

  it.skipIf(!canCrossDevices)('is undone: the old data back in place, nothing left of the restore', async () => {
    const dir = join(work, 'fails')
    await cp(oldTemplate, dir, { recursive: true })
    const at = Date.parse('2025-02-03T04:05:06.789Z')
    const elsewhere = await mkdtemp(join(otherFs, 'chatapp-replaced-'))
    try {
      const err = await restoreBackup(dir, archive, {
        clock: { now: () => at },
        onStep: async (step) => {
          if (step === 'staged') await symlink(elsewhere, join(dir, 'replaced-2025-02-03T04-05-06.789Z'))
        }
      }).then(
        () => null,
        (e: unknown) => e
      )
      expect((err as NodeJS.ErrnoException).code).toBe('EXDEV')
      expect(await readdir(elsewhere)).toEqual([])
      await rm(join(dir, 'replaced-2025-02-03T04-05-06.789Z'))
      expect((await readdir(dir)).filter((n) => n.startsWith('replaced-') || n.startsWith('restore-'))).toEqual([])
      expect(await checksums(dir)).toEqual(oldSums)
      expect(await startAndRead(dir)).toBe('old')
    } finally {
      await rm(elsewhere, { recursive: true, force: true })
    }
  })
})
