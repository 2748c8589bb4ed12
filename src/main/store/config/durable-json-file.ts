/**
 * A lowdb adapter for the configuration document: human-readable JSON (2-space indent), replaced
 * atomically by write-file-atomic (temp file, fsync, rename) and then made durable by an fsync of
 * the directory, without which a power cut may lose the rename itself (write-file-atomic stops at
 * it). Created 0600: the document holds the API token and the instances' secrets.
 *
 * Reading: a missing file is null (lowdb then uses the defaults); a file that does not parse is a
 * {@link DataFileError} naming it, and is never overwritten.
 *
 * Test seam: {@link injectConfigWriteFault} makes the next writes fail as a full disk does (ENOSPC)
 * before anything is written.
 */
import { open, readFile, type FileHandle } from 'node:fs/promises'
import { dirname } from 'node:path'
import writeFileAtomic from 'write-file-atomic'
import type { Adapter } from 'lowdb'

/** Mode of every data file: the owner reads and writes, nobody else. */
export const FILE_MODE = 0o600
/** Mode of the data dir and its folders. */
export const DIR_MODE = 0o700

/** A data file exists but cannot be read or parsed: the start stops, the file is left as it is. */
export class DataFileError extends Error {
  constructor(
    readonly file: string,
    cause: unknown
  ) {
    super(`The data file ${file} is unreadable (${cause instanceof Error ? cause.message : String(cause)}). It was left untouched; restore a backup or fix the file.`, { cause })
    this.name = 'DataFileError'
  }
}

let writeFault: ((file: string) => Error | null) | null = null

/** Test seam: `fault(file)` answers the error the next write of `file` fails with (null: none). */
export function injectConfigWriteFault(fault: ((file: string) => Error | null) | null): void {
  writeFault = fault
}

/** An ENOSPC error as the OS raises it. */
export function enospc(file: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`ENOSPC: no space left on device, write '${file}'`), { code: 'ENOSPC', errno: -28, syscall: 'write', path: file })
}

/** fsyncs a directory so a rename in it is on disk (Windows cannot open a directory: skipped there). */
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

export class DurableJsonFile<T> implements Adapter<T> {
  constructor(
    readonly file: string,
    /** Checks what was read; throws with a message naming the bad part. */
    private readonly check: (data: unknown) => T = (d) => d as T
  ) {}

  async read(): Promise<T | null> {
    let text: string
    try {
      text = await readFile(this.file, 'utf8')
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null
      throw new DataFileError(this.file, err)
    }
    try {
      return this.check(JSON.parse(text))
    } catch (err) {
      throw new DataFileError(this.file, err)
    }
  }

  async write(data: T): Promise<void> {
    const fault = writeFault?.(this.file)
    if (fault) throw fault
    await writeFileAtomic(this.file, JSON.stringify(data, null, 2) + '\n', { mode: FILE_MODE, fsync: true })
    await syncDir(dirname(this.file))
  }
}
