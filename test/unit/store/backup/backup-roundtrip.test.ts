/**
 * Backup → restore on real files: the data written through the repositories comes back the same in
 * another data dir; the archive's layout and manifest are as docs/storage.md says.
 */
import { existsSync } from 'node:fs'
import { readdir, readFile, rm } from 'node:fs/promises'
import { basename, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { list as listTar } from 'tar'
import { afterEach, describe, expect, it } from 'vitest'
import { createBackup, injectBackupWriteFault, openDataDirSource, restoreBackup, storageSource, verifyBackup, SUPPORTED_DATABASE_VERSION } from '../../../../src/main/store/backup'
import { StorageFullError } from '../../../../src/main/store/storage'
import { openStorage, type Storage } from '../../../../src/main/store/storage'
import { ConfigStore } from '../../../../src/main/store/config/config-store'
import { openDatabase } from '../../../../src/main/store/db/database'
import { makeRepositories } from '../../../../src/main/store/repos'
import { APP_VERSION } from '../../../../src/main/version'
import { INSTANCE, seedDataDir, tempDir } from './helpers'

const open: Storage[] = []
const dirs: string[] = []
afterEach(async () => {
  for (const s of open.splice(0)) await s.close()
  for (const d of dirs.splice(0)) await rm(d, { recursive: true, force: true })
})

function dir(): string {
  const d = tempDir()
  dirs.push(d)
  return d
}

async function entriesOf(archive: string): Promise<string[]> {
  const names: string[] = []
  await listTar({ file: archive, onReadEntry: (e) => void names.push(e.path) })
  return names
}

describe('backup and restore round trip', () => {
  it('restores into another data dir the same records, configuration, credentials and attachments', async () => {
    const a = dir()
    const storage = await seedDataDir(a, 'a')
    open.push(storage)
    const archive = join(dir(), 'backup.tar.gz')
    const manifest = await createBackup(storageSource(storage), archive)

    expect(manifest.app).toEqual({ id: 'chatapp-desk', name: 'Chatapp Desk', version: APP_VERSION })
    expect(manifest.database.version).toBe(SUPPORTED_DATABASE_VERSION)
    expect(manifest.includes_media).toBe(false)
    expect(manifest.files.map((f) => f.path)).toEqual(['config.json', 'chatapp.db', 'attachments/att-a-1', 'attachments/att-a-2'])
    expect(await entriesOf(archive)).toEqual(['manifest.json', 'config.json', 'chatapp.db', 'attachments/att-a-1', 'attachments/att-a-2'])
    // Nothing staged is left in tmp/.
    expect(await readdir(storage.paths.tmp)).toEqual([])

    const b = dir()
    const result = await restoreBackup(b, archive)
    expect(result.manifest).toEqual(manifest)
    const restored = await openStorage(b)
    open.push(restored)
    const r = restored.repos
    expect(r.account.get()).toEqual(storage.repos.account.get())
    expect(r.appSettings.smtp()).toEqual(storage.repos.appSettings.smtp())
    expect(await r.messages.list(INSTANCE, { limit: 100 })).toEqual(await storage.repos.messages.list(INSTANCE, { limit: 100 }))
    expect((await r.messages.list(INSTANCE, { limit: 100 })).length).toBe(50)
    expect(await r.attachments.find('att-a-2')).toEqual(await storage.repos.attachments.find('att-a-2'))
    const creds = await restored.database.db.selectFrom('auth_creds').selectAll().execute()
    expect(creds).toEqual(await storage.database.db.selectFrom('auth_creds').selectAll().execute())
    for (const id of ['att-a-1', 'att-a-2']) {
      expect(await readFile(join(restored.paths.attachments, id))).toEqual(await readFile(join(storage.paths.attachments, id)))
    }
  })

  it('replaces the data of a data dir in use before, keeping the old data in replaced-<time>/ and the backups', async () => {
    const a = dir()
    const sa = await seedDataDir(a, 'a')
    const archive = join(dir(), 'a.tar.gz')
    await createBackup(storageSource(sa), archive)
    await sa.close()

    const b = dir()
    const sb = await seedDataDir(b, 'b')
    await sb.close()
    // Files of a 0.1 data dir not imported yet go aside too (else the next start would import them).
    const { cp } = await import('node:fs/promises')
    await cp(fileURLToPath(new URL('../../../fixtures/legacy-0.1.0/stopped/', import.meta.url)), b, { recursive: true, force: false, errorOnExist: false })
    const { replacedDir } = await restoreBackup(b, archive)

    expect(replacedDir).toMatch(/replaced-\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d\.\d{3}Z$/)
    expect((await readdir(replacedDir)).sort()).toEqual(['attachments', 'chatapp.db', 'chatapp.journal', 'chatapp.json', 'config.json', 'media', 'messages', 'runtime.journal', 'runtime.json', 'sessions', 'webhook-outbox.jsonl'])
    expect((await readdir(b)).sort()).toEqual(['attachments', 'backups', 'chatapp.db', 'config.json', 'media', basename(replacedDir), 'tmp'].sort())
    expect(existsSync(join(b, 'backups'))).toBe(true)
    expect(existsSync(join(b, 'restore-in-progress'))).toBe(false)
    const restored = await openStorage(b)
    open.push(restored)
    expect(restored.repos.account.get()?._id).toBe('acct-a')
    expect(await restored.repos.attachments.find('att-b-1')).toBeUndefined()
    expect(await readdir(restored.paths.attachments)).toEqual(['att-a-1', 'att-a-2'])
    // The old data is whole where it was moved: its configuration and database hold b's records, and
    // the 0.1 files are those copied in. (Opened with openStorage, the dir would import those 0.1
    // files first, as b itself would have at its next start.)
    const oldConfig = await ConfigStore.open(join(replacedDir, 'config.json'))
    const oldDatabase = await openDatabase(join(replacedDir, 'chatapp.db'))
    try {
      const oldRepos = makeRepositories(oldConfig, oldDatabase)
      expect(oldRepos.account.get()?._id).toBe('acct-b')
      expect((await oldRepos.messages.list(INSTANCE, { limit: 1 }))[0]!.text).toMatch(/^b message/)
    } finally {
      await oldConfig.close()
      await oldDatabase.close()
    }
    expect(await readFile(join(replacedDir, 'chatapp.json'))).toEqual(await readFile(fileURLToPath(new URL('../../../fixtures/legacy-0.1.0/stopped/chatapp.json', import.meta.url))))
  })

  it('backs up a data dir from outside the app (read-only, no lock) with media when asked', async () => {
    const a = dir()
    const storage = await seedDataDir(a, 'a')
    open.push(storage)
    const { mkdir, writeFile } = await import('node:fs/promises')
    await mkdir(join(storage.paths.media, INSTANCE), { recursive: true })
    await writeFile(join(storage.paths.media, INSTANCE, 'MSG000001'), 'image bytes')
    const source = await openDataDirSource(a)
    const archive = join(dir(), 'outside.tar.gz')
    try {
      const manifest = await createBackup(source, archive, { includeMedia: true })
      expect(manifest.includes_media).toBe(true)
      expect(manifest.files.map((f) => f.path)).toContain(`media/${INSTANCE}/MSG000001`)
    } finally {
      await source.close()
    }
    const manifest = await verifyBackup(archive, { tmpDir: join(dir(), 'tmp') })
    expect(manifest.files).toHaveLength(5)
    const b = dir()
    await restoreBackup(b, archive)
    expect(await readFile(join(b, 'media', INSTANCE, 'MSG000001'), 'utf8')).toBe('image bytes')
  })

  it('a full disk while writing the archive (ENOSPC from the write seam): a clear error, no file, nothing partial', async () => {
    const storage = await seedDataDir(dir(), 'a')
    open.push(storage)
    const outDir = dir()
    const out = join(outDir, 'backup.tar.gz')
    const written: string[] = []
    // Room for 4 KiB: the first part of the archive is really written, then the disk is full.
    injectBackupWriteFault((file) => (written.push(file), 4096))
    try {
      const err = await createBackup(storageSource(storage), out).catch((e: unknown) => e)
      expect(err).toBeInstanceOf(StorageFullError)
      expect((err as Error).message).toBe(`The disk holding ${out} is full: nothing was saved. Free some space; the app keeps working once there is room.`)
      expect(((err as Error).cause as NodeJS.ErrnoException).code).toBe('ENOSPC')
    } finally {
      injectBackupWriteFault(null)
    }
    // It was written beside the target under a temporary name, and removed.
    expect(written).toHaveLength(1)
    expect(written[0]!.startsWith(join(outDir, '.backup.tar.gz.'))).toBe(true)
    expect(await readdir(outDir)).toEqual([])
    expect(await readdir(storage.paths.tmp)).toEqual([])
    // The next try, with room, works.
    await createBackup(storageSource(storage), out)
    expect(await readdir(outDir)).toEqual(['backup.tar.gz'])
  })

  it('two names of one file in attachments/ (a hard link) go in as two plain files', async () => {
    const storage = await seedDataDir(dir(), 'a')
    open.push(storage)
    const { link } = await import('node:fs/promises')
    await link(join(storage.paths.attachments, 'att-a-1'), join(storage.paths.attachments, 'att-a-1-copy'))
    const archive = join(dir(), 'links.tar.gz')
    const manifest = await createBackup(storageSource(storage), archive)
    expect(manifest.files.map((f) => f.path)).toContain('attachments/att-a-1-copy')
    const b = dir()
    await restoreBackup(b, archive)
    expect(await readFile(join(b, 'attachments', 'att-a-1-copy'), 'utf8')).toBe('first attachment of a')
  })
})
