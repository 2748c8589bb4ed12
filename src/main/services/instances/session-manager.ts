/**
 * Session orchestration: one live channel session per started instance (docs/design.md §5).
 *
 * Creates sessions through the channel factories, keeps the latest QR per instance, persists state
 * changes to the instance record (status, bot_number, user) and publishes them on the event bus, and
 * hands inbound messages to the inbound pipeline. At shutdown sessions stop without writing
 * DISCONNECTED, so instances that were CONNECTED reconnect by themselves at the next start.
 */
import { linkedName } from './instance-names'
import type {
  ChannelFactory,
  ChannelKind,
  ChannelSession,
  ChannelStore,
  ChatIdentity,
  HistoryBatch,
  InboundMessage,
  MessageChange,
  MessageStatusUpdate,
  SendLimits,
  StateUpdate
} from '../../channel/types'
import type { CoreEventBus } from '../../events'
import type { Logger } from '../../logger'
import { isoNow, type Clock } from '../../clock'
import type { InstanceRepo } from '../../store/repos'
import type { Instance } from '../../../shared/schemas/records'
import type { ChannelAuthRepo } from '../../store/repos/channel-auth-repo'
import type { Fence } from '../../store/repos/lease-repo'
import { StaleLeaseError } from '../../store/db/errors'
import { AppError } from '../../errors'

/**
 * The lease loop as the session manager sees it in database mode (../cluster/worker-leases.ts): a
 * session starts only with the fence of a lease this worker holds.
 */
export interface SessionLeases {
  /** The fence to start `instanceId` with; throws AppError CONFLICT naming the owner when another worker holds it. */
  acquire(instanceId: string): Promise<Fence>
  /** A credential write of `instanceId` was fenced off: another worker owns it. */
  lost(instanceId: string): Promise<void>
  /** The owner stopped or logged out `instanceId` here: its lease goes at once (fenced). Never rejects. */
  release(instanceId: string): Promise<void>
  /** `instanceId` was deleted: its lease row goes (fenced). Never rejects. */
  forget(instanceId: string): Promise<void>
}

export interface SessionManagerDeps {
  instances: InstanceRepo
  /** Where channels keep each instance's credentials and recent messages (the database's repositories). */
  channelStore: ChannelStore
  clock: Clock
  events: CoreEventBus
  logger: Logger
  factories: Partial<Record<ChannelKind, ChannelFactory>>
  /** Where inbound messages go (message log, bot engine, webhooks). Never rejects. */
  onInbound: (instanceId: string, message: InboundMessage) => Promise<void>
  /** Where edits, deletions, reactions and poll votes go (inbound-pipeline.ts change). Never rejects. */
  onMessageChange: (instanceId: string, change: MessageChange) => Promise<void>
  /** Where LID→number links go (inbound-pipeline.ts identity). Never rejects. */
  onChatIdentity: (instanceId: string, identity: ChatIdentity) => Promise<void>
  /** Where delivery status reports go (message-status.ts). Never rejects. */
  onMessageStatus: (instanceId: string, update: MessageStatusUpdate) => Promise<void>
  /** Where the phone's history goes (phone-history-service.ts): answers how many were new. Never rejects. */
  onHistory: (instanceId: string, batch: HistoryBatch) => Promise<{ added: number }>
}

export class SessionManager {
  private readonly sessions = new Map<string, ChannelSession>()
  private readonly qrs = new Map<string, string>()
  /** WhatsApp's outreach limits per instance, as last reported (kept while the app runs). */
  private readonly sendLimits = new Map<string, SendLimits>()
  /** Why each instance is in its state (e.g. the last connection error while reconnecting). */
  private readonly reasons = new Map<string, string>()
  private closing = false
  private restoring: Promise<unknown> = Promise.resolve()
  /** Per instance, the state changes being written, in the order the channel reported them. */
  private readonly stateWrites = new Map<string, Promise<void>>()
  /** Database mode: the lease loop, and the fence each running session's credential writes carry. */
  private leases: SessionLeases | null = null
  private readonly fences = new Map<string, Fence>()
  /** Sessions stopped because their lease moved: what they report no longer reaches the record. */
  private readonly muted = new Set<string>()
  /** Starts the lease loop asked for and not settled yet (`restored()` waits for them too). */
  private readonly resumes = new Set<Promise<void>>()
  /** Instances this worker claimed from another (the lease loop) whose session is not CONNECTED yet. */
  private readonly takeOvers = new Set<string>()

