/**
 * What a backup reads: the database (through SQLite's online backup), the configuration document as
 * one committed version, and the folders of files. Two sources:
 *
 * - {@link storageSource}: the running app's own storage (the daily backup, `GET /backup`); the copy
 *   goes through the app's connection, so its writes during the copy are carried into it.
 * - {@link openDataDirSource}: a data dir from outside (`npm run backup`), whether or not the app is
 *   running on it. It takes no lock and writes nothing: the database is opened read-only and copied
 *   in one step of the online backup (one read transaction; in WAL mode the app's writers do not wait
 *   for it, and a copy in small steps would restart at each of their commits and might never end).
 */
import { existsSync } from 'node:fs'
import { readFile } from 'node:fs/promises'
import type { ConfigData } from '../config/config-store'
import { openSqliteFile } from '../db/sqlite-thread/sqlite-file'
import type { DatabaseHandle } from '../db/database'
import { dataPaths, type DataPaths, type DataPathsOptions } from '../data-paths'

export interface BackupSource {
  /** The folders read (attachments, media) and the one the backup is staged in (tmp). */
  readonly paths: Pick<DataPaths, 'root' | 'attachments' | 'media' | 'tmp'>
  /** Copies the database, consistent as of one moment, to `file`. Throws StorageFullError on a full disk. */
  copyDatabase(file: string): Promise<void>
  /** The database's version: the number of migrations applied. */
  databaseVersion(): Promise<number>
  /** The configuration document as last committed, as its file holds it; null when there is none yet. */
  configText(): Promise<string | null>
}

/** The running app's storage as a backup source (see the module doc). */
export function storageSource(storage: { paths: DataPaths; config: { readonly data: Readonly<ConfigData> }; database: Pick<DatabaseHandle, 'backupTo' | 'version'> }): BackupSource {
  return {
    paths: storage.paths,
    copyDatabase: (file) => storage.database.backupTo(file),
    databaseVersion: () => storage.database.version(),
    // The committed document (ConfigStore changes it only after its write succeeded), in the file's format.
    configText: async () => JSON.stringify(storage.config.data, null, 2) + '\n'
  }
}

/** No Chatapp data where one was expected. */
export class NoDataDirError extends Error {
  constructor(readonly dataDir: string) {
    super(`There is no Chatapp data in ${dataDir} (no chatapp.db). Check --data-dir or CHATAPP_DATA_DIR.`)
    this.name = 'NoDataDirError'
  }
}

/**
 * Opens `dataDir` for a backup from outside the app (see the module doc); its attachments and media
 * are read from `opts.mediaDir` when given (`CHATAPP_MEDIA_DIR`). Throws {@link NoDataDirError} when it
 * holds no database. Close it after the backup.
 */
export async function openDataDirSource(dataDir: string, opts: DataPathsOptions = {}): Promise<BackupSource & { close(): Promise<void> }> {
  const paths = dataPaths(dataDir, opts)
  if (!existsSync(paths.database)) throw new NoDataDirError(dataDir)
  const opened = await openSqliteFile<{ kysely_migration: { name: string } }>(paths.database)
  const db = opened.db
  return {
    paths,
    copyDatabase: (file) => opened.backupTo(file),
    async databaseVersion() {
      const tables = await db.introspection.getTables({ withInternalKyselyTables: true })
      if (!tables.some((t) => t.name === 'kysely_migration')) return 0
      return (await db.selectFrom('kysely_migration').select('name').execute()).length
    },
    async configText() {
      try {
        // One read of a file that is only ever replaced by a rename: a whole committed version.
        return await readFile(paths.config, 'utf8')
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null
        throw err
      }
    },
    close: () => opened.close()
  }
}
