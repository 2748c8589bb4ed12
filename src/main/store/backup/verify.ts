/**
 * Reading a backup archive back: every byte checked before anything of the data dir is touched.
 *
 * The archive is streamed once — gunzip (node:zlib), then the `tar` package's parser — and each entry
 * is checked as it arrives and written into a fresh folder of the data dir's tmp/, never anywhere else:
 *
 * 1. the file starts as gzip does (else: a ZIP, a text file… `BACKUP_NOT_AN_ARCHIVE`);
 * 2. the first 512 unpacked bytes are the tar header of `manifest.json` (else `BACKUP_FOREIGN`, at
 *    once: a gzip of anything else is not read further), and the manifest is of this app, in a format
 *    and database version this release opens (./manifest.ts; else `BACKUP_FOREIGN` / `BACKUP_NEWER`);
 * 2b. the archive never unpacks to more than its manifest announces (the files' sizes plus tar's
 *    headers and padding): past that it is refused at once (`BACKUP_TAMPERED`), so a decompression
 *    bomb costs what its manifest allows, never the whole of what it would inflate to;
 * 3. every later entry is a plain file at a safe path (no `..`, no absolute path, no link of any kind:
 *    `BACKUP_UNSAFE_ENTRY`), listed once in the manifest with its size; its SHA-256 must match
 *    (`BACKUP_TAMPERED`);
 * 4. the stream ends whole (else `BACKUP_TRUNCATED`) with every listed file seen;
 * 5. the configuration parses and passes the configuration check, and the database opens read-only,
 *    passes SQLite's `quick_check` and has only migrations this release knows (`BACKUP_INVALID`).
 *
 * Files are created with O_EXCL in a folder no one else writes, so an entry can never follow a link
 * or overwrite another. The room needed (the manifest's sizes) is checked against the free space
 * first: a backup too large for the disk is refused before a byte is written (StorageFullError).
 */
import { createHash } from 'node:crypto'
import { createReadStream, createWriteStream, type WriteStream } from 'node:fs'
import { mkdir, mkdtemp, readFile, rm, statfs } from 'node:fs/promises'
import { DatabaseSync } from 'node:sqlite'
import { dirname, join } from 'node:path'
import type { Readable } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import { createGunzip } from 'node:zlib'
import { Kysely, sql } from 'kysely'
import { Header, Parser, type ReadEntry } from 'tar'
import { checkConfig } from '../config/config-check'
import { DIR_MODE, FILE_MODE } from '../config/durable-json-file'
import { NodeSqliteDialect } from '../db/node-sqlite-dialect'
import { StorageFullError } from '../db/errors'
import { MIGRATIONS } from '../db/migrations'
import { BackupArchiveError } from './errors'
import { CONFIG_ENTRY, DATABASE_ENTRY, MANIFEST_ENTRY, MANIFEST_MAX_BYTES, entryPathProblem, parseManifest, type BackupFileEntry, type BackupManifest } from './manifest'

/** The database version this release opens: the number of its migrations. */
export const SUPPORTED_DATABASE_VERSION = Object.keys(MIGRATIONS).length

/** A verified archive, unpacked into tmp/. */
export interface ExtractedBackup {
  readonly manifest: BackupManifest
  /** The folder made for it in tmp/ (free for the caller's own files beside `files`). */
  readonly root: string
  /** `<root>/files`: the archive's files, laid out as in a data dir. */
  readonly files: string
  /** Removes the folder. */
  dispose(): Promise<void>
}

export interface ExtractOptions {
  /** The data dir's tmp/ (the extraction goes into a fresh folder in it). */
  tmpDir: string
  /** Test seam: the highest database version accepted (default: this release's). */
  databaseVersionSupported?: number
}

const GZIP_MAGIC = [0x1f, 0x8b, 0x08]

/** What the first bytes of a file that is not gzip look like, for the message. */
function describeNonGzip(head: Buffer): string {
  if (head.length === 0) return 'The file is empty; a Chatapp Desk backup is a .tar.gz file.'
  if (head[0] === 0x50 && head[1] === 0x4b) return 'This is a ZIP file, not a Chatapp Desk backup (a .tar.gz file).'
  const printable = [...head.subarray(0, 64)].every((b) => b === 9 || b === 10 || b === 13 || (b >= 32 && b < 127))
  if (printable) return 'This is a text file, not a Chatapp Desk backup (a .tar.gz file).'
  return 'This is not a Chatapp Desk backup: it is not a .tar.gz file.'
}

