/**
 * The send path of one session: one ordered, paced {@link SendQueue}; the recipient check before a
 * first message to a number (recipient-check.ts); the number's LID when the session knows it (a
 * one-to-one chat that moved to LID refuses sends to the number with 463, Baileys #2683; see
 * docs/baileys.md "One chat per customer"); an optional "typing…" presence first (bot replies); the
 * library's `sendMessage`; the sent message kept for retries (message-store.ts). Results are the
 * library's message info as docs/api-seed.md §2.11 JSON ({@link toSentMessage}), naming the chat the
 * caller named (the number) whatever address went on the wire.
 */
import type { Logger } from '../../logger'
import { toJid } from '../jid'
import { ChannelError, type ChannelSendOptions, type OutboundContent, type ReactionTarget, type SentMessage } from '../types'
import { errorMessage, statusCodeOf } from './baileys-errors'
import { CloseCode } from './disconnect-policy'
import type { MessageStore } from './message-store'
import { toMessageContent, toSentMessage } from './outbound-mapper'
import type { RecipientCheck } from './recipient-check'
import { SendQueue } from './send-queue'
import type { BaileysSocket } from './socket'
import { sleep, type Timers } from './timers'

export interface OutboundSenderDeps {
  timers: Timers
  random: () => number
  pacing: { minIntervalMs: number; jitterMs: number }
  /** How long "typing…" shows (ms). */
  composingMs: number
  messages: MessageStore
  recipients: RecipientCheck
  /** The LID the session already knows for a phone-number JID (chat-identity.ts knownLidFor); undefined when none. */
  lidOf?: (pnJid: string) => Promise<string | undefined>
  logger: Logger
}

export class OutboundSender {
  private readonly queue: SendQueue

  constructor(private readonly deps: OutboundSenderDeps) {
    this.queue = new SendQueue({ ...deps.pacing, timers: deps.timers, random: deps.random })
  }

  /**
   * Queues one send; `socket(expected?)` answers the connected socket when its turn comes (and throws
   * NOT_CONNECTED when there is none, or it is not `expected` any more). Throws {@link ChannelError}:
   * SEND_FAILED (bad JID, refused), NOT_ON_WHATSAPP, NOT_CONNECTED (lost while sending).
   */
  send(socket: (expected?: BaileysSocket) => BaileysSocket, jid: string, content: OutboundContent, options: ChannelSendOptions = {}): Promise<SentMessage> {
    const target = toJid(jid)
    if (!target) throw new ChannelError('SEND_FAILED', `Not a phone number or JID: ${jid}`)
    const message = toMessageContent(content)
    return this.queue.enqueue(async () => {
      const sock = socket()
      if (!(await this.deps.recipients.exists(target, sock))) {
        throw new ChannelError('NOT_ON_WHATSAPP', `${target.split('@')[0]} is not on WhatsApp.`)
      }
      // The chat's address on the wire: the LID once known, so a chat that moved to LID is not refused.
      const to = (await this.deps.lidOf?.(target)) ?? target
      if (options.composing) {
        try {
          await sock.sendPresenceUpdate('composing', to)
          await sleep(this.deps.timers, this.deps.composingMs)
        } catch (err) {
          this.deps.logger.debug({ err }, 'could not send the composing presence')
        }
      }
      let sent
      try {
        sent = await socket(sock).sendMessage(to, message)
      } catch (err) {
        if (err instanceof ChannelError) throw err
        if (statusCodeOf(err) === CloseCode.connectionClosed) throw new ChannelError('NOT_CONNECTED', 'The connection was lost while sending.')
        throw new ChannelError('SEND_FAILED', `WhatsApp did not take the message: ${errorMessage(err)}`)
      }
      if (!sent) throw new ChannelError('SEND_FAILED', 'WhatsApp did not take the message.')
      this.deps.messages.remember(sent, true)
      const result = toSentMessage(sent, Math.floor(this.deps.timers.now() / 1000))
      return to === target ? result : { ...result, key: { ...result.key, remoteJid: target } }
    })
  }

  /**
   * Queues a reaction `emoji` (`''` takes it back) on `target`: `{react: {text, key}}`
   * (lib/Utils/messages.js), to the chat's LID when known, like {@link send}. Throws as `send` does.
   */
  react(socket: (expected?: BaileysSocket) => BaileysSocket, target: ReactionTarget, emoji: string): Promise<void> {
    const chat = toJid(target.chatId)
    if (!chat) throw new ChannelError('SEND_FAILED', `Not a phone number or JID: ${target.chatId}`)
    return this.queue.enqueue(async () => {
      const sock = socket()
      const to = (await this.deps.lidOf?.(chat)) ?? chat
      const key = { remoteJid: to, id: target.id, fromMe: target.fromMe, ...(target.participant ? { participant: target.participant } : {}) }
      let sent
      try {
        sent = await socket(sock).sendMessage(to, { react: { text: emoji, key } })
      } catch (err) {
        if (statusCodeOf(err) === CloseCode.connectionClosed) throw new ChannelError('NOT_CONNECTED', 'The connection was lost while sending.')
        throw new ChannelError('SEND_FAILED', `WhatsApp did not take the reaction: ${errorMessage(err)}`)
      }
      // Its echo is our own send, not a reaction to apply twice (inbound-relay.ts).
      if (sent) this.deps.messages.remember(sent, true)
    })
  }

  /** Fails every queued send with `err` (the connection closed, the session stopped). */
  clear(err: unknown): void {
    this.queue.clear(err)
  }
}
