/**
 * `npm run backup` and `npm run restore` end to end: the command-line entries spawned as processes
 * (src/main/cli/*.ts, the files the build bundles for the npm scripts) against real data dirs, with
 * another process owning the data dir and writing (as the running app does).
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { existsSync } from 'node:fs'
import { mkdir, readdir, rename, rm, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { verifyBackup } from '../../../src/main/store/backup'
import { openStorage } from '../../../src/main/store/storage'
import { INSTANCE, checksums, seedDataDir, tempDir } from '../store/backup/helpers'
import { MIGRATIONS } from '../../../src/main/store/db/migrations'

const ROOT = fileURLToPath(new URL('../../../', import.meta.url))
const APP = fileURLToPath(new URL('../store/backup/app-child.ts', import.meta.url))

function run(entry: 'backup' | 'restore', args: string[], env: Record<string, string> = {}): Promise<{ code: number; out: string; err: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', `src/main/cli/${entry}.ts`, ...args], { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] })
    let out = ''
    let err = ''
    child.stdout.on('data', (d: Buffer) => (out += d.toString()))
    child.stderr.on('data', (d: Buffer) => (err += d.toString()))
    child.on('error', reject)
    child.on('exit', (code) => resolve({ code: code ?? -1, out, err }))
  })
}

/** Starts the stand-in app on `dir`; resolves once it owns the dir and has written a few messages. */
function startApp(dir: string): Promise<ChildProcess> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', APP, dir], { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] })
    let out = ''
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString()
      if (out.includes('WROTE 20')) resolve(child)
    })
    child.on('exit', (code) => reject(new Error(`the app stand-in exited (${code}): ${out}`)))
  })
}

function stopApp(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    child.removeAllListeners('exit')
    child.on('exit', () => resolve())
    child.kill('SIGTERM')
  })
}

let work: string
let live: string
let app: ChildProcess | null = null

beforeAll(async () => {
  work = tempDir()
  live = join(work, 'live')
  await (await seedDataDir(live, 'a')).close()
})
afterAll(async () => {
  if (app) await stopApp(app)
  await rm(work, { recursive: true, force: true })
})