/** The archive's bytes, with the first ones checked against gzip's magic number. */
async function* checkedGzip(source: AsyncIterable<Buffer>): AsyncGenerator<Buffer> {
  let head = Buffer.alloc(0)
  let checked = false
  for await (const chunk of source) {
    if (checked) {
      yield chunk
      continue
    }
    head = Buffer.concat([head, chunk])
    if (head.length < GZIP_MAGIC.length) continue
    if (!GZIP_MAGIC.every((b, i) => head[i] === b)) throw new BackupArchiveError('BACKUP_NOT_AN_ARCHIVE', describeNonGzip(head))
    checked = true
    yield head
  }
  if (!checked) throw new BackupArchiveError(head.length === 0 ? 'BACKUP_NOT_AN_ARCHIVE' : 'BACKUP_TRUNCATED', head.length === 0 ? describeNonGzip(head) : 'The backup is cut short (it ends after a few bytes).')
}

/** zlib's and tar's failures, said as what they mean for this archive. */
function archiveError(err: unknown, sawManifest: boolean): unknown {
  if (err instanceof BackupArchiveError || err instanceof StorageFullError) return err
  const e = err as NodeJS.ErrnoException & { tarCode?: string }
  if (e?.code === 'ENOSPC' || e?.code === 'EDQUOT') return new StorageFullError((e as { path?: string }).path ?? 'the data dir', err)
  if (e?.code === 'Z_BUF_ERROR') {
    return new BackupArchiveError('BACKUP_TRUNCATED', 'The backup is cut short: it ends before its last byte (an interrupted download or copy?). Download or copy it again.', { cause: err })
  }
  if (typeof e?.code === 'string' && e.code.startsWith('Z_')) {
    return new BackupArchiveError('BACKUP_TAMPERED', `The backup is damaged: its compressed data is corrupt (${e.message}).`, { cause: err })
  }
  if (e?.tarCode) {
    if (!sawManifest) return new BackupArchiveError('BACKUP_FOREIGN', `This is not a Chatapp Desk backup: it is not a tar archive of one (${e.message}).`, { cause: err })
    return new BackupArchiveError('BACKUP_TAMPERED', `The backup is damaged: ${e.message}.`, { cause: err })
  }
  return err
}

/** Resolves at the parser's next 'drain' or 'error' (the error itself is taken by its own listener). */
function drainOrError(parser: Parser): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      parser.off('drain', done)
      parser.off('error', done)
      resolve()
    }
    parser.on('drain', done)
    parser.on('error', done)
  })
}

/** Free bytes on the disk holding `dir`, or Infinity where the platform does not say. */
async function freeBytes(dir: string): Promise<number> {
  try {
    const s = await statfs(dir)
    return s.bavail * s.bsize
  } catch {
    return Infinity
  }
}

const MB = 1024 * 1024
/** tar's block: headers are one, file data is padded to whole ones. */
const BLOCK = 512
/** Unpacked bytes allowed per entry besides its data: its header and a PAX header (a long path). */
const ENTRY_OVERHEAD = 8 * BLOCK
/** Unpacked bytes allowed after the last entry: the end-of-archive blocks and a writer's record padding. */
const END_ALLOWANCE = 64 * 1024
/** What may be unpacked before the manifest is read: its header, a PAX header, and the largest manifest. */
const BEFORE_MANIFEST = ENTRY_OVERHEAD + MANIFEST_MAX_BYTES + END_ALLOWANCE

/** How many unpacked bytes an archive of `manifest` can hold at most (its entries, headers and padding). */
function unpackedAllowance(manifest: BackupManifest, manifestBytes: number): number {
  const padded = (size: number) => Math.ceil(size / BLOCK) * BLOCK
  return manifest.files.reduce((n, f) => n + ENTRY_OVERHEAD + padded(f.size), ENTRY_OVERHEAD + padded(manifestBytes) + END_ALLOWANCE)
}

/**
 * Checks the first tar header of the unpacked stream (step 2 of the module doc): `manifest.json` as a
 * plain file of at most {@link MANIFEST_MAX_BYTES}, or a PAX header before it. Throws BACKUP_FOREIGN.
 */
