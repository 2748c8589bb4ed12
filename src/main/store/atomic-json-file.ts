/**
 * A lowdb adapter that reads JSON and writes it atomically and durably.
 *
 * lowdb's own JSONFile (via steno) renames a temp file into place but does not fsync, and its presets
 * swap in memory storage under NODE_ENV=test. This adapter writes with `write-file-atomic` (temp file,
 * fsync, rename), so after a kill -9 the file is either the old or the new version, and a write that
 * resolved is on disk. A file that exists but does not parse raises {@link DataFileError}; the file is
 * left untouched so the owner can inspect or restore it.
 */
import { readFile } from 'node:fs/promises'
import writeFileAtomic from 'write-file-atomic'
import type { Adapter } from 'lowdb'

import { DataFileError } from './journaled-document'

export { DataFileError }

export class AtomicJsonFile<T> implements Adapter<T> {
  constructor(private readonly file: string) {}

  /** The parsed content, or null when the file does not exist. Throws {@link DataFileError}. */
  async read(): Promise<T | null> {
    let text: string
    try {
      text = await readFile(this.file, 'utf8')
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null
      throw new DataFileError(this.file, err)
    }
    try {
      return JSON.parse(text) as T
    } catch (err) {
      throw new DataFileError(this.file, err)
    }
  }

  /** Replaces the file atomically; resolves once the data is fsynced. */
  async write(data: T): Promise<void> {
    await writeFileAtomic(this.file, JSON.stringify(data), { fsync: true, mode: 0o600 })
  }
}
