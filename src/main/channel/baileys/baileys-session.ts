/**
 * The real channel: one instance as a WhatsApp linked device on Baileys 7 (docs/design.md §5,
 * docs/baileys.md). This file is the session's lifecycle; each other job has its own module:
 * pairing.ts (QR secret refresh, pairing codes), socket-run.ts (the events of one socket),
 * inbound-relay.ts (upserts → the app), outbound-sender.ts (the send path), delivery-status.ts,
 * chat-identity.ts (LID → number), group-admin.ts, inbound-media.ts, send-limits.ts,
 * disconnect-policy.ts (what a close means), auth-state.ts and message-store.ts (what the session
 * keeps in the core's database), wa-version.ts.
 *
 * Lifecycle. `start()` opens the auth state ({@link AuthState}, the instance's rows of the database
 * the core hands in as `ctx.store`) and the message store, takes the WA Web version, and makes one socket. Its `connection.update` events drive the
 * states: CONNECTING → QR (each rotating QR goes to hooks.onQr, with the current adv secret) → the
 * phone scans → the library asks for a restart (515) → a new socket with the same auth → `open` =
 * CONNECTED with the linked account. Every close goes through {@link decideDisconnect}: reconnect at
 * once (515), back off with jitter (network; 500 on a slower schedule), retry a 440 once after a
 * pause, stop and wait for the owner (QR expired; 440 again within minutes; fatal), or logged out
 * (401/403/419 only → credentials deleted, LOGGED_OUT). The backoff starts over only after a
 * connection stayed open for a while. There is never more than one socket per session: a new one is
 * made only after the old one closed and its listeners were removed, and every timer belongs to the
 * session and is cleared by stop/logout. `stop()` keeps the credentials; `logout()` unlinks the
 * device when connected, then deletes them.
 *
 * Start, stop, logout and the asynchronous parts of close handling run one at a time (a promise
 * chain), so a stop can never interleave with a reconnect that is opening the auth state.
 *
 * Memory: the message store, the retry counter, device, call-offer and placeholder caches, the group
 * metadata and recipient caches are per session, bounded, and survive reconnects (the retry counter
 * must). The Signal keys stay in the database.
 */
import { DEFAULT_CONNECTION_CONFIG, type BaileysEventMap, type BinaryNode, type Contact, type UserFacingSocketConfig, type WAVersion } from 'baileys'
import type { Logger } from '../../logger'
import { backoffDelayMs } from '../../../shared/domain/backoff'
import {
  ChannelError,
  OWN_LOGOUT_REASON,
  type ChannelContext,
  type ChannelSendOptions,
  type ChannelSession,
  type ConnectionState,
  type DownloadedMedia,
  type GroupAddResult,
  type HistoryAnchor,
  type HistoryFetchResult,
  type LinkedAccount,
  type OutboundContent,
  type ReactionTarget,
  type ReadKey,
  type SentMessage,
  type StateUpdate
} from '../types'
import { AuthState } from './auth-state'
import { errorMessage, statusCodeOf } from './baileys-errors'
import { lruCacheStore } from './cache-store'
import { DEFAULT_BROWSER, libraryLogger, type BaileysChannelOptions } from './channel-options'
import {
  CloseCode,
  decideDisconnect,
  DEFAULT_BACKOFF,
  describeClose,
  formatDelay,
  REPLACED_RETRY_MS,
  REPLACED_WINDOW_MS,
  SERVER_ERROR_BACKOFF,
  STABLE_OPEN_MS,
  type BackoffOptions
} from './disconnect-policy'
import { knownLidFor } from './chat-identity'
import { addToGroup } from './group-admin'
import { GroupMetadataCache } from './group-metadata-cache'
import { stripDevice } from './inbound-mapper'
import { downloadInboundMedia } from './inbound-media'
import { InboundRelay } from './inbound-relay'
import { isIgnoredJid } from './ignored-messages'
import { forgetSenderKeyHolders, identityChangeOf } from './sender-key-memory'
import { DEFAULT_MESSAGE_STORE_SIZE, MessageStore } from './message-store'
import { OutboundSender } from './outbound-sender'
import { PhoneHistory } from './phone-history'
import { newAdvSecret, PairingRefusedError, requestPairingCode, withAdvSecret } from './pairing'
import { RecipientCheck } from './recipient-check'
import { DEFAULT_SEND_PACING } from './send-queue'
import { cappingLimits, reachoutLimits } from './send-limits'
import { defaultSocketFactory, type BaileysSocket, type SocketFactory } from './socket'
import { attachSocket, type SocketRun } from './socket-run'
import { UsernameLookup } from './usernames'
import { realTimers, withTimeout, type TimerHandle, type Timers } from './timers'
import { libraryVersionFetcher, WaVersionSource } from './wa-version'

