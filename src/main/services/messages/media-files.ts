/**
 * The inbound media kept in the data dir (`media/<instanceId>/<messageId>`; or in the shared
 * `CHATAPP_MEDIA_DIR`, docs/deploy.md, written whole: ../../store/shared-files.ts): a file downloaded once
 * through the channel is served from here afterwards, and a media retention period (docs/design.md §20 "History")
 * deletes the copies earlier than the text. The names are message ids, made safe for a file name.
 */
import { mkdir, readFile, rm, stat } from 'node:fs/promises'
import { join } from 'node:path'
import { writeFileInto } from '../../store/shared-files'

/** A message id as a file name: anything but letters, digits, `-` and `_` hex-escaped (ids are `3EB0…`, never `..`). */
function fileName(messageId: string): string {
  return messageId.replace(/[^A-Za-z0-9_-]/g, (c) => `%${c.charCodeAt(0).toString(16).padStart(2, '0')}`)
}

export class MediaFiles {
  constructor(private readonly dir: string) {}

  private path(instanceId: string, messageId: string): string {
    return join(this.dir, fileName(instanceId), fileName(messageId))
  }

  /** The kept bytes of a message's media, or null. */
  async read(instanceId: string, messageId: string): Promise<Buffer | null> {
    try {
      return await readFile(this.path(instanceId, messageId))
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null
      throw err
    }
  }

  /** Keeps a message's media (0600; the folder 0700), written whole (a reader on another worker never sees part of it). */
  async write(instanceId: string, messageId: string, data: Buffer): Promise<void> {
    await mkdir(join(this.dir, fileName(instanceId)), { recursive: true, mode: 0o700 })
    await writeFileInto(this.path(instanceId, messageId), data)
  }

  /** Deletes the kept media of these messages; answers how many files there were. */
  async remove(instanceId: string, messageIds: readonly string[]): Promise<number> {
    let removed = 0
    for (const id of messageIds) {
      const p = this.path(instanceId, id)
      const existed = await stat(p).then(() => true, () => false)
      if (!existed) continue
      await rm(p, { force: true })
      removed++
    }
    return removed
  }
}
