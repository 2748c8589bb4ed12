/**
 * Turns core events (CoreEventBus) into the UI contract's events, for both transports: QR payloads
 * become PNG data URLs, recorded webhook delivery attempts become `delivery`.
 */
import { qrDataUrl } from '../media/qr-image'
import type { Core } from '../core'
import type { ContractEvent } from '../../shared/contract'

/** Subscribes `listener` to every UI event; returns the unsubscribe function. */
export function subscribeContractEvents(core: Core, listener: (event: ContractEvent) => void): () => void {
  const offs = [
    core.events.on('state', (e) => listener({ type: 'state', instanceId: e.instanceId, state: e.state, previous: e.previous, reason: e.reason })),
    core.events.on('message', (e) => listener({ type: 'message', instanceId: e.instanceId, message: e.message })),
    core.events.on('status', (e) => listener({ type: 'status', instanceId: e.instanceId, message: e.message })),
    core.events.on('messageChanged', (e) => listener({ type: 'messageChanged', instanceId: e.instanceId, message: e.message })),
    core.events.on('limits', (e) => listener({ type: 'limits', instanceId: e.instanceId, limits: e.limits })),
    core.events.on('history', (e) => listener({ type: 'history', instanceId: e.instanceId, chatIds: e.chatIds, added: e.added })),
    core.events.on('chatMerged', (e) => listener({ type: 'chatMerged', instanceId: e.instanceId, from: e.from, to: e.to })),
    core.events.on('changed', (e) => listener({ type: 'changed', instanceId: e.instanceId, what: e.what })),
    core.events.on('delivery', (e) => listener({ type: 'delivery', instanceId: e.instanceId, delivery: e.delivery })),
    core.events.on('activity', (e) => listener({ type: 'activity', instanceId: e.instanceId, entry: e.entry })),
    core.events.on('handoff', (e) => listener({ type: 'handoff', instanceId: e.instanceId, chatId: e.chatId, pause: e.pause })),
    core.events.on('chatStatus', (e) => listener({ type: 'chatStatus', instanceId: e.instanceId, chatId: e.chatId, status: e.status })),
    core.events.on('assignment', (e) => listener({ type: 'assignment', instanceId: e.instanceId, chatId: e.chatId, assigned_to: e.assigned_to })),
    core.events.on('quickReplies', () => listener({ type: 'quickReplies' })),
    core.events.on('labels', () => listener({ type: 'labels' })),
    core.events.on('lease', (e) => listener({ type: 'cluster', instanceId: e.instanceId })),
    core.events.on('resync', () => listener({ type: 'resync' })),
    core.events.on('qr', (e) => {
      qrDataUrl(e.qr)
        .then((qrDataUrl) => listener({ type: 'qr', instanceId: e.instanceId, qrDataUrl }))
        .catch((err) => core.logger.warn({ err }, 'could not render a QR code'))
    })
  ]
  return () => offs.forEach((off) => off())
}
