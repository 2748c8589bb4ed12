/**
 * The phone's history in the message log (docs/design.md §7, docs/baileys.md "History from the
 * phone"): what a channel receives as history (a history sync after a link, or the phone's answer to
 * a request for older messages) is stored once, by message id — what the log already holds (live
 * messages, an earlier sync, an earlier request) is left as it is; it never counts as unread, never
 * reaches the bot and sends no webhook (it is not news). And the request itself: older messages of
 * one chat, asked of the phone from the oldest message the log holds of it.
 */
import type { HistoryBatch } from '../../channel/types'
import type { CoreEventBus } from '../../events'
import type { Logger } from '../../logger'
import type { Repositories } from '../../store/repos'
import type { Instance } from '../../../shared/schemas/records'
import { conflict, invalid } from '../../errors'
import { loggedEntryOf } from '../inbound-pipeline'
import { resolveChat } from '../messages/outbound'
import { HISTORY_FETCH_MAX } from '../../../shared/domain/phone-history'
import type { SessionManager } from '../instances/session-manager'


/** What `POST /chatapp/messages/fetch-history` answers. */
export interface PhoneHistoryResult {
  chatId: string
  /** How many older messages were asked for. */
  requested: number
  /** The message the request started from: the oldest the log held of the chat. */
  anchor_id: string
  /** The request's message id (the phone names it in its answer). */
  request_id: string
  /** The phone answered within the wait (else its answer is stored whenever it comes). */
  answered: boolean
  /** Messages the answer held. */
  received: number
  /** Of those, the ones the log did not have yet. */
  stored: number
}

export interface PhoneHistoryDeps {
  repos: Pick<Repositories, 'instances' | 'messages'>
  sessions: Pick<SessionManager, 'get'>
  events: CoreEventBus
  logger: Logger
}

export class PhoneHistoryService {
  private readonly queues = new Map<string, Promise<unknown>>()

  constructor(private readonly deps: PhoneHistoryDeps) {}

  /**
   * Stores a history batch of an instance's channel (ChannelHooks.onHistory): each message whose id
   * the log does not have, in one transaction; answers how many were new. Batches of an instance are
   * stored one after another. Never rejects (a failure is logged and counts as nothing stored).
   */
  store(instanceId: string, batch: HistoryBatch): Promise<{ added: number }> {
    const previous = this.queues.get(instanceId) ?? Promise.resolve()
    const next = previous.then(() => this.write(instanceId, batch))
    const tail = next.catch((err: unknown) => {
      this.deps.logger.error({ err, instanceId, kind: batch.kind }, 'could not store history from the phone')
      return { added: 0 }
    })
    this.queues.set(instanceId, tail)
    void tail.then(() => this.queues.get(instanceId) === tail && this.queues.delete(instanceId))
    return tail
  }

  /**
   * Asks the phone of `inst` for up to `count` (1–50, default 50) messages of `chatId` older than the
   * oldest one the log holds of it, and waits (bounded, the channel's) for the answer to be stored.
   * 400 when the chat has no message to start from (the request names one: Baileys
   * `fetchMessageHistory(count, oldestMsgKey, oldestMsgTimestamp)`); 409 on the sandbox (no phone)
   * and when the instance is not connected.
   */
  async fetch(inst: Pick<Instance, '_id' | 'settings'>, input: { chatId: string; count?: number }): Promise<PhoneHistoryResult> {
    const chatId = resolveChat(input.chatId)
    const count = input.count ?? HISTORY_FETCH_MAX
    if (inst.settings.channel === 'sandbox') {
      throw conflict('The sandbox has no phone to load older messages from: this works on a WhatsApp instance.')
    }
    const session = this.deps.sessions.get(inst._id)
    if (!session?.fetchHistory || inst.settings.status !== 'CONNECTED') {
      throw conflict(`The instance is not connected (status ${inst.settings.status}); older messages come from the phone through its connection.`)
    }
    const anchor = await this.deps.repos.messages.oldestDelivered(inst._id, chatId)
    if (!anchor) throw invalid('chatId', 'has no message in this chat to start from: older messages are asked for from the oldest one held')
    const result = await session.fetchHistory(
      { chatId, id: anchor.id, fromMe: anchor.fromMe, timestamp: anchor.timestamp, ...(chatId.endsWith('@g.us') && anchor.senderId ? { participant: anchor.senderId } : {}) },
      count
    )
    return { chatId, requested: count, anchor_id: anchor.id, request_id: result.requestId, answered: result.answered, received: result.received, stored: result.added }
  }

  private async write(instanceId: string, batch: HistoryBatch): Promise<{ added: number }> {
    if (!this.deps.repos.instances.find(instanceId)) return { added: 0 }
    const entries = batch.messages.filter((m) => m.type !== 'undecryptable').map(loggedEntryOf)
    const added = await this.deps.repos.messages.appendMany(instanceId, entries, { history: true })
    const chatIds = [...new Set(entries.map((e) => e.chatId))]
    this.deps.events.emit('history', { instanceId, kind: batch.kind, ...(batch.requestId ? { requestId: batch.requestId } : {}), received: entries.length, added, chatIds })
    return { added }
  }
}
