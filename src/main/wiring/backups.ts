/** Wiring of the backups (docs/storage.md "Backup and restore"): the daily ones, on demand, downloads, restores. */
import type { Readable } from 'node:stream'
import { BackupDesk, BackupService } from '../services/backup'
import type { RestoreResult } from '../store/backup'
import type { Step, Wiring } from './steps'

/** `restore`: the core's restore (it stops these services and starts new ones on the restored data). */
export function wireBackups(w: Wiring, restore: (archive: string | Readable) => Promise<RestoreResult>): { backups: BackupDesk; step: Step } {
  const { store, repos, paths, clock, timers, logger } = w
  const service = new BackupService({ storage: store, settings: repos.appSettings, clock, timers, logger })
  return {
    backups: new BackupDesk({ backups: service, settings: repos.appSettings, restore, backupsDir: paths.backups, tmpDir: paths.tmp }),
    step: { name: 'backups', start: () => service.start(), close: () => service.close() }
  }
}
