/**
 * WhatsApp's outreach limits as Baileys reports them, in the app's shape ({@link SendLimits}); pure.
 * Sources: `message-capping.update` (lib/Socket/messages-recv.js handleMessageCappingNotification: a
 * cap on messages to people who have not answered, Baileys #2445) and `connection.update`'s
 * `reachoutTimeLock` (handleReachoutTimelockNotification, fetchAccountReachoutTimelock after a 463).
 */
import type { BaileysEventMap, ConnectionState as BaileysConnectionState } from 'baileys'
import type { SendLimits } from '../types'

const CAPPING = new Set(['NONE', 'FIRST_WARNING', 'SECOND_WARNING', 'CAPPED'])

function isoFromSeconds(value: string | number | undefined): string | undefined {
  const s = Number(value)
  return value !== undefined && Number.isFinite(s) && s > 0 ? new Date(s * 1000).toISOString() : undefined
}

/** The capping part of the limits from a `message-capping.update`. */
export function cappingLimits(info: BaileysEventMap['message-capping.update']): SendLimits {
  const status = CAPPING.has(String(info.capping_status)) ? (info.capping_status as NonNullable<SendLimits['capping']>['status']) : 'NONE'
  const until = isoFromSeconds(info.cycle_end_timestamp)
  return {
    capping: {
      status,
      ...(typeof info.used_quota === 'number' ? { used: info.used_quota } : {}),
      ...(typeof info.total_quota === 'number' ? { total: info.total_quota } : {}),
      ...(until ? { until } : {})
    }
  }
}

/** The reach-out lock part of the limits from `connection.update.reachoutTimeLock`. */
export function reachoutLimits(lock: NonNullable<BaileysConnectionState['reachoutTimeLock']>): SendLimits {
  const until = lock.timeEnforcementEnds instanceof Date && !Number.isNaN(lock.timeEnforcementEnds.getTime()) ? lock.timeEnforcementEnds.toISOString() : undefined
  return { reachout_lock: { active: Boolean(lock.isActive), ...(lock.isActive && until ? { until } : {}), ...(lock.isActive && lock.enforcementType ? { type: String(lock.enforcementType) } : {}) } }
}
