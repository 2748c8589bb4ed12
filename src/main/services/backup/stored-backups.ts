/**
 * The backups kept in the data dir's backups/ folder: named by the moment they were made
 * (`chatapp-desk-2025-01-31T02-00-00.000Z.tar.gz`, UTC, sortable, valid on every file system), listed
 * newest first, pruned to the newest N. Files with other names (a copy the owner put there) are left
 * alone and never counted.
 */
import { readdir, rm, stat } from 'node:fs/promises'
import { join } from 'node:path'

const NAME = /^chatapp-desk-(\d{4}-\d\d-\d\dT\d\d)-(\d\d)-(\d\d\.\d{3}Z)\.tar\.gz$/

export interface StoredBackup {
  /** File name in backups/. */
  name: string
  /** Bytes. */
  size: number
  /** When it was made (ISO 8601 UTC, from its name). */
  created_at: string
}

/** The file name of a backup made at `ms` (epoch ms). */
export function backupName(ms: number): string {
  return `chatapp-desk-${new Date(ms).toISOString().replace(/:/g, '-')}.tar.gz`
}

/** The moment in a backup's file name (epoch ms), or null for a name that is not one. */
export function backupTime(name: string): number | null {
  const m = NAME.exec(name)
  return m ? Date.parse(`${m[1]}:${m[2]}:${m[3]}`) : null
}

/** The backups in `dir`, newest first (none when the folder does not exist). */
export async function listBackups(dir: string): Promise<StoredBackup[]> {
  let names: string[]
  try {
    names = await readdir(dir)
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return []
    throw err
  }
  const out: StoredBackup[] = []
  for (const name of names) {
    const at = backupTime(name)
    if (at === null) continue
    try {
      out.push({ name, size: (await stat(join(dir, name))).size, created_at: new Date(at).toISOString() })
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err
    }
  }
  return out.sort((a, b) => (a.name < b.name ? 1 : a.name > b.name ? -1 : 0))
}

/** Removes all but the newest `keep` (at least 1) backups of `dir`; answers the names removed. */
export async function pruneBackups(dir: string, keep: number): Promise<string[]> {
  const old = (await listBackups(dir)).slice(Math.max(1, Math.floor(keep)))
  for (const b of old) await rm(join(dir, b.name), { force: true })
  return old.map((b) => b.name)
}
