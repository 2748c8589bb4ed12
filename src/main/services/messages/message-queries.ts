/**
 * Reading the message log (docs/design.md §7): entries of an instance or a chat, the list of chats, and
 * the file of an inbound media message, fetched on demand through the channel.
 */
import { ChannelError, type DownloadedMedia } from '../../channel/types'
import type { MessageLog } from '../../store/message-log'
import type { Instance, LoggedMessage } from '../../../shared/schemas/records'
import type { ChatSummary } from '../../../shared/contract'
import { AppError, conflict, notFound } from '../errors'
import type { SessionManager } from '../session-manager'
import { summariseChats } from './chat-summary'
import { resolveChat } from './outbound'

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

  /** One row per chat, most recent first. */
  async chats(inst: Pick<Instance, '_id'>): Promise<ChatSummary[]> {
    return summariseChats(await this.log.list(inst._id, { limit: Number.MAX_SAFE_INTEGER }))
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
}
