/**
 * Making a backup: one .tar.gz (written by the `tar` package) of
 *
 * ```
 * manifest.json        first: versions, the moment, every file's size and SHA-256 (./manifest.ts)
 * config.json          the configuration document as last committed (absent when none was written yet)
 * chatapp.db           SQLite's online backup of the database (credentials included: they live in it)
 * attachments/<id>     the attachments' bytes
 * media/<inst>/<msg>   inbound media, only when asked (see docs/storage.md "Backup and restore")
 * ```
 *
 * The archive never holds backups/, tmp/, the lock, or earlier data set aside (replaced-*, migrated-*).
 *
 * How: the parts are staged first in a fresh folder of the data dir's tmp/ — the database copied
 * there, the configuration written there, the files hard-linked there (a snapshot that costs no space
 * and that a later deletion cannot touch; copied where links are not possible) — and hashed; the
 * archive is then streamed from the staged folder, so memory stays flat whatever the data's size, and
 * a download that fails early (a full disk while copying the database) fails before a byte is sent.
 */
import { createHash, randomBytes } from 'node:crypto'
import { copyFile, link, mkdir, mkdtemp, open, readdir, rename, rm, writeFile } from 'node:fs/promises'
import { basename, dirname, join, relative, sep } from 'node:path'
import { Readable, type Writable } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import { create as createTar } from 'tar'
import { isoNow, systemClock, type Clock } from '../../clock'
import { DIR_MODE, FILE_MODE, syncDir } from '../config/durable-json-file'
import { StorageFullError } from '../db/errors'
import { APP_VERSION, PRODUCT_NAME } from '../../version'
import {
  ATTACHMENTS_DIR,
  BACKUP_APP_ID,
  BACKUP_FORMAT,
  CONFIG_ENTRY,
  DATABASE_ENTRY,
  MANIFEST_ENTRY,
  MEDIA_DIR,
  entryPathProblem,
  type BackupFileEntry,
  type BackupManifest
} from './manifest'
import { openBackupFile } from './output'
import type { BackupSource } from './source'

export interface CreateBackupOptions {
  /** Put media/ in too (default false: docs/storage.md "Backup and restore"). */
  includeMedia?: boolean
  /** The clock of `created_at` (tests: a manual one). */
  clock?: Clock
  /** gzip level, 1 (fast) to 9 (small); default {@link DEFAULT_GZIP_LEVEL}. */
  gzipLevel?: number
}

/** Bytes per read of a file being hashed or archived: memory stays flat whatever the data's size. */
const READ_BYTES = 256 * 1024

/**
 * Default gzip level. On a database of chat messages level 1 wrote a ~20% larger archive than 6 in
 * ~2.5× less time (docs/storage.md, "Measured"); credentials and photos hardly compress at any level.
 * A daily backup runs beside the live app, so the time counts more than a fifth of the size.
 */
export const DEFAULT_GZIP_LEVEL = 1

/** tar's cache of hard links that never remembers one, so tar never writes a Link entry. */
class NoHardLinks extends Map<`${number}:${number}`, string> {
  override get(): undefined {
    return undefined
  }
}

/** A backup's parts, staged in tmp/ and hashed, ready to be streamed as an archive. */
export interface StagedBackup {
  readonly manifest: BackupManifest
  /** Files of the data dir left out because their names cannot be restored everywhere (":" and the like). */
  readonly skipped: readonly string[]
  /** The .tar.gz, streamed from the staged files (call once). */
  stream(): Readable
  /** Removes the staged files (after the stream ended or was abandoned). */
  dispose(): Promise<void>
}

/** Hex SHA-256 and size of a file, read through one reused buffer (no garbage per chunk). */
async function hashFile(file: string): Promise<{ size: number; sha256: string }> {
  const hash = createHash('sha256')
  const buffer = Buffer.allocUnsafe(READ_BYTES)
  const fh = await open(file, 'r')
  let size = 0
  try {
    for (;;) {
      const { bytesRead } = await fh.read(buffer, 0, buffer.length, null)
      if (bytesRead === 0) break
      hash.update(buffer.subarray(0, bytesRead))
      size += bytesRead
    }
  } finally {
    await fh.close()
  }
  return { size, sha256: hash.digest('hex') }
}

/** Links (or, where links cannot be made, copies) `from` to `to`; false when `from` is gone. */
async function snapshotFile(from: string, to: string): Promise<boolean> {
  try {
    await link(from, to)
    return true
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code
    if (code === 'ENOENT') return false
    if (code !== 'EXDEV' && code !== 'EPERM' && code !== 'ENOTSUP' && code !== 'EMLINK' && code !== 'EACCES') throw err
  }
  try {
    await copyFile(from, to)
    return true
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return false
    throw err
  }
}

/**
 * Stages the regular files under `dataDir/folder` into `stage/folder`; answers their archive paths
 * (`folder/…`, `/`-separated) and the ones skipped. Links are never followed: a symbolic link in the
 * data dir is not data of the app.
 */
