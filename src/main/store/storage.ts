/**
 * The data dir and everything stored in it (`CHATAPP_DATA_DIR`), opened once at start:
 *
 * ```
 * config.json            configuration: account, app settings, instances (lowdb; docs/design.md §20);
 *                        with `databaseUrl`, a row of the database instead (copied from here once)
 * chatapp.db (-wal,-shm) everything that grows: messages, conversations, contacts, outreach, the bot's
 *                        records and memory, webhook deliveries, channel credentials (SQLite; or a
 *                        PostgreSQL database instead, `databaseUrl`)
 * attachments/<id>       attachment bytes        } in `mediaDir` (CHATAPP_MEDIA_DIR) instead when one
 * media/<inst>/<msg>     inbound media downloaded } is given: a folder every worker mounts
 *                        once (dropped by the media retention)
 * backups/               automatic daily backups
 * tmp/                   uploads and restores in progress (emptied at start)
 * migrated-<date>/       the files of a 0.1 data dir, after their import
 * ```
 *
 * Services reach the data only through the repositories (repos/).
 */
import { mkdir, rm } from 'node:fs/promises'
import { ConfigStore } from './config/config-store'
import { DIR_MODE } from './config/durable-json-file'
import { openDatabaseAt, type DatabaseHandle, type SqliteOptions } from './db/database'
import { makeRepositories, type Repositories } from './repos'
import { importLegacyDataDir, type LegacyImportOptions } from './legacy/legacy-import'
import { silentLogger, type Logger } from '../logger'
import { finishInterruptedRestore } from './backup/restore'
import { dataPaths, type DataPaths } from './data-paths'

export { dataPaths, type DataPaths } from './data-paths'

export { DataFileError } from './config/durable-json-file'
export { CorruptDatabaseError, StorageFullError } from './db/errors'
export { NewerDatabaseError } from './db/database'

export interface Storage {
  paths: DataPaths
  config: ConfigStore
  database: DatabaseHandle
  repos: Repositories
  /** Waits for pending writes and closes the files. */
  close(): Promise<void>
}

export interface StorageOptions {
  /**
   * A PostgreSQL database (`postgres://…`) for everything that grows, instead of the data dir's
   * `chatapp.db` (docs/storage.md, "PostgreSQL"), and for the configuration document instead of
   * `config.json` (copied into an empty database once). Attachments and media stay in the data dir
   * unless `mediaDir` is given.
   */
  databaseUrl?: string
  /**
   * `CHATAPP_MEDIA_DIR`: the folder of `attachments/` and `media/` instead of the data dir (absolute;
   * made 0700 when missing), so that every worker of one database reads the same files
   * (docs/deploy.md "A shared media folder").
   */
  mediaDir?: string
  /** Told what the import of a 0.1 data dir did (default: silent). */
  logger?: Logger
  /** Test seams of that import (./legacy/legacy-import.ts). */
  legacyImport?: LegacyImportOptions
  /**
   * Told when the database cannot be used any more: a SQLite thread died and could not be started
   * again (docs/storage.md "Threads"). The app stops cleanly then. A thread started again is only logged.
   */
  onDatabaseFailed?: (err: Error) => void
}

/**
 * Opens every store of `dataDir`, importing the data of release 0.1 first when the dir holds some
 * (or finishing an import cut short; ./legacy/legacy-import.ts). Throws DataFileError for an
 * unreadable configuration or 0.1 file, CorruptDatabaseError for a damaged database,
 * NewerDatabaseError for a newer one; nothing is overwritten in any of these cases. A restore
 * interrupted by a crash is finished first (./backup/restore.ts).
 */
export async function openStorage(dataDir: string, options: StorageOptions = {}): Promise<Storage> {
  const logger = options.logger ?? silentLogger()
  const paths = dataPaths(dataDir, options.mediaDir ? { mediaDir: options.mediaDir } : {})
  // A restore cut short by a crash after its commit point is finished before anything is read (backup/restore.ts).
  await finishInterruptedRestore(dataDir)
  await Promise.all([paths.attachments, paths.media, paths.backups].map((d) => mkdir(d, { recursive: true, mode: DIR_MODE })))
  await rm(paths.tmp, { recursive: true, force: true })
  await mkdir(paths.tmp, { recursive: true, mode: DIR_MODE })
  const sqlite: SqliteOptions = {
    onThreadEvent: ({ kind, thread, error }) => {
      if (kind === 'restarted') return logger.warn({ thread, err: error }, 'a database thread stopped and was started again; the writes it had not committed were refused')
      logger.error({ thread, err: error }, 'a database thread cannot be started again: the database is not used any more')
      options.onDatabaseFailed?.(error)
    }
  }
  const { config, database } = options.databaseUrl ? await openDatabaseMode(options.databaseUrl, paths, logger) : await openFileMode(paths, sqlite)
  const storage: Storage = {
    paths,
    config,
    database,
    repos: makeRepositories(config, database),
    async close() {
      await config.close()
      await database.close()
    }
  }
  try {
    await importLegacyDataDir(dataDir, storage, logger, options.legacyImport)
  } catch (err) {
    await storage.close()
    throw err
  }
  return storage
}

/** The data dir's `config.json`, read before the database is opened (an unreadable one stops the start first). */
async function openFileMode(paths: DataPaths, sqlite: SqliteOptions): Promise<{ config: ConfigStore; database: DatabaseHandle }> {
  const config = await ConfigStore.open(paths.config)
  return { config, database: await openDatabaseAt({ file: paths.database }, sqlite) }
}

/**
 * Database mode: the configuration document is the database's (./config/database-document.ts),
 * started from the data dir's `config.json` by the first worker when the database has none, and kept
 * in step with the other workers' writes (LISTEN/NOTIFY on PostgreSQL).
 */
async function openDatabaseMode(url: string, paths: DataPaths, logger: Logger): Promise<{ config: ConfigStore; database: DatabaseHandle }> {
  const database = await openDatabaseAt({ url })
  try {
    const config = await ConfigStore.openInDatabase(database, { seedFile: paths.config, log: (message, fields) => logger.info(fields, message) })
    await config.subscribe((err) => {
      if (err) logger.warn({ err }, 'configuration: another worker wrote a document that could not be read; this worker keeps the one it had')
    })
    return { config, database }
  } catch (err) {
    await database.close()
    throw err
  }
}
