/**
 * Operations on the data the desk keeps (docs/design.md §20): how long an instance keeps its history, one
 * customer's data (export, erasure), and backups (made, kept, downloaded, restored).
 */
import Type from 'typebox'
import { RetentionSettings, type RetentionSettings as RetentionSettingsT } from '../../schemas/records'
import { op } from '../define'
import { BackupStatus, CustomerExport, ErasureResult, RestoreView, StoredBackup, type BackupStatusT, type CustomerExportT, type ErasureResultT, type RestoreViewT, type StoredBackupT } from '../results'
import { Empty, SETTINGS_UPDATED } from './common'
import { BACKUP_CHUNK_BYTES } from '../../backup-chunk'

/** The bytes of an upload, as the HTTP face hands them over (not a JSON field). */
const UploadedFile = Type.Object({ path: Type.String(), size: Type.Integer() })
const BackupName = Type.String({ minLength: 1, maxLength: 200, pattern: '^[A-Za-z0-9._-]+$', description: 'A backup’s file name in backups/.' })
const RESTORE_ERRORS = { 400: 'Not a Chatapp Desk backup, truncated or damaged (nothing changed)', 409: 'A restore is running, the backup is of a newer release, or the app does not restore here: the database is PostgreSQL (use pg_restore) or CHATAPP_MEDIA_DIR is set (nothing changed)', 507: 'The disk is full (nothing changed)' }
/** Chunks of a backup through the UI contract: 4 MiB of file as base64 at most per call. */
const CHUNK_BYTES = BACKUP_CHUNK_BYTES

/**
 * An export written as it is read (the HTTP face): the JSON answer's `data` as text (`json`), or a
 * CSV file. The stream is a Node Readable (typed loosely: shared code imports no Node module).
 */
export type StreamedExport = { json: unknown } | { fileName: string; csvStream: unknown }

const CustomerNumber = Type.String({
  minLength: 3,
  maxLength: 40,
  description:
    'The customer’s phone number with its country code (any format) or their …@s.whatsapp.net JID; for a customer who hides the number behind a WhatsApp username, their LID (…@lid) or "@username" (found through their chat).'
})
/** `all`: every instance the caller may reach, not only the one named (the same number writes to several of the shop's numbers). */
const AcrossInstances = Type.Optional(Type.Literal('all', { description: 'all: every instance the caller may reach (the answer lists them); absent: the instance named.' }))