async function stageFolder(dataDirFolder: string, stage: string, folder: string): Promise<{ paths: string[]; skipped: string[] }> {
  let entries
  try {
    entries = await readdir(dataDirFolder, { recursive: true, withFileTypes: true })
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { paths: [], skipped: [] }
    throw err
  }
  const paths: string[] = []
  const skipped: string[] = []
  for (const e of entries) {
    if (!e.isFile()) continue
    const from = join(e.parentPath, e.name)
    const archivePath = [folder, ...relative(dataDirFolder, from).split(sep)].join('/')
    if (entryPathProblem(archivePath)) {
      skipped.push(archivePath)
      continue
    }
    const to = join(stage, ...archivePath.split('/'))
    await mkdir(dirname(to), { recursive: true, mode: DIR_MODE })
    if (await snapshotFile(from, to)) paths.push(archivePath)
  }
  return { paths: paths.sort(), skipped }
}

/**
 * Copies and hashes everything a backup holds into a fresh folder of `source.paths.tmp` (see the
 * module doc). Throws StorageFullError when the disk cannot hold the copy; nothing is left behind on
 * any failure.
 */
export async function stageBackup(source: BackupSource, opts: CreateBackupOptions = {}): Promise<StagedBackup> {
  await mkdir(source.paths.tmp, { recursive: true, mode: DIR_MODE })
  const stage = await mkdtemp(join(source.paths.tmp, 'backup-'))
  try {
    // The copy holds every write committed before this moment, and maybe a few after it (the online
    // backup through the app's connection carries the writes made while it runs); never half of one.
    const createdAt = isoNow(opts.clock ?? systemClock)
    await source.copyDatabase(join(stage, DATABASE_ENTRY))
    const [databaseVersion, config] = await Promise.all([source.databaseVersion(), source.configText()])
    const paths = [DATABASE_ENTRY]
    if (config !== null) {
      await writeFile(join(stage, CONFIG_ENTRY), config, { mode: FILE_MODE })
      paths.unshift(CONFIG_ENTRY)
    }
    const attachments = await stageFolder(source.paths.attachments, stage, ATTACHMENTS_DIR)
    const media = opts.includeMedia ? await stageFolder(source.paths.media, stage, MEDIA_DIR) : { paths: [], skipped: [] }
    paths.push(...attachments.paths, ...media.paths)
    const files: BackupFileEntry[] = []
    for (const p of paths) files.push({ path: p, ...(await hashFile(join(stage, ...p.split('/')))) })
    const manifest: BackupManifest = {
      format: BACKUP_FORMAT,
      app: { id: BACKUP_APP_ID, name: PRODUCT_NAME, version: APP_VERSION },
      database: { version: databaseVersion },
      created_at: createdAt,
      includes_media: opts.includeMedia === true,
      files
    }
    await writeFile(join(stage, MANIFEST_ENTRY), JSON.stringify(manifest, null, 2) + '\n', { mode: FILE_MODE })
    let streamed = false
    return {
      manifest,
      skipped: [...attachments.skipped, ...media.skipped],
      stream() {
        if (streamed) throw new Error('A staged backup streams once')
        streamed = true
        const pack = createTar(
          {
            cwd: stage,
            gzip: { level: opts.gzipLevel ?? DEFAULT_GZIP_LEVEL },
            // No owner names, ids or inode numbers of this machine in the archive.
            portable: true,
            noDirRecurse: true,
            strict: true,
            // Bounded reads: memory stays flat however large the database is.
            maxReadSize: READ_BYTES,
            // Every entry a whole file, even two names of one inode in the data dir: a reader refuses links.
            linkCache: new NoHardLinks()
          },
          [MANIFEST_ENTRY, ...paths]
        )
        return Readable.from(pack, { objectMode: false, highWaterMark: 1 << 20 })
      },
      dispose: () => rm(stage, { recursive: true, force: true })
    }
  } catch (err) {
    await rm(stage, { recursive: true, force: true })
    throw diskError(err, stage)
  }
}

/** ENOSPC and EDQUOT as {@link StorageFullError} (507 to clients); other errors as they are. */
function diskError(err: unknown, file: string): unknown {
  const code = (err as NodeJS.ErrnoException | null)?.code
  return code === 'ENOSPC' || code === 'EDQUOT' ? new StorageFullError(file, err) : err
}

export interface WriteBackupFileOptions extends CreateBackupOptions {
  /**
   * Where the archive is written before it is renamed to its name (default: beside it). It must be
   * on the same file system; the data dir's tmp/ is emptied at each start, so a crash leaves nothing.
   */
  partialDir?: string
}

/**
 * Writes a backup of `source` to `out`: a stream (an HTTP response), or a file path — then written
 * under a temporary name, fsynced and renamed, so the file either does not exist or is whole; a
 * failure (a full disk: StorageFullError) removes what was written. Resolves with the manifest.
 */
export async function createBackup(source: BackupSource, out: Writable | string, opts: WriteBackupFileOptions = {}): Promise<BackupManifest> {
  const staged = await stageBackup(source, opts)
  try {
    if (typeof out !== 'string') {
      await pipeline(staged.stream(), out)
      return staged.manifest
    }
    const partial = join(opts.partialDir ?? dirname(out), `.${basename(out)}.${randomBytes(4).toString('hex')}.partial`)
    try {
      await pipeline(staged.stream(), openBackupFile(partial))
      const fh = await open(partial, 'r+')
      try {
        await fh.sync()
      } finally {
        await fh.close()
      }
      await rename(partial, out)
      await syncDir(dirname(out))
    } catch (err) {
      await rm(partial, { force: true })
      throw diskError(err, out)
    }
    return staged.manifest
  } finally {
    await staged.dispose()
  }
}