export type { BaileysChannelOptions } from './channel-options'

/** The linked account from the library's `me` (device suffixes dropped). */
export function accountFrom(me: Contact): LinkedAccount {
  const id = stripDevice(me.id)
  return {
    id,
    name: me.name || me.notify || me.verifiedName || '',
    phone: id.split('@')[0]!.replace(/\D/g, ''),
    ...(me.lid ? { lid: stripDevice(me.lid) } : {})
  }
}

export class BaileysSession implements ChannelSession {
  readonly kind = 'baileys' as const
  private state: ConnectionState = 'DISCONNECTED'
  /** The owner wants a connection (between start and stop/logout/terminal close). */
  private running = false
  /** Bumped by every start/stop/logout: scheduled work of an older epoch is void. */
  private epoch = 0
  private lifecycle: Promise<void> = Promise.resolve()
  private auth: AuthState | null = null
  private run: SocketRun | null = null
  /** The pending reconnect's timer; null when none. */
  private reconnectTimer: TimerHandle = null
  /** Reconnect attempts since the last connection that stayed open for stableOpenMs. */
  private attempt = 0
  private restartsInRow = 0
  /** When the current connection opened (timers' clock), null when not open. */
  private openedAt: number | null = null
  /** When the last 440 came, null when none since the owner's start. */
  private lastReplacedAt: number | null = null
  private version: WAVersion | undefined
  private refreshVersionNext = false
  private readonly versions: WaVersionSource
  private account: LinkedAccount | null = null
  /** Why the last attempt failed, while a reconnect is pending. */
  private lastFailure: string | null = null
  private qrWaiters: Array<{ resolve: (sock: BaileysSocket) => void; reject: (err: unknown) => void; timer: TimerHandle }> = []

  private readonly timers: Timers
  private readonly random: () => number
  private readonly backoff: BackoffOptions
  private readonly serverErrorBackoff: BackoffOptions
  private readonly factory: SocketFactory
  private readonly libLogger: Logger
  private readonly outbound: OutboundSender
  private readonly inbound: InboundRelay
  private readonly history: PhoneHistory
  private readonly messages: MessageStore
  private readonly groups: GroupMetadataCache
  private readonly recipients: RecipientCheck
  private readonly usernames: UsernameLookup
  private readonly caches = {
    msgRetry: lruCacheStore({ max: 5000, ttlMs: 60 * 60_000 }),
    userDevices: lruCacheStore({ max: 5000, ttlMs: 5 * 60_000 }),
    callOffer: lruCacheStore({ max: 200, ttlMs: 5 * 60_000 }),
    placeholderResend: lruCacheStore({ max: 2000, ttlMs: 60 * 60_000 })
  }

