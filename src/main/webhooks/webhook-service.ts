/**
 * Webhooks (docs/design.md §11): turns the core's events into deliveries and exposes them.
 *
 * - `message` events → `onMessage` (inbound from contacts) and `onAnyMessage` (every message, inbound
 *   and outbound: API sends, bot replies, phone); `messageChanged` → `onMessageEdit`,
 *   `onMessageDelete`, `onMessageReaction`, `onPollVote`; `state` events → `onConnection` — each only when the
 *   instance has actions.send_webhook on, a webhook URL, and the event in webhook.events.
 * - Each delivery is committed to the `webhook_deliveries` table before the dispatcher may attempt it.
 * - `list` and `retry` serve the deliveries API and the desktop UI.
 * - Deleting an instance drops its deliveries and aborts its requests in flight.
 */
import type { CoreEventBus, CoreEvents } from '../events'
import { newObjectId } from '../ids'
import type { Logger } from '../logger'
import type { InstanceRepo } from '../store/repos/config-repos'
import type { WebhookDeliveryRepo } from '../store/repos/webhook-delivery-repo'
import { conflict, invalid, notFound } from '../errors'
import type { Instance, WebhookEvent } from '../../shared/schemas/records'
import type { DeliveryFilter, WebhookDelivery } from '../../shared/schemas/webhooks'
import { WebhookDispatcher, systemClock, type Clock, type DeliveryTarget } from './dispatcher'
import { WebhookOutbox } from './outbox'
import { OWN_API_REFUSAL, OwnApiGuard } from './own-api'
import { undiciTransport, type WebhookTransport } from './webhook-transport'
import { changeData } from './change-data'
import {
  DEFAULT_RETRY_POLICY,
  DEFAULT_TIMEOUT_MS,
  buildPayload,
  changeEvent,
  messageEvents,
  normalizeSecret,
  shouldDeliver,
  type ConnectionData,
  type RetryPolicy
} from './policy'

/** Tunables and test seams of the webhook service; every member optional. */
export interface WebhookOptions {
  /** How attempts go out (default: undici over a keep-alive agent; tests pass a fetch transport). */
  transport?: WebhookTransport
  clock?: Clock
  random?: () => number
  /** Retry timing (partial: the rest from DEFAULT_RETRY_POLICY). */
  policy?: Partial<RetryPolicy>
  /** Requests in flight at most. */
  concurrency?: number
}

export interface WebhookServiceDeps extends WebhookOptions {
  instances: InstanceRepo
  /** The `webhook_deliveries` table (its bounds are the repository's). */
  deliveries: WebhookDeliveryRepo
  events: CoreEventBus
  logger: Logger
  /**
   * Database mode: whether this worker holds the instance's lease (docs/design.md §22). Only then are
   * its deliveries sent here; the bus's `lease` events move them in and out. Absent: all are (one process).
   */
  mine?: (instanceId: string) => boolean
}

export class WebhookService {
  private readonly dispatcher: WebhookDispatcher
  private readonly clock: Clock
  private readonly writes = new Set<Promise<unknown>>()
  private readonly ownApi = new OwnApiGuard()
  private unsubscribe: Array<() => void> = []
  private readonly transport: WebhookTransport

  private constructor(
    private readonly deps: WebhookServiceDeps,
    private readonly outbox: WebhookOutbox
  ) {
    this.clock = deps.clock ?? systemClock
    this.transport = deps.transport ?? undiciTransport({ refuses: (address, port) => this.ownApi.isOwn(address, port) })
    this.dispatcher = new WebhookDispatcher({
      outbox,
      target: (id) => this.target(id),
      refuse: async (url) => ((await this.ownApi.targets(url)) ? `the URL ${OWN_API_REFUSAL}` : null),
      post: (url, req) => this.transport.post(url, req),
      clock: this.clock,
      random: deps.random ?? Math.random,
      policy: { ...DEFAULT_RETRY_POLICY, ...deps.policy },
      logger: deps.logger,
      concurrency: deps.concurrency,
      onRecorded: (delivery) => deps.events.emit('delivery', { instanceId: delivery.instance_id, delivery })
    })
  }

