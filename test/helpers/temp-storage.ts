/**
 * A real data dir in a temp folder, opened with the app's storage (config.json + chatapp.db), for the
 * data layer's tests. `reopen()` closes and opens it again (a restart).
 */
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { openStorage, type Storage } from '../../src/main/store/storage'

export interface TempStorage {
  dir: string
  storage: Storage
  reopen(): Promise<Storage>
  close(): Promise<void>
}

export async function tempStorage(): Promise<TempStorage> {
  const dir = await mkdtemp(join(tmpdir(), 'chatapp-store-'))
  const t: TempStorage = {
    dir,
    storage: await openStorage(dir),
    async reopen() {
      await t.storage.close()
      t.storage = await openStorage(dir)
      return t.storage
    },
    async close() {
      await t.storage.close()
      await rm(dir, { recursive: true, force: true })
    }
  }
  return t
}
