/**
 * Where inbound messages go (docs/design.md §6–§7, §10): every channel hands them here. Each message is
 * deduplicated by id (a reconnect can deliver the same message again); the registered handlers (the
 * bot engine) decide what to do with it; it is logged with their decision record and announced on the
 * event bus; then the handlers act (reply) while those writes are in flight. Messages of one instance are
 * processed one at a time, so a contact's answers reach a survey in the order they were sent; the next
 * one starts once the handlers have acted, while their replies may still be on their way
 * (InboundPlan.delivered: the "typing…" pause, the Signal session's commit, the log write). Changes to
 * logged messages and a LID's re-keying wait for those replies, since they act on the log.
 */
import { boundedLru } from '../lru'
import type { ChatIdentity, InboundMessage, MessageChange } from '../channel/types'
import type { CoreEventBus } from '../events'
import type { Logger } from '../logger'
import type { Repositories } from '../store/repos'
import type { BotDecisionRecord, LoggedMessage } from '../../shared/schemas/records'
import { sentByOfSource } from '../../shared/domain/sent-by'

/**
 * A consumer of inbound messages (the bot engine): it decides first — the decision record, kept in the
 * log entry as `bot` and sent with the `onMessage` webhook — then acts (replies, actions). `isNew`
 * resolves false for a message already logged (a redelivery): the handler may decide while the log is
 * being asked, but must not change anything before it knows (its plan is then dropped).
 */
export type InboundHandler = (instanceId: string, message: InboundMessage, isNew: Promise<boolean>) => Promise<InboundPlan>

/**
 * A handler's decision on a message: its record, what it does (`act`), and, when `act` leaves work
 * under way that no later decision depends on (a reply being sent and logged), `delivered` for it.
 */
export interface InboundPlan {
  record?: BotDecisionRecord
  act(): Promise<unknown>
  /** Resolves once what `act` left under way is done. Never rejects. */
  delivered?(): Promise<void>
}

/** Where changes to logged messages go (services/messages/message-changes.ts). Never rejects. */
export type ChangeHandler = (instanceId: string, change: MessageChange) => Promise<void>

/** A consumer of LID→number links (the bot's per-contact state); called once per link per instance. */
export type IdentityHandler = (instanceId: string, identity: ChatIdentity) => Promise<void>

/**
 * The log entry of a message a channel received (live, or from the phone's history): the customer's
 * are `inbound` (RECEIVED), the account's own from elsewhere `phone`; times in epoch ms.
 */
export function loggedEntryOf(message: InboundMessage): LoggedMessage {
  return {
    id: message.id,
    chatId: message.chatId,
    fromMe: message.fromMe,
    pushName: message.pushName ?? null,
    type: message.type,
    text: message.text,
    timestamp: message.timestamp * 1000,
    status: message.type === 'undecryptable' ? 'UNDECRYPTABLE' : message.fromMe ? 'SERVER_ACK' : 'RECEIVED',
    source: message.fromMe ? 'phone' : 'inbound',
    senderId: message.senderId,
    ...(message.senderPn ? { senderPn: message.senderPn } : {}),
    ...(message.senderLid ? { senderLid: message.senderLid } : {}),
    ...(message.media ? { media: message.media } : {}),
    ...(message.location ? { location: message.location } : {}),
    ...(message.poll ? { poll: { selectable: message.poll.selectable, options: message.poll.options.map((name) => ({ name, votes: 0 })), voters: [] } } : {}),
    ...(message.username ? { username: message.username } : {}),
    ...(message.fromMe ? sentByOfSource('phone') : {})
  }
}

export interface InboundPipelineDeps {
  repos: Pick<Repositories, 'instances' | 'messages'>
  events: CoreEventBus
  logger: Logger
}

export class InboundPipeline {
  private readonly handlers: InboundHandler[] = []
  private readonly identityHandlers: IdentityHandler[] = []
  private changeHandler: ChangeHandler | null = null
  private readonly queues = new Map<string, Promise<void>>()
  /** Per instance, the replies under way of messages already handled (InboundPlan.delivered). */
  private readonly delivering = new Map<string, Set<Promise<void>>>()
  /** LID→number links already applied, by `instanceId/lid`: a link is re-keyed once. */
  private readonly known = boundedLru<string, string>(10_000)

  constructor(private readonly deps: InboundPipelineDeps) {}

  /** Adds a handler; handlers run in registration order. */
  use(handler: InboundHandler): void {
    this.handlers.push(handler)
  }

  /** Adds a consumer of LID→number links. */
  useIdentity(handler: IdentityHandler): void {
    this.identityHandlers.push(handler)
  }

  /** Sets where changes to logged messages go. */
  useChanges(handler: ChangeHandler): void {
    this.changeHandler = handler
  }

  /**
   * An edit, deletion, reaction or poll vote: applied in the instance's queue, after the messages
   * that came before it (the message an edit is about is logged first). Never reaches the bot.
   * Never rejects.
   */
  change(instanceId: string, change: MessageChange): Promise<void> {
    const handler = this.changeHandler
    if (!handler) return Promise.resolve()
    return this.enqueue(instanceId, async () => {
      await this.delivered(instanceId)
      await handler(instanceId, change)
    }, { messageId: change.id, change: change.kind })
  }

  /**
   * Processes one message; resolves when every handler is done, its replies sent and logged. The
   * instance's next message is handled once this one's handlers have acted, without waiting for
   * their replies' delivery (InboundPlan.delivered). Never rejects.
   */
  process(instanceId: string, message: InboundMessage): Promise<void> {
    let delivered: Promise<void> = Promise.resolve()
    const handled = this.enqueue(instanceId, async () => {
      const plans = await this.handle(instanceId, message)
      delivered = this.track(instanceId, Promise.all(plans.map((p) => p.delivered?.() ?? Promise.resolve())).then(() => undefined))
    }, { messageId: message.id })
    return handled.then(() => delivered)
  }

