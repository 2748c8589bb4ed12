/**
 * What the faces do with backups (Settings → Backup, `/backup*`, `POST /restore`), over the backup
 * service and the core's restore: the status view, the settings, restores with their errors as the API
 * answers them, and the transfer of a backup file in parts through the UI contract (IPC and /rpc carry
 * JSON, so a file goes as base64 parts of at most 4 MiB: no message holds a whole backup).
 */
import { tooLarge } from '../too-large'
import { createHash, randomBytes } from 'node:crypto'
import { appendFile, open, rm, stat } from 'node:fs/promises'
import { join } from 'node:path'
import type { Readable } from 'node:stream'
import type { BackupStatusT, RestoreViewT, StoredBackupT } from '../../../shared/operations/results'
import type { BackupSettings } from '../../store/config/config-store'
import { BackupUnavailableError, isBackupArchiveError, type RestoreResult } from '../../store/backup'
import { AppError, notFound } from '../../errors'
import type { BackupService } from './backup-service'
import { RestoreBusyError, RestoreStartError } from './restore-with-reload'

/** The largest backup accepted through the UI's parts or `POST /restore` (bytes). */
export const MAX_RESTORE_BYTES = 16 * 1024 ** 3

export interface BackupDeskDeps {
  backups: BackupService
  settings: { backup(): BackupSettings; setBackup(s: BackupSettings): Promise<void> }
  /** The core's restore (stops the services, swaps the data, starts them again). */
  restore(archive: string | Readable): Promise<RestoreResult>
  /** The data dir's backups/ and tmp/ folders. */
  backupsDir: string
  tmpDir: string
}

/** A restore's result as the API answers it. */
export function restoreView(r: RestoreResult): RestoreViewT {
  return {
    restored: { created_at: r.manifest.created_at, app_version: r.manifest.app.version, database_version: r.manifest.database.version },
    replaced_dir: r.replacedDir
  }
}

/**
 * A backup the app does not make here (the database is PostgreSQL) as the faces answer it: 409 with
 * its message (use pg_dump; nothing written). Other errors pass as they are.
 */
export function backupAppError(err: unknown): unknown {
  if (err instanceof BackupUnavailableError) return new AppError('CONFLICT', err.message, [{ field: 'backup', problem: err.code }])
  return err
}

/**
 * A restore's failure as the faces answer it: a refused archive is a 400 (a newer release's a 409)
 * with its message (it says nothing changed); a restore this configuration does not do (PostgreSQL,
 * CHATAPP_MEDIA_DIR) a 409 saying so and that nothing changed; a restore already running a 409; the
 * app not starting on the restored data a 500 that says the previous data is served again. Other
 * errors pass as they are.
 */
export function restoreAppError(err: unknown): unknown {
  if (isBackupArchiveError(err)) return new AppError(err.code === 'BACKUP_NEWER' ? 'CONFLICT' : 'VALIDATION_ERROR', err.message, [{ field: 'backup', problem: err.code }])
  if (err instanceof BackupUnavailableError) return backupAppError(err)
  if (err instanceof RestoreBusyError) return new AppError('CONFLICT', err.message)
  if (err instanceof RestoreStartError) return new AppError('INTERNAL', err.message)
  return err
}

export class BackupDesk {
  constructor(private readonly deps: BackupDeskDeps) {}

  /** Settings, schedule and the kept backups (newest first). */
  async status(): Promise<BackupStatusT> {
    const { daily, keep } = this.deps.settings.backup()
    const s = this.deps.backups.status()
    return { daily, keep, running: s.running, next_at: s.nextAt, last_error: s.lastError, backups: await this.deps.backups.list(), folder: this.deps.backupsDir }
  }

  /** Changes the daily switch and how many are kept; the schedule follows at once. */
  async configure(change: Partial<BackupSettings>): Promise<BackupStatusT> {
    await this.deps.settings.setBackup({ ...this.deps.settings.backup(), ...change })
    await this.deps.backups.reschedule()
    return this.status()
  }

  /** A fresh backup to send (GET /backup), staged before anything is sent. */
  async download(): Promise<{ filename: string; contentType: string; stream: Readable }> {
    try {
      const d = await this.deps.backups.download()
      return { filename: d.filename, contentType: 'application/gzip', stream: d.stream }
    } catch (err) {
      throw backupAppError(err)
    }
  }

  /** Makes a backup into backups/ now; errors as {@link backupAppError}. */
  async now(): Promise<StoredBackupT> {
    try {
      return await this.deps.backups.backupNow()
    } catch (err) {
      throw backupAppError(err)
    }
  }

  /** Restores an archive (a file or a stream); errors as {@link restoreAppError}. */
  async restore(archive: string | Readable): Promise<RestoreViewT> {
    try {
      return restoreView(await this.deps.restore(archive))
    } catch (err) {
      throw restoreAppError(err)
    }
  }

  /** Restores the kept backup `name`; 404 when there is none by that name. */
  async restoreStored(name: string): Promise<RestoreViewT> {
    const file = await this.deps.backups.file(name)
    if (!file) throw notFound('Backup')
    return this.restore(file)
  }

  /** `length` bytes of the kept backup `name` from `offset`, as base64, and the file's size. 404 when unknown. */
  async read(name: string, offset: number, length: number): Promise<{ dataBase64: string; size: number }> {
    const file = await this.deps.backups.file(name)
    if (!file) throw notFound('Backup')
    const fh = await open(file, 'r')
    try {
      const { size } = await fh.stat()
      const buf = Buffer.alloc(Math.max(0, Math.min(length, size - offset)))
      if (buf.length > 0) await fh.read(buf, 0, buf.length, offset)
      return { dataBase64: buf.toString('base64'), size }
    } finally {
      await fh.close()
    }
  }

  /** Appends a part to an upload (a new one without `uploadId`); answers its id and size so far. */
  async upload(uploadId: string | undefined, dataBase64: string): Promise<{ uploadId: string; size: number }> {
    const id = uploadId ?? randomBytes(12).toString('hex')
    const file = this.uploadFile(id)
    const size = uploadId ? await stat(file).then((s) => s.size, () => null) : 0
    if (size === null) throw notFound('Upload')
    const bytes = Buffer.from(dataBase64, 'base64')
    if (size + bytes.length > MAX_RESTORE_BYTES) {
      await rm(file, { force: true })
      throw tooLarge('The backup', MAX_RESTORE_BYTES)
    }
    await appendFile(file, bytes, { mode: 0o600 })
    return { uploadId: id, size: size + bytes.length }
  }

  /** Restores an upload, then removes it. 404 for an unknown upload. */
  async restoreUpload(uploadId: string): Promise<RestoreViewT> {
    const file = this.uploadFile(uploadId)
    if (!(await stat(file).then(() => true, () => false))) throw notFound('Upload')
    try {
      return await this.restore(file)
    } finally {
      await rm(file, { force: true })
    }
  }

  private uploadFile(id: string): string {
    // The id is checked by the operation's schema (24 hex digits); hashing keeps any other value inside tmp/.
    return join(this.deps.tmpDir, `backup-upload-${createHash('sha256').update(id).digest('hex').slice(0, 24)}`)
  }
}