function checkFirstHeader(block: Buffer): void {
  let header: Header
  try {
    header = new Header(block)
  } catch {
    header = { cksumValid: false } as Header
  }
  const foreign = (why: string) => new BackupArchiveError('BACKUP_FOREIGN', `This is not a Chatapp Desk backup: ${why}; a backup starts with its ${MANIFEST_ENTRY}.`)
  if (!header.cksumValid) throw foreign('its content is not a tar archive')
  if (header.type === 'ExtendedHeader' || header.type === 'GlobalExtendedHeader') {
    if ((header.size ?? 0) > ENTRY_OVERHEAD) throw foreign('it starts with an oversized tar extended header')
    return
  }
  if (header.path !== MANIFEST_ENTRY || header.type !== 'File') throw foreign(`it starts with ${JSON.stringify(header.path ?? '')}`)
  if ((header.size ?? 0) > MANIFEST_MAX_BYTES) throw foreign(`its ${MANIFEST_ENTRY} is ${header.size} bytes long`)
}

/**
 * Streams `archive` (a file path or a stream, e.g. a request body) through the checks of the module
 * doc into a fresh folder of `opts.tmpDir`. Resolves with the unpacked backup (dispose it), or throws
 * {@link BackupArchiveError} (its code says why), StorageFullError when the disk cannot hold it, or
 * the source's own read error; the folder is removed on every failure.
 */
export async function extractBackup(archive: string | Readable, opts: ExtractOptions): Promise<ExtractedBackup> {
  const supported = opts.databaseVersionSupported ?? SUPPORTED_DATABASE_VERSION
  await mkdir(opts.tmpDir, { recursive: true, mode: DIR_MODE })
  const root = await mkdtemp(join(opts.tmpDir, 'restore-'))
  const filesDir = join(root, 'files')
  const dispose = () => rm(root, { recursive: true, force: true })
  try {
    await mkdir(filesDir, { mode: DIR_MODE })
    const manifest = await unpack(typeof archive === 'string' ? createReadStream(archive, { highWaterMark: 1 << 20 }) : archive, filesDir, supported)
    await checkContents(filesDir, manifest)
    return { manifest, root, files: filesDir, dispose }
  } catch (err) {
    await dispose()
    throw err
  }
}

/** {@link extractBackup}, then removes what it unpacked: the manifest of a sound archive, or the error. */
export async function verifyBackup(archive: string | Readable, opts: ExtractOptions): Promise<BackupManifest> {
  const extracted = await extractBackup(archive, opts)
  await extracted.dispose()
  return extracted.manifest
}

