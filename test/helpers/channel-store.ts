/**
 * The channel's stores on a real SQLite file in a temp dir, as the core hands them to sessions
 * (`ChannelContext.store`), without the rest of the core: the database, its repositories for
 * credentials and kept messages, and a close that also removes the dir.
 */
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { ChannelStore } from '../../src/main/channel/types'
import { openDatabase, type DatabaseHandle } from '../../src/main/store/db/database'
import { ChannelAuthRepo } from '../../src/main/store/repos/channel-auth-repo'
import type { Exec } from '../../src/main/store/repos/exec'
import { WaMessageRepo } from '../../src/main/store/repos/wa-message-repo'

export interface TestChannelStore {
  dir: string
  database: DatabaseHandle
  store: ChannelStore
  /** Closes the database (waiting for its writes) and removes the dir. */
  close(): Promise<void>
}

/** The repositories' door to `database`, as makeRepositories builds it. */
export function execOf(database: DatabaseHandle): Exec {
  return { db: database.db, write: (work) => database.write((trx) => work(trx)) }
}

/** Opens `chatapp.db` in `dir` (a new temp dir when absent). */
export async function openTestChannelStore(dir?: string): Promise<TestChannelStore> {
  const root = dir ?? (await mkdtemp(join(tmpdir(), 'chatapp-chstore-')))
  const database = await openDatabase(join(root, 'chatapp.db'))
  const x = execOf(database)
  return {
    dir: root,
    database,
    store: { auth: new ChannelAuthRepo(x), messages: new WaMessageRepo(x) },
    async close() {
      // Writes a test left under way commit first: closing while a write waits for its batch never
      // returns (src/main/store/db/write-queue.ts close() with a batch scheduled; reported to the lead).
      await database.write(async () => {})
      await database.close()
      if (!dir) await rm(root, { recursive: true, force: true })
    }
  }
}
