/**
 * Events across workers (docs/design.md §22 "Events across workers"): which of the core's
 * events travel to the other workers, and where a received one goes. A worker sends every event its
 * own services raise (the services' bus) and re-emits the others' on the faces' bus only: the UI
 * streams, the tray and notifications hear them; the bot, the webhooks, the outbox, broadcasts and
 * schedules do not (they listen on the services' bus), so no work runs twice. The wire (NOTIFY,
 * payload limit, order, gaps) is store/db/event-channel.ts; nothing here sees SQL.
 */
import type { CoreEventBus, CoreEvents } from '../../events'
import type { Logger } from '../../logger'

/** The events sent to the other workers: all but `resync`, which each worker raises for itself. */
export const RELAYED_EVENTS = [
  'state',
  'qr',
  'message',
  'limits',
  'chatMerged',
  'history',
  'status',
  'messageChanged',
  'activity',
  'handoff',
  'chatStatus',
  'assignment',
  'quickReplies',
  'labels',
  'delivery',
  'lease',
  'changed',
  'revoked'
] as const satisfies ReadonlyArray<keyof CoreEvents>

type Relayed = (typeof RELAYED_EVENTS)[number]
const RELAYED = new Set<string>(RELAYED_EVENTS)
/** Events about the whole desk, not one instance. */
const DESK_WIDE = new Set<string>(['quickReplies', 'labels', 'revoked'])

/**
 * Sends each relayed event raised on `local` (the services' bus) through `publish`; answers the
 * unsubscribe function. A message's `inbound` (the channel's raw message, for the bot) stays here.
 */
export function sendEvents(local: CoreEventBus, publish: (type: Relayed, payload: unknown) => void): () => void {
  const offs = RELAYED_EVENTS.map((type) =>
    local.on(type, (e: CoreEvents[Relayed]) => {
      if (type === 'message') {
        const { instanceId, message } = e as CoreEvents['message']
        publish(type, { instanceId, message })
      } else publish(type, e)
    })
  )
  return () => offs.forEach((off) => off())
}

/**
 * Emits another worker's event on `faces` when it is one of {@link RELAYED_EVENTS} with an object
 * payload (naming its instance, unless desk-wide); anything else (a newer version's event) is
 * logged and dropped.
 */
export function receiveEvent(faces: CoreEventBus, type: string, payload: unknown, from: string, logger: Logger): void {
  const instanceId = (payload as { instanceId?: unknown } | null)?.instanceId
  if (!RELAYED.has(type) || typeof payload !== 'object' || payload === null || (!DESK_WIDE.has(type) && typeof instanceId !== 'string')) {
    logger.warn({ type, from }, 'an event of another worker was not understood; ignored')
    return
  }
  faces.emit(type as Relayed, payload as CoreEvents[Relayed])
}
