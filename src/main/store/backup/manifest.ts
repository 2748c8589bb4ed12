/**
 * The backup archive's table of contents, `manifest.json`, always its first entry (so a foreign
 * archive is refused at its first header, and every later entry is checked against the manifest as
 * it streams by), and the rules for the entries' paths.
 *
 * ```json
 * { "format": 1,
 *   "app": { "id": "chatapp-desk", "name": "Chatapp Desk", "version": "0.2.0" },
 *   "database": { "version": 1 },            // migrations applied (src/main/store/db/migrations)
 *   "created_at": "2025-01-31T02:00:00.000Z", // the copy holds every write committed before it
 *   "includes_media": false,
 *   "files": [ { "path": "chatapp.db", "size": 4096, "sha256": "…" }, … ] }
 * ```
 */
import Type, { type Static } from 'typebox'
import { strictAjv } from '../../validation'
import { BackupArchiveError } from './errors'

export const BACKUP_APP_ID = 'chatapp-desk'
/** The layout of the archive; a reader refuses a newer one. */
export const BACKUP_FORMAT = 1
export const MANIFEST_ENTRY = 'manifest.json'
export const DATABASE_ENTRY = 'chatapp.db'
export const CONFIG_ENTRY = 'config.json'
/** Folders whose files go in (media only when asked). */
export const ATTACHMENTS_DIR = 'attachments'
export const MEDIA_DIR = 'media'
/** Largest manifest read (bytes): about 100 000 files. */
export const MANIFEST_MAX_BYTES = 16 * 1024 * 1024

export const BackupFileEntry = Type.Object(
  {
    path: Type.String({ minLength: 1, maxLength: 1024 }),
    /** Bytes. */
    size: Type.Integer({ minimum: 0 }),
    /** Hex SHA-256 of the bytes. */
    sha256: Type.String({ pattern: '^[0-9a-f]{64}$' })
  },
  { additionalProperties: false }
)

export const BackupManifest = Type.Object({
  format: Type.Integer({ minimum: 1 }),
  app: Type.Object({ id: Type.String(), name: Type.String(), version: Type.String() }),
  database: Type.Object({ version: Type.Integer({ minimum: 0 }) }),
  created_at: Type.String({ format: 'date-time' }),
  includes_media: Type.Boolean(),
  files: Type.Array(BackupFileEntry)
})
export type BackupFileEntry = Static<typeof BackupFileEntry>
export type BackupManifest = Static<typeof BackupManifest>

const validManifest = strictAjv.compile<BackupManifest>(BackupManifest)

/**
 * Where an archive entry may go, or why not: `unsafe` for a path that could leave the extraction
 * folder or mean something else on another system (absolute, `..`, `.`, empty parts, backslashes,
 * drive letters and `:` streams, NUL), `unknown` for a safe path the format does not have.
 */
export function entryPathProblem(path: string): { kind: 'unsafe' | 'unknown'; reason: string } | null {
  if (path.startsWith('/') || /^[A-Za-z]:/.test(path)) return { kind: 'unsafe', reason: 'is an absolute path' }
  if (/[\\:\0]/.test(path)) return { kind: 'unsafe', reason: 'holds a backslash, a colon or a NUL' }
  const parts = path.split('/')
  if (parts.some((p) => p === '..')) return { kind: 'unsafe', reason: 'climbs out with ..' }
  if (parts.some((p) => p === '' || p === '.' || p.length > 255)) return { kind: 'unsafe', reason: 'has an empty, "." or overlong part' }
  if (parts.length === 1 && (path === MANIFEST_ENTRY || path === DATABASE_ENTRY || path === CONFIG_ENTRY)) return null
  if (parts.length >= 2 && (parts[0] === ATTACHMENTS_DIR || parts[0] === MEDIA_DIR)) return null
  return { kind: 'unknown', reason: 'is not a part of a Chatapp Desk backup' }
}

/**
 * Reads the manifest's bytes, checked in the order that gives the clearest message: JSON at all,
 * this app's, a format this release reads, a database version it can open, then the shape and the
 * file list. Throws {@link BackupArchiveError}.
 */
export function parseManifest(bytes: Buffer, databaseVersionSupported: number): BackupManifest {
  let data: unknown
  try {
    data = JSON.parse(bytes.toString('utf8'))
  } catch {
    throw new BackupArchiveError('BACKUP_FOREIGN', 'This is not a Chatapp Desk backup: its manifest.json is not JSON.')
  }
  const m = data as Partial<BackupManifest> | null
  const appId = m && typeof m === 'object' && m.app && typeof m.app === 'object' ? m.app.id : undefined
  if (appId !== BACKUP_APP_ID) {
    throw new BackupArchiveError('BACKUP_FOREIGN', `This is not a Chatapp Desk backup: its manifest names the app ${JSON.stringify(appId ?? null)}, not "${BACKUP_APP_ID}".`)
  }
  const made = typeof m!.app!.version === 'string' ? ` (made by Chatapp Desk ${m!.app!.version})` : ''
  if (typeof m!.format === 'number' && m!.format > BACKUP_FORMAT) {
    throw new BackupArchiveError('BACKUP_NEWER', `This backup${made} uses archive format ${m!.format}; this release reads format ${BACKUP_FORMAT}. Install that release or a newer one to restore it.`)
  }
  const dbVersion = m!.database && typeof m!.database === 'object' ? m!.database.version : undefined
  if (typeof dbVersion === 'number' && dbVersion > databaseVersionSupported) {
    throw new BackupArchiveError(
      'BACKUP_NEWER',
      `This backup${made} holds a database of version ${dbVersion}; this release opens versions up to ${databaseVersionSupported}. Install that release or a newer one to restore it.`
    )
  }
  if (!validManifest(data)) {
    const e = validManifest.errors?.[0]
    throw new BackupArchiveError('BACKUP_TAMPERED', `The backup's manifest is damaged: ${e?.instancePath || '(manifest)'} ${e?.message ?? 'is invalid'}.`)
  }
  const manifest = data
  const seen = new Set<string>()
  for (const f of manifest.files) {
    const problem = entryPathProblem(f.path)
    if (problem?.kind === 'unsafe' || f.path === MANIFEST_ENTRY) {
      throw new BackupArchiveError('BACKUP_UNSAFE_ENTRY', `The backup's manifest lists the file ${JSON.stringify(f.path)}, which ${problem?.reason ?? 'is the manifest itself'}.`)
    }
    if (problem) throw new BackupArchiveError('BACKUP_FOREIGN', `The backup's manifest lists ${JSON.stringify(f.path)}, which ${problem.reason}.`)
    if (seen.has(f.path)) throw new BackupArchiveError('BACKUP_TAMPERED', `The backup's manifest lists ${JSON.stringify(f.path)} twice.`)
    seen.add(f.path)
  }
  if (!seen.has(DATABASE_ENTRY)) throw new BackupArchiveError('BACKUP_TAMPERED', `The backup's manifest lists no ${DATABASE_ENTRY}.`)
  return manifest
}
