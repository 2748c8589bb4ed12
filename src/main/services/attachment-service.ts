/**
 * Attachments (DESIGN.md §8): files stored under the data dir, owned by one instance, named by id in
 * intent/survey actions and in the text send's `attachments`. The MIME type is read from the bytes.
 */
import { rename, rm } from 'node:fs/promises'
import { join } from 'node:path'
import type { CoreEventBus } from '../events'
import { newObjectId } from '../ids'
import { detectMimeType } from '../media/media-inspect'
import type { Storage } from '../store/storage'
import type { Attachment, Instance } from '../../shared/schemas/records'
import type { DeleteResult } from '../../shared/schemas/operations'
import { notFound } from './errors'

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
  storage: Storage
  events: CoreEventBus
}

export class AttachmentService {
  constructor(private readonly deps: AttachmentServiceDeps) {}

  private get data() {
    return this.deps.storage.config.data
  }

  list(inst: Instance): Attachment[] {
    return this.data.attachments.filter((a) => a.instance_id === inst._id)
  }

  get(inst: Instance, id: string): Attachment {
    const a = this.data.attachments.find((x) => x._id === id && x.instance_id === inst._id)
    if (!a) throw notFound('Attachment')
    return a
  }

  /** Path of the stored bytes. */
  filePath(id: string): string {
    return join(this.deps.storage.paths.attachments, id)
  }

  /** Moves an upload into the store and records it. */
  async create(inst: Instance, upload: UploadedFile): Promise<Attachment> {
    const id = newObjectId()
    const mimetype = await detectMimeType(upload.path, upload.filename, upload.declaredMimetype)
    await rename(upload.path, this.filePath(id))
    const record: Attachment = {
      _id: id,
      client_id: inst.user_id,
      instance_id: inst._id,
      filename: upload.filename,
      mimetype,
      size: upload.size,
      sha256: upload.sha256,
      createdAt: new Date().toISOString()
    }
    await this.deps.storage.config.update((d) => {
      d.attachments.push(record)
    })
    this.deps.events.emit('changed', { instanceId: inst._id, what: 'attachments' })
    return record
  }

  async delete(inst: Instance, id: string): Promise<DeleteResult> {
    this.get(inst, id)
    await this.deps.storage.config.update((d) => {
      d.attachments = d.attachments.filter((a) => a._id !== id)
    })
    await rm(this.filePath(id), { force: true })
    this.deps.events.emit('changed', { instanceId: inst._id, what: 'attachments' })
    return { n: 1, ok: 1, deletedCount: 1 }
  }
}
