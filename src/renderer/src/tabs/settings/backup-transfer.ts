/**
 * Settings → Backup's logic without React (docs/ui.md "Settings → Backup"): moving a backup file through the UI
 * contract, and the words for a backup and a failed restore. IPC and /rpc carry JSON, so a kept backup is
 * read in parts of at most 4 MiB (`backups.read`) and a picked file is sent in parts (`backups.upload`),
 * as base64: no message holds a whole backup. The functions take the contract's `call`, so tests run them
 * against the real core.
 */
import { BACKUP_CHUNK_BYTES } from '../../../../shared/backup-chunk'
import { ContractError, type ContractInput, type ContractMethod, type ContractOutput } from '../../../../shared/contract'

/** A contract call: the store's `call`, or a test's over the real core's handlers. */
export type Call = <M extends ContractMethod>(method: M, input: ContractInput<M>) => Promise<ContractOutput<M>>

/** Bytes moved so far and the file's size in bytes, after each part. */
export type Progress = (done: number, total: number) => void

/** The largest part `backups.read` answers and `backups.upload` takes (bytes of file, before base64). */
export const BACKUP_PART_BYTES = BACKUP_CHUNK_BYTES

/** Base64 (no data: prefix) to its bytes. */
export function base64ToBytes(b64: string): Uint8Array<ArrayBuffer> {
  const bin = atob(b64)
  const out = new Uint8Array(bin.length)
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i)
  return out
}

/** Bytes to base64 (no data: prefix), in slices small enough for `String.fromCharCode`'s arguments. */
export function bytesToBase64(bytes: Uint8Array): string {
  let bin = ''
  for (let i = 0; i < bytes.length; i += 0x8000) bin += String.fromCharCode(...bytes.subarray(i, i + 0x8000))
  return btoa(bin)
}

/**
 * The kept backup `name` (a file name of `backups.status`), read part by part (`partBytes` ≤ 4 MiB each)
 * into one Blob of type application/gzip; `onProgress` after each part. Throws the call's ContractError
 * (NOT_FOUND when the backup is gone, e.g. dropped by "keep the last N"), or an Error when the file
 * changed size or ended early while it was read.
 */
export async function downloadBackup(call: Call, name: string, onProgress?: Progress, partBytes = BACKUP_PART_BYTES): Promise<Blob> {
  const parts: Uint8Array<ArrayBuffer>[] = []
  let done = 0
  let total: number | undefined
  do {
    const { dataBase64, size } = await call('backups.read', { name, offset: done, length: partBytes })
    if (total !== undefined && size !== total) throw new Error('The backup changed while it was being downloaded. Try again.')
    total = size
    const bytes = base64ToBytes(dataBase64)
    if (bytes.length === 0 && done < total) throw new Error('The backup ended early while it was being downloaded. Try again.')
    parts.push(bytes)
    done += bytes.length
    onProgress?.(done, total)
  } while (done < total)
  return new Blob(parts, { type: 'application/gzip' })
}

/**
 * Sends `file` (a .tar.gz the owner picked) to the app part by part (`partBytes` ≤ 4 MiB each);
 * `onProgress` after each part. Answers the upload's id for `backups.restoreUpload`. Nothing is checked
 * here: the restore verifies the archive. Throws the call's ContractError (PAYLOAD_TOO_LARGE past the
 * largest backup accepted), or an Error when the app's count of bytes received differs from what was sent.
 */
export async function uploadBackup(call: Call, file: Blob, onProgress?: Progress, partBytes = BACKUP_PART_BYTES): Promise<string> {
  let uploadId: string | undefined
  let done = 0
  do {
    const part = new Uint8Array(await file.slice(done, done + partBytes).arrayBuffer())
    const answer = await call('backups.upload', { ...(uploadId ? { uploadId } : {}), dataBase64: bytesToBase64(part) })
    done += part.length
    if (answer.size !== done) throw new Error('Part of the file was lost on the way. Try again.')
    uploadId = answer.uploadId
    onProgress?.(done, file.size)
  } while (done < file.size)
  return uploadId
}

/**
 * A backup's moment for people, in the browser's language and time zone: "31 Jan 2025, 03:00:12".
 * With seconds, as two backups made by hand a moment apart must not read alike.
 */
export function backupTime(iso: string, locale?: string): string {
  return new Date(iso).toLocaleString(locale, { dateStyle: 'medium', timeStyle: 'medium' })
}

/**
 * The title over a failed restore's message (the message itself is the API's: it says whether anything
 * changed). 400: the file is not a usable backup; 409: a newer release's backup (its refusal names the
 * problem BACKUP_NEWER), or a restore already running; 507: the disk is full; 503: another restore is
 * swapping the data.
 */
export function restoreErrorTitle(err: unknown): string {
  const code = err instanceof ContractError ? err.code : undefined
  if (code === 'VALIDATION_ERROR') return 'Not restored: this file is not a usable backup'
  if (code === 'CONFLICT' && (err as ContractError).details?.some((d) => d.problem === 'BACKUP_NEWER')) return 'Not restored: a newer version of the app made this backup'
  if (code === 'CONFLICT') return 'Not restored: another restore is running'
  if (code === 'INSUFFICIENT_STORAGE') return 'Not restored: the disk is full'
  if (code === 'SERVICE_UNAVAILABLE') return 'Not restored: the app is busy restoring'
  if (code === 'PAYLOAD_TOO_LARGE') return 'Not restored: the file is too large'
  if (code === 'NOT_FOUND') return 'Not restored: the backup is no longer there'
  return 'Not restored'
}

/**
 * The title over a failed backup, upload or download (`base`: what did not happen, e.g. "No backup
 * made"), naming the cause people can act on: a full disk (507), a file too large (413), a restore under
 * way (503, 409), a backup that is gone (404). The API's message under it says the rest.
 */
export function failureTitle(base: string, err: unknown): string {
  const code = err instanceof ContractError ? err.code : undefined
  if (code === 'INSUFFICIENT_STORAGE') return `${base}: the disk is full`
  if (code === 'PAYLOAD_TOO_LARGE') return `${base}: the file is too large`
  if (code === 'SERVICE_UNAVAILABLE' || code === 'CONFLICT') return `${base}: the app is busy restoring`
  if (code === 'NOT_FOUND') return `${base}: the backup is no longer there`
  return base
}

/** sessionStorage key of the last restore's answer, shown once the app has reloaded. */
export const RESTORED_KEY = 'chatapp.restored'
