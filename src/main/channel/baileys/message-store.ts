/**
 * The recent messages of one session, bounded (LRU by message id), kept across reconnects.
 *
 * Serves three needs: Baileys' `getMessage(key)` (a recipient that failed to decrypt asks for a
 * resend; poll votes need the poll), downloading an inbound message's media on demand (the media
 * keys are in the message), and recognising the echo of our own sends (`emitOwnEvents` upserts
 * every sent message as 'append'; the app already logged it as outbound).
 */
import type { proto, WAMessage } from 'baileys'
import { BoundedCache } from './bounded-cache'

export const DEFAULT_MESSAGE_STORE_SIZE = 500

interface Stored {
  msg: WAMessage
  sentByUs: boolean
}

export class MessageStore {
  private readonly cache: BoundedCache<Stored>

  constructor(max = DEFAULT_MESSAGE_STORE_SIZE) {
    this.cache = new BoundedCache<Stored>({ max })
  }

  get size(): number {
    return this.cache.size
  }

  /** Keeps `msg` (ignored without an id or content). A later copy of an own send stays marked as ours. */
  remember(msg: WAMessage, sentByUs: boolean): void {
    const id = msg.key?.id
    if (!id || !msg.message) return
    const prev = this.cache.get(id)
    this.cache.set(id, { msg, sentByUs: sentByUs || Boolean(prev?.sentByUs) })
  }

  get(id: string): WAMessage | undefined {
    return this.cache.get(id)?.msg
  }

  /** The content for Baileys' getMessage. */
  content(id: string | null | undefined): proto.IMessage | undefined {
    return id ? (this.cache.get(id)?.msg.message ?? undefined) : undefined
  }

  /** True when this session sent the message with that id. */
  isOwnSend(id: string | null | undefined): boolean {
    return id ? Boolean(this.cache.get(id)?.sentByUs) : false
  }

  clear(): void {
    this.cache.clear()
  }
}
