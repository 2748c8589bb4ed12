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
 *   asynchronous, so messages pass one at a time), and whoever wrote is known to be on WhatsApp.
 */
import type { BaileysEventMap } from 'baileys'
import type { Logger } from '../../logger'
import type { ChannelHooks, InboundMessage } from '../types'
import { withStableChat } from './chat-identity'
import { echoStatus } from './delivery-status'
import { toInboundMessage } from './inbound-mapper'
import type { MessageStore } from './message-store'
import type { RecipientCheck } from './recipient-check'
import type { SocketRun } from './socket-run'
import type { Timers } from './timers'

export interface InboundRelayDeps {
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
      const inbound = toInboundMessage(msg, { offline, nowSeconds })
      if (inbound) this.deliver(run, inbound)
    }
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
        // Whoever wrote to us is on WhatsApp: no onWhatsApp query before replying.
        if (!message.fromMe && message.senderPn) recipients.known(message.senderPn)
        if (!message.fromMe && message.chatId.endsWith('@s.whatsapp.net')) recipients.known(message.chatId)
        void hooks.onMessage(message)
      })
      .catch((err) => this.deps.logger.error({ err }, 'could not hand over an inbound message'))
  }
}
