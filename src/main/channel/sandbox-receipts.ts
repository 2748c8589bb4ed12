/**
 * The sandbox's simulated network acknowledging what the instance sends, as WhatsApp does
 * (docs/design.md §6, §13): the server takes a message (SERVER_ACK) at once, the customer's phone gets
 * it (DELIVERY_ACK) a moment later, and the customer reads it (READ) when they next act in the chat
 * (a simulated inbound message, or `POST /chatapp/sandbox/read`). A number on the refusal list gets
 * ERROR with WhatsApp's code 463 instead ("this number cannot start that chat"), so a script can see a
 * failed send on purpose (`POST /chatapp/sandbox/network {"failSends": [...]}`).
 *
 * Statuses go out through the channel hook like the real channel's receipts, so the message log, the
 * `status` events, the UI's ticks and the `onMessageStatus` webhook all follow.
 */
import type { MessageStatusUpdate } from './types'

/** How long after a send the simulated phone reports it delivered (ms). */
export const SANDBOX_DELIVERY_MS = 300
/** The server's code for a refused send (WhatsApp's 463: no privacy token to start this chat). */
export const SANDBOX_REFUSAL_CODE = '463'
/** Sent messages remembered per chat for a later READ, and chats remembered. */
const PER_CHAT = 500
const CHATS = 1000

export interface SandboxReceiptsDeps {
  report(update: MessageStatusUpdate): void
  /** False once the session stopped: a stopped device hears no more receipts. */
  connected(): boolean
}

export class SandboxReceipts {
  /** Numbers (digits) whose sends the simulated server refuses. */
  private refused = new Set<string>()
  /** Per chat JID, the ids sent and not read yet, oldest first. */
  private readonly unread = new Map<string, string[]>()
  private readonly timers = new Set<NodeJS.Timeout>()

  constructor(private readonly deps: SandboxReceiptsDeps) {}

  /** The numbers whose sends are refused from now on (replaces the list; [] clears it). */
  refuse(numbers: readonly string[]): void {
    this.refused = new Set(numbers.map((n) => n.replace(/\D/g, '')).filter(Boolean))
  }

  /** Acknowledges message `id` just sent to `jid`: SERVER_ACK now and DELIVERY_ACK soon, or ERROR 463. */
  sent(jid: string, id: string): void {
    if (this.refused.has(jid.split('@')[0]!.split(':')[0]!)) {
      this.later(0, () => this.deps.report({ id, status: 'ERROR', errorCode: SANDBOX_REFUSAL_CODE }))
      return
    }
    this.later(0, () => this.deps.report({ id, status: 'SERVER_ACK' }))
    this.later(SANDBOX_DELIVERY_MS, () => this.deps.report({ id, status: 'DELIVERY_ACK' }))
    const ids = this.unread.get(jid) ?? []
    ids.push(id)
    if (ids.length > PER_CHAT) ids.shift()
    // Most recently used last: the chat least recently written to is forgotten first.
    this.unread.delete(jid)
    this.unread.set(jid, ids)
    if (this.unread.size > CHATS) this.unread.delete(this.unread.keys().next().value!)
  }

  /**
   * The customer of chat `jid` reads it: every message sent there and not read yet is READ (one still
   * on its way arrives as they open the chat; its late DELIVERY_ACK no longer moves it). Answers how
   * many.
   */
  read(jid: string): number {
    const ids = this.unread.get(jid) ?? []
    this.unread.delete(jid)
    for (const id of ids) this.deps.report({ id, status: 'READ' })
    return ids.length
  }

  /** Cancels the receipts not sent yet (the session stopped). */
  stop(): void {
    for (const t of this.timers) clearTimeout(t)
    this.timers.clear()
  }

  private later(ms: number, fn: () => void): void {
    const timer = setTimeout(() => {
      this.timers.delete(timer)
      if (this.deps.connected()) fn()
    }, ms)
    timer.unref()
    this.timers.add(timer)
  }
}