/** The streaming part of {@link extractBackup}: steps 1–4 of the module doc. */
async function unpack(source: Readable, dir: string, supported: number): Promise<BackupManifest> {
  let manifest: BackupManifest | null = null
  let expected = new Map<string, BackupFileEntry>()
  const seen = new Set<string>()
  const writes: Promise<void>[] = []
  /** Entries being written to their files: both closed at once if the archive is refused mid-way. */
  const active = new Set<{ entry: ReadEntry; out: WriteStream }>()
  let aborted = false
  let failure: Error | null = null
  let entries = 0
  const fail = (err: unknown) => {
    failure ??= err instanceof Error ? err : new Error(String(err))
  }

  const onEntry = (entry: ReadEntry) => {
    entries++
    if (failure) return void entry.resume()
    try {
      const path = entry.path
      if (entries === 1 && path !== MANIFEST_ENTRY) {
        throw new BackupArchiveError('BACKUP_FOREIGN', `This is not a Chatapp Desk backup: it starts with ${JSON.stringify(path)}, not ${MANIFEST_ENTRY}.`)
      }
      const problem = entryPathProblem(path)
      if (problem?.kind === 'unsafe') throw new BackupArchiveError('BACKUP_UNSAFE_ENTRY', `The backup holds the entry ${JSON.stringify(path)}, which ${problem.reason}; it is refused.`)
      if (entry.type !== 'File') {
        throw new BackupArchiveError('BACKUP_UNSAFE_ENTRY', `The backup holds ${JSON.stringify(path)} as a ${entry.type}; a backup holds only plain files, so it is refused.`)
      }
      if (problem) throw new BackupArchiveError('BACKUP_FOREIGN', `The backup holds ${JSON.stringify(path)}, which ${problem.reason}.`)
      if (entries === 1) return readManifest(entry)
      if (path === MANIFEST_ENTRY) throw new BackupArchiveError('BACKUP_TAMPERED', `The backup holds ${MANIFEST_ENTRY} twice.`)
      const want = expected.get(path)
      if (!want) throw new BackupArchiveError('BACKUP_TAMPERED', `The backup holds ${JSON.stringify(path)}, which its manifest does not list.`)
      if (seen.has(path)) throw new BackupArchiveError('BACKUP_TAMPERED', `The backup holds ${JSON.stringify(path)} twice.`)
      seen.add(path)
      if (entry.size !== want.size) throw new BackupArchiveError('BACKUP_TAMPERED', `In the backup, ${path} is ${entry.size} bytes; its manifest says ${want.size}.`)
      writes.push(writeEntry(entry, want).catch((err) => fail(err)))
    } catch (err) {
      fail(err)
      entry.resume()
    }
  }

  const readManifest = (entry: ReadEntry) => {
    if ((entry.size ?? 0) > MANIFEST_MAX_BYTES) throw new BackupArchiveError('BACKUP_FOREIGN', `This is not a Chatapp Desk backup: its ${MANIFEST_ENTRY} is ${entry.size} bytes long.`)
    const chunks: Buffer[] = []
    entry.on('data', (c: Buffer) => chunks.push(c))
    entry.on('end', () => {
      try {
        const bytes = Buffer.concat(chunks)
        manifest = parseManifest(bytes, supported)
        expected = new Map(manifest.files.map((f) => [f.path, f]))
        allowance = unpackedAllowance(manifest, bytes.length)
      } catch (err) {
        fail(err)
      }
    })
  }

  const writeEntry = async (entry: ReadEntry, want: BackupFileEntry) => {
    const file = join(dir, ...want.path.split('/'))
    await mkdir(dirname(file), { recursive: true, mode: DIR_MODE })
    if (aborted) throw failure ?? new Error('extraction stopped')
    const hash = createHash('sha256')
    // 'wx': a new file only, so nothing is ever written through a link or over another entry.
    const out = createWriteStream(file, { flags: 'wx', mode: FILE_MODE })
    const pair = { entry, out }
    active.add(pair)
    try {
      await pipeline(
        entry,
        async function* (bytes: AsyncIterable<Buffer>) {
          for await (const chunk of bytes) {
            hash.update(chunk)
            yield chunk
          }
        },
        out
      )
    } catch (err) {
      entry.resume()
      if ((err as NodeJS.ErrnoException).code === 'EEXIST') throw new BackupArchiveError('BACKUP_TAMPERED', `The backup holds ${JSON.stringify(want.path)} twice (names that differ only in case?).`)
      throw err
    } finally {
      active.delete(pair)
    }
    if (hash.digest('hex') !== want.sha256) {
      throw new BackupArchiveError('BACKUP_TAMPERED', `The backup has been altered or damaged: ${want.path} does not match its checksum in the manifest.`)
    }
  }

  const parser = new Parser({ strict: true, onReadEntry: onEntry })
  const parsed = new Promise<void>((resolve) => {
    parser.on('error', (err: unknown) => {
      fail(archiveError(err, manifest !== null))
      resolve()
    })
    parser.on('end', () => resolve())
  })
  let roomChecked = false
  /** Unpacked bytes seen, and how many the archive may have (until the manifest is read: its own room). */
  let unpacked = 0
  let allowance = BEFORE_MANIFEST
  let head: Buffer | null = Buffer.alloc(0)
  try {
    await pipeline(checkedGzip(source), createGunzip(), async (tarBytes: AsyncIterable<Buffer>) => {
      for await (let chunk of tarBytes) {
        if (failure) throw failure
        unpacked += chunk.length
        if (unpacked > allowance) {
          throw manifest
            ? new BackupArchiveError('BACKUP_TAMPERED', `The backup unpacks to more than its manifest announces (${Math.ceil(allowance / MB)} MB at most): it is damaged, or made to fill the disk.`)
            : new BackupArchiveError('BACKUP_FOREIGN', `This is not a Chatapp Desk backup: it unpacks to more than ${Math.ceil(allowance / MB)} MB before its ${MANIFEST_ENTRY} ends.`)
        }
        if (head) {
          // The tar parser is not given a byte before the first header shows a backup's.
          head = Buffer.concat([head, chunk])
          if (head.length < BLOCK) continue
          checkFirstHeader(head.subarray(0, BLOCK))
          chunk = head
          head = null
        }
        if (manifest && !roomChecked) {
          roomChecked = true
          const need = manifest.files.reduce((n, f) => n + f.size, 0)
          const free = await freeBytes(dir)
          if (need > free) {
            throw new StorageFullError(dir, new Error(`the backup needs ${Math.ceil(need / MB)} MB to unpack, ${Math.floor(free / MB)} MB are free`))
          }
        }
        if (!parser.write(chunk)) await drainOrError(parser)
      }
      if (head) throw new BackupArchiveError(head.length === 0 ? 'BACKUP_FOREIGN' : 'BACKUP_TRUNCATED', head.length === 0 ? `This is not a Chatapp Desk backup: it unpacks to nothing.` : 'The backup is cut short (it ends inside its first header).')
      parser.end()
      await parsed
    })
  } catch (err) {
    // The first failure says why; closing the files being written only adds their own errors.
    const reason = failure ?? archiveError(err, manifest !== null)
    aborted = true
    for (const { entry, out } of active) {
      out.destroy()
      entry.destroy()
    }
    await Promise.allSettled(writes)
    throw reason
  }
  await Promise.all(writes)
  // Set by the entry handlers while the writes ran (a checksum that did not match).
  const late = failure as Error | null
  if (late) throw late
  if (!manifest) throw new BackupArchiveError('BACKUP_FOREIGN', `This is not a Chatapp Desk backup: it holds no ${MANIFEST_ENTRY}.`)
  const missing = (manifest as BackupManifest).files.filter((f) => !seen.has(f.path))
  if (missing.length > 0) {
    throw new BackupArchiveError('BACKUP_TRUNCATED', `The backup is incomplete: ${missing.length} file(s) of its manifest are missing (${missing.slice(0, 3).map((f) => f.path).join(', ')}${missing.length > 3 ? ', …' : ''}).`)
  }
  return manifest
}