  /** Loads the pending deliveries from the table. Throws the storage's errors. Not started yet. */
  static async open(deps: WebhookServiceDeps): Promise<WebhookService> {
    const outbox = await WebhookOutbox.open(deps.deliveries, deps.mine)
    return new WebhookService(deps, outbox)
  }

  /** The port of the app's own HTTP API: webhooks are never sent to it (./own-api.ts). */
  setOwnApiPort(port: number): void {
    this.ownApi.setPort(port)
  }

  /** 400 naming `field` when `url` is this app's own API. */
  async checkTarget(url: string | null, field = 'webhook_url'): Promise<void> {
    if (url && (await this.ownApi.targets(url))) throw invalid(field, OWN_API_REFUSAL)
  }

  /**
   * Follows the event bus and starts the dispatcher; deliveries left pending by the last run go out
   * (due ones at once); those of instances that no longer exist are dropped. Also rewrites URL-safe secrets of older instances in standard base64 (the
   * same key), so the owner's Standard Webhooks library can verify with the secret it is shown.
   */
  async start(): Promise<void> {
    const instances = this.deps.instances.all()
    for (const i of instances) {
      const normal = normalizeSecret(i.settings.webhook.secret)
      if (normal !== i.settings.webhook.secret) await this.deps.instances.update(i._id, (d) => void (d.settings.webhook.secret = normal))
    }
    // Deliveries of instances that no longer exist would wait forever for a target.
    const known = new Set(instances.map((i) => i._id))
    for (const id of await this.deps.deliveries.instanceIds()) if (!known.has(id)) await this.outbox.removeInstance(id)
    const { events } = this.deps
    this.unsubscribe = [
      // Durable: a message's deliveries are committed before its send or receipt is answered.
      events.onDurable('message', (e) => this.onMessage(e)),
      events.onDurable('state', (e) => this.onState(e)),
      events.onDurable('status', (e) => this.onStatus(e)),
      events.onDurable('messageChanged', (e) => this.onChange(e)),
      events.on('chatStatus', ({ instanceId, chatId, status, by }) => this.onDeskEvent(instanceId, 'onChatStatus', { chatId, status, by })),
      events.on('handoff', ({ instanceId, chatId, pause }) => this.onDeskEvent(instanceId, 'onHandoff', { chatId, pause })),
      events.on('assignment', ({ instanceId, chatId, assigned_to, by }) => this.onDeskEvent(instanceId, 'onAssignment', { chatId, assigned_to, by })),
      events.on('changed', (e) => {
        if (e.what === 'deleted') this.dropInstance(e.instanceId)
      }),
      events.on('lease', ({ instanceId, held }) => this.onLease(instanceId, held))
    ]
    this.dispatcher.start()
  }

  /** An instance's deliveries as stored, newest first (default at most 50), optionally of one status. */
  list(instanceId: string, filter: DeliveryFilter = {}): Promise<WebhookDelivery[]> {
    return this.deps.deliveries.list(instanceId, filter)
  }

  /**
   * Requeues a failed or pending delivery of `instanceId` for an attempt now, to the instance's
   * current webhook URL (so a corrected URL applies). A retry of a delivery older than the 24 h window
   * makes one attempt; a transient failure then fails it again. 404 for an unknown id or another
   * instance's delivery; 409 when it was already delivered.
   */
  async retry(instanceId: string, deliveryId: string): Promise<WebhookDelivery> {
    // An attempt still finishing (its outcome being written) decides first; the retry follows it.
    await this.dispatcher.settled(deliveryId)
    const url = this.instance(instanceId)?.settings.webhook.url || null
    const result = await this.track(this.outbox.requeue(instanceId, deliveryId, url, new Date(this.clock.now()).toISOString()))
    if ('refused' in result) {
      if (result.refused === 'delivered') throw conflict('This webhook delivery was already delivered.')
      throw notFound('Webhook delivery')
    }
    this.dispatcher.kick()
    return result.requeued
  }

  /**
   * Stops following events and the dispatcher (no timer left), then waits for the deliveries' writes.
   * The database stays open (its owner closes it after this).
   */
  async close(): Promise<void> {
    for (const off of this.unsubscribe) off()
    this.unsubscribe = []
    await this.dispatcher.close()
    await this.transport.close()
    while (this.writes.size > 0) await Promise.allSettled([...this.writes])
  }