  constructor(
    private readonly ctx: ChannelContext,
    private readonly opts: BaileysChannelOptions = {}
  ) {
    this.timers = opts.timers ?? realTimers
    this.random = opts.random ?? Math.random
    this.backoff = { ...DEFAULT_BACKOFF, ...opts.backoff }
    this.serverErrorBackoff = { ...SERVER_ERROR_BACKOFF, ...opts.serverErrorBackoff }
    this.factory = opts.socketFactory ?? defaultSocketFactory
    this.versions =
      opts.versions ??
      new WaVersionSource({ fetch: opts.fetchVersion === undefined ? libraryVersionFetcher() : opts.fetchVersion, bundled: opts.version, memory: ctx.store.waWebVersion, logger: ctx.logger })
    this.libLogger = libraryLogger(ctx.logger)
    this.messages = new MessageStore(
      { repo: ctx.store.messages, instanceId: ctx.instanceId },
      { max: opts.messageStoreSize ?? DEFAULT_MESSAGE_STORE_SIZE, now: () => this.timers.now(), logger: ctx.logger }
    )
    this.groups = new GroupMetadataCache((jid) => this.connectedSocket().groupMetadata(jid))
    this.recipients = new RecipientCheck({ now: () => this.timers.now() })
    this.outbound = new OutboundSender({
      timers: this.timers,
      random: this.random,
      pacing: { minIntervalMs: opts.sendPacing?.minIntervalMs ?? DEFAULT_SEND_PACING.minIntervalMs, jitterMs: opts.sendPacing?.jitterMs ?? DEFAULT_SEND_PACING.jitterMs },
      composingMs: opts.composingMs ?? 1000,
      messages: this.messages,
      recipients: this.recipients,
      lidOf: (pnJid) => (this.auth ? knownLidFor(pnJid, this.auth.keys) : Promise.resolve(undefined)),
      logger: ctx.logger
    })
    this.usernames = new UsernameLookup({ timers: this.timers })
    this.inbound = new InboundRelay({
      hooks: ctx.hooks,
      messages: this.messages,
      recipients: this.recipients,
      timers: this.timers,
      logger: ctx.logger,
      usernameOf: (sock, lid) => this.usernames.usernameOfLid(sock, lid)
    })
    this.history = new PhoneHistory({ hooks: ctx.hooks, messages: this.messages, timers: this.timers, logger: ctx.logger, ...(opts.historyWaitMs !== undefined ? { waitMs: opts.historyWaitMs } : {}) })
  }

  get currentState(): ConnectionState {
    return this.state
  }

  /** True while a socket exists (tests: nothing left behind after stop/logout). */
  get hasSocket(): boolean {
    return this.run !== null
  }

  /** Resolves once every inbound message received so far was handed to the app (tests, shutdown). */
  inboundSettled(): Promise<void> {
    return this.inbound.settled()
  }

  /** True while a reconnect is scheduled. */
  get reconnectPending(): boolean {
    return this.reconnectTimer !== null
  }

  start(): Promise<void> {
    return this.serial(async () => {
      if (this.running) return
      this.running = true
      this.epoch++
      this.attempt = this.restartsInRow = 0
      this.openedAt = this.lastReplacedAt = null
      this.report({ state: 'CONNECTING' })
      try {
        this.auth = await this.openAuth()
        await this.messages.load()
      } catch (err) {
        this.running = false
        this.ctx.logger.error({ err }, 'could not read the saved WhatsApp credentials')
        this.report({ state: 'DISCONNECTED', reason: errorMessage(err) })
        return
      }
      this.version = await this.versions.get()
      if (!this.running) return
      this.connect()
    })
  }

  stop(): Promise<void> {
    return this.serial(async () => {
      this.halt(new ChannelError('NOT_CONNECTED', 'The session was stopped before the message was sent.'))
      await this.endSocket()
      await this.messages.close()
      await this.auth?.close()
      this.auth = null
      if (this.state !== 'DISCONNECTED' && this.state !== 'LOGGED_OUT') this.report({ state: 'DISCONNECTED', reason: 'stopped' })
    })
  }

  logout(): Promise<void> {
    return this.serial(async () => {
      const wasConnected = this.state === 'CONNECTED'
      this.halt(new ChannelError('NOT_CONNECTED', 'The session was logged out before the message was sent.'))
      const run = this.run
      if (run) {
        this.detach()
        if (wasConnected) {
          try {
            await withTimeout(this.timers, run.sock.logout(), this.opts.logoutTimeoutMs ?? 5000, () => {
              this.ctx.logger.warn('the server did not confirm the logout in time; deleting the local credentials anyway')
            })
          } catch (err) {
            this.ctx.logger.warn({ err }, 'could not unlink the device on the server; deleting the local credentials anyway')
          }
        }
        await this.endSocket(run.sock)
      }
      await this.dropCredentials()
      this.report({ state: 'LOGGED_OUT', reason: OWN_LOGOUT_REASON })
    })
  }

