/**
 * A bad archive is refused with a clear message and changes nothing: truncated, tampered (one byte of
 * the database flipped inside; one byte of the compressed stream flipped), foreign (a random .tar.gz,
 * a ZIP, a text file, another app's manifest), newer, and entries that would escape the extraction
 * folder (`..`, absolute paths, links). Each case runs a real restore against a real data dir and
 * compares the checksums of its files before and after.
 */
import { createHash, randomBytes } from 'node:crypto'
import { existsSync } from 'node:fs'
import { mkdir, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { gunzipSync, gzipSync } from 'node:zlib'
import { create as createTar, extract as extractTar } from 'tar'
import yazl from 'yazl'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { BackupArchiveError, createBackup, restoreBackup, storageSource, verifyBackup, type BackupErrorCode } from '../../../../src/main/store/backup'
import { checksums, seedDataDir, tempDir } from './helpers'
import { MIGRATIONS } from '../../../../src/main/store/db/migrations'

/** The database version of this release. */
const VERSION = Object.keys(MIGRATIONS).length

let work: string
let dataDir: string
let good: string
let before: Record<string, string>

beforeAll(async () => {
  work = tempDir()
  dataDir = join(work, 'data')
  const storage = await seedDataDir(dataDir, 'a')
  good = join(work, 'good.tar.gz')
  await createBackup(storageSource(storage), good)
  await storage.close()
  before = await checksums(dataDir)
})
afterAll(() => rm(work, { recursive: true, force: true }))

/** Unpacks `archive`, lets `change` edit the files, and packs `entries` again (manifest first). */
async function repack(name: string, change: (dir: string) => Promise<void>, entries?: string[]): Promise<string> {
  const dir = join(work, `${name}-files`)
  await mkdir(dir, { recursive: true })
  await extractTar({ file: good, cwd: dir })
  await change(dir)
  const list = entries ?? ['manifest.json', 'config.json', 'chatapp.db', 'attachments/att-a-1', 'attachments/att-a-2']
  const out = join(work, `${name}.tar.gz`)
  // Packed synchronously, then gzipped apart: tar 7.5's asynchronous pack fails late ("write after
  // end") on an archive with a hard link.
  const tarFile = join(work, `${name}.tar`)
  createTar({ file: tarFile, cwd: dir, preservePaths: true, portable: true, sync: true }, list)
  await writeFile(out, gzipSync(await readFile(tarFile)))
  return out
}

/** Rewrites the manifest's size and checksum of `path` to match the file as it now is (a forger's edit). */
async function reseal(dir: string, path: string): Promise<void> {
  const bytes = await readFile(join(dir, path))
  await editManifest(dir, (m) => {
    const f = m.files.find((x: { path: string }) => x.path === path)
    f.size = bytes.length
    f.sha256 = createHash('sha256').update(bytes).digest('hex')
  })
}

async function editManifest(dir: string, edit: (m: any) => void): Promise<void> {
  const m = JSON.parse(await readFile(join(dir, 'manifest.json'), 'utf8'))
  edit(m)
  await writeFile(join(dir, 'manifest.json'), JSON.stringify(m))
}

/** Restores `archive` into the data dir; expects the refusal `code` and a message matching `message`, and no change. */
async function expectRefused(archive: string, code: BackupErrorCode, message: RegExp): Promise<void> {
  const err = await restoreBackup(dataDir, archive).then(
    () => null,
    (e: unknown) => e
  )
  expect(err).toBeInstanceOf(BackupArchiveError)
  expect((err as BackupArchiveError).code).toBe(code)
  expect((err as Error).message).toMatch(message)
  expect((err as Error).message).toMatch(/Nothing was changed\.$/)
  expect(await checksums(dataDir)).toEqual(before)
  expect(await readdir(join(dataDir, 'tmp'))).toEqual([])
  expect((await readdir(dataDir)).filter((n) => n.startsWith('replaced-') || n.startsWith('restore-'))).toEqual([])
}

describe('refused archives change nothing', () => {
  it('the good archive itself verifies (the cases below differ from it only by their fault)', async () => {
    expect((await verifyBackup(good, { tmpDir: join(work, 'verify-tmp') })).files).toHaveLength(4)
  })

  it('truncated: cut in the middle, or after a few bytes', async () => {
    const bytes = await readFile(good)
    for (const [name, length] of [
      ['half', Math.floor(bytes.length / 2)],
      ['most', bytes.length - 20],
      ['head', 5]
    ] as const) {
      const file = join(work, `truncated-${name}.tar.gz`)
      await writeFile(file, bytes.subarray(0, length))
      await expectRefused(file, 'BACKUP_TRUNCATED', /cut short/)
    }
  })

  it('tampered: one byte of the database flipped inside, the manifest left as it was', async () => {
    const file = await repack('flipped-db', async (dir) => {
      const db = await readFile(join(dir, 'chatapp.db'))
      db[Math.floor(db.length / 2)]! ^= 0x01
      await writeFile(join(dir, 'chatapp.db'), db)
    })
    await expectRefused(file, 'BACKUP_TAMPERED', /chatapp\.db does not match its checksum/)
  })

  it('tampered: one byte of the compressed archive flipped', async () => {
    // Not every flipped bit damages a deflate stream: one in a block header's code for a symbol the
    // block never uses leaves the same bytes, an archive as sound as before. The case is a flip that
    // changes what the archive holds (zlib itself says so), at the first of these places that does.
    const original = await readFile(good)
    const bytes = [0.6, 0.5, 0.7, 0.4, 0.3, 0.8]
      .map((at) => {
        const b = Buffer.from(original)
        b[Math.floor(b.length * at)]! ^= 0x10
        return b
      })
      .find((b) => {
        try {
          gunzipSync(b)
          return false
        } catch {
          return true
        }
      })
    expect(bytes).toBeInstanceOf(Buffer)
    const file = join(work, 'flipped-gzip.tar.gz')
    await writeFile(file, bytes!)
    await expectRefused(file, 'BACKUP_TAMPERED', /damaged|altered/)
  })

  it('tampered: a file the manifest does not list, or one it lists missing', async () => {
    const extra = await repack('extra', (dir) => writeFile(join(dir, 'attachments', 'intruder'), 'x'), ['manifest.json', 'config.json', 'chatapp.db', 'attachments/att-a-1', 'attachments/att-a-2', 'attachments/intruder'])
    await expectRefused(extra, 'BACKUP_TAMPERED', /attachments\/intruder.*does not list/)
    const missing = await repack('missing', async () => {}, ['manifest.json', 'config.json', 'chatapp.db', 'attachments/att-a-1'])
    await expectRefused(missing, 'BACKUP_TRUNCATED', /incomplete.*attachments\/att-a-2/)
  })

  it('foreign: a random .tar.gz, a ZIP, a text file, an empty file, another app\'s manifest', async () => {
    const other = join(work, 'other')
    await mkdir(other, { recursive: true })
    await writeFile(join(other, 'notes.txt'), 'hello')
    await writeFile(join(other, 'photo.jpg'), randomBytes(5000))
    const randomTgz = join(work, 'random.tar.gz')
    await createTar({ file: randomTgz, gzip: true, cwd: other }, ['notes.txt', 'photo.jpg'])
    await expectRefused(randomTgz, 'BACKUP_FOREIGN', /not a Chatapp Desk backup: it starts with "notes\.txt"/)

    const zip = new yazl.ZipFile()
    zip.addBuffer(Buffer.from('{"app":{"id":"chatapp-desk"}}'), 'manifest.json')
    zip.end()
    const chunks: Buffer[] = []
    for await (const c of zip.outputStream) chunks.push(c as Buffer)
    const zipFile = join(work, 'backup.zip')
    await writeFile(zipFile, Buffer.concat(chunks))
    await expectRefused(zipFile, 'BACKUP_NOT_AN_ARCHIVE', /ZIP file/)

    const text = join(work, 'backup.txt')
    await writeFile(text, 'this is my backup, honest\n'.repeat(50))
    await expectRefused(text, 'BACKUP_NOT_AN_ARCHIVE', /text file/)

    const empty = join(work, 'empty.tar.gz')
    await writeFile(empty, '')
    await expectRefused(empty, 'BACKUP_NOT_AN_ARCHIVE', /empty/)

    const gzText = join(work, 'gz-text.tar.gz')
    await writeFile(gzText, gzipSync(Buffer.from('not a tar at all\n'.repeat(100))))
    await expectRefused(gzText, 'BACKUP_FOREIGN', /not a Chatapp Desk backup/)

    const otherApp = await repack('other-app', (dir) => editManifest(dir, (m) => (m.app.id = 'someone-elses-app')))
    await expectRefused(otherApp, 'BACKUP_FOREIGN', /names the app "someone-elses-app"/)
  })

  it('newer: a database version or an archive format this release does not know', async () => {
    const newerDb = await repack('newer-db', (dir) => editManifest(dir, (m) => ((m.database.version = 99), (m.app.version = '9.0.0'))))
    await expectRefused(newerDb, 'BACKUP_NEWER', new RegExp(`made by Chatapp Desk 9\\.0\\.0\\) holds a database of version 99; this release opens versions up to ${VERSION}`))
    const newerFormat = await repack('newer-format', (dir) => editManifest(dir, (m) => (m.format = 2)))
    await expectRefused(newerFormat, 'BACKUP_NEWER', /archive format 2/)
  })

  it('unsafe entries: ../, an absolute path, a symbolic link, a hard link — nothing written outside', async () => {
    const outside = join(work, 'escaped')
    const dotdot = await repack('dotdot', (dir) => writeFile(join(dir, '..', 'escaped'), 'x'), ['manifest.json', '../escaped'])
    await expectRefused(dotdot, 'BACKUP_UNSAFE_ENTRY', /"\.\.\/escaped", which climbs out/)

    const abs = await repack('absolute', async () => {}, ['manifest.json', join(work, 'good.tar.gz')])
    await expectRefused(abs, 'BACKUP_UNSAFE_ENTRY', /is an absolute path/)

    const sym = await repack('symlink', (dir) => symlink('/etc/passwd', join(dir, 'attachments', 'link')), ['manifest.json', 'attachments/link'])
    await expectRefused(sym, 'BACKUP_UNSAFE_ENTRY', /"attachments\/link" as a SymbolicLink/)

    // The manifest itself naming a path that climbs out.
    const listed = await repack('listed-dotdot', (dir) => editManifest(dir, (m) => m.files.push({ path: 'attachments/../../x', size: 1, sha256: '0'.repeat(64) })))
    await expectRefused(listed, 'BACKUP_UNSAFE_ENTRY', /lists the file "attachments\/\.\.\/\.\.\/x", which climbs out/)

    const hard = await repack(
      'hardlink',
      async (dir) => {
        const { link } = await import('node:fs/promises')
        await link(join(dir, 'chatapp.db'), join(dir, 'attachments', 'same'))
      },
      ['manifest.json', 'config.json', 'chatapp.db', 'attachments/same']
    )
    await expectRefused(hard, 'BACKUP_UNSAFE_ENTRY', /"attachments\/same" as a Link/)
    expect(existsSync(outside)).toBe(true) // written by the test's repack, beside the files…
    expect(await readFile(outside, 'utf8')).toBe('x') // …and never overwritten by a restore
  })

  it('invalid contents behind matching checksums: a configuration that fails its check, a damaged database page', async () => {
    const badConfig = await repack('bad-config', async (dir) => {
      const config = JSON.parse(await readFile(join(dir, 'config.json'), 'utf8'))
      config.instances = 'none'
      await writeFile(join(dir, 'config.json'), JSON.stringify(config))
      await reseal(dir, 'config.json')
    })
    await expectRefused(badConfig, 'BACKUP_INVALID', /configuration cannot be used: instances must be a list/)

    const badPage = await repack('bad-page', async (dir) => {
      const db = await readFile(join(dir, 'chatapp.db'))
      // A b-tree page of the second 4 KiB page on: its header scrambled.
      db.fill(0xff, 4096 + 8, 4096 + 64)
      await writeFile(join(dir, 'chatapp.db'), db)
      await reseal(dir, 'chatapp.db')
    })
    await expectRefused(badPage, 'BACKUP_INVALID', /database (is damaged|cannot be read)/)

    const lies = await repack('version-lie', (dir) => editManifest(dir, (m) => (m.database.version = 0)))
    await expectRefused(lies, 'BACKUP_TAMPERED', new RegExp(`database has ${VERSION} migrations applied; its manifest says 0`))
  })

  it('verifyBackup reads a stream too (a request body) and says the same', async () => {
    const { createReadStream } = await import('node:fs')
    await expect(verifyBackup(createReadStream(good), { tmpDir: join(work, 'verify-tmp') })).resolves.toMatchObject({ app: { id: 'chatapp-desk' } })
    const text = join(work, 'stream.txt')
    await writeFile(text, 'plain words')
    await expect(verifyBackup(createReadStream(text), { tmpDir: join(work, 'verify-tmp') })).rejects.toMatchObject({ code: 'BACKUP_NOT_AN_ARCHIVE' })
    expect(await readdir(join(work, 'verify-tmp'))).toEqual([])
  })
})