  constructor(private readonly deps: SessionManagerDeps) {}

  /**
   * Database mode (docs/design.md §22): from now on a session starts only under a lease of this worker
   * (`start` and `logout` acquire one, answering 409 when another worker holds it), its credential
   * writes carry the lease's fence, and `restore()` leaves the starts to the lease loop.
   */
  useLeases(leases: SessionLeases): void {
    this.leases = leases
  }

  /** True while a session of the instance runs here. */
  has(instanceId: string): boolean {
    return this.sessions.has(instanceId)
  }

  /**
   * True from the moment the lease loop hands this worker an instance to resume until its session
   * reports any state but CONNECTING (docs/design.md §22 "Take-over"): a change asked meanwhile waits
   * for the connection instead of being refused (api/forward.ts).
   */
  takingOver(instanceId: string): boolean {
    return this.takeOvers.has(instanceId)
  }

  /**
   * The restore path for one instance the lease loop claimed: marks it CONNECTING when saved as
   * connected, and starts its session with `fence`. Never rejects (a failure is logged).
   */
  resume(instanceId: string, fence: Fence): Promise<void> {
    const p = this.resumeOne(instanceId, fence)
    this.resumes.add(p)
    void p.finally(() => this.resumes.delete(p))
    return p
  }

  private async resumeOne(instanceId: string, fence: Fence): Promise<void> {
    try {
      this.fences.set(instanceId, fence)
      this.muted.delete(instanceId)
      const status = this.deps.instances.find(instanceId)?.settings.status
      if (status === 'CONNECTED' || status === 'CONNECTING') this.takeOvers.add(instanceId)
      if (status === 'CONNECTED') await this.queueState(instanceId, { state: 'CONNECTING' })
      await this.start(instanceId)
    } catch (err) {
      this.takeOvers.delete(instanceId)
      this.deps.logger.warn({ err, instanceId }, 'could not start the claimed session')
    }
  }

  /**
   * Database mode: an instance saved as showing a QR that no worker holds a lease for (the worker that
   * showed it stopped) is DISCONNECTED, as `restore()` does at a single process's start.
   */
  async qrAbandoned(instanceId: string): Promise<void> {
    if (this.sessions.has(instanceId) || this.deps.instances.find(instanceId)?.settings.status !== 'QR') return
    await this.queueState(instanceId, { state: 'DISCONNECTED' })
  }

  /**
   * Stops the session of an instance whose lease this worker lost (another worker runs it, or may
   * soon): at once, without a logout, without deleting credentials, and without writing its state
   * (the record is the new owner's to write).
   */
  async drop(instanceId: string): Promise<void> {
    this.muted.add(instanceId)
    this.fences.delete(instanceId)
    this.takeOvers.delete(instanceId)
    const session = this.sessions.get(instanceId)
    this.sessions.delete(instanceId)
    this.qrs.delete(instanceId)
    this.takeOvers.delete(instanceId)
    await session?.stop().catch((err: unknown) => this.deps.logger.warn({ err, instanceId }, 'stopping a session whose lease was lost failed'))
  }

  /** The live session of an instance, if started. */
  get(instanceId: string): ChannelSession | undefined {
    return this.sessions.get(instanceId)
  }

  /** The latest QR payload of an instance in state QR. */
  latestQr(instanceId: string): string | undefined {
    return this.qrs.get(instanceId)
  }

  /** WhatsApp's outreach limits of an instance (capping, reach-out lock), if any were reported. */
  limits(instanceId: string): SendLimits | undefined {
    return this.sendLimits.get(instanceId)
  }

  /** The reason the channel gave with the current state, if any. */
  stateReason(instanceId: string): string | undefined {
    return this.reasons.get(instanceId)
  }

  /** Starts the instance's session (idempotent). Throws CONFLICT when its channel is unavailable. */
  async start(instanceId: string): Promise<ChannelSession> {
    let session = this.sessions.get(instanceId)
    if (!session) {
      await this.leased(instanceId)
      session = this.sessions.get(instanceId)
    }
    if (!session) {
      session = this.create(instanceId)
      this.sessions.set(instanceId, session)
    }
    await session.start()
    await this.settled(instanceId)
    return session
  }

  /**
   * Resolves once every state change reported so far for the instance is stored, so a caller that
   * made one happen (init, a scan, a logout) answers with it in the instance record. Never rejects.
   */
  async settled(instanceId: string): Promise<void> {
    await this.stateWrites.get(instanceId)
  }

