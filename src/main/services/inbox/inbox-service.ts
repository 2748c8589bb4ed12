/**
 * The inbox (issue 13 §1, docs/design.md §15): the conversations of every instance, read marks with
 * WhatsApp read receipts, resolve and reopen. Conversations are derived from the message log; only
 * the desk's read mark and resolve are stored (`chatStates`, runtime store), so an inbound message
 * costs no write here unless it reopens a resolved chat.
 */
import type { Clock } from '../../clock'
import type { Logger } from '../../logger'
import type { CoreEventBus, CoreEvents } from '../../events'
import type { Repositories, Stored } from '../../store/repos'
import type { ChatPause, ChatState, Contact, Instance, LoggedMessage } from '../../../shared/schemas/records'
import type { ConversationT } from '../../../shared/operations/results'
import { AppError, invalid } from '../errors'
import type { HandoffService } from '../handoff-service'
import type { SessionManager } from '../session-manager'
import type { ContactService } from '../contacts/contact-service'
import { listConversations, type ContactView, type ConversationFilter } from './conversation-list'

export interface InboxDeps {
  repos: Pick<Repositories, 'chatStates' | 'messages'>
  handoff: HandoffService
  sessions: Pick<SessionManager, 'get'>
  contacts?: Pick<ContactService, 'byNumber' | 'setLabels'>
  events: CoreEventBus
  clock: Clock
  logger: Logger
}

export type DeskActor = 'desk' | 'api'

/** Every kept entry of an instance's log (the log holds the newest N). */
const ALL = Number.MAX_SAFE_INTEGER

export class InboxService {
  constructor(private readonly deps: InboxDeps) {}

  /** Follows inbound messages: a customer writing to a resolved chat reopens it (before the message is answered). */
  start(): () => void {
    const offs = [
      this.deps.events.onDurable('message', (e) => this.onMessage(e)),
      this.deps.events.on('chatMerged', (e) => {
        this.rekey(e.instanceId, e.from, e.to).catch((err: unknown) => this.deps.logger.warn({ err }, 'could not move the chat state of a merged chat'))
      })
    ]
    return () => offs.forEach((off) => off())
  }

  /**
   * Conversations of `instances` (newest activity first, at most `limit`, default 100) after `filter`.
   */
  async list(instances: readonly Pick<Instance, '_id'>[], filter: ConversationFilter & { limit?: number } = {}): Promise<ConversationT[]> {
    const all: ConversationT[] = []
    for (const inst of instances) all.push(...(await this.ofInstance(inst._id, filter)))
    // Stable: within one instance the list is already in order (ties by log position).
    return all.sort((a, b) => b.last.timestamp - a.last.timestamp).slice(0, filter.limit ?? 100)
  }

  /** One conversation; 404 when the chat has no kept messages. */
  async get(instanceId: string, chatId: string): Promise<ConversationT> {
    const entries = await this.deps.repos.messages.list(instanceId, { chatId, limit: ALL })
    const [row] = listConversations(instanceId, entries, this.states(instanceId), this.pauses(instanceId), {}, this.contactOf(instanceId))
    if (!row) throw noConversation()
    return row
  }

  /**
   * Puts `labels` on a conversation: on its customer's contact (made with the chat's push name when
   * there is none). 400 for a group or a chat whose phone number is not known; 404 with no messages.
   */
  async setLabels(inst: Pick<Instance, '_id' | 'user_id'>, chatId: string, labels: string[]): Promise<Stored<Contact>> {
    const conversation = await this.get(inst._id, chatId)
    if (!conversation.phone || conversation.is_group || !this.deps.contacts) throw invalid('chatId', 'must be a 1:1 chat with a known phone number (labels go on the customer’s contact)')
    return this.deps.contacts.setLabels(inst, conversation.phone, conversation.name, labels)
  }

