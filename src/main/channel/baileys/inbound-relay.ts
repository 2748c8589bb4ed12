/**
 * From the library's `messages.upsert` to the app's {@link ChannelHooks.onMessage}, in arrival order:
 *
 * - every message goes to the message store (retries, media, echo detection);
 * - the echo of an own send is not inbound (the app logged it as outbound); an ack merged into it is
 *   its delivery status (delivery-status.ts);
 * - `offline` is true before the socket reported `receivedPendingNotifications`, and for 'append'
 *   upserts of others' messages (the library upserts a stanza marked `offline` as 'append',
 *   lib/Socket/messages-recv.js handleMessage);
 * - the pure {@link toInboundMessage}, then the stable chat id (chat-identity.ts; the LID lookup is
 *   asynchronous, so messages pass one at a time), and whoever wrote is known to be on WhatsApp;
 * - edits, deletions for everyone, reactions and poll votes (message-changes.ts) go to
 *   {@link ChannelHooks.onMessageChange} in the same order, under the same stable chat id; a vote is
 *   decrypted with its poll from the message store; a message deleted for everyone by its author is
 *   forgotten by the store (its media keys with it).
 */
import type { BaileysEventMap } from 'baileys'
import type { Logger } from '../../logger'
import type { WAMessage } from 'baileys'
import type { ChannelHooks, InboundMessage, MessageChange } from '../types'
import { withStableChat } from './chat-identity'
import { echoStatus } from './delivery-status'
import { authorOf, stripDevice, toInboundMessage } from './inbound-mapper'
import { decryptVote, toMessageChange, type PendingVote } from './message-changes'
import type { MessageStore } from './message-store'
import type { RecipientCheck } from './recipient-check'
import type { SocketRun } from './socket-run'
import type { Timers } from './timers'

export interface InboundRelayDeps {
  /** The username of a LID the key did not name (usernames.ts); undefined when none or unknown. */
  usernameOf?: (sock: SocketRun['sock'], lid: string) => Promise<string | undefined>
  hooks: ChannelHooks
  messages: MessageStore
  recipients: RecipientCheck
  timers: Timers
  logger: Logger
}

export class InboundRelay {
  private chain: Promise<void> = Promise.resolve()

  constructor(private readonly deps: InboundRelayDeps) {}

  /** Handles one upsert of `run`'s socket. */
  upsert(run: SocketRun, { messages, type }: BaileysEventMap['messages.upsert']): void {
    const nowSeconds = Math.floor(this.deps.timers.now() / 1000)
    for (const msg of messages) {
      const ownEcho = Boolean(msg.key?.fromMe) && this.deps.messages.isOwnSend(msg.key?.id)
      this.deps.messages.remember(msg, false)
      if (ownEcho) {
        const merged = echoStatus(msg)
        if (merged) this.deps.hooks.onMessageStatus(merged)
        continue
      }
      const offline = !run.pendingDone || (type === 'append' && !msg.key?.fromMe)
      const change = toMessageChange(msg, { offline, nowSeconds })
      if (change) {
        this.deliverChange(run, change)
        continue
      }
      const inbound = toInboundMessage(msg, { offline, nowSeconds })
      if (inbound) this.deliver(run, inbound)
    }
  }

  private deliverChange(run: SocketRun, pending: MessageChange | PendingVote): void {
    const lookup = run.sock.signalRepository?.lidMapping
    const { hooks, logger } = this.deps
    this.chain = this.chain
      .then(async () => {
        const change = pending.kind === 'pending_vote' ? await this.decrypted(run, pending) : pending
        if (!change) return
        if (change.kind === 'delete') await this.forgetRevoked(change)
        const { message, identity } = await withStableChat(change, lookup)
        if (identity) hooks.onChatIdentity(identity)
        await this.withUsername(run, message)
        void hooks.onMessageChange(message)
      })
      .catch((err) => logger.error({ err }, 'could not hand over a change to a message'))
  }

  /**
   * A customer known only by LID (a username that hides the number, docs/baileys.md "Usernames"):
   * the username is asked of the server when the key did not carry it.
   */
  private async withUsername(run: SocketRun, m: { chatId: string; fromMe: boolean; username?: string }): Promise<void> {
    if (m.fromMe || m.username || !m.chatId.endsWith('@lid') || !this.deps.usernameOf) return
    const username = await this.deps.usernameOf(run.sock, m.chatId)
    if (username) m.username = username
  }

  /** The vote of `pending` decrypted with its poll, or null (logged) when the poll is unknown or the vote does not decrypt. */
  private async decrypted(run: SocketRun, pending: PendingVote): Promise<MessageChange | null> {
    const poll = await this.deps.messages.lookup(pending.pollKey.id)
    if (!poll) {
      this.deps.logger.warn({ pollId: pending.pollKey.id }, 'a vote on a poll this app does not hold; not counted')
      return null
    }
    const me = run.sock.authState?.creds?.me
    const author = authorOf(poll)
    const creators = poll.key.fromMe ? [me?.id, me?.lid] : [author?.senderId, author?.senderPn, author?.senderLid]
    const selected = decryptVote(pending, poll, creators.filter((j): j is string => Boolean(j)))
    if (!selected) {
      this.deps.logger.warn({ pollId: pending.pollKey.id, voter: pending.change.senderId }, 'a poll vote did not decrypt; not counted')
      return null
    }
    return { ...pending.change, selected }
  }

  /**
   * A message its author deleted for everyone: the store forgets it (content and media keys). Only
   * when the deletion comes from the one who wrote it, in the same chat: anyone may send a REVOKE
   * naming any id.
   */
  private async forgetRevoked(change: MessageChange): Promise<void> {
    const kept = await this.deps.messages.lookup(change.id)
    if (!kept || !sameAuthor(kept, change)) return
    await this.deps.messages.forget(change.id)
  }

  /** Resolves once every message received so far was handed to the app (tests, shutdown). */
  settled(): Promise<void> {
    return this.chain
  }

  private deliver(run: SocketRun, inbound: InboundMessage): void {
    const lookup = run.sock.signalRepository?.lidMapping
    const { hooks, recipients } = this.deps
    this.chain = this.chain
      .then(async () => {
        const { message, identity } = await withStableChat(inbound, lookup)
        if (identity) hooks.onChatIdentity(identity)
        await this.withUsername(run, message)
        // Whoever wrote to us is on WhatsApp: no onWhatsApp query before replying.
        if (!message.fromMe && message.senderPn) recipients.known(message.senderPn)
        if (!message.fromMe && message.chatId.endsWith('@s.whatsapp.net')) recipients.known(message.chatId)
        void hooks.onMessage(message)
      })
      .catch((err) => this.deps.logger.error({ err }, 'could not hand over an inbound message'))
  }
}

/** True when `change` was made by whoever wrote `kept`, in its chat (both as the network named them). */
function sameAuthor(kept: WAMessage, change: MessageChange): boolean {
  const author = authorOf(kept)
  if (!author || Boolean(kept.key.fromMe) !== change.fromMe) return false
  if (change.fromMe) return true
  const forms = (a: { senderId: string; senderPn?: string; senderLid?: string }) => new Set([a.senderId, a.senderPn, a.senderLid].filter(Boolean).map((j) => stripDevice(j!)))
  const theirs = forms(change)
  return [...forms(author)].some((j) => theirs.has(j))
}