  /** Stops the session and forgets it; credentials stay. */
  async stop(instanceId: string): Promise<void> {
    const session = this.sessions.get(instanceId)
    this.sessions.delete(instanceId)
    this.qrs.delete(instanceId)
    await session?.stop()
    await this.settled(instanceId)
    // Database mode: the owner stopped it, so another worker may start it now (not after the TTL).
    this.fences.delete(instanceId)
    await this.leases?.release(instanceId)
  }

  /** Unlinks the device and deletes its credentials, whether or not a session is running. */
  async logout(instanceId: string): Promise<void> {
    if (!this.sessions.has(instanceId)) await this.leased(instanceId)
    const session = this.sessions.get(instanceId) ?? this.create(instanceId)
    this.sessions.delete(instanceId)
    this.qrs.delete(instanceId)
    await session.logout()
    await this.settled(instanceId)
    this.fences.delete(instanceId)
    await this.leases?.release(instanceId)
  }

  /** Database mode: the instance was deleted; its lease row goes (fenced: never another worker's live lease). */
  async forget(instanceId: string): Promise<void> {
    this.fences.delete(instanceId)
    await this.leases?.forget(instanceId)
  }

  /**
   * Starts the instances that were connected (or reconnecting) when the app last stopped, marked
   * CONNECTING until their channel says otherwise. Does not wait for their sessions to start (the
   * API serves meanwhile); `restored()` does.
   */
  async restore(): Promise<void> {
    // Database mode: every worker would start every instance; the lease loop starts those it claims.
    if (this.leases) return
    const starts: Promise<unknown>[] = []
    for (const inst of this.deps.instances.all()) {
      const status = inst.settings.status
      if (status === 'CONNECTED' || status === 'CONNECTING') {
        // The saved CONNECTED is the last run's: until the channel logs in again the instance is
        // connecting, and a client reading the status before then must not try to send.
        await this.queueState(inst._id, { state: 'CONNECTING' })
        starts.push(this.start(inst._id).catch((err) => this.deps.logger.warn({ err, instanceId: inst._id }, 'could not restore session')))
      } else if (status === 'QR') {
        // A QR left on screen at shutdown has expired; the owner starts pairing again.
        await this.queueState(inst._id, { state: 'DISCONNECTED' })
      }
    }
    this.restoring = Promise.all(starts)
  }

  /** Settles when every session `restore()` started has started (or failed to); never rejects. */
  restored(): Promise<void> {
    return Promise.all([this.restoring, ...this.resumes]).then(() => undefined)
  }

  /** Stops every session for shutdown; saved statuses are kept for the next start. */
  async closeAll(): Promise<void> {
    this.closing = true
    const all = [...this.sessions.values()]
    this.sessions.clear()
    this.fences.clear()
    await Promise.allSettled(all.map((s) => s.stop()))
  }

  /** True when the instance has saved channel credentials (a pairing, Signal keys). */
  hasCredentials(instanceId: string): Promise<boolean> {
    return this.deps.channelStore.auth.has(instanceId)
  }

  /** Database mode: makes sure this worker holds the instance's lease (its fence noted) before a session starts. */
  private async leased(instanceId: string): Promise<void> {
    if (!this.leases) return
    if (!this.deps.instances.find(instanceId)) throw new AppError('NOT_FOUND', 'Instance not found')
    this.fences.set(instanceId, await this.leases.acquire(instanceId))
    this.muted.delete(instanceId)
  }

  /**
   * The channel store of a session, its credential writes carrying `fence`: a write refused because
   * the lease moved (StaleLeaseError) stops the session at once, before it writes anything else.
   */
  private fencedStore(instanceId: string, fence: Fence): ChannelStore {
    const auth = this.deps.channelStore.auth
    const refused = (err: unknown): never => {
      if (err instanceof StaleLeaseError) void this.leases?.lost(instanceId)
      throw err
    }
    // The reads are the repository's own; the four writes add the fence.
    const fenced = Object.create(auth) as ChannelAuthRepo
    fenced.saveCreds = (id, creds, at) => auth.saveCreds(id, creds, at, fence).catch(refused)
    fenced.applyKeys = (id, changes) => auth.applyKeys(id, changes, fence).catch(refused)
    fenced.clearKeys = (id) => auth.clearKeys(id, fence).catch(refused)
    fenced.remove = (id) => auth.remove(id, fence).catch(refused)
    return { ...this.deps.channelStore, auth: fenced }
  }

