/**
 * Reading the message log (docs/design.md §7): entries of an instance or a chat, and
 * the file of an inbound media message, fetched on demand through the channel.
 */
import { ChannelError, type DownloadedMedia } from '../../channel/types'
import type { MessageLog } from '../../store/message-log'
import type { Instance, LoggedMessage, MessageLogRecord } from '../../../shared/schemas/records'
import { AppError, conflict, notFound } from '../errors'
import type { SessionManager } from '../session-manager'
import { resolveChat } from './outbound'
import { previewDataUrl } from '../../media/image-info'

export interface LogQuery {
  chatId?: string
  limit?: number
  before?: number
}

export class MessageQueries {
  constructor(
    private readonly log: MessageLog,
    private readonly sessions: SessionManager
  ) {}

  /** Log entries of an instance, oldest first (docs/design.md §7); `chatId` as the API takes it. */
  async list(inst: Pick<Instance, '_id'>, query: LogQuery): Promise<LoggedMessage[]> {
    const chatId = query.chatId !== undefined ? resolveChat(query.chatId) : undefined
    return this.log.list(inst._id, { chatId, limit: query.limit, before: query.before })
  }

  /**
   * The bytes of an inbound media message, downloaded on demand through the channel. 404 when the
   * message is not in the log, has no media, or the network no longer has it; 409 when not started.
   */
  async inboundMedia(inst: Pick<Instance, '_id' | 'settings'>, messageId: string): Promise<DownloadedMedia> {
    const logged = await this.log.find(inst._id, messageId)
    if (!logged) throw notFound('Message')
    if (!logged.media) throw new AppError('NOT_FOUND', 'That message has no media.')
    const session = this.sessions.get(inst._id)
    if (!session?.downloadMedia) throw conflict(`The instance is not started (status ${inst.settings.status}); media is fetched through its connection.`)
    try {
      return await session.downloadMedia(messageId)
    } catch (err) {
      if (err instanceof ChannelError && err.code === 'MEDIA_UNAVAILABLE') throw new AppError('NOT_FOUND', err.message)
      throw err
    }
  }

  /**
   * A preview of an inbound image or sticker for the desk (a JPEG data URL, ≤ 320 px wide); null for
   * other media or bytes that are not an image. Errors as {@link inboundMedia}.
   */
  async preview(inst: Pick<Instance, '_id' | 'settings'>, messageId: string): Promise<{ dataUrl: string | null }> {
    const logged = await this.log.find(inst._id, messageId)
    if (!logged?.media?.mimetype.startsWith('image/')) return { dataUrl: null }
    const media = await this.inboundMedia(inst, messageId)
    return { dataUrl: await previewDataUrl(media.data) }
  }

  /**
   * The log of `instanceIds` in the original service's shape (issue 14 §6): newest first, page `page`
   * (from 1) of `limit` entries, and how many there are in all.
   */
  async page(instanceIds: readonly string[], page: number, limit: number): Promise<{ items: MessageLogRecord[]; total: number }> {
    const all: MessageLogRecord[] = []
    for (const id of instanceIds) {
      const entries = await this.log.list(id, { limit: Number.MAX_SAFE_INTEGER })
      for (let i = entries.length - 1; i >= 0; i--) all.push(logRecord(id, entries[i]!))
    }
    // Stable: entries of one instance with the same second keep their log order (newest first).
    all.sort((a, b) => b.timestamp - a.timestamp)
    return { items: all.slice((page - 1) * limit, page * limit), total: all.length }
  }

  /** One entry of any of `instanceIds`, in the original service's shape. 404 when none has it. */
  async record(instanceIds: readonly string[], messageId: string): Promise<MessageLogRecord> {
    for (const id of instanceIds) {
      const m = await this.log.find(id, messageId)
      if (m) return logRecord(id, m)
    }
    throw notFound('Message')
  }
}

/** A log entry as `/message-log` answers it: `_id` for `id`, the instance, an ISO time. */
function logRecord(instanceId: string, { id, ...m }: LoggedMessage): MessageLogRecord {
  return { _id: id, instance_id: instanceId, ...m, createdAt: new Date(m.timestamp).toISOString() }
}
