/** Reading the files of a 0.1 data dir: read-only, every failure named by its file. */
import { readFile } from 'node:fs/promises'
import { DataFileError } from '../config/durable-json-file'

/**
 * The text of `file`, or null when it does not exist. Any other failure (no permission, a folder in
 * its place, an I/O error) is a {@link DataFileError} naming the file, as 0.1 reported it.
 */
export async function readTextIfExists(file: string): Promise<string | null> {
  try {
    return await readFile(file, 'utf8')
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null
    throw new DataFileError(file, err)
  }
}
