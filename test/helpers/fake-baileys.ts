/**
 * Test doubles for the Baileys channel: a fake socket and a manual clock. Nothing else is faked.
 *
 * FakeSocket has the library's event names and payload types (lib/Types/Events.d.ts) and behaves
 * like lib/Socket/socket.js where the session depends on it: `end()` emits `connection.update`
 * `{connection:'close', lastDisconnect}` once and then drops every listener (ev.destroy());
 * `logout()` ends with 401; `query()` answers `queryAnswer` (the server's reply to the session's own stanzas).
 * `sendMessage` builds the real message info with the library's own `generateWAMessage`, media
 * included (encrypted and thumbnailed for real; only the upload is faked), so results have the
 * library's true shapes.
 */
import { EventEmitter } from 'node:events'
import { Boom } from '@hapi/boom'
import {
  generateWAMessage,
  type AnyMessageContent,
  type AuthenticationCreds,
  type BaileysEventMap,
  type BinaryNode,
  type Contact,
  type GroupMetadata,
  type SignalKeyStore,
  type UserFacingSocketConfig,
  type WAMessage
} from 'baileys'
import { vi } from 'vitest'
import type { BaileysSocket, SocketFactory } from '../../src/main/channel/baileys/socket'
import type { TimerHandle, Timers } from '../../src/main/channel/baileys/timers'

type EventName = keyof BaileysEventMap

export class FakeSocket implements BaileysSocket {
  readonly emitter = new EventEmitter()
  readonly ev = {
    on: <T extends EventName>(event: T, listener: (arg: BaileysEventMap[T]) => void) => {
      this.emitter.on(event, listener)
    },
    off: <T extends EventName>(event: T, listener: (arg: BaileysEventMap[T]) => void) => {
      this.emitter.off(event, listener)
    },
    removeAllListeners: <T extends EventName>(event: T) => {
      this.emitter.removeAllListeners(event)
    },
    emit: <T extends EventName>(event: T, arg: BaileysEventMap[T]) => this.emitter.emit(event, arg)
  }
  /** The library's LID→number mapping (lib/Signal/lid-mapping.js), as the session reads it. */
  readonly lidToPn = new Map<string, string>()
  readonly signalRepository = {
    lidMapping: {
      getPNForLID: async (lid: string) => this.lidToPn.get(lid) ?? null,
      getLIDForPN: async (pn: string) => [...this.lidToPn].find(([, p]) => p === pn)?.[0] ?? null
    },
    /** Sessions deleted through the repository, as device JIDs. */
    deletedSessions: [] as string[],
    deleteSession: async (jids: string[]) => void this.signalRepository.deletedSessions.push(...jids)
  }
  /** Numbers onWhatsApp() says have no account. */
  readonly notOnWhatsApp = new Set<string>()
  readonly onWhatsApp = vi.fn(async (...jids: string[]) => jids.map((jid) => ({ jid, exists: !this.notOnWhatsApp.has(jid) })))
  /** Keys passed to readMessages (read receipts), oldest first. */
  readonly readKeys: unknown[] = []
  readonly readMessages = vi.fn(async (keys: unknown[]) => {
    this.readKeys.push(...keys)
  })
  /** The websocket's node events (`CB:…`), as lib/Socket/socket.js emits them. */
  readonly ws = new EventEmitter()
  ended = false
  endError: unknown
  /** Group metadata answered by groupMetadata(); an Error is thrown instead. */
  groups = new Map<string, GroupMetadata | Error>()
  addResult: Array<{ status: string; jid: string }> | Error | null = null

  /** Stanzas sent as they are (sendNode), oldest first. */
  readonly sentNodes: BinaryNode[] = []
  readonly sendNode = vi.fn(async (node: BinaryNode) => {
    this.sentNodes.push(node)
  })
  /** `<message>` stanzas that reached the library's own handler (lib/Socket/messages-recv.js listens on `CB:message`). */
  readonly libraryMessages: BinaryNode[] = []

  constructor(readonly config: UserFacingSocketConfig) {
    this.ws.on('CB:message', (node: BinaryNode) => void this.libraryMessages.push(node))
  }

