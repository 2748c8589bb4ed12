/**
 * One process owns a data dir at a time (docs/design.md §2), through proper-lockfile's lock
 * (`<dataDir>/chatapp.lock`, refreshed every second). A lock left by a killed process goes stale after
 * 5 s; a new start waits that long before taking it over, so a restart after kill -9 still works.
 */
import lockfile from 'proper-lockfile'
import { join } from 'node:path'

/** Another live process owns the data dir. */
export class DataDirLockedError extends Error {
  constructor(readonly dataDir: string) {
    super(`Another Chatapp process is already using the data dir ${dataDir}. Stop it first, or set CHATAPP_DATA_DIR to another folder.`)
    this.name = 'DataDirLockedError'
  }
}

/** Locks `dataDir`; resolves to the release function. Throws {@link DataDirLockedError}. */
export async function lockDataDir(dataDir: string, onCompromised: (err: Error) => void): Promise<() => Promise<void>> {
  try {
    return await lockfile.lock(dataDir, {
      lockfilePath: join(dataDir, 'chatapp.lock'),
      stale: 5000,
      update: 1000,
      retries: { retries: 7, factor: 1.4, minTimeout: 400, maxTimeout: 2000 },
      onCompromised
    })
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ELOCKED') throw new DataDirLockedError(dataDir)
    throw err
  }
}

/** Whether a live process holds `dataDir`'s lock now (a stale lock of a killed one does not count). */
export async function dataDirInUse(dataDir: string): Promise<boolean> {
  try {
    return await lockfile.check(dataDir, { lockfilePath: join(dataDir, 'chatapp.lock'), stale: 5000 })
  } catch {
    return false
  }
}