describe('npm run backup / npm run restore', () => {
  it('backs up while the app runs and writes; restore says to use the app instead while it runs; both work once it stops', { timeout: 180_000 }, async () => {
    app = await startApp(live)

    const archive = join(work, 'live.tar.gz')
    const backup = await run('backup', ['--out', archive, '--data-dir', live])
    expect(backup.err).toBe('')
    expect(backup.code).toBe(0)
    expect(backup.out).toMatch(new RegExp(`^Backup of ${live} written to ${archive} \\(\\d+ KB; 4 files; database version ${Object.keys(MIGRATIONS).length}; Chatapp Desk \\d+\\.\\d+\\.\\d+\\)\\.\\n$`))
    const manifest = await verifyBackup(archive, { tmpDir: join(work, 'verify') })
    expect(manifest.files.map((f) => f.path)).toEqual(['config.json', 'chatapp.db', 'attachments/att-a-1', 'attachments/att-a-2'])

    // Another backup to restore: a data dir "b".
    const other = join(work, 'other')
    await (await seedDataDir(other, 'b')).close()
    const archiveB = join(work, 'b.tar.gz')
    expect((await run('backup', ['--out', archiveB], { CHATAPP_DATA_DIR: other })).code).toBe(0)

    const refused = await run('restore', [archiveB, '--data-dir', live])
    expect(refused.code).toBe(2)
    expect(refused.err).toMatch(/^Chatapp is running with the data dir .*live, so it cannot be restored from here \(nothing was changed\)\. /)
    expect(refused.err).toMatch(/Settings → Backup → Restore, or POST \/restore with the file as application\/octet-stream/)
    expect((await readdir(live)).filter((n) => n.startsWith('replaced-') || n.startsWith('restore-'))).toEqual([])

    await stopApp(app)
    app = null
    // What the live backup holds: the seeded data and some of the app's writes, whole.
    const restoredLive = join(work, 'restored-live')
    const r1 = await run('restore', [archive, '--data-dir', restoredLive])
    expect(r1.code).toBe(0)
    const s1 = await openStorage(restoredLive)
    try {
      expect(s1.repos.account.get()?._id).toBe('acct-a')
      expect((await s1.repos.messages.list(INSTANCE, { limit: 1000 })).filter((m) => m.id.startsWith('LIVE')).length).toBeGreaterThanOrEqual(20)
    } finally {
      await s1.close()
    }

    const r2 = await run('restore', [archiveB, '--data-dir', live])
    expect(r2.err).toBe('')
    expect(r2.code).toBe(0)
    expect(r2.out).toMatch(/^Verifying .*b\.tar\.gz…\nRestored the backup of \S+ \(Chatapp Desk \S+\) into .*live\.\nThe data that was there is kept in .*live\/replaced-\S+; delete it when you no longer need it\.\n$/)
    const s2 = await openStorage(live)
    try {
      expect(s2.repos.account.get()?._id).toBe('acct-b')
    } finally {
      await s2.close()
    }
  })

  it('a refused archive: exit 1, the reason, the data dir unchanged', { timeout: 60_000 }, async () => {
    const dir = join(work, 'keep')
    await (await seedDataDir(dir, 'c')).close()
    const before = await checksums(dir)
    const text = join(work, 'notes.txt')
    await writeFile(text, 'just some notes\n')
    const r = await run('restore', [text, '--data-dir', dir])
    expect(r.code).toBe(1)
    expect(r.err).toBe('The backup was refused: This is a text file, not a Chatapp Desk backup (a .tar.gz file). Nothing was changed.\n')
    expect(await checksums(dir)).toEqual(before)
  })

  it('with CHATAPP_MEDIA_DIR: the backup reads the attachments from that folder; the restore is refused, nothing changed', { timeout: 60_000 }, async () => {
    const dir = join(work, 'media-desk')
    await (await seedDataDir(dir, 'm')).close()
    const media = join(work, 'shared-media')
    await mkdir(media)
    await rename(join(dir, 'attachments'), join(media, 'attachments'))
    const archive = join(work, 'media-desk.tar.gz')
    const b = await run('backup', ['--out', archive, '--data-dir', dir], { CHATAPP_MEDIA_DIR: media })
    expect(b.err).toBe('')
    expect(b.code).toBe(0)
    const manifest = await verifyBackup(archive, { tmpDir: join(work, 'verify-media') })
    expect(manifest.files.map((f) => f.path)).toEqual(['config.json', 'chatapp.db', 'attachments/att-m-1', 'attachments/att-m-2'])
    const relative = await run('backup', ['--out', join(work, 'rel.tar.gz'), '--data-dir', dir], { CHATAPP_MEDIA_DIR: 'shared-media' })
    expect(relative.code).toBe(2)
    expect(relative.err).toMatch(/^CHATAPP_MEDIA_DIR must be an absolute path/)
    const before = await checksums(dir)
    const r = await run('restore', [archive, '--data-dir', dir], { CHATAPP_MEDIA_DIR: media })
    expect(r.code).toBe(2)
    expect(r.err).toMatch(/^CHATAPP_MEDIA_DIR is set: a restore puts attachments\/ and media\/ into the data dir, not that folder \(nothing was changed\)/)
    expect(await checksums(dir)).toEqual(before)
  })

  it('wrong usage: exit 2 with the usage line; an existing --out file is never overwritten', { timeout: 60_000 }, async () => {
    const noOut = await run('backup', ['--data-dir', live])
    expect(noOut.code).toBe(2)
    expect(noOut.err).toMatch(/--out FILE is required\.\nUsage: npm run backup -- --out FILE \[--data-dir DIR\] \[--media\]/)
    const exists = join(work, 'exists.tar.gz')
    await writeFile(exists, 'mine')
    const r = await run('backup', ['--out', exists, '--data-dir', live])
    expect(r.code).toBe(2)
    expect(r.err).toMatch(/exists already; choose another name/)
    const noData = await run('backup', ['--out', join(work, 'x.tar.gz'), '--data-dir', join(work, 'nothing-here')])
    expect(noData.code).toBe(1)
    expect(noData.err).toMatch(/There is no Chatapp data in .*nothing-here \(no chatapp\.db\)/)
    expect(existsSync(join(work, 'x.tar.gz'))).toBe(false)
    const noFile = await run('restore', [])
    expect(noFile.code).toBe(2)
    expect(noFile.err).toMatch(/Usage: npm run restore -- FILE \[--data-dir DIR\]/)
  })
})