  /** Keeps `delivery` among the instance's replies under way until it is done; answers it. */
  private track(instanceId: string, delivery: Promise<void>): Promise<void> {
    let set = this.delivering.get(instanceId)
    if (!set) this.delivering.set(instanceId, (set = new Set()))
    set.add(delivery)
    void delivery.then(() => {
      set.delete(delivery)
      if (set.size === 0 && this.delivering.get(instanceId) === set) this.delivering.delete(instanceId)
    })
    return delivery
  }

  /**
   * Resolves once the replies under way of the messages handled so far are sent and logged: a change
   * (a reaction to a reply) and a LID's re-keying act on the log, so they wait for those entries.
   */
  private async delivered(instanceId: string): Promise<void> {
    const set = this.delivering.get(instanceId)
    if (set) await Promise.all(set)
  }

  /**
   * Files a LID's conversation under its phone number (docs/design.md §13): the log entries of the
   * LID chat move to the number's chat, then the identity handlers move per-contact state. In the
   * instance's queue, so messages before and after the link keep their order. Never rejects.
   */
  identity(instanceId: string, identity: ChatIdentity): Promise<void> {
    const key = `${instanceId}/${identity.lid}`
    if (this.known.get(key) === identity.pn) return Promise.resolve()
    this.known.set(key, identity.pn)
    return this.enqueue(instanceId, () => this.rekey(instanceId, identity), { lid: identity.lid })
  }

  private async rekey(instanceId: string, identity: ChatIdentity): Promise<void> {
    await this.delivered(instanceId)
    const moved = await this.deps.repos.messages.rekeyChat(instanceId, identity.lid, identity.pn)
    for (const handler of this.identityHandlers) {
      try {
        await handler(instanceId, identity)
      } catch (err) {
        this.deps.logger.error({ err, instanceId, lid: identity.lid }, 'identity handler failed')
      }
    }
    if (moved > 0) {
      this.deps.logger.info({ instanceId, lid: identity.lid, pn: identity.pn, moved }, 'a LID chat is now filed under its phone number')
      this.deps.events.emit('chatMerged', { instanceId, from: identity.lid, to: identity.pn })
    }
  }

  private enqueue(instanceId: string, task: () => Promise<void>, logContext: Record<string, string>): Promise<void> {
    const previous = this.queues.get(instanceId) ?? Promise.resolve()
    const next = previous.then(task)
    const tail = next.catch((err) => this.deps.logger.error({ err, instanceId, ...logContext }, 'inbound task failed'))
    this.queues.set(instanceId, tail)
    void tail.then(() => {
      if (this.queues.get(instanceId) === tail) this.queues.delete(instanceId)
    })
    return tail
  }

  /** Answers the plans it acted on (none for a dropped message). */
  private async handle(instanceId: string, message: InboundMessage): Promise<InboundPlan[]> {
    if (!this.deps.repos.instances.find(instanceId)) return []
    // The log is asked while the handlers decide (one wait for the database threads, not two in a
    // row): a redelivery is dropped, unless it is the real message behind a placeholder (or another
    // placeholder); the handlers change nothing before they know (InboundHandler).
    const lookup = this.deps.repos.messages.find(instanceId, message.id)
    const isNew = lookup.then((known) => !(known && (known.type !== 'undecryptable' || message.type === 'undecryptable')))
    isNew.catch(() => undefined)
    // The placeholder waits in the log ("waiting for this message"); nothing answers it.
    const deciding = message.type === 'undecryptable' ? Promise.resolve([]) : this.decide(instanceId, message, isNew)
    const [known, fresh, plans] = await Promise.all([lookup, isNew, deciding])
    if (!fresh) return []
    const logged = loggedEntryOf(message)
    const record = plans.find((p) => p.record)?.record
    if (record) logged.bot = record
    // Logging the message and queueing its webhooks are writes (group-committed, fsynced); the replies
    // do not need them done, so they go out while the writes are in flight (docs/benchmarks.md "Summary"). Both writes
    // are queued before any reply, so a reply is logged and announced after the message it answers.
    // The UI hears of it once it is stored (its reload must find it; emitDurable's `stored`).
    const logging = known ? this.deps.repos.messages.update(instanceId, message.id, (({ id: _id, ...fields }) => fields)(logged)) : this.deps.repos.messages.append(instanceId, logged)
    const stored = Promise.all([logging, this.deps.events.emitDurable('message', { instanceId, message: logged, inbound: message }, logging)])
    await Promise.all([stored, this.act(instanceId, message, plans)])
    return plans
  }

  private async decide(instanceId: string, message: InboundMessage, isNew: Promise<boolean>): Promise<InboundPlan[]> {
    const plans = []
    for (const handler of this.handlers) {
      try {
        plans.push(await handler(instanceId, message, isNew))
      } catch (err) {
        this.deps.logger.error({ err, instanceId, messageId: message.id }, 'inbound handler failed')
      }
    }
    return plans
  }

  private async act(instanceId: string, message: InboundMessage, plans: Array<{ act(): Promise<unknown> }>): Promise<void> {
    for (const plan of plans) {
      try {
        await plan.act()
      } catch (err) {
        this.deps.logger.error({ err, instanceId, messageId: message.id }, 'inbound handler failed')
      }
    }
  }
}