  /**
   * Marks the chat read up to its newest message and sends read receipts for the customer's messages
   * not marked before. Answers how many were newly read and whether the receipts went out (false when
   * the instance is not connected; the mark stands). 404 when the chat has no kept messages.
   */
  async markRead(instanceId: string, chatId: string, by: DeskActor): Promise<{ chatId: string; read: number; receipts: boolean }> {
    const entries = await this.deps.repos.messages.list(instanceId, { chatId, limit: ALL })
    if (entries.length === 0) throw noConversation()
    const state = this.state(instanceId, chatId)
    const unread = entries.filter((m) => m.source === 'inbound' && m.type !== 'undecryptable' && m.timestamp > state.read_until)
    const newest = Math.max(...entries.map((m) => m.timestamp))
    if (newest > state.read_until) await this.deps.repos.chatStates.put({ ...state, read_until: newest })
    const receipts = await this.sendReceipts(instanceId, unread)
    this.deps.events.emit('chatStatus', { instanceId, chatId, status: 'read', by })
    return { chatId, read: unread.length, receipts }
  }

  /** Resolves the chat and hands it back to the bot (a hand-off pause ends). 404 when it has no kept messages. */
  async resolve(instanceId: string, chatId: string, by: DeskActor): Promise<ConversationT> {
    await this.get(instanceId, chatId)
    await this.deps.repos.chatStates.put({ ...this.state(instanceId, chatId), resolved_at: this.deps.clock.now() })
    await this.deps.handoff.resume(instanceId, chatId)
    this.deps.events.emit('chatStatus', { instanceId, chatId, status: 'resolved', by })
    return this.get(instanceId, chatId)
  }

  /** Opens a resolved chat again. 404 when it has no kept messages. */
  async reopen(instanceId: string, chatId: string, by: DeskActor): Promise<ConversationT> {
    await this.get(instanceId, chatId)
    const state = this.state(instanceId, chatId)
    if (state.resolved_at !== null) {
      await this.deps.repos.chatStates.put({ ...state, resolved_at: null })
      this.deps.events.emit('chatStatus', { instanceId, chatId, status: 'open', by })
    }
    return this.get(instanceId, chatId)
  }

  private async ofInstance(instanceId: string, filter: ConversationFilter): Promise<ConversationT[]> {
    const entries = await this.deps.repos.messages.list(instanceId, { limit: ALL })
    return listConversations(instanceId, entries, this.states(instanceId), this.pauses(instanceId), filter, this.contactOf(instanceId))
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

  private async onMessage({ instanceId, message }: CoreEvents['message']): Promise<void> {
    if (message.source !== 'inbound') return
    const state = this.deps.repos.chatStates.find(stateId(instanceId, message.chatId))
    if (!state || state.resolved_at === null || message.timestamp <= state.resolved_at) return
    await this.deps.repos.chatStates.put({ ...state, resolved_at: null })
    this.deps.events.emit('chatStatus', { instanceId, chatId: message.chatId, status: 'open', by: 'customer' })
  }

  private async rekey(instanceId: string, from: string, to: string): Promise<void> {
    const old = this.deps.repos.chatStates.find(stateId(instanceId, from))
    if (!old) return
    const target = this.state(instanceId, to)
    await this.deps.repos.chatStates.put({ ...target, read_until: Math.max(target.read_until, old.read_until), resolved_at: target.resolved_at ?? old.resolved_at })
    await this.deps.repos.chatStates.remove(old._id)
  }

  private contactOf(instanceId: string): (number: string) => ContactView | undefined {
    return (number) => this.deps.contacts?.byNumber(instanceId, number)
  }

  private state(instanceId: string, chatId: string): ChatState {
    return this.deps.repos.chatStates.find(stateId(instanceId, chatId)) ?? { _id: stateId(instanceId, chatId), instance_id: instanceId, chatId, read_until: 0, resolved_at: null }
  }

  private states(instanceId: string): Map<string, ChatState> {
    return new Map(this.deps.repos.chatStates.where((s) => s.instance_id === instanceId).map((s) => [s.chatId, s]))
  }

  private pauses(instanceId: string): Map<string, ChatPause> {
    return new Map(this.deps.handoff.list(instanceId).map((p) => [p.chatId, p]))
  }
}

const noConversation = (): AppError => new AppError('NOT_FOUND', 'There are no messages with this chat.')

function stateId(instanceId: string, chatId: string): string {
  return `${instanceId}:${chatId}`
}
