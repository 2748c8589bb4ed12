/**
 * Why a backup archive is refused (docs/storage.md "Backup and restore"). Every refusal happens before
 * the data dir is touched, so the message can say "nothing was changed". The faces map them to 4xx:
 * `BACKUP_NEWER` → 409 (the archive is fine, this release is too old), every other code → 400.
 */

export type BackupErrorCode =
  /** Not a gzip file at all (a ZIP, a text file, …). */
  | 'BACKUP_NOT_AN_ARCHIVE'
  /** The archive ends before its last byte: an interrupted download or copy. */
  | 'BACKUP_TRUNCATED'
  /** A file's bytes or size differ from the manifest's, or the compressed data is damaged. */
  | 'BACKUP_TAMPERED'
  /** A .tar.gz, but not a Chatapp Desk backup (no manifest first, another app's, unknown entries). */
  | 'BACKUP_FOREIGN'
  /** Made by a newer release: its database or format is newer than this release can open. */
  | 'BACKUP_NEWER'
  /** An entry that could write outside the extraction folder: `..`, an absolute path, a link. */
  | 'BACKUP_UNSAFE_ENTRY'
  /** The manifest matches, but the configuration or the database inside cannot be read. */
  | 'BACKUP_INVALID'

/** An archive refused by the verification; nothing in the data dir was changed. */
export class BackupArchiveError extends Error {
  constructor(
    readonly code: BackupErrorCode,
    message: string,
    options?: { cause?: unknown }
  ) {
    super(`${message} Nothing was changed.`, options)
    this.name = 'BackupArchiveError'
  }
}

/** True for errors that mean "this archive is refused" (a 4xx), as opposed to a failure of this machine. */
export function isBackupArchiveError(err: unknown): err is BackupArchiveError {
  return err instanceof BackupArchiveError
}

/**
 * A backup or restore the app does not make in this configuration, refused before anything was read
 * or changed: the database is PostgreSQL (`CHATAPP_DATABASE_URL`: pg_dump and pg_restore copy a
 * server's database; docs/deploy.md "Backups"), or a restore while the attachments are in
 * `CHATAPP_MEDIA_DIR` (the restore's journal swaps folders of the data dir only). The faces answer 409.
 */
export class BackupUnavailableError extends Error {
  readonly code = 'BACKUP_UNAVAILABLE'
  constructor(message: string) {
    super(message)
    this.name = 'BackupUnavailableError'
  }
}