  get creds(): AuthenticationCreds {
    return this.config.auth.creds
  }

  get authState(): { creds: AuthenticationCreds; keys: SignalKeyStore } {
    return this.config.auth
  }

  /** Queries sent to the server (the session's own stanzas); answers `queryAnswer`, or throws it when an Error. */
  queryAnswer: unknown = { tag: 'iq', attrs: { type: 'result' } }
  readonly query = vi.fn(async (_node: BinaryNode) => {
    if (this.queryAnswer instanceof Error) throw this.queryAnswer
    return this.queryAnswer
  })

  get user(): Contact | undefined {
    return this.creds.me
  }

  /** Listeners currently attached (all events). */
  listenerCount(): number {
    return this.emitter.eventNames().reduce((n, e) => n + this.emitter.listenerCount(e), 0)
  }

  emit<T extends EventName>(event: T, arg: BaileysEventMap[T]): void {
    this.emitter.emit(event, arg)
  }

  /* ---------- server-side scripts ---------- */

  connecting(): void {
    this.emit('connection.update', { connection: 'connecting', receivedPendingNotifications: false, qr: undefined })
  }

  qr(ref = 'ref-' + Math.random().toString(36).slice(2)): string {
    // As lib/Utils/companion-reg-client-utils.js buildPairingQRData: the adv secret is the creds' own.
    const qr = `https://wa.me/settings/linked_devices#${ref},noise,identity,${this.creds.advSecretKey},chrome`
    this.emit('connection.update', { qr })
    return qr
  }

  /** The phone scanned: pair-success (creds.update, isNewLogin), then the server's 515 close. */
  async pairAndRestart(phone = '15550001111', lid = '987654321012345'): Promise<void> {
    const update: Partial<AuthenticationCreds> = {
      me: { id: `${phone}:7@s.whatsapp.net`, name: undefined, lid: `${lid}:7@lid` },
      account: { details: Buffer.from('details'), accountSignatureKey: Buffer.alloc(32, 1), accountSignature: Buffer.alloc(64, 2) },
      platform: 'android'
    }
    Object.assign(this.creds, update)
    this.emit('creds.update', update)
    this.emit('connection.update', { isNewLogin: true, qr: undefined })
    await this.end(new Boom('Stream Errored (restart required)', { statusCode: 515 }))
  }

  /** Login with saved creds: open, then the offline backlog is done. */
  open(opts: { pendingDone?: boolean } = {}): void {
    this.emit('connection.update', { connection: 'open' })
    if (opts.pendingDone !== false) this.emit('connection.update', { receivedPendingNotifications: true })
  }

  upsert(messages: WAMessage[], type: 'notify' | 'append' = 'notify'): void {
    this.emit('messages.upsert', { messages, type })
  }

  /** The server or network closes the connection with `statusCode`. */
  async close(statusCode: number | undefined, message = 'Connection Failure'): Promise<void> {
    await this.end(statusCode === undefined ? new Error(message) : new Boom(message, { statusCode }))
  }

  /* ---------- the socket API the session uses ---------- */

  end = vi.fn(async (error: Error | undefined) => {
    if (this.ended) return
    this.ended = true
    this.endError = error
    this.emit('connection.update', { connection: 'close', lastDisconnect: { error, date: new Date() } })
    this.emitter.removeAllListeners()
  })

  logout = vi.fn(async (msg?: string) => {
    void this.end(new Boom(msg || 'Intentional Logout', { statusCode: 401 }))
  })


  sendMessage = vi.fn(async (jid: string, content: AnyMessageContent) => {
    const msg = await generateWAMessage(jid, content, {
      userJid: this.creds.me?.id ?? '15550001111@s.whatsapp.net',
      upload: async (_path, { fileEncSha256B64, mediaType }) => {
        const token = Buffer.from(fileEncSha256B64, 'base64').toString('base64url')
        return { mediaUrl: `https://mmg.whatsapp.net/v/t62.${mediaType}/${token}.enc`, directPath: `/v/t62.${mediaType}/${token}.enc?ccb=11-4` }
      }
    })
    // emitOwnEvents: the library upserts its own send as 'append' on the next tick.
    process.nextTick(() => this.emit('messages.upsert', { messages: [msg], type: 'append' }))
    return msg
  })