export const DATA_OPERATIONS = {
  'settings.retention': op<RetentionSettingsT>()({
    summary: 'How long the instance keeps its messages and downloaded media',
    audit: 'Changed how long messages and media are kept',
    description:
      'Forever by default. `days`: messages older than this are deleted once a day (and their inbound media files); `media_days`: downloaded media files of messages older than this are deleted sooner (the message stays). null = keep.',
    tags: ['data'],
    scope: 'instance',
    permission: 'admin',
    input: Type.Partial(RetentionSettings),
    output: RetentionSettings,
    http: { method: 'PUT', path: '/chatapp/retention', message: SETTINGS_UPDATED },
    rpc: true
  }),
  'customers.export': op<CustomerExportT | { fileName: string; csv: string } | StreamedExport, CustomerExportT>()({
    summary: 'Everything kept of one customer (format=csv: their messages as CSV)',
    audit: 'Exported a customer’s data',
    description:
      'Their contact record, every message of their chats and what they wrote in groups (oldest first), and their survey answers — to give a customer their data, or to keep a copy before erasing it. `type=all` covers every instance the caller may reach; `instances` says which were searched and what each holds.',
    tags: ['data'],
    scope: 'instance',
    permission: 'admin',
    input: Type.Object({ number: CustomerNumber, format: Type.Optional(Type.Union([Type.Literal('json'), Type.Literal('csv')])), type: AcrossInstances }),
    output: CustomerExport,
    http: { method: 'GET', path: '/chatapp/customer/export', query: ['number', 'format', 'type'], message: 'Customer data exported successfully!', respond: 'csvWhenAsked', errors: { 400: 'Not a phone number, LID or @username', 404: 'No chat has that @username' } },
    rpc: true
  }),
  'customers.exportCsv': op<{ fileName: string; csv: string }>()({
    summary: 'A customer’s messages as a CSV file',
    audit: 'Exported a customer’s messages (CSV)',
    tags: ['data'],
    scope: 'instance',
    permission: 'admin',
    input: Type.Object({ number: CustomerNumber, type: AcrossInstances }),
    output: Type.Object({ fileName: Type.String(), csv: Type.String() }),
    rpc: true
  }),
  'customers.erase': op<ErasureResultT>()({
    summary: 'Erase one customer’s data',
    audit: 'Erased a customer’s data',
    description:
      'Deletes their messages (their chats and what they wrote in groups), downloaded media, survey answers, contact record, inbox row, hand-off pause and queued webhooks that carry them, in one transaction per instance. `type=all` erases them from every instance the caller may reach; `instances` says which, with what went from each. Cannot be undone (a backup made before still holds them): export first if they asked for a copy. The erasure is recorded (who, when, how many records), not what was erased.',
    tags: ['data'],
    scope: 'instance',
    permission: 'admin',
    input: Type.Object({ number: CustomerNumber, type: AcrossInstances }),
    output: ErasureResult,
    http: { method: 'DELETE', path: '/chatapp/customer', query: ['number', 'type'], message: 'Customer data erased', bodyOptional: true, errors: { 400: 'Not a phone number, LID or @username', 404: 'No chat has that @username' } },
    rpc: true
  }),

  /* ---------- backups (docs/storage.md "Backup and restore") ---------- */

  'backups.download': op<{ filename: string; contentType: string; stream: unknown }>()({
    summary: 'A backup of everything, made now (one .tar.gz)',
    audit: 'Downloaded a backup',
    description:
      'The database (SQLite’s online backup: consistent while the app goes on), the configuration, the channels’ credentials and keys, the attachments, and a manifest with versions and checksums. Restore it with POST /restore, Settings → Backup, or `npm run restore`. It holds the API token and WhatsApp credentials: keep it safe.',
    tags: ['backup'],
    scope: 'account',
    permission: 'admin',
    input: Empty,
    output: Type.String({ format: 'binary' }),
    http: { method: 'GET', path: '/backup', message: '', respond: 'download', errors: { 409: 'The database is PostgreSQL: the app makes no backup of it (use pg_dump)', 507: 'The disk is full: no backup could be staged' } }
  }),
  'backups.restore': op<RestoreViewT>()({
    summary: 'Restore a backup (the body is the .tar.gz, as application/octet-stream)',
    audit: 'Restored a backup',
    description:
      'The archive is checked whole first (checksums, versions, paths); a truncated, tampered or foreign archive is refused and nothing changes. Then the current data is moved aside into a replaced-<time> folder of the data dir, the backup’s data put in place, and the app serves it without a restart (requests during the swap get 503). The answer comes once the restored data is served.',
    tags: ['backup'],
    scope: 'account',
    permission: 'admin',
    input: Type.Object({ file: UploadedFile }),
    output: RestoreView,
    http: { method: 'POST', path: '/restore', message: 'Backup restored', rawBody: true, errors: RESTORE_ERRORS }
  }),
  'backups.status': op<BackupStatusT>()({
    summary: 'The backups: automatic schedule, the kept ones',
    tags: ['backup'],
    scope: 'account',
    permission: 'admin',
    input: Empty,
    output: BackupStatus,
    http: { method: 'GET', path: '/backup/status', message: 'Backups fetched successfully!' },
    rpc: true
  }),
  'backups.settings': op<BackupStatusT>()({
    summary: 'Turn the daily backup on or off, and how many backups to keep',
    audit: 'Changed the daily backup settings',
    tags: ['backup'],
    scope: 'account',
    permission: 'admin',
    input: Type.Object({ daily: Type.Optional(Type.Boolean()), keep: Type.Optional(Type.Integer({ minimum: 1, maximum: 365 })) }),
    output: BackupStatus,
    http: { method: 'PUT', path: '/backup/settings', message: 'Backup settings updated' },
    rpc: true
  }),
  'backups.now': op<StoredBackupT>()({
    summary: 'Make a backup into backups/ now',
    audit: 'Made a backup',
    tags: ['backup'],
    scope: 'account',
    permission: 'admin',
    input: Empty,
    output: StoredBackup,
    http: { method: 'POST', path: '/backup/now', message: 'Backup made', bodyOptional: true, errors: { 409: 'The database is PostgreSQL: the app makes no backup of it (use pg_dump)', 507: 'The disk is full: no backup was left' } },
    rpc: true
  }),
  'backups.restoreStored': op<RestoreViewT>()({
    summary: 'Restore one of the backups kept in backups/',
    audit: 'Restored a kept backup',
    tags: ['backup'],
    scope: 'account',
    permission: 'admin',
    input: Type.Object({ name: BackupName }),
    output: RestoreView,
    http: { method: 'POST', path: '/backup/stored/:name/restore', params: { name: 'name' }, message: 'Backup restored', bodyOptional: true, errors: { ...RESTORE_ERRORS, 404: 'No kept backup has that name' } },
    rpc: true
  }),
  'backups.read': op<{ dataBase64: string; size: number }>()({
    summary: 'A part of a kept backup (the UI downloads it in parts)',
    tags: ['backup'],
    scope: 'account',
    permission: 'admin',
    input: Type.Object({ name: BackupName, offset: Type.Integer({ minimum: 0 }), length: Type.Integer({ minimum: 1, maximum: CHUNK_BYTES }) }),
    output: Type.Object({ dataBase64: Type.String(), size: Type.Integer({ description: 'The whole file’s bytes.' }) }),
    rpc: true
  }),
  'backups.upload': op<{ uploadId: string; size: number }>()({
    summary: 'A part of a backup file to restore (the UI uploads it in parts, then calls backups.restoreUpload)',
    audit: 'Uploaded part of a backup to restore',
    tags: ['backup'],
    scope: 'account',
    permission: 'admin',
    input: Type.Object({ uploadId: Type.Optional(Type.String({ pattern: '^[a-f0-9]{24}$' })), dataBase64: Type.String({ maxLength: Math.ceil(CHUNK_BYTES / 3) * 4 }) }),
    output: Type.Object({ uploadId: Type.String(), size: Type.Integer() }),
    rpc: true
  }),
  'backups.restoreUpload': op<RestoreViewT>()({
    summary: 'Restore the backup uploaded in parts',
    audit: 'Restored an uploaded backup',
    tags: ['backup'],
    scope: 'account',
    permission: 'admin',
    input: Type.Object({ uploadId: Type.String({ pattern: '^[a-f0-9]{24}$' }) }),
    output: RestoreView,
    rpc: true
  })
} as const
