/**
 * Writing into the attachments and media folders (src/main/store/shared-files.ts), which may be on a
 * mount shared by every worker (`CHATAPP_MEDIA_DIR`): a move across file systems (EXDEV: the data
 * dir's tmp/ on one disk, the mount on another) copies beside the destination and renames there; a
 * failed copy leaves nothing behind; concurrent writers of one name leave one whole file. A second
 * file system needs root to mount, so the EXDEV is injected: a rename that refuses to cross folders,
 * as the kernel refuses to cross file systems.
 */
import { mkdir, mkdtemp, readdir, readFile, rename, rm, stat, utimes, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { afterEach, beforeEach, expect, it } from 'vitest'
import { moveFileInto, partName, removeStaleParts, writeFileInto, type MoveOps } from '../../../src/main/store/shared-files'

let root: string
let src: string
let dest: string
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'chatapp-shared-files-'))
  await mkdir(join(root, 'tmp'))
  await mkdir(join(root, 'shared'))
  src = join(root, 'tmp', 'upload')
  dest = join(root, 'shared', 'a1b2c3')
})
afterEach(async () => {
  await rm(root, { recursive: true, force: true })
})

/** A rename that fails with EXDEV between two folders (two "file systems"), and renames within one; records its calls. */
function crossDevice(): MoveOps & { calls: Array<[string, string]> } {
  const calls: Array<[string, string]> = []
  return {
    calls,
    async rename(from, to) {
      calls.push([from, to])
      if (dirname(from) !== dirname(to)) throw Object.assign(new Error(`EXDEV: cross-device link not permitted, rename '${from}' -> '${to}'`), { code: 'EXDEV' })
      await rename(from, to)
    }
  }
}

it('moves by a rename on one file system', async () => {
  await writeFile(src, 'bytes', { mode: 0o600 })
  const ops = { calls: 0, rename: async (a: string, b: string) => { ops.calls++; await rename(a, b) } }
  await moveFileInto(src, dest, ops)
  expect(ops.calls).toBe(1)
  expect(await readFile(dest, 'utf8')).toBe('bytes')
  await expect(stat(src)).rejects.toMatchObject({ code: 'ENOENT' })
})

it('across file systems (EXDEV): copies beside the destination, 0600, renames it in there, and removes the source', async () => {
  await writeFile(src, 'the upload', { mode: 0o644 })
  const ops = crossDevice()
  await moveFileInto(src, dest, ops)
  expect(await readFile(dest, 'utf8')).toBe('the upload')
  expect((await stat(dest)).mode & 0o777).toBe(0o600)
  await expect(stat(src)).rejects.toMatchObject({ code: 'ENOENT' })
  // The first rename crossed and was refused; the second stayed inside the destination's folder.
  expect(ops.calls).toHaveLength(2)
  expect(dirname(ops.calls[1]![0])).toBe(join(root, 'shared'))
  expect(ops.calls[1]![0]).toMatch(/\/\.a1b2c3\.part-[0-9a-f]{12}$/)
  expect(await readdir(join(root, 'shared'))).toEqual(['a1b2c3'])
})

it('a copy that fails leaves the source, no temporary file and no destination', async () => {
  await writeFile(src, 'the upload')
  const ops = crossDevice()
  const failing: MoveOps = {
    async rename(from, to) {
      if (ops.calls.length === 1) throw Object.assign(new Error('ENOSPC: no space left on device'), { code: 'ENOSPC' })
      await ops.rename(from, to)
    }
  }
  await expect(moveFileInto(src, dest, failing)).rejects.toMatchObject({ code: 'ENOSPC' })
  expect(await readFile(src, 'utf8')).toBe('the upload')
  expect(await readdir(join(root, 'shared'))).toEqual([])
})

it('another error than EXDEV is thrown as it is (and a missing source across file systems too), nothing left', async () => {
  await expect(moveFileInto(join(root, 'tmp', 'missing'), dest)).rejects.toMatchObject({ code: 'ENOENT' })
  await expect(moveFileInto(join(root, 'tmp', 'missing'), dest, crossDevice())).rejects.toMatchObject({ code: 'ENOENT' })
  expect(await readdir(join(root, 'shared'))).toEqual([])
})

it('concurrent writers of one name leave one whole version, 0600, and no temporary file', async () => {
  const versions = Array.from({ length: 8 }, (_, i) => Buffer.alloc(256 * 1024, i + 1))
  await Promise.all(versions.map((v) => writeFileInto(dest, v)))
  const got = await readFile(dest)
  expect(versions.some((v) => v.equals(got))).toBe(true)
  expect((await stat(dest)).mode & 0o777).toBe(0o600)
  expect(await readdir(join(root, 'shared'))).toEqual(['a1b2c3'])
})

it('concurrent moves to one name (two workers) leave one whole version and no temporary file', async () => {
  const sources = await Promise.all(
    Array.from({ length: 6 }, async (_, i) => {
      const p = join(root, 'tmp', `up-${i}`)
      await writeFile(p, Buffer.alloc(512 * 1024, i + 1))
      return p
    })
  )
  await Promise.all(sources.map((s) => moveFileInto(s, dest, crossDevice())))
  const got = await readFile(dest)
  expect(got.length).toBe(512 * 1024)
  expect(got.every((b) => b === got[0])).toBe(true)
  expect(await readdir(join(root, 'shared'))).toEqual(['a1b2c3'])
  expect(await readdir(join(root, 'tmp'))).toEqual([])
})

it('a write that fails leaves no temporary file and the previous version in place', async () => {
  await writeFileInto(dest, Buffer.from('v1'))
  // A folder where the file should be: the rename over it fails (EISDIR), after the bytes were written.
  const blocked = join(root, 'shared', 'blocked')
  await mkdir(blocked)
  await expect(writeFileInto(blocked, Buffer.from('v2'))).rejects.toMatchObject({ code: expect.stringMatching(/^(EISDIR|ENOTEMPTY|EEXIST)$/) })
  expect(await readFile(dest, 'utf8')).toBe('v1')
  expect((await readdir(join(root, 'shared'))).sort()).toEqual(['a1b2c3', 'blocked'])
})

it('at start, removes temporary files a crash left once an hour old, in the folder and one level down; nothing else', async () => {
  const media = join(root, 'shared', 'inst1')
  await mkdir(media)
  const old = [partName(dest), partName(join(media, '3EB0ABC'))]
  const young = partName(join(media, '3EB0DEF'))
  for (const p of [...old, young, join(media, '3EB0ABC'), dest]) await writeFile(p, 'x')
  const hourAgo = (Date.now() - 2 * 3_600_000) / 1000
  for (const p of [...old, join(media, '3EB0ABC'), dest]) await utimes(p, hourAgo, hourAgo)
  expect(await removeStaleParts(join(root, 'shared'), Date.now())).toBe(2)
  expect(await readdir(join(root, 'shared'))).toEqual(['a1b2c3', 'inst1'])
  expect((await readdir(media)).sort()).toEqual([young.split('/').pop(), '3EB0ABC'].sort())
  expect(await removeStaleParts(join(root, 'nowhere'), Date.now())).toBe(0)
})
