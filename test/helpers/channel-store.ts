/**
 * The channel's stores on a real SQLite file in a temp dir, as the core hands them to sessions
 * (`ChannelContext.store`), without the rest of the core: the database, its repositories for
 * credentials and kept messages, the configuration document (the last good WA Web version), and a
 * close that also removes the dir.
 */
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Kysely } from 'kysely'
import type { ChannelStore } from '../../src/main/channel/types'
import { openDatabase, type DatabaseHandle } from '../../src/main/store/db/database'
import { openSqliteFile } from '../../src/main/store/db/sqlite-thread/sqlite-file'
import type { Database } from '../../src/main/store/db/schema'
import { ChannelAuthRepo } from '../../src/main/store/repos/channel-auth-repo'
import type { Exec } from '../../src/main/store/repos/exec'
import { WaMessageRepo } from '../../src/main/store/repos/wa-message-repo'
import { ConfigStore } from '../../src/main/store/config/config-store'
import { AppSettingsRepo } from '../../src/main/store/repos/config-repos'

export interface TestChannelStore {
  dir: string
  database: DatabaseHandle
  /** `config.json` in the dir: the last good WA Web version lives there. */
  config: ConfigStore
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
  const config = await ConfigStore.open(join(root, 'config.json'))
  return {
    dir: root,
    database,
    config,
    store: { auth: new ChannelAuthRepo(x), messages: new WaMessageRepo(x), waWebVersion: new AppSettingsRepo(config) },
    async close() {
      await config.close()
      // Writes a test left under way commit first: closing while a write waits for its batch never
      // returns (src/main/store/db/write-queue.ts close() with a batch scheduled; reported to the lead).
      await database.write(async () => {})
      await database.close()
      if (!dir) await rm(root, { recursive: true, force: true })
    }
  }
}

/** Runs `read` on a read-only connection of its own to a data dir's database (the app may be running). */
async function readOnly<T>(dataDir: string, read: (db: Kysely<Database>) => Promise<T>): Promise<T> {
  const opened = await openSqliteFile<Database>(join(dataDir, 'chatapp.db'))
  try {
    return await read(opened.db)
  } finally {
    await opened.close()
  }
}

/** How many rows a data dir's database holds of an instance's credentials, keys and kept messages. */
export function storedChannelRows(dataDir: string, instanceId: string): Promise<{ creds: number; keys: number; messages: number }> {
  return readOnly(dataDir, async (db) => {
    const count = async (table: 'auth_creds' | 'auth_keys' | 'wa_messages') =>
      Number((await db.selectFrom(table).select((eb) => eb.fn.countAll<number>().as('n')).where('instance_id', '=', instanceId).executeTakeFirstOrThrow()).n)
    return { creds: await count('auth_creds'), keys: await count('auth_keys'), messages: await count('wa_messages') }
  })
}

/** An instance's stored credentials (JSON text) in a data dir's database, or undefined. */
export function storedCreds(dataDir: string, instanceId: string): Promise<string | undefined> {
  return readOnly(dataDir, async (db) => (await db.selectFrom('auth_creds').select('creds').where('instance_id', '=', instanceId).executeTakeFirst())?.creds)
}
