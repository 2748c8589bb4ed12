/**
 * The phone's chat history (docs/baileys.md "History from the phone"): what the library emits as
 * `messaging-history.set` (a history sync after a link, or the answer to an on-demand request) goes
 * to the app as one {@link HistoryBatch}; {@link PhoneHistory.fetch} asks the phone for older
 * messages of a chat and waits, bounded, for that answer.
 *
 * The request (rc14 lib/Socket/messages-recv.js `fetchMessageHistory(count, oldestMsgKey,
 * oldestMsgTimestamp)`) is a peer data operation HISTORY_SYNC_ON_DEMAND sent to the account's own
 * phone; it answers the request's message id. The phone answers with a history-sync notification of
 * type ON_DEMAND whose `peerDataRequestSessionId` is that id (whatsmeow PR #1205; whatsapp-rust PR
 * #614 after WA Web's handler), which the library emits as `messaging-history.set` with
 * `peerDataRequestSessionId` (lib/Utils/process-message.js). Some phones never answer (Baileys
 * #2452), hence the bounded wait; an answer after it is still stored.
 */
import { isJidBroadcast, isJidNewsletter, proto, type BaileysEventMap } from 'baileys'
import type { Logger } from '../../logger'
import { HISTORY_FETCH_MAX } from '../../../shared/domain/phone-history'
import type { ChannelHooks, HistoryAnchor, HistoryFetchResult, HistorySyncKind, InboundMessage } from '../types'
import { withStableChat } from './chat-identity'
import { toInboundMessage } from './inbound-mapper'
import type { MessageStore } from './message-store'
import type { SocketRun } from './socket-run'
import type { BaileysSocket } from './socket'
import type { Timers, TimerHandle } from './timers'

/** How long a fetch waits for the phone's answer (ms). */
export const DEFAULT_HISTORY_WAIT_MS = 20_000

const KINDS: Partial<Record<number, HistorySyncKind>> = {
  [proto.HistorySync.HistorySyncType.INITIAL_BOOTSTRAP]: 'initial',
  [proto.HistorySync.HistorySyncType.RECENT]: 'recent',
  [proto.HistorySync.HistorySyncType.FULL]: 'full',
  [proto.HistorySync.HistorySyncType.ON_DEMAND]: 'on_demand'
}

export interface PhoneHistoryDeps {
  hooks: Pick<ChannelHooks, 'onHistory' | 'onChatIdentity'>
  messages: MessageStore
  timers: Timers
  logger: Logger
  waitMs?: number
}

type Outcome = { received: number; added: number }

export class PhoneHistory {
  private chain: Promise<void> = Promise.resolve()
  private readonly waiters = new Map<string, (outcome: Outcome | null) => void>()
  /** Answers that came before their fetch started waiting (bounded). */
  private readonly early = new Map<string, Outcome>()

  constructor(private readonly deps: PhoneHistoryDeps) {}

  /** Handles one `messaging-history.set` of `run`'s socket: the batches go to the app one at a time, in order. */
  set(run: SocketRun, event: BaileysEventMap['messaging-history.set']): void {
    const kind = KINDS[event.syncType ?? -1] ?? 'other'
    const requestId = event.peerDataRequestSessionId ?? undefined
    const nowSeconds = Math.floor(this.deps.timers.now() / 1000)
    this.chain = this.chain
      .then(async () => {
        const lookup = run.sock.signalRepository?.lidMapping
        const messages: InboundMessage[] = []
        for (const msg of event.messages) {
          // Not conversations, as for live messages (the session's shouldIgnoreJid): status posts, broadcast lists, channels.
          const jid = msg.key?.remoteJid ?? ''
          if (isJidBroadcast(jid) || isJidNewsletter(jid)) continue
          const inbound = toInboundMessage(msg, { offline: true, nowSeconds })
          if (!inbound) continue
          // Kept like a live message: the media of an old message downloads the same way.
          this.deps.messages.remember(msg, false)
          const { message, identity } = await withStableChat(inbound, lookup)
          if (identity) this.deps.hooks.onChatIdentity(identity)
          messages.push(message)
        }
        const { added } = await this.deps.hooks.onHistory({ kind, ...(requestId ? { requestId } : {}), messages })
        this.deps.logger.info({ kind, requestId, received: messages.length, added }, 'history from the phone stored')
        if (requestId) this.settle(requestId, { received: messages.length, added })
      })
      .catch((err) => this.deps.logger.error({ err }, 'could not store history from the phone'))
  }

  /**
   * Asks the phone for up to `count` messages older than `anchor` (Baileys `fetchMessageHistory`, its
   * timestamp in ms) and waits up to the wait for the answer to be stored.
   */
  async fetch(sock: BaileysSocket, anchor: HistoryAnchor, count: number): Promise<HistoryFetchResult> {
    const key = { remoteJid: anchor.chatId, fromMe: anchor.fromMe, id: anchor.id, ...(anchor.participant ? { participant: anchor.participant } : {}) }
    const requestId = await sock.fetchMessageHistory(Math.min(Math.max(1, count), HISTORY_FETCH_MAX), key, anchor.timestamp)
    const outcome = await this.wait(requestId)
    return { requestId, answered: outcome !== null, received: outcome?.received ?? 0, added: outcome?.added ?? 0 }
  }

  /** Ends every wait (the session stops): those fetches answer "not answered". */
  clear(): void {
    for (const resolve of [...this.waiters.values()]) resolve(null)
    this.waiters.clear()
    this.early.clear()
  }

  private wait(requestId: string): Promise<Outcome | null> {
    const early = this.early.get(requestId)
    if (early) {
      this.early.delete(requestId)
      return Promise.resolve(early)
    }
    return new Promise((resolve) => {
      let timer: TimerHandle = null
      const done = (outcome: Outcome | null) => {
        this.deps.timers.clearTimeout(timer)
        this.waiters.delete(requestId)
        resolve(outcome)
      }
      this.waiters.set(requestId, done)
      timer = this.deps.timers.setTimeout(() => done(null), this.deps.waitMs ?? DEFAULT_HISTORY_WAIT_MS)
    })
  }

  private settle(requestId: string, outcome: Outcome): void {
    const waiter = this.waiters.get(requestId)
    if (waiter) return waiter(outcome)
    this.early.set(requestId, outcome)
    if (this.early.size > 50) this.early.delete(this.early.keys().next().value!)
  }
}
