/**
 * Writing the files of the attachments and media folders, which `CHATAPP_MEDIA_DIR` puts on a mount
 * every worker shares (docs/deploy.md "A shared media folder"), so that a reader on any worker sees a
 * file whole or not at all:
 *
 * - a file is written under a temporary name in its destination's own folder and then renamed: a
 *   rename is atomic only within one file system, and a temporary file in the data dir's tmp/ (another
 *   disk than the mount) cannot be renamed into it at all (EXDEV);
 * - temporary names are random, so two writers of one name (never two workers: ids are unique, but a
 *   message's media may be fetched twice) never share a temporary file; the last rename wins, and a
 *   reader sees one whole version or the other;
 * - files are 0600, as in the data dir (./data-dir-modes.ts).
 */
import { randomBytes } from 'node:crypto'
import { chmod, copyFile, constants, open, rename, rm } from 'node:fs/promises'
import { basename, dirname, join } from 'node:path'
import writeFileAtomic from 'write-file-atomic'
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
 * Writes `data` as `dest` atomically (write-file-atomic: a temporary file beside it, fsync, rename;
 * its writes to one name within this process are queued), 0600. Throws what the write throws.
 */
export async function writeFileInto(dest: string, data: Buffer): Promise<void> {
  await writeFileAtomic(dest, data, { mode: FILE_MODE, fsync: true })
}