/** Step 5 of the module doc: the configuration and the database inside are readable by this release. */
async function checkContents(dir: string, manifest: BackupManifest): Promise<void> {
  if (manifest.files.some((f) => f.path === CONFIG_ENTRY)) {
    try {
      checkConfig(JSON.parse(await readFile(join(dir, CONFIG_ENTRY), 'utf8')))
    } catch (err) {
      throw new BackupArchiveError('BACKUP_INVALID', `The backup's configuration cannot be used: ${(err as Error).message}.`, { cause: err })
    }
  }
  const file = join(dir, DATABASE_ENTRY)
  let raw: DatabaseSync
  try {
    raw = new DatabaseSync(file, { readOnly: true })
  } catch (err) {
    throw new BackupArchiveError('BACKUP_INVALID', `The backup's database cannot be opened: ${(err as Error).message}.`, { cause: err })
  }
  const db = new Kysely<{ kysely_migration: { name: string } }>({ dialect: new NodeSqliteDialect(raw, file) })
  try {
    let check: string
    let migrations: string[]
    try {
      // PRAGMA has no query-builder form.
      const rows = await sql<{ quick_check: string }>`PRAGMA quick_check`.execute(db)
      check = rows.rows.map((r) => r.quick_check).join('; ')
      const tables = await db.introspection.getTables({ withInternalKyselyTables: true })
      migrations = tables.some((t) => t.name === 'kysely_migration') ? (await db.selectFrom('kysely_migration').select('name').execute()).map((r) => r.name) : []
    } catch (err) {
      throw new BackupArchiveError('BACKUP_INVALID', `The backup's database cannot be read: ${(err as Error).message}.`, { cause: err })
    }
    if (check !== 'ok') throw new BackupArchiveError('BACKUP_INVALID', `The backup's database is damaged (SQLite's check says: ${check.slice(0, 300)}).`)
    const unknown = migrations.filter((m) => !(m in MIGRATIONS))
    if (unknown.length > 0) {
      throw new BackupArchiveError('BACKUP_NEWER', `The backup's database was written by a newer Chatapp Desk (migrations ${unknown.join(', ')}). Install that release or a newer one to restore it.`)
    }
    if (migrations.length !== manifest.database.version) {
      throw new BackupArchiveError('BACKUP_TAMPERED', `The backup's database has ${migrations.length} migrations applied; its manifest says ${manifest.database.version}.`)
    }
  } finally {
    await db.destroy()
    raw.close()
    // A read-only connection to a WAL database leaves its (empty) -wal and -shm behind: not part of the data.
    await Promise.all(['-wal', '-shm'].map((s) => rm(file + s, { force: true })))
  }
}
