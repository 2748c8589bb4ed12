/**
 * Multipart uploads (docs/api-seed.md §4.5 media sends, docs/design.md §8 attachments): the file part streams to the
 * data dir's tmp folder while its sha256 is computed, under the configured size limit (413 past it);
 * text fields are collected and validated with the operation's schema. A file part with no file in it
 * (`filename=""` and no bytes: a form's file row where none was chosen) counts as absent, and so does
 * an empty optional text field (`filename=` left blank, as the original service's samples send: the
 * file's own name is used); an empty required one is still refused by the schema. The caller
 * removes the file (`cleanup`); `tmpPath` names a new temp file in the data dir.
 */
import { createHash } from 'node:crypto'
import { createWriteStream } from 'node:fs'
import { rm } from 'node:fs/promises'
import { Transform } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import type { FastifyRequest } from 'fastify'
import type { TSchema, Static } from 'typebox'
import { AppError, invalid } from '../errors'
import type { UploadedFile } from '../services/attachment-service'
import { ajvProblems, strictAjv, validationError } from '../validation'

/**
 * The parser's complaints about the body itself (a truncated body, no boundary, a bad part header) are
 * the client's error: 400 saying so. Limits (413), our own errors and I/O failures (with an errno, e.g.
 * a full disk) pass through unchanged.
 */
function malformed(err: unknown): unknown {
  if (err instanceof AppError || !(err instanceof Error)) return err
  const e = err as Error & { statusCode?: number; errno?: number; syscall?: string }
  if (e.errno !== undefined || e.syscall !== undefined || (e.statusCode !== undefined && e.statusCode !== 400 && e.statusCode !== 500)) return err
  return new AppError('VALIDATION_ERROR', `Malformed multipart body: ${e.message}.`, [{ field: '(body)', problem: 'is not a complete multipart/form-data body' }])
}

/** How many bytes a file part holds; reads it to its end (the bytes are not kept). */
async function byteCount(stream: AsyncIterable<Buffer>): Promise<number> {
  let n = 0
  for await (const chunk of stream) n += chunk.length
  return n
}

export interface MultipartResult<T> {
  fields: T
  file?: UploadedFile
  /** Deletes the temp file (idempotent). */
  cleanup(): Promise<void>
}

/** Reads a multipart request. Throws 415 when the request is not multipart, 400 on bad fields. */
export async function readMultipart<S extends TSchema>(
  req: FastifyRequest,
  schema: S,
  opts: { requireFile: boolean; tmpPath: () => string }
): Promise<MultipartResult<Static<S>>> {
  if (!req.isMultipart()) {
    throw new AppError('UNSUPPORTED_MEDIA_TYPE', 'Send this request as multipart/form-data with a file part named file.')
  }
  const fields: Record<string, string> = {}
  const listed = (schema as unknown as { required?: unknown }).required
  const required = new Set<string>(Array.isArray(listed) ? (listed as string[]) : [])
  let file: UploadedFile | undefined
  const cleanup = async () => {
    if (file) await rm(file.path, { force: true })
  }
  try {
    for await (const part of req.parts()) {
      if (part.type === 'file') {
        if (part.fieldname !== 'file' || file) {
          // A form's file row with no file chosen (no name, no bytes) is an absent field, wherever it is.
          if (part.filename === '' && (await byteCount(part.file)) === 0) continue
          part.file.resume()
          throw part.fieldname === 'file' ? invalid('file', 'is sent twice; send one file part') : invalid(part.fieldname, 'is not an accepted file field; name the file part "file"')
        }
        const path = opts.tmpPath()
        const hash = createHash('sha256')
        let size = 0
        const meter = new Transform({
          transform(chunk: Buffer, _e, cb) {
            hash.update(chunk)
            size += chunk.length
            cb(null, chunk)
          }
        })
        file = { path, filename: part.filename || 'file', size: 0, sha256: '', declaredMimetype: part.mimetype }
        await pipeline(part.file, meter, createWriteStream(path, { mode: 0o600 }))
        file.size = size
        file.sha256 = hash.digest('hex')
        if (size === 0 && part.filename === '') {
          await cleanup()
          file = undefined
        }
      } else {
        const value = String(part.value)
        if (value === '' && !required.has(part.fieldname)) continue
        fields[part.fieldname] = value
      }
    }
  } catch (err) {
    await cleanup()
    throw malformed(err)
  }
  const validate = strictAjv.compile(schema)
  if (!validate(fields)) {
    await cleanup()
    throw validationError(ajvProblems(validate.errors ?? []))
  }
  if (opts.requireFile && (!file || file.size === 0)) {
    await cleanup()
    throw invalid('file', file ? 'is empty' : 'is required (a multipart part named file)')
  }
  return { fields: fields as Static<S>, file, cleanup }
}
