/** Wiring of the webhooks (docs/design.md §11): deliveries loaded from their table now, followed once started. */
import { WebhookService } from '../webhooks/webhook-service'
import type { Step, Wiring } from './steps'

/** Opens the webhooks on the stored deliveries. Throws the storage's errors. */
export async function wireWebhooks(w: Wiring): Promise<{ webhooks: WebhookService; step: Step }> {
  const { repos, events, logger, opts, mine } = w
  const webhooks = await WebhookService.open({ instances: repos.instances, deliveries: repos.webhookDeliveries, events, logger, ...opts.webhooks, ...(mine ? { mine } : {}) })
  return {
    webhooks,
    step: {
      name: 'webhooks',
      // Before the sessions are restored, so the reconnects' state changes reach onConnection subscribers.
      start: () => webhooks.start(),
      // After the sessions, so their last state changes are queued; before storage, which it reads.
      close: () => webhooks.close()
    }
  }
}
