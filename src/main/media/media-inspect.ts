/**
 * What a file really is, judged by its bytes (file-type's magic numbers), not by its name or the
 * client's declared type: an image endpoint gets an image (docs/design.md §4: 415 otherwise).
 */
import { createHash } from 'node:crypto'
import { createReadStream } from 'node:fs'
import { extname } from 'node:path'
import { AppError } from '../errors'

export type MediaKind = 'image' | 'video' | 'audio' | 'document'

/** Formats WhatsApp shows inline, per kind. Anything goes as a document. */
const ACCEPTED: Record<Exclude<MediaKind, 'document'>, { test: (mime: string) => boolean; label: string }> = {
  image: { test: (m) => /^image\/(jpeg|png|webp|gif)$/.test(m), label: 'an image (JPEG, PNG, WebP or GIF)' },
  video: { test: (m) => m.startsWith('video/'), label: 'a video (MP4 or 3GP)' },
  audio: { test: (m) => m.startsWith('audio/') || m === 'video/ogg', label: 'an audio file (OGG/Opus, MP3, M4A, AAC, WAV)' }
}

/** Text formats have no magic number; their extension decides. */
const TEXT_TYPES: Record<string, string> = {
  '.txt': 'text/plain',
  '.csv': 'text/csv',
  '.json': 'application/json',
  '.html': 'text/html',
  '.md': 'text/markdown',
  '.vcf': 'text/vcard',
  '.ics': 'text/calendar'
}

/**
 * The MIME type of a file from its content; for content without a signature, from the file name's
 * extension, then the declared type, then `application/octet-stream`.
 */
export async function detectMimeType(path: string, fileName?: string, declared?: string): Promise<string> {
  // Loaded at the first file, not at start (docs/benchmarks.md "Start time and idle memory").
  const { fileTypeFromFile } = await import('file-type')
  const detected = await fileTypeFromFile(path)
  if (detected) return detected.mime
  const byExt = fileName ? TEXT_TYPES[extname(fileName).toLowerCase()] : undefined
  if (byExt) return byExt
  // A declared type the bytes do not confirm is not trusted for images: every image WhatsApp shows
  // inline (JPEG, PNG, WebP, GIF) has a signature, so one without is not an image (a 415, not a send
  // the channel fails to build).
  const type = declared && /^[\w.+-]+\/[\w.+-]+/.test(declared) ? declared.split(';')[0]!.trim().toLowerCase() : undefined
  if (type && !ACCEPTED.image.test(type)) return type
  return 'application/octet-stream'
}

/** Throws 415 when `mime` does not fit `kind`; `endpoint` names the route in the message. */
export function assertMediaKind(kind: MediaKind, mime: string, endpoint: string): void {
  if (kind === 'document') return
  const rule = ACCEPTED[kind]
  if (!rule.test(mime)) {
    throw new AppError('UNSUPPORTED_MEDIA_TYPE', `The file is ${mime}; ${endpoint} needs ${rule.label}.`, [
      { field: 'file', problem: `is ${mime}, expected ${rule.label}` }
    ])
  }
}

/** The kind a MIME type is sent as (a PDF is a document, a PNG an image). */
export function kindOfMime(mime: string): MediaKind {
  for (const kind of ['image', 'video', 'audio'] as const) if (ACCEPTED[kind].test(mime)) return kind
  return 'document'
}

/** sha256 (hex) and size in bytes of a file, streamed. */
export async function digestFile(path: string): Promise<{ sha256: string; size: number }> {
  const hash = createHash('sha256')
  let size = 0
  for await (const chunk of createReadStream(path)) {
    hash.update(chunk as Buffer)
    size += (chunk as Buffer).length
  }
  return { sha256: hash.digest('hex'), size }
}
