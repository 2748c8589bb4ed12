/**
 * The seam between the UI contract and the webhook engine (issue 3, built in `src/main/webhooks/`).
 * The contract's delivery-log methods call `core.webhooks` when the engine is wired into the core;
 * without it the log is empty and a retry is a 409 naming the missing engine.
 */
import type { Core } from '../core'
import type { WebhookDelivery } from '../../shared/contract'

/** What the webhook engine must provide on `core.webhooks` for the UI's delivery log. */
export interface WebhookDeliveryLog {
  /** Deliveries of one instance, newest first (any bounded number). */
  list(instanceId: string): WebhookDelivery[] | Promise<WebhookDelivery[]>
  /** Queues a failed (or any) delivery again now; answers it in its new state. Throws AppError NOT_FOUND for an unknown id. */
  retry(instanceId: string, deliveryId: string): Promise<WebhookDelivery>
  /** Optional: reports each attempt's outcome, pushed to the UI as `delivery` events; returns unsubscribe. */
  onResult?(listener: (delivery: WebhookDelivery) => void): () => void
}

/** The core's webhook delivery log, if this build has one. */
export function webhookLogOf(core: Core): WebhookDeliveryLog | undefined {
  return (core as Core & { webhooks?: WebhookDeliveryLog }).webhooks
}
