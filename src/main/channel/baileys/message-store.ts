/**
 * The recent messages of one session, kept across reconnects AND app restarts for what needs the whole
 * message later (docs/baileys.md "Production settings"):
 *
 * - Baileys' `getMessage(key)`: a recipient that could not decrypt a message asks for it again (a
 *   retry receipt, lib/Socket/messages-recv.js sendMessagesAgain); without the message the recipient
 *   is left with "Waiting for this message". Retries come minutes or days later, also after an app
 *   restart, so own sends are kept in the database for {@link DEFAULT_MESSAGE_STORE_TTL_MS}. Only
 *   those are answered, and never an empty message ({@link MessageStore.content}).
 * - downloading an inbound message's media on demand (`GET /chatapp/messages/{id}/media`): the media
 *   keys are in the message, so inbound media messages are kept in the database too.
 * - recognising the echo of our own sends (`emitOwnEvents` upserts every sent message as 'append').
 *
 * Memory holds the newest {@link DEFAULT_MESSAGE_STORE_SIZE} messages of any kind (LRU). The database
 * (`wa_messages`, store/repos/wa-message-repo.ts; deleted with the credentials) holds own sends and
 * inbound media, as `proto.WebMessageInfo` bytes: at most as many rows per instance as memory holds,
 * none older than the TTL, pruned at load and after every `max` new rows. A message memory no longer
 * holds is looked up there ({@link MessageStore.lookup}). The store is a cache of what the phone also
 * has: a failed write is logged and never stops a session.
 */
import type { LRUCache } from 'lru-cache'
import { getContentType, proto, type WAMessage } from 'baileys'
import type { Logger } from '../../logger'
import { boundedLru } from '../../lru'
import type { WaMessageRepo, WaMessageRow } from '../../store/repos/wa-message-repo'

export const DEFAULT_MESSAGE_STORE_SIZE = 2000
/**
 * How long own sends stay answerable to a retry receipt, and inbound media downloadable (14 days):
 * WhatsApp's own clients stop trying to recover an unreadable message after 14 days (rc14
 * lib/Defaults/index.js PLACEHOLDER_MAX_AGE_SECONDS, "WA Web enforces a 14-day maximum age for
 * placeholder resend requests"), so an older message is not worth answering; the row bound
 * ({@link DEFAULT_MESSAGE_STORE_SIZE}) caps what a longer window costs.
 */
export const DEFAULT_MESSAGE_STORE_TTL_MS = 14 * 24 * 60 * 60_000

interface Stored {
  msg: WAMessage
  sentByUs: boolean
  /** When it was kept (epoch ms). */
  at: number
}

export interface MessageStoreOptions {
  /** Messages kept in memory, and rows kept per instance in the database. */
  max?: number
  ttlMs?: number
  /** Epoch ms (the session's timers). */
  now?: () => number
  logger?: Logger
}

/** Where the store persists: the repository and the instance whose rows it owns. */
export interface MessageStorePersistence {
  repo: WaMessageRepo
  instanceId: string
}

/** True when the message is a poll: its secret decrypts the votes on it, which may come days later. */
function isPoll(msg: WAMessage): boolean {
  const m = msg.message
  return Boolean(m && (m.pollCreationMessage || m.pollCreationMessageV2 || m.pollCreationMessageV3))
}

/** True when the message carries media whose keys a later download needs. */
function hasMedia(msg: WAMessage): boolean {
  const m = msg.message
  if (!m) return false
  return Boolean(m.imageMessage || m.videoMessage || m.audioMessage || m.documentMessage || m.stickerMessage || m.ptvMessage || m.documentWithCaptionMessage)
}

/**
 * True when `m` carries something to show: a content field (getContentType: `conversation` or a
 * `…Message`, not the sender key distribution) that is set and not an empty text. `{}`, `{conversation:
 * ''}` and a bare `messageContextInfo` are empty.
 */
export function hasContent(m: proto.IMessage): boolean {
  const type = getContentType(m)
  if (!type) return false
  const value = m[type]
  return value !== null && value !== undefined && value !== ''
}

function decode(row: WaMessageRow): WAMessage | undefined {
  try {
    return proto.WebMessageInfo.decode(row.message) as WAMessage
  } catch {
    // A damaged row: that message is simply not kept.
    return undefined
  }
}

export class MessageStore {
  private readonly cache: LRUCache<string, Stored>
  private readonly ttlMs: number
  private readonly max: number
  private readonly now: () => number
  private readonly writes = new Set<Promise<void>>()
  /** Rows written since the last prune. */
  private sincePrune = 0
  /** Writes go to the database only between load() and close(). */
  private open = false

  /** `persistence`: where the store keeps messages across restarts; null keeps them in memory only. */
  constructor(
    private readonly persistence: MessageStorePersistence | null,
    private readonly opts: MessageStoreOptions = {}
  ) {
    this.ttlMs = opts.ttlMs ?? DEFAULT_MESSAGE_STORE_TTL_MS
    this.now = opts.now ?? Date.now
    this.max = opts.max ?? DEFAULT_MESSAGE_STORE_SIZE
    this.cache = boundedLru<string, Stored>(this.max)
  }

  get size(): number {
    return this.cache.size
  }

