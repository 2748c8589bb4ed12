/** Backup and restore for the running app and its faces (docs/storage.md "Backup and restore"). */
export { BackupService, DAY_MS, RETRY_MS, START_DELAY_MS, type BackupDownload, type BackupServiceDeps, type BackupStatus } from './backup-service'
export { BackupDesk, MAX_RESTORE_BYTES, restoreAppError, restoreView } from './backup-desk'
export { restoreWithReload, RestoreBusyError, RestoreStartError, type RestoreWithReloadDeps } from './restore-with-reload'
export { backupName, listBackups, pruneBackups, type StoredBackup } from './stored-backups'