  async requestPairingCode(phone: string): Promise<string> {
    const digits = phone.replace(/\D/g, '')
    if (this.state === 'CONNECTED' || this.auth?.paired) throw new ChannelError('ALREADY_PAIRED', 'The instance is already linked.')
    if (!this.running) throw new ChannelError('NOT_STARTED', 'Call /chatapp/init first, then ask for a pairing code.')
    if (!this.run && this.reconnectTimer !== null && this.lastFailure) {
      throw new ChannelError('NOT_STARTED', `Not connected to WhatsApp yet (${this.lastFailure}); try again later.`)
    }
    const sock = this.state === 'QR' && this.run ? this.run.sock : await this.waitForQr()
    try {
      return await requestPairingCode(sock, digits, this.opts.browser ?? DEFAULT_BROWSER)
    } catch (err) {
      if (err instanceof PairingRefusedError) {
        throw new ChannelError(
          'PAIRING_REFUSED',
          `WhatsApp refused the pairing-code request (${err.code ?? 'error'}: ${err.message}). Check the number with its country code, or link with the QR code.`
        )
      }
      throw new ChannelError('NOT_STARTED', `Could not request a pairing code: ${errorMessage(err)}. Try again.`)
    }
  }

  async send(jid: string, content: OutboundContent, options: ChannelSendOptions = {}): Promise<SentMessage> {
    if (this.state !== 'CONNECTED' || !this.run) throw new ChannelError('NOT_CONNECTED', 'The instance is not connected.')
    return this.outbound.send((expected) => this.connectedSocket(expected), jid, content, options)
  }

  /** The LID of a WhatsApp username, asked of the server (usernames.ts). */
  async resolveUsername(username: string): Promise<string | undefined> {
    return this.usernames.lidOfUsername(this.connectedSocket(), username)
  }

  /** A reaction on a message (outbound-sender.ts), in the send queue's order. */
  async react(target: ReactionTarget, emoji: string): Promise<void> {
    if (this.state !== 'CONNECTED' || !this.run) throw new ChannelError('NOT_CONNECTED', 'The instance is not connected.')
    return this.outbound.react((expected) => this.connectedSocket(expected), target, emoji)
  }

  /**
   * Read receipts through the library's `readMessages` (lib/Socket/messages-send.js): it asks the
   * server for the account's privacy settings once and sends `type="read"` when read receipts are
   * shared (`readreceipts: all`), else `read-self` (only the owner's other devices learn of it).
   */
  async markRead(keys: ReadKey[]): Promise<void> {
    if (keys.length === 0) return
    await this.connectedSocket().readMessages(keys.map((k) => ({ remoteJid: k.chatId, id: k.id, fromMe: false, ...(k.participant ? { participant: k.participant } : {}) })))
  }

  async addToGroup(groupJid: string, participants: string[]): Promise<GroupAddResult[]> {
    return addToGroup(this.connectedSocket(), this.groups, groupJid, participants)
  }

  async downloadMedia(messageId: string): Promise<DownloadedMedia> {
    return downloadInboundMedia(this.messages, messageId, this.run?.sock, this.libLogger)
  }

  /**
   * "typing…" and its end through Baileys' `sendPresenceUpdate('composing' | 'paused', jid)`
   * (lib/Socket/chats.js: a `<chatstate>` node with `<composing/>` or `<paused/>`), addressed to the
   * chat's LID once known, as sends are (outbound-sender.ts).
   */
  async setTyping(jid: string, typing: boolean): Promise<void> {
    const sock = this.connectedSocket()
    const to = (this.auth ? await knownLidFor(jid, this.auth.keys) : undefined) ?? jid
    await sock.sendPresenceUpdate(typing ? 'composing' : 'paused', to)
  }

  /** Older messages of a chat from the phone (phone-history.ts): the request, then a bounded wait for the answer. */
  async fetchHistory(anchor: HistoryAnchor, count: number): Promise<HistoryFetchResult> {
    return this.history.fetch(this.connectedSocket(), anchor, count)
  }

  /* ---------- socket ---------- */

