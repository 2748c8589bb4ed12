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

/** Where each part of a data dir lives. */
export function dataPaths(dataDir: string): DataPaths {
  return {
    root: dataDir,
    config: join(dataDir, 'config.json'),
    database: join(dataDir, 'chatapp.db'),
    attachments: join(dataDir, 'attachments'),
    media: join(dataDir, 'media'),
    backups: join(dataDir, 'backups'),
    tmp: join(dataDir, 'tmp')
  }
}
