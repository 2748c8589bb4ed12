/**
 * The recent messages of one session, kept across reconnects AND app restarts for what needs the whole
 * message later (docs/baileys.md "Production settings"):
 *
 * - Baileys' `getMessage(key)`: a recipient that could not decrypt a message asks for it again (a
 *   retry receipt, lib/Socket/messages-recv.js sendMessagesAgain); without the message the recipient
 *   is left with "Waiting for this message". Retries come minutes or days later, also after an app
 *   restart, so own sends are kept on disk for {@link DEFAULT_MESSAGE_STORE_TTL_MS}.
 * - downloading an inbound message's media on demand (`GET /chatapp/messages/{id}/media`): the media
 *   keys are in the message, so inbound media messages are kept on disk too.
 * - recognising the echo of our own sends (`emitOwnEvents` upserts every sent message as 'append').
 *
 * Memory holds the newest {@link DEFAULT_MESSAGE_STORE_SIZE} (LRU). The file (`message-store.jsonl` in
 * the session's auth dir, deleted with the credentials) is append-only: one line per kept message,
 * `{id, at, own, m}` with `m` the `proto.WebMessageInfo` bytes in base64; it is rewritten without
 * expired and evicted entries when it holds twice what memory keeps. A torn or unreadable line is
 * skipped: the store is a cache of what the phone also has, and must never stop a session.
 */
import { appendFile, readFile, rename, writeFile } from 'node:fs/promises'
import type { LRUCache } from 'lru-cache'
import { boundedLru } from '../../lru'
import { proto, type WAMessage } from 'baileys'

export const DEFAULT_MESSAGE_STORE_SIZE = 2000
/** How long own sends and inbound media stay answerable (7 days). */
export const DEFAULT_MESSAGE_STORE_TTL_MS = 7 * 24 * 60 * 60_000
export const MESSAGE_STORE_FILE = 'message-store.jsonl'

interface Stored {
  msg: WAMessage
  sentByUs: boolean
  /** When it was kept (epoch ms). */
  at: number
}

interface Line {
  id: string
  at: number
  own: boolean
  m: string
}

export interface MessageStoreOptions {
  max?: number
  ttlMs?: number
  /** Epoch ms (the session's timers). */
  now?: () => number
}

/** True when the message carries media whose keys a later download needs. */
function hasMedia(msg: WAMessage): boolean {
  const m = msg.message
  if (!m) return false
  return Boolean(m.imageMessage || m.videoMessage || m.audioMessage || m.documentMessage || m.stickerMessage || m.ptvMessage || m.documentWithCaptionMessage)
}

export class MessageStore {
  private readonly cache: LRUCache<string, Stored>
  private readonly ttlMs: number
  private readonly max: number
  private readonly now: () => number
  private pending: string[] = []
  private writing: Promise<void> = Promise.resolve()
  /** Lines in the file, to know when to compact. */
  private lines = 0
  /** Writes go to disk only between load() and close(). */
  private open = false

  /** `file`: where the store persists; null keeps it in memory only. */
  constructor(
    private readonly file: string | null,
    opts: MessageStoreOptions = {}
  ) {
    this.ttlMs = opts.ttlMs ?? DEFAULT_MESSAGE_STORE_TTL_MS
    this.now = opts.now ?? Date.now
    this.max = opts.max ?? DEFAULT_MESSAGE_STORE_SIZE
    this.cache = boundedLru<string, Stored>(this.max)
  }

  get size(): number {
    return this.cache.size
  }

  /** Reads what the file holds (unexpired, newest last) into memory and starts persisting. */
  async load(): Promise<void> {
    this.open = true
    if (!this.file) return
    let text = ''
    try {
      text = await readFile(this.file, 'utf8')
    } catch {
      return
    }
    const oldest = this.now() - this.ttlMs
    this.lines = 0
    for (const raw of text.split('\n')) {
      if (!raw) continue
      this.lines++
      try {
        const line = JSON.parse(raw) as Line
        if (line.at < oldest || typeof line.m !== 'string') continue
        const msg = proto.WebMessageInfo.decode(Buffer.from(line.m, 'base64')) as WAMessage
        this.cache.set(line.id, { msg, sentByUs: line.own, at: line.at })
      } catch {
        // A torn last line (a crash mid-append) or a damaged one: that message is simply not kept.
      }
    }
  }

  /** Keeps `msg` (ignored without an id or content). A later copy of an own send stays marked as ours. */
  remember(msg: WAMessage, sentByUs: boolean): void {
    const id = msg.key?.id
    if (!id || !msg.message) return
    const prev = this.cache.get(id)
    const stored: Stored = { msg, sentByUs: sentByUs || Boolean(prev?.sentByUs), at: prev?.at ?? this.now() }
    this.cache.set(id, stored)
    if (!prev && (stored.sentByUs || hasMedia(msg))) this.persist(id, stored)
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

  /** Resolves when every message kept so far is written. */
  flush(): Promise<void> {
    this.drain()
    return this.writing
  }

  /** Flushes and stops writing (stop, logout). Memory stays until clear(). */
  async close(): Promise<void> {
    await this.flush()
    this.open = false
  }

  /** Forgets everything in memory (the file goes with the credentials). */
  clear(): void {
    this.cache.clear()
    this.pending = []
  }

  private persist(id: string, stored: Stored): void {
    if (!this.file || !this.open) return
    const m = Buffer.from(proto.WebMessageInfo.encode(stored.msg).finish()).toString('base64')
    this.pending.push(JSON.stringify({ id, at: stored.at, own: stored.sentByUs, m } satisfies Line) + '\n')
    this.drain()
  }

  /** Appends pending lines one batch at a time; compacts when the file has grown to twice the cache. */
  private drain(): void {
    if (this.pending.length === 0 || !this.file) return
    const file = this.file
    this.writing = this.writing
      .then(async () => {
        const chunk = this.pending.join('')
        const count = this.pending.length
        this.pending = []
        if (!chunk) return
        if (this.lines + count > 2 * this.max) {
          await this.rewrite(file)
        } else {
          await appendFile(file, chunk, { mode: 0o600 })
          this.lines += count
        }
      })
      .catch(() => {
        // A full disk or a removed dir: the message stays in memory; retries after a restart may miss it.
      })
  }

  private async rewrite(file: string): Promise<void> {
    const oldest = this.now() - this.ttlMs
    const out: string[] = []
    for (const [id, s] of [...this.cache.entries()].reverse()) {
      if (s.at < oldest || !(s.sentByUs || hasMedia(s.msg))) continue
      out.push(JSON.stringify({ id, at: s.at, own: s.sentByUs, m: Buffer.from(proto.WebMessageInfo.encode(s.msg).finish()).toString('base64') } satisfies Line) + '\n')
    }
    await writeFile(`${file}.tmp`, out.join(''), { mode: 0o600 })
    await rename(`${file}.tmp`, file)
    this.lines = out.length
  }
}
