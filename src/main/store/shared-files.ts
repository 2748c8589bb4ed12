/**
 * Writing the files of the attachments and media folders, which `CHATAPP_MEDIA_DIR` puts on a mount
 * every worker shares (docs/deploy.md "A shared media folder"), so that a reader on any worker sees a
 * file whole or not at all:
 *
 * - a file is written under a temporary name in its destination's own folder and then renamed: a
 *   rename is atomic only within one file system, and a temporary file in the data dir's tmp/ (another
 *   disk than the mount) cannot be renamed into it at all (EXDEV); a crash may leave a temporary file,
 *   which the next start removes once it is an hour old ({@link removeStaleParts});
 * - temporary names are random, so two writers of one name (never two workers: ids are unique, but a
 *   message's media may be fetched twice) never share a temporary file; the last rename wins, and a
 *   reader sees one whole version or the other;
 * - files are 0600, as in the data dir (./data-dir-modes.ts).
 */
import { randomBytes } from 'node:crypto'
import type { Dirent } from 'node:fs'
import { chmod, copyFile, constants, open, readdir, rename, rm, stat } from 'node:fs/promises'
import { basename, dirname, join } from 'node:path'
import { FILE_MODE, syncDir } from './config/durable-json-file'

/** The file-system calls {@link moveFileInto} makes that a test may replace (an EXDEV needs two file systems, and root to mount one). */
export interface MoveOps {
  rename(from: string, to: string): Promise<void>
}

const realOps: MoveOps = { rename }

/** The temporary name of a file being written as `dest`: hidden, beside it, random (`.<name>.part-<hex>`). */
export function partName(dest: string): string {
  return join(dirname(dest), `.${basename(dest)}.part-${randomBytes(6).toString('hex')}`)
}

/**
 * Moves the finished file `src` to `dest`. On one file system this is a rename (atomic). Across file
 * systems (EXDEV: the data dir's tmp/ and a shared `CHATAPP_MEDIA_DIR`) the bytes are copied to a
 * temporary name beside `dest`, fsynced, renamed to `dest`, the folder fsynced, and `src` removed.
 * Throws what the copy or the rename throws (ENOSPC, EACCES…): then `src` is kept, no temporary file
 * is left, and `dest` is as it was.
 */
export async function moveFileInto(src: string, dest: string, ops: MoveOps = realOps): Promise<void> {
  try {
    await ops.rename(src, dest)
    return
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EXDEV') throw err
  }
  const part = partName(dest)
  try {
    await copyFile(src, part, constants.COPYFILE_EXCL)
    await chmod(part, FILE_MODE)
    const fh = await open(part, 'r+')
    try {
      await fh.sync()
    } finally {
      await fh.close()
    }
    await ops.rename(part, dest)
  } catch (err) {
    await rm(part, { force: true })
    throw err
  }
  await syncDir(dirname(dest))
  await rm(src, { force: true })
}

/**
 * Writes `data` as `dest` atomically: a temporary file beside it ({@link partName}, created
 * exclusively, 0600), fsynced, then renamed over `dest`. Throws what the write throws (ENOSPC…), with
 * no temporary file left and `dest` as it was. Not write-file-atomic (which the configuration file
 * uses): its temporary name is derived from the process id and a counter, and workers in containers
 * are all pid 1, so two of them writing one name on a shared mount could write one temporary file.
 */
export async function writeFileInto(dest: string, data: Buffer): Promise<void> {
  const part = partName(dest)
  try {
    const fh = await open(part, 'wx', FILE_MODE)
    try {
      await fh.writeFile(data)
      await fh.sync()
    } finally {
      await fh.close()
    }
    await rename(part, dest)
  } catch (err) {
    await rm(part, { force: true })
    throw err
  }
}

/** A temporary name of {@link partName}. */
const PART = /^\..+\.part-[0-9a-f]{12}$/

/**
 * Removes the temporary files a crash left in `dir` and in its subfolders one level down (the layout
 * of attachments/ and media/<instance>/) when older than `olderThanMs` (another worker may be writing
 * a younger one right now). Answers how many it removed. A folder that does not exist counts none.
 */
export async function removeStaleParts(dir: string, now: number, olderThanMs = 60 * 60 * 1000): Promise<number> {
  let removed = 0
  const visit = async (folder: string, depth: number): Promise<void> => {
    let entries: Dirent[]
    try {
      entries = await readdir(folder, { withFileTypes: true })
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return
      throw err
    }
    for (const e of entries) {
      const path = join(folder, e.name)
      if (e.isDirectory() && depth > 0) await visit(path, depth - 1)
      else if (e.isFile() && PART.test(e.name)) {
        const st = await stat(path).catch(() => null)
        if (st && now - st.mtimeMs > olderThanMs) {
          await rm(path, { force: true })
          removed++
        }
      }
    }
  }
  await visit(dir, 1)
  return removed
}
