/**
 * Attachments (docs/design.md §8): files stored under the data dir (or the shared `CHATAPP_MEDIA_DIR`,
 * docs/deploy.md), owned by one instance, named by id in intent/survey actions and in the text send's
 * `attachments`. The MIME type is read from the bytes. Uploads arrive as a file in the data dir's tmp
 * folder (HTTP multipart) or as bytes (the UI), and are moved into the store whole
 * (../store/shared-files.ts: a copy beside the destination when the store is on another disk).
 */
import { tooLarge } from './too-large'
import { createHash } from 'node:crypto'
import { access, rm, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import type { MediaSource } from '../channel/types'
import { isoNow, type Clock } from '../clock'
import type { CoreEventBus } from '../events'
import { newObjectId } from '../ids'
import { detectMimeType } from '../media/media-inspect'
import type { Repositories, Stored } from '../store/repos'
import { moveFileInto } from '../store/shared-files'
import type { Attachment, InstanceRef } from '../../shared/schemas/records'
import { AppError, invalid, notFound } from '../errors'

/** A finished upload in the data dir's tmp folder. */
export interface UploadedFile {
  path: string
  filename: string
  /** Bytes. */
  size: number
  /** Hex. */
  sha256: string
  declaredMimetype?: string
}

export interface AttachmentServiceDeps {
  repos: Repositories
  events: CoreEventBus
  clock: Clock
  /** Where the bytes live, and where uploads in progress are written. */
  dir: string
  tmpDir: string
  /** Largest file (bytes). */
  maxBytes: number
}

export class AttachmentService {
  constructor(private readonly deps: AttachmentServiceDeps) {}

  list(inst: InstanceRef): Promise<Stored<Attachment>[]> {
    return this.deps.repos.attachments.ofInstance(inst._id)
  }

  /** One attachment of the instance, or undefined. */
  find(inst: InstanceRef, id: string): Promise<Stored<Attachment> | undefined> {
    return this.deps.repos.attachments.owned(inst._id, id)
  }

  /** One attachment of the instance; 404 when unknown. */
  async get(inst: InstanceRef, id: string): Promise<Stored<Attachment>> {
    const a = await this.deps.repos.attachments.owned(inst._id, id)
    if (!a) throw notFound('Attachment')
    return a
  }

  /** Path of the stored bytes. */
  filePath(id: string): string {
    return join(this.deps.dir, id)
  }

  /**
   * The stored file of `a`, to send or serve. 404 naming the attachment when its bytes are not in this
   * worker's attachments folder: in database mode without a shared `CHATAPP_MEDIA_DIR`, only the worker
   * that stored it has them (docs/deploy.md "A shared media folder").
   */
  async source(a: Stored<Attachment>): Promise<MediaSource> {
    const path = this.filePath(a._id)
    try {
      await access(path)
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err
      throw new AppError(
        'NOT_FOUND',
        `The file of attachment ${a.filename} (${a._id}) is not in this worker's attachments folder. With several workers, CHATAPP_MEDIA_DIR must name a folder every worker mounts.`
      )
    }
    return { path, mimetype: a.mimetype, size: a.size, fileName: a.filename }
  }

  /** A path in the tmp folder for an upload in progress. */
  tmpPath(prefix: string): string {
    return join(this.deps.tmpDir, `${prefix}-${newObjectId()}`)
  }

  /** Moves an upload into the store and records it. */
  async create(inst: InstanceRef, upload: UploadedFile): Promise<Stored<Attachment>> {
    const id = newObjectId()
    const mimetype = await detectMimeType(upload.path, upload.filename, upload.declaredMimetype)
    await moveFileInto(upload.path, this.filePath(id))
    try {
      const record = await this.deps.repos.attachments.put({
        _id: id,
        client_id: inst.user_id,
        instance_id: inst._id,
        filename: upload.filename,
        mimetype,
        size: upload.size,
        sha256: upload.sha256,
        createdAt: isoNow(this.deps.clock)
      })
      this.deps.events.emit('changed', { instanceId: inst._id, what: 'attachments' })
      return record
    } catch (err) {
      // Not recorded: the bytes must not stay behind.
      await rm(this.filePath(id), { force: true })
      throw err
    }
  }

  /** Stores a file given as bytes (the UI sends base64); 400 when empty, 413 over the limit. */
  async createFromBytes(inst: InstanceRef, file: { filename: string; mimetype?: string; bytes: Buffer }): Promise<Stored<Attachment>> {
    if (file.bytes.length === 0) throw invalid('dataBase64', 'must hold the file (it is empty)')
    if (file.bytes.length > this.deps.maxBytes) throw tooLarge('The file', this.deps.maxBytes, 'CHATAPP_MAX_FILE_MB')
    const path = this.tmpPath('ui')
    await writeFile(path, file.bytes, { mode: 0o600 })
    try {
      const sha256 = createHash('sha256').update(file.bytes).digest('hex')
      return await this.create(inst, { path, filename: file.filename, size: file.bytes.length, sha256, declaredMimetype: file.mimetype })
    } finally {
      await rm(path, { force: true })
    }
  }

  async delete(inst: InstanceRef, id: string): Promise<void> {
    await this.get(inst, id)
    await this.deps.repos.attachments.remove(id)
    await rm(this.filePath(id), { force: true })
    this.deps.events.emit('changed', { instanceId: inst._id, what: 'attachments' })
  }
}
