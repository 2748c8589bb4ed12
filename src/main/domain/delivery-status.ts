/**
 * Delivery status rules (docs/design.md §13): statuses only move forward (PENDING → SERVER_ACK →
 * DELIVERY_ACK → READ → PLAYED); ERROR replaces PENDING or SERVER_ACK only (a refusal cannot follow a
 * delivery); a repeated status is ignored; only the desk's own messages carry one. Pure: the message
 * repository applies them inside the write that reads the entry (store/repos/message-repo.ts
 * `recordStatus`), and services/message-status.ts announces what moved.
 */
import type { LoggedMessage } from '../../shared/schemas/records'

/** A sent message's delivery status as WhatsApp reports it (the channels' `DeliveryStatus`). */
export type DeliveryStatus = 'PENDING' | 'SERVER_ACK' | 'DELIVERY_ACK' | 'READ' | 'PLAYED' | 'ERROR'

const RANK: Record<DeliveryStatus, number> = { ERROR: 0, PENDING: 1, SERVER_ACK: 2, DELIVERY_ACK: 3, READ: 4, PLAYED: 5 }

/** A channel's report of a sent message's status (the shape of channel/types.ts `MessageStatusUpdate`). */
export interface StatusReport {
  /** The message id. */
  id: string
  status: DeliveryStatus
  /** The server's code with ERROR, e.g. '463'. */
  errorCode?: string
}

/** True when a message at `current` should move to `next`. */
export function advances(current: string, next: DeliveryStatus): boolean {
  if (!(current in RANK)) return false
  const from = current as DeliveryStatus
  if (from === 'ERROR' || from === next) return false
  if (next === 'ERROR') return RANK[from] <= RANK.SERVER_ACK
  return RANK[next] > RANK[from]
}

/** The log entry's change for `update`, or null when it does not move it forward. */
export function applyStatus(entry: LoggedMessage, update: StatusReport): Pick<LoggedMessage, 'status' | 'error_code'> | null {
  if (!entry.fromMe || !advances(entry.status, update.status)) return null
  return { status: update.status, ...(update.status === 'ERROR' && update.errorCode ? { error_code: update.errorCode } : {}) }
}
