/**
 * Backup and restore of a data dir (docs/storage.md "Backup and restore"): one .tar.gz with a manifest
 * ({@link createBackup}), checked whole before use ({@link verifyBackup}), put in place with the old
 * data moved aside and crash safety ({@link restoreBackup}). No HTTP or Electron here: the faces call
 * src/main/services/backup/.
 */
export { BackupArchiveError, BackupUnavailableError, isBackupArchiveError, type BackupErrorCode } from './errors'
export { BACKUP_APP_ID, BACKUP_FORMAT, type BackupFileEntry, type BackupManifest } from './manifest'
export { openDataDirSource, storageSource, NoDataDirError, type BackupSource } from './source'
export { createBackup, stageBackup, DEFAULT_GZIP_LEVEL, type CreateBackupOptions, type StagedBackup, type WriteBackupFileOptions } from './create'
export { extractBackup, verifyBackup, SUPPORTED_DATABASE_VERSION, type ExtractedBackup, type ExtractOptions } from './verify'
export { finishInterruptedRestore, prepareRestore, restoreBackup, revertRestore, RESTORE_DIR, type PreparedRestore, type RestoreOptions, type RestoreResult, type RestoreStep } from './restore'
export { injectBackupWriteFault } from './output'