  private socketConfig(auth: AuthState): UserFacingSocketConfig {
    return {
      // The keys straight from the database, without the library's makeCacheableSignalKeyStore: a read
      // costs ~0.07 ms (docs/benchmarks.md "Channel credentials"), and that cache takes a value before the
      // store has committed it (lib/Utils/auth-utils.js), so after a failed commit the socket would go on
      // with keys a restart would not have.
      auth: { creds: auth.creds, keys: auth.keys },
      logger: this.libLogger,
      browser: this.opts.browser ?? DEFAULT_BROWSER,
      version: this.version ?? this.opts.version ?? DEFAULT_CONNECTION_CONFIG.version,
      ...(this.opts.waWebSocketUrl ? { waWebSocketUrl: this.opts.waWebSocketUrl } : {}),
      // The phone keeps its notifications while the desk is linked.
      markOnlineOnConnect: false,
      syncFullHistory: false,
      getMessage: async (key) => this.messages.content(key.id),
      cachedGroupMetadata: (jid) => this.groups.get(jid),
      // Status posts, broadcast lists and channels are not conversations. Their messages get a plain
      // ack before the library sees them (ignored-messages.ts: the library would NACK them, and a
      // NACKed status holds back the offline queue); the library acks their receipts and notifications.
      shouldIgnoreJid: isIgnoredJid,
      msgRetryCounterCache: this.caches.msgRetry,
      userDevicesCache: this.caches.userDevices,
      callOfferCache: this.caches.callOffer,
      placeholderResendCache: this.caches.placeholderResend
    }
  }

  /** Makes the one socket of the session. Only called with no socket and a running session. */
  private connect(): void {
    if (!this.running || this.run || !this.auth) return
    let sock: BaileysSocket
    try {
      sock = this.factory(this.socketConfig(this.auth))
    } catch (err) {
      // E.g. an invalid test URL: handled like a connection that failed at once.
      this.onClose(null, err)
      return
    }
    const run: SocketRun = attachSocket(sock, {
      connection: (u) => this.onConnectionUpdate(run, u),
      creds: (u) => this.onCredsUpdate(run, u),
      upsert: (u) => {
        if (run === this.run) this.inbound.upsert(run, u)
      },
      history: (u) => {
        if (run === this.run) this.history.set(run, u)
      },
      regRefresh: () => this.onRegRefresh(run),
      lidMapping: ({ lid, pn }) => {
        if (run === this.run && lid && pn) this.ctx.hooks.onChatIdentity({ lid: stripDevice(lid), pn: stripDevice(pn) })
      },
      capping: (info) => {
        if (run === this.run) this.ctx.hooks.onLimits(cappingLimits(info))
      },
      groupsUpsert: (g) => this.groups.upsert(g),
      groupsUpdate: (g) => this.groups.update(g),
      participants: (u) => this.groups.participantsChanged(u),
      status: (update) => {
        if (run === this.run) this.ctx.hooks.onMessageStatus(update)
      },
      encrypt: (node) => {
        if (run === this.run) this.onEncryptNotification(run, node)
      },
      log: (level, fields, msg) => this.ctx.logger[level](fields, msg)
    })
    this.run = run
  }

  private onConnectionUpdate(run: SocketRun, u: BaileysEventMap['connection.update']): void {
    if (run !== this.run) return
    if (typeof u.qr === 'string' && u.qr) {
      run.qrShown = true
      run.lastQr = u.qr
      if (this.state !== 'QR') this.report({ state: 'QR' })
      this.ctx.hooks.onQr(this.auth ? withAdvSecret(u.qr, this.auth.creds.advSecretKey) : u.qr)
      for (const w of this.qrWaiters.splice(0)) {
        this.timers.clearTimeout(w.timer)
        w.resolve(run.sock)
      }
    }
    if (u.isNewLogin) this.ctx.logger.info('device linked; the connection restarts to log in')
    if (u.reachoutTimeLock) this.ctx.hooks.onLimits(reachoutLimits(u.reachoutTimeLock))
    if (u.receivedPendingNotifications) run.pendingDone = true
    if (u.connection === 'open') {
      // The attempt count is kept until the connection has stayed open a while (onClose).
      this.restartsInRow = 0
      this.openedAt = this.timers.now()
      this.lastFailure = null
      const me = run.sock.user ?? this.auth?.creds.me
      this.account = me ? accountFrom(me) : null
      this.report({ state: 'CONNECTED', ...(this.account ? { account: this.account } : {}) })
    }
    if (u.connection === 'close') this.onClose(run, u.lastDisconnect?.error)
  }

