/**
 * Files written so that an answered write survives a crash or a power cut, readable by the owner only.
 *
 * - {@link writeFileDurably}: temp file (0600), every byte written, fsync, rename over the target,
 *   fsync of the directory — without the last step the rename itself can be lost to a power cut
 *   (write-file-atomic stops at the rename).
 * - {@link appendDurably}: appends to an open file handle until every byte is written (a short write is
 *   continued, not taken for success), durably (O_DSYNC handles from {@link openForAppend}, else
 *   fdatasync); on failure the file is cut back to its previous
 *   length, so a half-written line never stays behind.
 *
 * Faults can be injected for tests ({@link FileFaults}): ENOSPC or a short write at the next write.
 */
import { constants } from 'node:fs'
import { open, readFile, rename, unlink, type FileHandle } from 'node:fs/promises'
import { dirname, basename, join } from 'node:path'
import { randomBytes } from 'node:crypto'

/** Mode of every data file: the owner reads and writes, nobody else. */
export const FILE_MODE = 0o600
/** Mode of the data dir and its folders. */
export const DIR_MODE = 0o700

/** Test seam: makes the next writes fail as a full disk would. */
export interface FileFaults {
  /** Called before each write of `bytes`; answers how many bytes the OS takes (fewer = a short write) or throws (ENOSPC). */
  beforeWrite?(file: string, bytes: number): number
}

let faults: FileFaults | null = null

/** Installs fault injection for tests (null removes it). */
export function injectFileFaults(f: FileFaults | null): void {
  faults = f
}

/** An ENOSPC error as the OS raises it. */
export function enospc(file: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`ENOSPC: no space left on device, write '${file}'`), { code: 'ENOSPC', errno: -28, syscall: 'write', path: file })
}

/** Writes all of `data` at the handle's position (appending files: at the end), continuing short writes. */
async function writeAll(fh: FileHandle, file: string, data: Buffer): Promise<void> {
  let offset = 0
  while (offset < data.length) {
    let length = data.length - offset
    if (faults?.beforeWrite) length = Math.min(length, faults.beforeWrite(file, length))
    if (length <= 0) throw enospc(file)
    const { bytesWritten } = await fh.write(data, offset, length)
    if (bytesWritten <= 0) throw enospc(file)
    offset += bytesWritten
  }
}

/** The text of `file`, or null when it does not exist; other errors are thrown as they come. */
export async function readFileIfExists(file: string): Promise<string | null> {
  try {
    return await readFile(file, 'utf8')
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null
    throw err
  }
}

/** fsyncs a directory so a rename or a new file in it is on disk (not supported on Windows: skipped). */
export async function syncDir(dir: string): Promise<void> {
  let fh: FileHandle | undefined
  try {
    fh = await open(dir, 'r')
    await fh.sync()
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code
    if (code !== 'EISDIR' && code !== 'EPERM' && code !== 'EINVAL') throw err
  } finally {
    await fh?.close()
  }
}

/** Replaces `file` with `data` atomically and durably (see the module doc). Throws on any failure; the old file stays. */
export async function writeFileDurably(file: string, data: string | Buffer): Promise<void> {
  const tmp = join(dirname(file), `.${basename(file)}.${randomBytes(6).toString('hex')}.tmp`)
  const fh = await open(tmp, 'w', FILE_MODE)
  try {
    await writeAll(fh, tmp, Buffer.isBuffer(data) ? data : Buffer.from(data))
    await fh.sync()
  } catch (err) {
    await fh.close().catch(() => {})
    await unlink(tmp).catch(() => {})
    throw err
  }
  await fh.close()
  try {
    await rename(tmp, file)
  } catch (err) {
    await unlink(tmp).catch(() => {})
    throw err
  }
  await syncDir(dirname(file))
}

/** Handles opened by {@link openForAppend} with O_DSYNC: each write returns once its data is on disk. */
const dsyncHandles = new WeakSet<FileHandle>()

/**
 * Opens `file` (created 0600) for {@link appendDurably}. Where the OS has O_DSYNC (Linux, macOS) the
 * handle is opened with it, so a write returns only once its data is on the disk: one thread-pool
 * round trip per append instead of two (write, then fdatasync). Under load the second round trip
 * also waited for a busy event loop: it doubled the group commit's cycle (1.3 ms for a batch of 8 on
 * the 2-core VM), and that cycle bounds how many sends a second one instance can log. Elsewhere a
 * plain append handle; appendDurably then fdatasyncs.
 */
export async function openForAppend(file: string): Promise<FileHandle> {
  const { O_WRONLY, O_APPEND, O_CREAT, O_DSYNC } = constants
  if (O_DSYNC === undefined) return open(file, 'a', FILE_MODE)
  const fh = await open(file, O_WRONLY | O_APPEND | O_CREAT | O_DSYNC, FILE_MODE)
  dsyncHandles.add(fh)
  return fh
}

/**
 * Appends `data` to the open `fh` (of `file`, whose length is `size`) and fdatasyncs (unless `fh` came
 * from {@link openForAppend} with O_DSYNC, where every write is synchronous already). Answers the new
 * length. On failure the file is truncated back to `size` and the error rethrown: the append either
 * lands whole or not at all.
 */
export async function appendDurably(fh: FileHandle, file: string, size: number, data: Buffer): Promise<number> {
  try {
    await writeAll(fh, file, data)
    if (!dsyncHandles.has(fh)) await fh.datasync()
    return size + data.length
  } catch (err) {
    await fh.truncate(size).catch(() => {})
    throw err
  }
}
