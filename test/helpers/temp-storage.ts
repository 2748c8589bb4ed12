/**
 * A real data dir in a temp folder, opened with the app's storage (config.json + chatapp.db), for the
 * data layer's tests. `reopen()` closes and opens it again (a restart). With `backend: 'postgres'`
 * the database is a fresh one on the run's real PostgreSQL server (./postgres.ts) instead of the
 * SQLite file; it is dropped by `close()`.
 */
import { mkdtemp, rm } from 'node:fs/promises'
import { afterEach, beforeEach } from 'vitest'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { openStorage, type Storage } from '../../src/main/store/storage'
import { createMigratedTestDatabase, dropTestDatabase, type Backend } from './postgres'

export interface TempStorage {
  dir: string
  /** The PostgreSQL database's URL (backend `postgres`), else undefined. */
  databaseUrl: string | undefined
  storage: Storage
  reopen(): Promise<Storage>
  close(): Promise<void>
}

export async function tempStorage(backend: Backend = 'sqlite'): Promise<TempStorage> {
  const databaseUrl = backend === 'postgres' ? await createMigratedTestDatabase() : undefined
  const dir = await mkdtemp(join(tmpdir(), 'chatapp-store-'))
  const open = () => openStorage(dir, databaseUrl ? { databaseUrl } : {})
  const t: TempStorage = {
    dir,
    databaseUrl,
    storage: await open(),
    async reopen() {
      await t.storage.close()
      t.storage = await open()
      return t.storage
    },
    async close() {
      await t.storage.close()
      await rm(dir, { recursive: true, force: true })
      if (databaseUrl) await dropTestDatabase(databaseUrl)
    }
  }
  return t
}

/**
 * A fresh {@link tempStorage} on `backend` for each test of the calling describe block, handed to
 * `use` before the test and closed after it (the set-up the data layer's tests on both databases share).
 */
export function tempStorageEach(backend: Backend, use: (t: TempStorage) => void): void {
  let t: TempStorage | undefined
  beforeEach(async () => {
    t = await tempStorage(backend)
    use(t)
  })
  afterEach(async () => {
    await t?.close()
    t = undefined
  })
}