  /**
   * A contact's identity changed (a new phone): its devices no longer hold our sender keys, and a
   * session with its old phone that rc14 left in place (an offline notification) is deleted
   * (sender-key-memory.ts, Baileys #2704). The work is queued on the library's key transaction for our
   * JID at once, before the library acks the notification, so the next send waits for it.
   */
  private onEncryptNotification(run: SocketRun, node: BinaryNode): void {
    const auth = this.auth
    if (!auth) return
    const { sock } = run
    const keys = sock.authState.keys
    const work = async (): Promise<number> => {
      const change = await identityChangeOf(node, sock.authState.creds.me, sock.signalRepository.lidMapping)
      if (!change) return 0
      // Same test as lib/Utils/identity-change-handler.js, which skips its session refresh then.
      if (node.attrs.offline) await sock.signalRepository.deleteSession(change.jids)
      return forgetSenderKeyHolders(keys, await auth.keyIds('sender-key-memory'), change.users)
    }
    const meId = sock.authState.creds.me?.id
    const done = keys.transaction && meId ? keys.transaction(work, meId) : work()
    done.then(
      (removed) => {
        if (removed > 0) this.ctx.logger.info({ from: node.attrs.from, devices: removed }, "a contact's identity changed; its devices get our group sender keys again")
      },
      (err: unknown) => this.ctx.logger.warn({ err, from: node.attrs.from }, "could not reset the sender-key memory after a contact's identity change")
    )
  }

  /**
   * `companion_reg_refresh` (pairing.ts): a new adv secret, saved, and the current QR shown again
   * with it. Ignored once paired or after a pairing-code stage 2 (whatsapp-rust PR #1163).
   */
  private onRegRefresh(run: SocketRun): void {
    if (run !== this.run || !this.auth) return
    if (this.auth.paired || run.pairCodeStage2) {
      this.ctx.logger.info('companion_reg_refresh ignored: the pairing is already under way with its own secret')
      return
    }
    this.auth.creds.advSecretKey = newAdvSecret()
    this.auth.saveCreds().catch((err) => this.ctx.logger.error({ err }, 'could not save the WhatsApp credentials'))
    this.ctx.logger.info('WhatsApp retired the QR secret (companion_reg_refresh); showing the QR with a new one')
    if (run.lastQr) this.ctx.hooks.onQr(withAdvSecret(run.lastQr, this.auth.creds.advSecretKey))
  }

  private onCredsUpdate(run: SocketRun, update: BaileysEventMap['creds.update']): void {
    if (run !== this.run || !this.auth) return
    // The socket already merged it into the same object; merging again keeps us right if not.
    Object.assign(this.auth.creds, update)
    this.auth.saveCreds().catch((err) => this.ctx.logger.error({ err }, 'could not save the WhatsApp credentials'))
    if (this.state === 'CONNECTED' && update.me) {
      const account = accountFrom({ ...this.auth.creds.me!, ...update.me })
      if (account.name !== this.account?.name || account.lid !== this.account?.lid) {
        this.account = account
        this.report({ state: 'CONNECTED', account })
      }
    }
  }