  sendPresenceUpdate = vi.fn(async (_type: string, _jid?: string) => {})

  groupMetadata = vi.fn(async (jid: string) => {
    const g = this.groups.get(jid)
    if (!g) throw new Boom('item-not-found', { data: 404 })
    if (g instanceof Error) throw g
    return g
  })

  groupParticipantsUpdate = vi.fn(async (_jid: string, participants: string[], _action: string) => {
    if (this.addResult instanceof Error) throw this.addResult
    const res = this.addResult ?? participants.map((jid) => ({ status: '200', jid }))
    return res.map((r) => ({ ...r, content: { tag: 'participant', attrs: { jid: r.jid } } }))
  })

  updateMediaMessage = vi.fn(async (m: WAMessage) => m)

  /** A history request (lib/Socket/messages-recv.js fetchMessageHistory): answers the request's message id. */
  fetchMessageHistory = vi.fn(async (_count: number, _key: unknown, _timestampMs: unknown) => 'FAKE-HISTORY-REQUEST')
  /** A USync query (lib/Socket/socket.js executeUSyncQuery): nobody has a username here. */
  executeUSyncQuery = vi.fn(async (_query: unknown) => ({ list: [] as Array<{ id: string }>, sideList: [] }))
}

/** A socket factory that records every socket it makes. */
export function fakeSocketFactory(onCreate?: (sock: FakeSocket) => void): SocketFactory & { sockets: FakeSocket[]; last(): FakeSocket } {
  const sockets: FakeSocket[] = []
  const factory = ((config: UserFacingSocketConfig) => {
    const sock = new FakeSocket(config)
    sockets.push(sock)
    onCreate?.(sock)
    return sock
  }) as unknown as SocketFactory & { sockets: FakeSocket[]; last(): FakeSocket }
  factory.sockets = sockets
  factory.last = () => {
    const s = sockets[sockets.length - 1]
    if (!s) throw new Error('no socket made yet')
    return s
  }
  return factory
}

/** A manual clock: timers fire only when the test advances time. */
export class FakeClock implements Timers {
  nowMs = 1_800_000_000_000
  private seq = 0
  private readonly tasks = new Map<number, { at: number; ms: number; fn: () => void }>()

  setTimeout(fn: () => void, ms: number): TimerHandle {
    const id = ++this.seq
    this.tasks.set(id, { at: this.nowMs + ms, ms, fn })
    return id
  }

  clearTimeout(handle: TimerHandle): void {
    this.tasks.delete(handle as number)
  }

  now(): number {
    return this.nowMs
  }

  /** Delays (ms, as requested) of the timers still pending, oldest first. */
  pendingDelays(): number[] {
    return [...this.tasks.values()].map((t) => t.ms)
  }

  get pending(): number {
    return this.tasks.size
  }

  /** Moves time forward by `ms`, firing due timers in time order. */
  advance(ms: number): void {
    const end = this.nowMs + ms
    for (;;) {
      const due = [...this.tasks.entries()].filter(([, t]) => t.at <= end).sort((a, b) => a[1].at - b[1].at || a[0] - b[0])[0]
      if (!due) break
      this.tasks.delete(due[0])
      this.nowMs = Math.max(this.nowMs, due[1].at)
      due[1].fn()
    }
    this.nowMs = end
  }

  /** Fires the next timer (advancing time to it); returns its delay or undefined. */
  fireNext(): number | undefined {
    const next = [...this.tasks.entries()].sort((a, b) => a[1].at - b[1].at || a[0] - b[0])[0]
    if (!next) return undefined
    this.advance(next[1].at - this.nowMs)
    return next[1].ms
  }
}

/** A received message as the library upserts it. */
export function waMessage(partial: { key: WAMessage['key']; message?: WAMessage['message']; pushName?: string; messageTimestamp?: number; messageStubType?: number }): WAMessage {
  return { messageTimestamp: 1_800_000_000, ...partial } as WAMessage
}
