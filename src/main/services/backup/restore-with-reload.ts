/**
 * `POST /restore` and Settings → Backup → Restore in the running app: the one call the faces make.
 *
 * 1. The archive (a file, or the request body as a stream) is verified and unpacked into tmp/ while
 *    the app goes on serving; a refused archive ends here (BackupArchiveError: a 4xx), nothing changed.
 * 2. `stop()`: the app stops its core (sessions, timers, the storage closed: the database checkpointed).
 * 3. The current data is moved aside into replaced-<time>/ and the restored data put in place
 *    (src/main/store/backup/restore.ts: crash-safe; a failure here is undone).
 * 4. `start()`: the app starts its core again on the restored data, and serves it.
 *    If the core cannot start on it, the previous data is put back, the core started on that, and
 *    {@link RestoreStartError} says so.
 *
 * The data dir stays the app's throughout: `stop` must not let another process take it (keep the
 * data-dir lock across the reload, or stop and start only the core inside the locked app).
 */
import type { Readable } from 'node:stream'
import type { Clock } from '../../clock'
import type { Logger } from '../../logger'
import { prepareRestore, revertRestore, type RestoreResult } from '../../store/backup'

export interface RestoreWithReloadDeps {
  dataDir: string
  /** Stops the core (closes its storage). */
  stop(): Promise<void>
  /** Starts the core on the data dir (opens its storage). */
  start(): Promise<void>
  logger: Logger
  clock?: Clock
}

/** A restore is already running on this data dir (409). */
export class RestoreBusyError extends Error {
  constructor() {
    super('A restore is already running; wait for it to finish.')
    this.name = 'RestoreBusyError'
  }
}

/** The core did not start on the restored data; the previous data was put back and is served. */
export class RestoreStartError extends Error {
  constructor(
    readonly restoredDir: string,
    cause: unknown
  ) {
    super(
      `The app could not start on the restored data (${(cause as Error)?.message ?? String(cause)}), so the data in place before was put back. ` +
        `The restored data was kept in ${restoredDir}.`,
      { cause }
    )
    this.name = 'RestoreStartError'
  }
}

const busy = new Set<string>()

/**
 * Restores `archive` into the running app (see the module doc). Resolves once the app serves the
 * restored data, with the manifest and the folder the previous data went to. Throws
 * BackupArchiveError (400/409 by its code) or StorageFullError (507) with nothing changed,
 * {@link RestoreBusyError} (409), {@link RestoreStartError} (500, previous data served again).
 */
export async function restoreWithReload(archive: string | Readable, deps: RestoreWithReloadDeps): Promise<RestoreResult> {
  if (busy.has(deps.dataDir)) throw new RestoreBusyError()
  busy.add(deps.dataDir)
  const log = deps.logger.child({ op: 'restore' })
  try {
    const prepared = await prepareRestore(deps.dataDir, archive, { clock: deps.clock })
    log.info({ backup: prepared.manifest.created_at, version: prepared.manifest.app.version }, 'backup verified; stopping the core to restore it')
    try {
      await deps.stop()
    } catch (err) {
      await prepared.discard()
      throw err
    }
    let result: RestoreResult
    try {
      result = await prepared.commit({ clock: deps.clock, onStep: (step) => log.debug({ step }, 'restore step') })
    } catch (err) {
      log.error({ err }, 'restore failed; starting on the data in place')
      await deps.start()
      throw err
    } finally {
      await prepared.discard()
    }
    try {
      await deps.start()
    } catch (err) {
      log.error({ err }, 'the core did not start on the restored data; putting the previous data back')
      const restoredDir = await revertRestore(deps.dataDir, result.replacedDir, { clock: deps.clock })
      await deps.start()
      throw new RestoreStartError(restoredDir, err)
    }
    log.info({ replaced: result.replacedDir }, 'backup restored and served')
    return result
  } finally {
    busy.delete(deps.dataDir)
  }
}