  /** A socket closed (or could not be made: `run` null). Decides what comes next. */
  private onClose(run: SocketRun | null, error: unknown): void {
    if (run) {
      if (run !== this.run) return
      this.detach()
    }
    const lost = new ChannelError('NOT_CONNECTED', 'The connection closed before the message was sent.')
    this.outbound.clear(lost)
    this.rejectQrWaiters(new ChannelError('NOT_STARTED', 'The connection closed while waiting to pair; try again.'))
    if (!this.running) return

    const statusCode = statusCodeOf(error)
    const message = errorMessage(error ?? 'connection closed')
    const now = this.timers.now()
    if (this.openedAt !== null && now - this.openedAt >= (this.opts.stableOpenMs ?? STABLE_OPEN_MS)) this.attempt = 0
    this.openedAt = null
    const replacedWindowMs = this.opts.replacedWindowMs ?? REPLACED_WINDOW_MS
    const action = decideDisconnect({
      statusCode,
      message,
      paired: this.auth?.paired ?? false,
      qrShown: run?.qrShown ?? false,
      restartsInRow: this.restartsInRow,
      replacedRecently: this.lastReplacedAt !== null && now - this.lastReplacedAt < replacedWindowMs
    })
    this.restartsInRow = statusCode === CloseCode.restartRequired ? this.restartsInRow + 1 : 0
    const what = describeClose(statusCode, message)

    switch (action.kind) {
      case 'reconnect-now':
        this.ctx.logger.info({ statusCode }, 'WhatsApp asked for a restart; reconnecting')
        this.report({ state: 'CONNECTING', reason: 'restarting the connection' })
        this.scheduleConnect(0)
        return
      case 'backoff': {
        this.attempt++
        const serverError = action.schedule === 'server-error'
        const delay = backoffDelayMs(this.attempt, this.random(), serverError ? this.serverErrorBackoff : this.backoff)
        if (action.refreshVersion) this.refreshVersionNext = true
        const failure = serverError ? `WhatsApp server error: ${what}` : `connection failed: ${what}`
        const reason = `${failure}, retrying in ${formatDelay(delay)}`
        this.lastFailure = failure
        this.ctx.logger.warn({ statusCode, attempt: this.attempt, delayMs: delay }, reason)
        this.report({ state: 'CONNECTING', reason })
        this.scheduleConnect(delay)
        return
      }
      case 'replaced-retry': {
        this.lastReplacedAt = now
        const delay = this.opts.replacedRetryMs ?? REPLACED_RETRY_MS
        const reason = `another WhatsApp Web client took over this session (${what}); reconnecting in ${formatDelay(delay)}`
        this.lastFailure = 'another WhatsApp Web client took over this session'
        this.ctx.logger.warn({ statusCode }, reason)
        this.report({ state: 'CONNECTING', reason })
        this.scheduleConnect(delay)
        return
      }
      case 'qr-expired':
        this.terminal('DISCONNECTED', 'the QR code expired without a scan; call init again to pair', { resetUnpaired: true })
        return
      case 'replaced':
        this.terminal(
          'DISCONNECTED',
          `another WhatsApp Web client took over this session again within ${formatDelay(replacedWindowMs)} (${what}): ` +
            'stopped so the two do not keep evicting each other; close the other one, then call init to take the session back here',
          {}
        )
        return
      case 'fatal':
        this.terminal('DISCONNECTED', `stopped: ${what}`, {})
        return
      case 'logged-out':
        this.terminal('LOGGED_OUT', `logged out by WhatsApp: ${what}; the device must be linked again`, { dropCredentials: true })
        return
    }
  }

  /** Stops after a close the session must not retry; the async clean-up runs in the lifecycle chain. */
  private terminal(state: ConnectionState, reason: string, how: { dropCredentials?: boolean; resetUnpaired?: boolean }): void {
    this.halt(new ChannelError('NOT_CONNECTED', 'The instance is not connected.'))
    const level = state === 'LOGGED_OUT' ? 'warn' : 'info'
    this.ctx.logger[level]({ state }, reason)
    void this.serial(async () => {
      if (how.dropCredentials) {
        await this.dropCredentials()
      } else if (how.resetUnpaired && this.auth && !this.auth.paired && this.auth.creds.me) {
        // A pairing code was asked for and never entered: those creds cannot log in.
        await this.messages.close()
        await this.auth.destroy()
        this.auth = null
      } else {
        await this.messages.close()
        await this.auth?.close()
        this.auth = null
      }
      this.report({ state, reason })
    })
  }