  private async onMessage({ instanceId, message }: CoreEvents['message']): Promise<void> {
    const inst = this.instance(instanceId)
    if (inst) await this.enqueue(inst, messageEvents(message), message)
  }

  private async onStatus({ instanceId, message }: CoreEvents['status']): Promise<void> {
    const inst = this.instance(instanceId)
    if (inst) await this.enqueue(inst, ['onMessageStatus'], message)
  }

  private async onChange(e: CoreEvents['messageChanged']): Promise<void> {
    const inst = this.instance(e.instanceId)
    if (inst) await this.enqueue(inst, [changeEvent(e.change)], changeData(e))
  }

  private async onState({ instanceId, state, previous, reason }: CoreEvents['state']): Promise<void> {
    const inst = this.instance(instanceId)
    const data: ConnectionData = { state, previous, reason: reason ?? null }
    if (inst) await this.enqueue(inst, ['onConnection'], data)
  }

  /** A desk event (not awaited by whoever caused it): queued like the others, a failed write logged. */
  private onDeskEvent(instanceId: string, event: 'onChatStatus' | 'onHandoff' | 'onAssignment', data: Record<string, unknown>): void {
    const inst = this.instance(instanceId)
    if (inst) void this.track(this.enqueue(inst, [event], data))
  }

  /** Stores one delivery per wanted event (one transaction), then lets the dispatcher send them. Never rejects. */
  private async enqueue(inst: Instance, events: WebhookEvent[], data: Parameters<typeof buildPayload>[2]): Promise<void> {
    const wanted = events.filter((e) => shouldDeliver(inst, e))
    if (wanted.length === 0) return
    const now = this.clock.now()
    const created = new Date(now).toISOString()
    const records: WebhookDelivery[] = wanted.map((event) => ({
      // Standard Webhooks message id: the same on every attempt, for the receiver to deduplicate.
      id: `msg_${newObjectId()}`,
      instance_id: inst._id,
      event,
      url: inst.settings.webhook.url!,
      payload: buildPayload(inst, event, data, now),
      status: 'pending',
      attempts: 0,
      last_error: null,
      last_status: null,
      next_attempt_at: created,
      created_at: created,
      delivered_at: null
    }))
    // The dispatcher only sees them once committed: kick() after the write, never before.
    try {
      await this.track(this.outbox.add(records))
      this.dispatcher.kick()
    } catch (err) {
      this.deps.logger.error({ err, instanceId: inst._id }, 'could not queue webhook deliveries')
    }
  }

  /**
   * Database mode: a claimed instance's pending deliveries (the last owner's, or stored by another
   * worker) are sent from here on; a lost one's stop here (requests in flight aborted, not recorded:
   * the new owner sends them, receivers deduplicate on `webhook-id`).
   */
  private onLease(instanceId: string, held: boolean): void {
    if (!this.deps.mine) return
    if (!held) {
      this.dispatcher.abortInstance(instanceId)
      this.outbox.releaseInstance(instanceId)
      return
    }
    this.track(this.outbox.claimInstance(instanceId))
      .then(() => this.dispatcher.kick())
      .catch((err: unknown) => this.deps.logger.error({ err, instanceId }, 'could not load the webhook deliveries of a claimed instance'))
  }

  private dropInstance(instanceId: string): void {
    this.dispatcher.abortInstance(instanceId)
    this.track(this.outbox.removeInstance(instanceId)).catch((err) =>
      this.deps.logger.error({ err, instanceId }, 'could not drop the webhook deliveries of a deleted instance')
    )
  }

  private instance(instanceId: string): Instance | undefined {
    return this.deps.instances.find(instanceId)
  }

  private target(instanceId: string): DeliveryTarget | undefined {
    const inst = this.instance(instanceId)
    if (!inst) return undefined
    const w = inst.settings.webhook
    return { secret: w.secret, headers: w.requestConfig.headers ?? {}, timeoutMs: w.requestConfig.timeout_ms ?? DEFAULT_TIMEOUT_MS }
  }

  /** Remembers a write until it settles, so close() can wait for it. */
  private track<T>(p: Promise<T>): Promise<T> {
    this.writes.add(p)
    void p.finally(() => this.writes.delete(p)).catch(() => {})
    return p
  }
}
