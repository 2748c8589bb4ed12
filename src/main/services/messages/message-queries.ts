/**
 * Reading the message log (docs/design.md §7, §20): pages of an instance's or a chat's entries, search,
 * and the file of an inbound media message (downloaded through the channel once, then kept).
 */
import { ChannelError, type DownloadedMedia } from '../../channel/types'
import { UnknownCursorError, type Cursor, type MessageHit } from '../../store/repos'
import type { MessageRepo } from '../../store/repos/message-repo'
import type { Instance, LoggedMessage, MessageLogRecord } from '../../../shared/schemas/records'
import { AppError, conflict, invalid, notFound } from '../../errors'
import type { SessionManager } from '../instances/session-manager'
import { resolveChat } from './outbound'
import { previewDataUrl } from '../../media/image-info'
import type { MediaFiles } from './media-files'

export interface LogQuery {
  chatId?: string
  limit?: number
  /** An entry's id (older entries), or epoch ms (older scripts). */
  before?: string | number
  /** An entry's id (newer entries), or epoch ms. */
  after?: string | number
  /** Search: entries whose text, sender name or number contain every term, newest first. */
  q?: string
}

export class MessageQueries {
  constructor(
    private readonly log: Pick<MessageRepo, 'list' | 'find' | 'findIn' | 'search' | 'logPage'>,
    private readonly sessions: SessionManager,
    private readonly media: MediaFiles
  ) {}

  /**
   * Log entries of an instance (docs/design.md §7): oldest first, a page before or after a cursor;
   * with `q`, the matches newest first with a snippet (docs/design.md §20). `chatId` as the API takes
   * it. 400 for a cursor that names no entry of the instance.
   */
  async list(inst: Pick<Instance, '_id'>, query: LogQuery): Promise<Array<LoggedMessage | MessageHit>> {
    const chatId = query.chatId !== undefined ? resolveChat(query.chatId) : undefined
    if (query.q?.trim()) {
      if (query.after !== undefined) throw invalid('after', 'cannot be used with q (search pages go back in time with before)')
      const before = query.before === undefined ? undefined : await this.entryId(inst, query.before, 'before')
      return this.cursorErrors(() => this.log.search(inst._id, { q: query.q!, chatId, before, limit: query.limit }), 'before')
    }
    const before = query.before === undefined ? undefined : await this.cursor(inst, query.before, 'before')
    const after = query.after === undefined ? undefined : await this.cursor(inst, query.after, 'after')
    return this.log.list(inst._id, { chatId, before, after, limit: query.limit })
  }

  /** A cursor value as the repository takes it: an entry's id when the instance has one, else a number as epoch ms. */
  private async cursor(inst: Pick<Instance, '_id'>, value: string | number, field: string): Promise<Cursor> {
    if (typeof value === 'number') return { time: value }
    if (await this.log.find(inst._id, value)) return { id: value }
    if (/^\d+$/.test(value)) return { time: Number(value) }
    throw invalid(field, 'names no message of this instance (give an entry’s id, or a time in epoch ms)')
  }

  /** An entry id for a search cursor (search pages by entry, not by time). */
  private async entryId(inst: Pick<Instance, '_id'>, value: string | number, field: string): Promise<string> {
    if (typeof value === 'string' && (await this.log.find(inst._id, value))) return value
    throw invalid(field, 'names no message of this instance (search pages take the id of the last entry of the previous page)')
  }

  private async cursorErrors<T>(run: () => Promise<T>, field: string): Promise<T> {
    try {
      return await run()
    } catch (err) {
      if (err instanceof UnknownCursorError) throw invalid(field, 'names no message of this instance')
      throw err
    }
  }

  /**
   * The bytes of an inbound media message: the copy kept in the data dir (`media/<instance>/<id>`),
   * else downloaded through the channel once and kept (a media retention period drops the copies).
   * 404 when the message is not in the log, has no media, or the network no longer has it; 409 when
   * it has to be downloaded and the instance is not started.
   */
  async inboundMedia(inst: Pick<Instance, '_id' | 'settings'>, messageId: string): Promise<DownloadedMedia> {
    const logged = await this.log.find(inst._id, messageId)
    if (!logged) throw notFound('Message')
    if (!logged.media) throw new AppError('NOT_FOUND', 'That message has no media.')
    const kept = await this.media.read(inst._id, messageId)
    if (kept) return { data: kept, mimetype: logged.media.mimetype, ...(logged.media.fileName ? { fileName: logged.media.fileName } : {}) }
    const session = this.sessions.get(inst._id)
    if (!session?.downloadMedia) throw conflict(`The instance is not started (status ${inst.settings.status}); media is fetched through its connection.`)
    let media: DownloadedMedia
    try {
      media = await session.downloadMedia(messageId)
    } catch (err) {
      if (err instanceof ChannelError && err.code === 'MEDIA_UNAVAILABLE') throw new AppError('NOT_FOUND', err.message)
      throw err
    }
    // Kept for the next time; a copy that cannot be written (a full disk) only costs a download later.
    await this.media.write(inst._id, messageId, media.data).catch(() => {})
    return media
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
   * The log of `instanceIds` in the original service's shape (docs/design.md §17): newest first, page `page`
   * (from 1) of `limit` entries, and how many there are in all.
   */
  async page(instanceIds: readonly string[], page: number, limit: number): Promise<{ items: MessageLogRecord[]; total: number }> {
    const { items, total } = await this.log.logPage(instanceIds, page, limit)
    return { items: items.map((e) => logRecord(e.instanceId, e.message)), total }
  }

  /** One entry of any of `instanceIds` (the first that has it, in their order), in the original service's shape. 404 when none has it. */
  async record(instanceIds: readonly string[], messageId: string): Promise<MessageLogRecord> {
    const [first, ...rest] = instanceIds
    const own = first === undefined ? undefined : await this.log.find(first, messageId)
    const hit = own ? { instanceId: first!, message: own } : await this.log.findIn(rest, messageId)
    if (!hit) throw notFound('Message')
    return logRecord(hit.instanceId, hit.message)
  }
}

/** A log entry as `/message-log` answers it: `_id` for `id`, the instance, an ISO time. */
function logRecord(instanceId: string, { id, ...m }: LoggedMessage): MessageLogRecord {
  return { _id: id, instance_id: instanceId, ...m, createdAt: new Date(m.timestamp).toISOString() }
}
