/** An instance's activity counts (docs/design.md §16), from its message log and its webhook deliveries as stored. */
import type { Clock } from '../../clock'
import type { MessageRepo } from '../../store/repos/message-repo'
import type { WebhookDeliveryRepo } from '../../store/repos/webhook-delivery-repo'
import type { Instance } from '../../../shared/schemas/records'
import type { InstanceStatsT } from '../../../shared/operations/results'
import { localTime } from '../../domain/active-window'
import { instanceStats } from './instance-stats'

export class InstanceHealth {
  constructor(private readonly deps: { messages: Pick<MessageRepo, 'since' | 'oldestTime'>; deliveries: Pick<WebhookDeliveryRepo, 'list'>; clock: Clock }) {}

  /** Counts for today (in bot_timezone) and the last 7 days. */
  async stats(inst: Pick<Instance, '_id' | 'settings'>): Promise<InstanceStatsT> {
    const now = this.deps.clock.now()
    const entries = await this.deps.messages.since(inst._id, now - 7 * 86_400_000)
    const oldest = await this.deps.messages.oldestTime(inst._id)
    // At most 500 failed deliveries are kept per instance (the outbox's bound).
    const failures = (await this.deps.deliveries.list(inst._id, { status: 'failed', limit: 500 })).map((d) => Date.parse(d.created_at))
    let startOfToday: number
    try {
      // Local midnight: now less the minutes since (on a DST day the clock's own count).
      startOfToday = now - (now % 60_000) - localTime(new Date(now), inst.settings.bot_timezone).minutes * 60_000
    } catch {
      startOfToday = now - (now % 86_400_000)
    }
    return instanceStats(entries, failures, now, startOfToday, oldest)
  }
}