  /**
   * Drops expired and surplus rows, reads the rest (newest last) into memory, and starts persisting.
   * A database error is logged; the session goes on with what memory holds.
   */
  async load(): Promise<void> {
    this.open = true
    if (!this.persistence) return
    const { repo, instanceId } = this.persistence
    const oldest = this.now() - this.ttlMs
    try {
      await repo.prune(instanceId, oldest, this.max)
      this.sincePrune = 0
      for (const row of await repo.recent(instanceId, oldest, this.max)) {
        const msg = decode(row)
        if (msg) this.cache.set(row.id, { msg, sentByUs: row.own, at: row.at })
      }
    } catch (err) {
      this.opts.logger?.warn({ err }, 'could not read the kept messages; retries of older sends may go unanswered')
    }
  }

  /** Keeps `msg` (ignored without an id or content). A later copy of an own send stays marked as ours. */
  remember(msg: WAMessage, sentByUs: boolean): void {
    const id = msg.key?.id
    if (!id || !msg.message) return
    const prev = this.cache.get(id)
    const stored: Stored = { msg, sentByUs: sentByUs || Boolean(prev?.sentByUs), at: prev?.at ?? this.now() }
    this.cache.set(id, stored)
    if (!prev && (stored.sentByUs || hasMedia(msg) || isPoll(msg))) this.persist(id, stored)
  }

  /**
   * Forgets message `id` in memory and the database (deleted for everyone: its content and media keys
   * must not outlive it). A failed delete is logged.
   */
  async forget(id: string): Promise<void> {
    this.cache.delete(id)
    if (!this.persistence) return
    const { repo, instanceId } = this.persistence
    await this.flush()
    await repo.removeOne(instanceId, id).catch((err: unknown) => this.opts.logger?.warn({ err, id }, 'could not forget a deleted message'))
  }

  /** A message memory holds. */
  get(id: string): WAMessage | undefined {
    return this.cache.get(id)?.msg
  }

  /** A message memory holds, else one the database kept (unexpired). */
  async lookup(id: string | null | undefined): Promise<WAMessage | undefined> {
    return (await this.kept(id))?.msg
  }

  /**
   * The content for Baileys' getMessage: an own send of this session, kept less than the TTL ago, with
   * content; else undefined. Baileys relays any truthy answer under the asked id (rc14
   * lib/Socket/messages-recv.js sendMessagesAgain: `if (msg && …) relayMessage`), so an empty one spends
   * the recipient's retry on an empty envelope, and a contact's message would go back out as ours
   * (docs/baileys.md "getMessage: what a retry receipt gets").
   */
  async content(id: string | null | undefined): Promise<proto.IMessage | undefined> {
    const kept = await this.kept(id)
    // Memory has no TTL of its own (a week-long session keeps its sends): the window is checked here.
    if (!kept?.sentByUs || kept.at < this.now() - this.ttlMs) return undefined
    const content = kept.msg.message
    return content && hasContent(content) ? content : undefined
  }

  /** What memory holds for `id`, else the database's unexpired row. */
  private async kept(id: string | null | undefined): Promise<Stored | undefined> {
    if (!id) return undefined
    const hit = this.cache.get(id)
    if (hit || !this.persistence) return hit
    const { repo, instanceId } = this.persistence
    const row = await repo.find(instanceId, id, this.now() - this.ttlMs).catch((err: unknown) => {
      this.opts.logger?.warn({ err }, 'could not read a kept message')
      return undefined
    })
    const msg = row && decode(row)
    return row && msg ? { msg, sentByUs: row.own, at: row.at } : undefined
  }

  /** True when this session sent the message with that id (memory: echoes come at once). */
  isOwnSend(id: string | null | undefined): boolean {
    return id ? Boolean(this.cache.get(id)?.sentByUs) : false
  }

  /** Resolves when every message kept so far is written (or failed to be). */
  async flush(): Promise<void> {
    while (this.writes.size > 0) await Promise.allSettled([...this.writes])
  }

  /** Stops writing, then waits for the writes under way (stop, logout). Memory stays until clear(). */
  async close(): Promise<void> {
    this.open = false
    await this.flush()
  }

  /** Closes, forgets everything in memory and deletes the instance's rows (logout). */
  async destroy(): Promise<void> {
    await this.close()
    this.clear()
    if (this.persistence) await this.persistence.repo.remove(this.persistence.instanceId)
  }

  /** Forgets everything in memory. */
  clear(): void {
    this.cache.clear()
  }

  private persist(id: string, stored: Stored): void {
    if (!this.persistence || !this.open) return
    const { repo, instanceId } = this.persistence
    const message = proto.WebMessageInfo.encode(stored.msg).finish()
    const prune = ++this.sincePrune >= this.max
    if (prune) this.sincePrune = 0
    const write = repo
      .put(instanceId, { id, at: stored.at, own: stored.sentByUs, message })
      .then(async () => {
        if (prune) await repo.prune(instanceId, this.now() - this.ttlMs, this.max)
      })
      .catch((err: unknown) => {
        // A full disk: the message stays in memory; a retry after a restart may miss it.
        this.opts.logger?.warn({ err, id }, 'could not keep a message for retries')
      })
    this.writes.add(write)
    void write.finally(() => this.writes.delete(write))
  }
}
