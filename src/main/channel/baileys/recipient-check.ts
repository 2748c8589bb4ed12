/**
 * "Is this number on WhatsApp?" before the first send to it (docs/baileys.md "Production settings"):
 * without the check, a send to a number that has no account fails deep in the library ("All
 * encryptions failed") or, worse, is answered as sent. The library's `onWhatsApp` (a usync contact
 * query, lib/Socket/socket.js) answers; answers are cached (a day when on WhatsApp, an hour when not:
 * a person may join), and numbers that wrote to us are known without asking. Groups, LIDs and other
 * JIDs are not phone numbers and pass. A failed query does not block the send.
 */
import type { LRUCache } from 'lru-cache'
import { boundedLru } from '../../lru'
import type { BaileysSocket } from './socket'

export interface RecipientCheckOptions {
  now?: () => number
  /** How long a positive / negative answer is trusted (ms). */
  knownTtlMs?: number
  unknownTtlMs?: number
}

export class RecipientCheck {
  private readonly answers: LRUCache<string, boolean>
  private readonly knownTtlMs: number
  private readonly unknownTtlMs: number

  constructor(opts: RecipientCheckOptions = {}) {
    this.knownTtlMs = opts.knownTtlMs ?? 24 * 60 * 60_000
    this.unknownTtlMs = opts.unknownTtlMs ?? 60 * 60_000
    const now = opts.now ?? Date.now
    this.answers = boundedLru<string, boolean>(20_000, { ttl: this.knownTtlMs, ttlResolution: 0, perf: { now } })
  }

  /** Remembers that `jid` (a phone-number JID) is on WhatsApp, e.g. because it wrote to us. */
  known(jid: string): void {
    if (jid.endsWith('@s.whatsapp.net')) this.answers.set(jid, true)
  }

  /** False only when WhatsApp said the phone-number JID `jid` has no account. */
  async exists(jid: string, sock: Pick<BaileysSocket, 'onWhatsApp'>): Promise<boolean> {
    if (!jid.endsWith('@s.whatsapp.net')) return true
    const cached = this.answers.get(jid)
    if (cached !== undefined) return cached
    let answer: boolean
    try {
      const results = await sock.onWhatsApp(jid)
      answer = Boolean(results?.some((r) => r.exists))
    } catch {
      return true
    }
    this.answers.set(jid, answer, { ttl: answer ? this.knownTtlMs : this.unknownTtlMs })
    return answer
  }

  clear(): void {
    this.answers.clear()
  }
}
