/**
 * The inbox (docs/design.md §15): the conversations of every instance, read marks with
 * WhatsApp read receipts, resolve and reopen. Each chat's row (last message, unread count, read mark,
 * resolve) is kept by the message log in the same transaction as its messages
 * (store/repos/conversation-index.ts), so listing never reads the history; an inbound message costs
 * a write here only when it reopens a resolved chat.
 */
import type { Clock } from '../../clock'
import type { Logger } from '../../logger'
import type { CoreEventBus, CoreEvents } from '../../events'
import type { ConversationFilter, Repositories, Stored } from '../../store/repos'
import type { Contact, Instance, LoggedMessage } from '../../../shared/schemas/records'
import type { ConversationT } from '../../../shared/operations/results'
import { AppError, invalid } from '../../errors'
import { contactKeyOf } from '../contacts/contact-number'
import type { HandoffService } from '../handoff-service'
import type { SessionManager } from '../instances/session-manager'
import type { ContactService } from '../contacts/contact-service'

export type { ConversationFilter } from '../../store/repos'

export interface InboxDeps {
  repos: Pick<Repositories, 'conversations'>
  handoff: Pick<HandoffService, 'resume'>
  sessions: Pick<SessionManager, 'get'>
  contacts?: Pick<ContactService, 'setLabels'>
  events: CoreEventBus
  clock: Clock
  logger: Logger
}

export type DeskActor = 'desk' | 'api'

export class InboxService {
  constructor(private readonly deps: InboxDeps) {}

  /** Follows inbound messages: a customer writing to a resolved chat reopens it. */
  start(): () => void {
    return this.deps.events.onDurable('message', (e) => this.onMessage(e))
  }

  /** Conversations of `instances` (newest activity first, at most `limit`, default 100) after `filter`. */
  async list(instances: readonly Pick<Instance, '_id'>[], filter: ConversationFilter & { limit?: number } = {}): Promise<ConversationT[]> {
    const { limit = 100, ...rest } = filter
    return this.deps.repos.conversations.list(
      instances.map((i) => i._id),
      rest,
      limit,
      this.deps.clock.now()
    )
  }

  /** One conversation; 404 when the chat has no messages. */
  async get(instanceId: string, chatId: string): Promise<ConversationT> {
    const row = await this.deps.repos.conversations.get(instanceId, chatId, this.deps.clock.now())
    if (!row) throw noConversation()
    return row
  }

  /**
   * Puts `labels` on a conversation: on its customer's contact (made with the chat's push name when
   * there is none), keyed by their number, or by the LID of a customer WhatsApp gives no number for
   * (docs/baileys.md "Usernames"). 400 for a group or a chat with neither; 404 with no messages.
   */
  async setLabels(inst: Pick<Instance, '_id' | 'user_id'>, chatId: string, labels: string[]): Promise<Stored<Contact>> {
    const conversation = await this.get(inst._id, chatId)
    const key = conversation.phone ?? (chatId.endsWith('@lid') ? contactKeyOf(chatId) : undefined)
    if (!key || conversation.is_group || !this.deps.contacts) throw invalid('chatId', 'must be a 1:1 chat with a known phone number or LID (labels go on the customer’s contact)')
    return this.deps.contacts.setLabels(inst, key, conversation.name ?? (conversation.username ? `@${conversation.username}` : null), labels)
  }

  /**
   * Marks the chat read up to its newest message and sends read receipts for the customer's messages
   * not marked before. Answers how many were newly read and whether the receipts went out (false when
   * the instance is not connected; the mark stands). 404 when the chat has no messages.
   */
  async markRead(instanceId: string, chatId: string, by: DeskActor): Promise<{ chatId: string; read: number; receipts: boolean }> {
    const unread = await this.deps.repos.conversations.markRead(instanceId, chatId)
    if (!unread) throw noConversation()
    const receipts = await this.sendReceipts(instanceId, unread)
    this.deps.events.emit('chatStatus', { instanceId, chatId, status: 'read', by })
    return { chatId, read: unread.length, receipts }
  }

  /** Resolves the chat and hands it back to the bot (a hand-off pause ends). 404 when it has no messages. */
  async resolve(instanceId: string, chatId: string, by: DeskActor): Promise<ConversationT> {
    if (!(await this.deps.repos.conversations.setResolved(instanceId, chatId, this.deps.clock.now()))) throw noConversation()
    await this.deps.handoff.resume(instanceId, chatId)
    this.deps.events.emit('chatStatus', { instanceId, chatId, status: 'resolved', by })
    return this.get(instanceId, chatId)
  }

  /** Opens a resolved chat again. 404 when it has no messages. */
  async reopen(instanceId: string, chatId: string, by: DeskActor): Promise<ConversationT> {
    const wasResolved = await this.deps.repos.conversations.isResolved(instanceId, chatId)
    if (!(await this.deps.repos.conversations.setResolved(instanceId, chatId, null))) throw noConversation()
    if (wasResolved) this.deps.events.emit('chatStatus', { instanceId, chatId, status: 'open', by })
    return this.get(instanceId, chatId)
  }

  private async sendReceipts(instanceId: string, unread: LoggedMessage[]): Promise<boolean> {
    const session = this.deps.sessions.get(instanceId)
    if (!session) return false
    try {
      await session.markRead(unread.map((m) => ({ id: m.id, chatId: m.chatId, ...(m.chatId.endsWith('@g.us') && m.senderId ? { participant: m.senderId } : {}) })))
      return true
    } catch (err) {
      this.deps.logger.warn({ err, instanceId }, 'could not send read receipts')
      return false
    }
  }

  /** A customer writing after a resolve reopens the chat, before the message is answered. */
  private async onMessage({ instanceId, message }: CoreEvents['message']): Promise<void> {
    if (message.source !== 'inbound') return
    try {
      const resolvedAt = await this.deps.repos.conversations.resolvedAt(instanceId, message.chatId)
      if (resolvedAt === null || message.timestamp <= resolvedAt) return
      await this.deps.repos.conversations.setResolved(instanceId, message.chatId, null)
      this.deps.events.emit('chatStatus', { instanceId, chatId: message.chatId, status: 'open', by: 'customer' })
    } catch (err) {
      this.deps.logger.warn({ err, instanceId }, 'could not reopen a resolved chat')
    }
  }
}

const noConversation = (): AppError => new AppError('NOT_FOUND', 'There are no messages with this chat.')
