/** Where each part of a data dir lives (the layout: ./storage.ts). */
import { join } from 'node:path'

export interface DataPaths {
  root: string
  config: string
  database: string
  attachments: string
  media: string
  backups: string
  tmp: string
}

export interface DataPathsOptions {
  /**
   * `CHATAPP_MEDIA_DIR`: a folder every worker mounts (docs/deploy.md "A shared media folder"); when
   * given, `attachments` and `media` are `<mediaDir>/attachments` and `<mediaDir>/media` instead of the
   * data dir's. Absolute (config.ts checks it).
   */
  mediaDir?: string
}

/** Where each part of a data dir lives; attachments and media under `mediaDir` when one is given. */
export function dataPaths(dataDir: string, opts: DataPathsOptions = {}): DataPaths {
  const files = opts.mediaDir ?? dataDir
  return {
    root: dataDir,
    config: join(dataDir, 'config.json'),
    database: join(dataDir, 'chatapp.db'),
    attachments: join(files, 'attachments'),
    media: join(files, 'media'),
    backups: join(dataDir, 'backups'),
    tmp: join(dataDir, 'tmp')
  }
}
