/**
 * A new SQLite file migrated the long way: every migration replayed by Kysely's Migrator, as a
 * database of any version upgrades (the baseline's reference: src/main/store/db/baseline.ts).
 */
import type { Kysely } from 'kysely'
import { Migrator } from 'kysely/migration'
import { MIGRATIONS } from '../../src/main/store/db/migrations'
import { openSqliteFile } from '../../src/main/store/db/sqlite-thread/sqlite-file'

/** Creates `file` and replays every migration on it; answers a bare Kysely on it (no baseline involved). */
export async function replayedSqliteDatabase(file: string): Promise<{ db: Kysely<any>; migrations: string[]; close(): Promise<void> }> {
  const opened = await openSqliteFile<any>(file, { readOnly: false })
  try {
    const { error } = await new Migrator({ db: opened.db, provider: { getMigrations: async () => ({ ...MIGRATIONS }) } }).migrateToLatest()
    if (error) throw error
  } catch (err) {
    await opened.close()
    throw err
  }
  return { db: opened.db, migrations: Object.keys(MIGRATIONS), close: () => opened.close() }
}