  private scheduleConnect(delayMs: number): void {
    this.clearReconnect()
    const epoch = this.epoch
    this.reconnectTimer = this.timers.setTimeout(() => {
      this.reconnectTimer = null
      void this.serial(async () => {
        if (epoch !== this.epoch || !this.running) return
        if (this.auth && !this.auth.paired && this.auth.creds.me) {
          // The socket died during a pairing-code attempt: start again from fresh creds.
          await this.auth.destroy()
          this.auth = null
          try {
            this.auth = await this.openAuth()
            await this.messages.load()
          } catch (err) {
            this.halt(new ChannelError('NOT_CONNECTED', 'The instance is not connected.'))
            this.report({ state: 'DISCONNECTED', reason: errorMessage(err) })
            return
          }
        }
        if (this.refreshVersionNext) {
          this.refreshVersionNext = false
          this.version = await this.versions.refresh()
        }
        if (epoch !== this.epoch || !this.running) return
        this.connect()
      })
    }, delayMs)
  }

  private waitForQr(): Promise<BaileysSocket> {
    return new Promise((resolve, reject) => {
      const waiter = {
        resolve,
        reject,
        timer: this.timers.setTimeout(() => {
          this.qrWaiters = this.qrWaiters.filter((w) => w !== waiter)
          reject(new ChannelError('NOT_STARTED', `The connection is not ready for pairing yet (status ${this.state}); try again in a moment.`))
        }, this.opts.pairingWaitMs ?? 30_000)
      }
      this.qrWaiters.push(waiter)
    })
  }

  private rejectQrWaiters(err: ChannelError): void {
    for (const w of this.qrWaiters.splice(0)) {
      this.timers.clearTimeout(w.timer)
      w.reject(err)
    }
  }

  /** The current socket if connected (and still `expected`, when given); else NOT_CONNECTED. */
  private connectedSocket(expected?: BaileysSocket): BaileysSocket {
    const sock = this.run?.sock
    if (this.state !== 'CONNECTED' || !sock || (expected && sock !== expected)) {
      throw new ChannelError('NOT_CONNECTED', 'The instance is not connected.')
    }
    return sock
  }

  /* ---------- teardown ---------- */

  /** No more connecting: bumps the epoch, clears the timer, fails queued sends and pairing waits. */
  private halt(err: ChannelError): void {
    this.running = false
    this.epoch++
    this.clearReconnect()
    this.outbound.clear(err)
    this.history.clear()
    this.rejectQrWaiters(new ChannelError('NOT_STARTED', 'The session stopped.'))
  }

  private detach(): void {
    const run = this.run
    this.run = null
    run?.detach()
  }

  /** Detaches and ends the socket (or `sock`), waiting at most closeTimeoutMs. */
  private async endSocket(sock = this.run?.sock): Promise<void> {
    if (this.run?.sock === sock) this.detach()
    if (!sock) return
    const ending = Promise.resolve().then(() => sock.end(undefined))
    await withTimeout(this.timers, ending, this.opts.closeTimeoutMs ?? 3000, () => undefined).catch((err) =>
      this.ctx.logger.debug({ err }, 'socket end failed')
    )
  }

  private openAuth(): Promise<AuthState> {
    return AuthState.open(this.ctx.store.auth, this.ctx.instanceId, { logger: this.ctx.logger, now: () => this.timers.now() })
  }

  /** Deletes the instance's credentials, keys and kept messages, and forgets what memory holds of them. */
  private async dropCredentials(): Promise<void> {
    await this.messages.destroy()
    if (this.auth) await this.auth.destroy()
    else await AuthState.remove(this.ctx.store.auth, this.ctx.instanceId)
    this.auth = null
    this.account = null
    this.groups.clear()
    this.recipients.clear()
    this.usernames.clear()
    for (const c of Object.values(this.caches)) void c.flushAll()
  }

  private clearReconnect(): void {
    if (this.reconnectTimer !== null) this.timers.clearTimeout(this.reconnectTimer)
    this.reconnectTimer = null
  }

  private report(update: StateUpdate): void {
    this.state = update.state
    this.ctx.hooks.onState(update)
  }

  private serial(fn: () => Promise<void>): Promise<void> {
    const next = this.lifecycle.then(fn)
    this.lifecycle = next.catch((err) => this.ctx.logger.error({ err }, 'baileys session lifecycle step failed'))
    return next
  }
}