  private create(instanceId: string): ChannelSession {
    const inst = this.deps.instances.find(instanceId)
    if (!inst) throw new AppError('NOT_FOUND', 'Instance not found')
    const kind = inst.settings.channel
    const factory = this.deps.factories[kind]
    if (!factory) throw new AppError('CONFLICT', `The ${kind} channel is not available in this build.`)
    const logger = this.deps.logger.child({ instanceId, channel: kind })
    const fence = this.leases ? this.fences.get(instanceId) : undefined
    return factory({
      instanceId,
      store: fence ? this.fencedStore(instanceId, fence) : this.deps.channelStore,
      logger,
      now: () => this.deps.clock.now(),
      hooks: {
        onState: (update) => void this.queueState(instanceId, update),
        onQr: (qr) => {
          this.qrs.set(instanceId, qr)
          this.deps.events.emit('qr', { instanceId, qr })
        },
        onMessage: (message) =>
          this.deps.onInbound(instanceId, message).catch((err) => logger.error({ err }, 'inbound message failed')),
        onMessageStatus: (update) => void this.deps.onMessageStatus(instanceId, update),
        onMessageChange: (change) => this.deps.onMessageChange(instanceId, change).catch((err) => logger.error({ err }, 'message change failed')),
        onChatIdentity: (identity) => void this.deps.onChatIdentity(instanceId, identity),
        onHistory: (batch) => this.deps.onHistory(instanceId, batch),
        onLimits: (update) => {
          const limits = { ...this.sendLimits.get(instanceId), ...update }
          this.sendLimits.set(instanceId, limits)
          logger.warn({ limits }, 'WhatsApp changed the outreach limits of this number')
          this.deps.events.emit('limits', { instanceId, limits })
        }
      }
    })
  }

  /** Stores a state change after those reported before it (each sees the one before as its previous state). */
  private queueState(instanceId: string, update: StateUpdate): Promise<void> {
    const next = (this.stateWrites.get(instanceId) ?? Promise.resolve())
      .then(() => this.persistState(instanceId, update))
      .catch((err: unknown) => this.deps.logger.error({ err, instanceId }, 'could not save the instance state'))
    this.stateWrites.set(instanceId, next)
    void next.then(() => this.stateWrites.get(instanceId) === next && this.stateWrites.delete(instanceId))
    return next
  }

  private async persistState(instanceId: string, update: StateUpdate): Promise<void> {
    const inst = this.deps.instances.find(instanceId)
    if (!inst) return
    if (update.state !== 'QR') this.qrs.delete(instanceId)
    // A take-over ends once this state is stored, not when it is reported: a change that waited for it
    // goes ahead then, and a send is refused while the stored status still says CONNECTING.
    try {
      await this.storeState(instanceId, inst, update)
    } finally {
      if (update.state !== 'CONNECTING') this.takeOvers.delete(instanceId)
    }
  }

  private async storeState(instanceId: string, inst: Instance, update: StateUpdate): Promise<void> {
    const previous = inst.settings.status
    if (update.reason) this.reasons.set(instanceId, update.reason)
    else this.reasons.delete(instanceId)
    const s = inst.settings
    const user = update.account ? { id: update.account.id, name: update.account.name } : update.state === 'LOGGED_OUT' ? null : s.user
    const botNumber = update.account?.phone ?? s.bot_number
    // Linked to a (new) number: an instance nobody named is called by it from now on.
    const renamed = botNumber && botNumber !== s.bot_number ? linkedName(s.bot_name, botNumber, this.deps.instances.all().flatMap((i) => (i._id === instanceId ? [] : [i.settings.bot_name]))) : null
    const changed = previous !== update.state || botNumber !== s.bot_number || JSON.stringify(user) !== JSON.stringify(s.user)
    // A reconnecting channel reports CONNECTING again on every retry: only real changes are written.
    // A session whose lease moved no longer speaks for the instance: the new owner writes its state.
    if (this.muted.has(instanceId)) return
    if (changed && !this.closing) {
      await this.deps.instances.update(instanceId, (d) => {
        d.settings.status = update.state
        d.settings.bot_number = botNumber
        if (renamed) d.settings.bot_name = renamed
        d.settings.user = user
        if (update.state === 'CONNECTED') d.settings.last_connected_at = isoNow(this.deps.clock)
        d.updatedAt = isoNow(this.deps.clock)
      })
    }
    if (previous !== update.state) {
      this.deps.events.emit('state', { instanceId, state: update.state, previous, reason: update.reason })
    }
  }
}
