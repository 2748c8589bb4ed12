/**
 * The webhook outbox (docs/design.md §11): every delivery of every instance in its own data file,
 * `<dataDir>/webhook-outbox.json`, apart from chatapp.json because it changes with every message.
 *
 * Written through {@link JsonDocument} (atomic, fsynced, group commit), so `add` resolves only once the
 * delivery is on disk: the dispatcher makes no attempt before that, and a restart finds every delivery
 * that was not yet delivered (at-least-once).
 *
 * Bounded per instance: delivered entries beyond the newest `keepDelivered` are pruned, failed ones
 * beyond `maxFailed` lose their oldest. Pending ones are bounded by the 24 h retry window.
 */
import type { DeliveryFilter, WebhookDelivery } from '../../shared/schemas/webhooks'
import { JsonDocument } from '../store/json-document'

export interface OutboxData {
  version: 1
  deliveries: WebhookDelivery[]
}

export interface OutboxLimits {
  /** Delivered entries kept per instance, newest first (default 50); older ones are pruned. */
  keepDelivered: number
  /** Failed entries kept per instance for a manual retry (default 500); the oldest go first. */
  maxFailed: number
}

export const DEFAULT_OUTBOX_LIMITS: OutboxLimits = { keepDelivered: 50, maxFailed: 500 }

export class WebhookOutbox {
  /** Ids added in memory whose write has not finished: not to be attempted yet. */
  private readonly unsynced = new Set<string>()

  private constructor(
    private readonly doc: JsonDocument<OutboxData>,
    private readonly limits: OutboxLimits
  ) {}

  /** Opens (or creates) the outbox file. Throws DataFileError when it is unreadable. */
  static async open(file: string, limits: Partial<OutboxLimits> = {}): Promise<WebhookOutbox> {
    const doc = await JsonDocument.open<OutboxData>(file, { version: 1, deliveries: [] })
    return new WebhookOutbox(doc, { ...DEFAULT_OUTBOX_LIMITS, ...limits })
  }

  /** The file's path. */
  get file(): string {
    return this.doc.file
  }

  /** A delivery by id. */
  get(id: string): WebhookDelivery | undefined {
    return this.doc.data.deliveries.find((d) => d.id === id)
  }

  /**
   * Pending deliveries that are on disk, oldest first. One added a moment ago is left out until its
   * write is done, even when another write finishing first wakes the dispatcher.
   */
  pending(): WebhookDelivery[] {
    return this.doc.data.deliveries.filter((d) => d.status === 'pending' && !this.unsynced.has(d.id))
  }

  /** Queues deliveries; resolves once they are on disk. */
  async add(deliveries: WebhookDelivery[]): Promise<void> {
    for (const d of deliveries) this.unsynced.add(d.id)
    try {
      await this.doc.update((d) => {
        d.deliveries.push(...deliveries)
      })
    } finally {
      for (const d of deliveries) this.unsynced.delete(d.id)
    }
  }

  /**
   * Applies `patch` to a delivery now (memory) and resolves once it is on disk; prunes the instance's
   * entries when the change made one delivered or failed. False when the delivery is gone (deleted
   * with its instance meanwhile).
   */
  async update(id: string, patch: Partial<WebhookDelivery>): Promise<boolean> {
    const found = await this.doc.update((d) => {
      const entry = d.deliveries.find((x) => x.id === id)
      if (!entry) return false
      Object.assign(entry, patch)
      if (entry.status !== 'pending') this.prune(d, entry.instance_id)
      return true
    })
    return found
  }

  /** An instance's deliveries, newest first, optionally of one status, at most `limit` (default 50). */
  list(instanceId: string, filter: DeliveryFilter = {}): WebhookDelivery[] {
    const out: WebhookDelivery[] = []
    const limit = filter.limit ?? 50
    const rows = this.doc.data.deliveries
    for (let i = rows.length - 1; i >= 0 && out.length < limit; i--) {
      const d = rows[i]!
      if (d.instance_id === instanceId && (!filter.status || d.status === filter.status)) out.push(d)
    }
    return out
  }

  /** Ids of the instances that have deliveries. */
  instanceIds(): string[] {
    return [...new Set(this.doc.data.deliveries.map((d) => d.instance_id))]
  }

  /** Drops every delivery of an instance (instance deleted): from memory now, from disk on the returned promise. */
  removeInstance(instanceId: string): Promise<void> {
    return this.doc.update((d) => {
      d.deliveries = d.deliveries.filter((x) => x.instance_id !== instanceId)
    })
  }

  /** Waits for pending writes. */
  close(): Promise<void> {
    return this.doc.close()
  }

  private prune(d: OutboxData, instanceId: string): void {
    let delivered = 0
    let failed = 0
    const drop = new Set<WebhookDelivery>()
    // Newest first, so the newest are the ones kept.
    for (let i = d.deliveries.length - 1; i >= 0; i--) {
      const x = d.deliveries[i]!
      if (x.instance_id !== instanceId) continue
      if (x.status === 'delivered' && ++delivered > this.limits.keepDelivered) drop.add(x)
      if (x.status === 'failed' && ++failed > this.limits.maxFailed) drop.add(x)
    }
    if (drop.size > 0) d.deliveries = d.deliveries.filter((x) => !drop.has(x))
  }
}
