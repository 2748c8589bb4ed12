/**
 * The 413 every face answers past a size limit, stating the limit and, when the owner can change it,
 * the setting that does (docs/design.md §4: "a 413 states the limit").
 */
import { AppError } from '../errors'

/** "64 MB", "1 MB", "512 KB", "16 GB": a limit in bytes as people read it (binary units). Pure. */
export function limitText(bytes: number): string {
  const units: Array<[string, number]> = [
    ['GB', 1024 ** 3],
    ['MB', 1024 ** 2],
    ['KB', 1024]
  ]
  for (const [unit, size] of units) if (bytes >= size && bytes % size === 0) return `${bytes / size} ${unit}`
  return bytes >= 1024 ** 2 ? `${(bytes / 1024 ** 2).toFixed(1)} MB` : bytes >= 1024 ? `${Math.round(bytes / 1024)} KB` : `${bytes} bytes`
}

/**
 * `PAYLOAD_TOO_LARGE` for `what` ("The request body", "The file") past `limitBytes`; `setting` names
 * the environment variable that sets the limit.
 */
export function tooLarge(what: string, limitBytes: number, setting?: string): AppError {
  return new AppError('PAYLOAD_TOO_LARGE', `${what} is larger than the limit of ${limitText(limitBytes)}${setting ? ` (${setting})` : ''}.`)
}
