/**
 * The core's event bus: what changed, for the bot engine, webhooks, the UI and the tray to follow.
 * A typed wrapper over Node's EventEmitter; listeners run synchronously and must not throw.
 */
import { EventEmitter } from 'node:events'
import type { ConnectionState, HistorySyncKind, InboundMessage, MessageChange, SendLimits } from './channel/types'
import type { BotActivity, ChatPause, LoggedMessage, SentBy } from '../shared/schemas/records'
import type { WebhookDelivery } from '../shared/schemas/webhooks'

export interface CoreEvents {
  /** An instance's connection state changed. */
  state: { instanceId: string; state: ConnectionState; previous: ConnectionState; reason?: string }
  /** A new pairing QR (raw payload) for an instance. */
  qr: { instanceId: string; qr: string }
  /** A message entered the log (inbound or outbound). */
  message: { instanceId: string; message: LoggedMessage; inbound?: InboundMessage }
  /** WhatsApp changed an instance's outreach limits (capping, reach-out lock). */
  limits: { instanceId: string; limits: SendLimits }
  /** A LID chat was filed under its phone number (inbound-pipeline.ts identity): its entries moved. */
  chatMerged: { instanceId: string; from: string; to: string }
  /**
   * Messages of the phone's history were stored (a history sync, or the answer to a history request):
   * `added` of `received` were new, in `chatIds`.
   */
  history: { instanceId: string; kind: HistorySyncKind; requestId?: string; received: number; added: number; chatIds: string[] }
  /**
   * A message in the log was edited, deleted for everyone, reacted to or voted on
   * (services/messages/message-changes.ts): `message` is the entry after the change; `previousText` the
   * text an edit replaced.
   */
  messageChanged: { instanceId: string; message: LoggedMessage; change: MessageChange; previousText?: string }
  /** A sent message's delivery status moved forward (message-status.ts); `message` is the updated entry. */
  status: { instanceId: string; message: LoggedMessage }
  /** The bot ran the actions of an intent or survey step (outcomes included). */
  activity: { instanceId: string; entry: BotActivity }
  /** The bot was paused for a chat (hand-off to a person), or handed back (`pause` null). */
  handoff: { instanceId: string; chatId: string; pause: ChatPause | null }
  /** A conversation was resolved, reopened or read at the desk (inbox). */
  chatStatus: { instanceId: string; chatId: string; status: 'open' | 'resolved' | 'read'; by: 'desk' | 'api' | 'customer' }
  /** A conversation was assigned to a person (`assigned_to`), or unassigned (null), by `by`. */
  assignment: { instanceId: string; chatId: string; assigned_to: { id: string; name: string } | null; by: SentBy }
  /** The desk's quick replies changed (they belong to the whole app). */
  quickReplies: Record<string, never>
  /** The labels (names, colours) changed. */
  labels: Record<string, never>
  /** A webhook delivery attempt was recorded (delivered, retrying or failed). */
  delivery: { instanceId: string; delivery: WebhookDelivery }
  /**
   * Database mode: this worker claimed (`held`) or lost an instance's lease (services/cluster/worker-leases.ts);
   * the background jobs of an instance run on the worker that holds it (docs/design.md §22).
   */
  lease: { instanceId: string; held: boolean }
  /**
   * Database mode, faces only: events of other workers may have been missed (the connection that
   * hears them broke; docs/design.md §22 "Events across workers"): what the UI shows is reloaded.
   */
  resync: { reason: string }
  /**
   * A credential stopped being good: an API key revoked (`key`, its id), every session of a person
   * ended or their rights changed (`staff`, their id: deleted, signed out everywhere, role or
   * instances changed), one session ended (`session`, the sha256 of its token, never the token), the
   * account token replaced (`accountToken`). The faces end what was opened with it (event streams).
   */
  revoked: { kind: 'key' | 'staff' | 'session' | 'accountToken'; id: string }
  /** Records of an instance changed (instance settings, intents, surveys, attachments). */
  changed: {
    instanceId: string
    what: 'instance' | 'intents' | 'surveys' | 'attachments' | 'deleted' | 'contacts' | 'broadcasts' | 'schedules'
    /** The record created, updated or deleted, for incremental consumers (the keyword index). */
    recordId?: string
  }
}

export class CoreEventBus {
  private readonly emitter = new EventEmitter()
  /** Listeners whose work must be on disk before a durable emit returns (the webhook outbox). */
  private readonly durable = new Map<keyof CoreEvents, Set<(payload: never) => Promise<void>>>()

  /**
   * `forward`: a bus that hears every event of this one too (its plain listeners; the app's faces
   * listen there, so their subscriptions outlive the services that emit, across a restore).
   */
  constructor(private readonly forward?: CoreEventBus) {
    // Every window, SSE client and service may listen; there is no leak to warn about.
    this.emitter.setMaxListeners(0)
  }

  on<K extends keyof CoreEvents>(event: K, listener: (payload: CoreEvents[K]) => void): () => void {
    this.emitter.on(event, listener)
    return () => this.emitter.off(event, listener)
  }

  /**
   * A listener that returns a promise which {@link emitDurable} awaits; it must not reject (it logs
   * its own failures). Plain {@link emit} runs it without waiting.
   */
  onDurable<K extends keyof CoreEvents>(event: K, listener: (payload: CoreEvents[K]) => Promise<void>): () => void {
    let set = this.durable.get(event)
    if (!set) this.durable.set(event, (set = new Set()))
    set.add(listener)
    return () => set.delete(listener)
  }

  emit<K extends keyof CoreEvents>(event: K, payload: CoreEvents[K]): void {
    void this.emitDurable(event, payload)
  }

  /**
   * Emits and resolves once every durable listener's work is done, so that what they persist (a
   * queued webhook) is on disk before the caller answers: at-least-once across a crash.
   *
   * `stored`: the write of what the event announces, still in flight. The durable listeners start at
   * once (their writes share its group commit); the plain ones (the UI, the other workers, services
   * that read it back) hear the event only once it resolves, so a read they make on hearing it finds
   * what it announces — a read in a SQLite reader thread sees only committed writes. Not announced
   * when `stored` rejects (nothing was stored); the rejection is the caller's.
   */
  async emitDurable<K extends keyof CoreEvents>(event: K, payload: CoreEvents[K], stored?: Promise<unknown>): Promise<void> {
    const announce = () => {
      this.emitter.emit(event, payload)
      this.forward?.emitter.emit(event, payload)
    }
    if (!stored) announce()
    const set = this.durable.get(event)
    const durable = set?.size ? Promise.all([...set].map((l) => (l as (p: CoreEvents[K]) => Promise<void>)(payload))) : undefined
    await Promise.all([stored?.then(announce), durable])
  }
}
