/**
 * Delivery status of the messages a session sent, from everything Baileys reports it through
 * (docs/baileys.md "Delivery status"):
 *
 * - `messages.update` with `update.status`: delivery/read/played receipts (lib/Socket/messages-recv.js
 *   handleReceipt) and refusals (handleBadAck: status ERROR, `messageStubParameters: [code, …]`);
 * - `message-receipt.update`: receipts of group members (per participant);
 * - the sent message's own `messages.upsert` (type `append`): rc14's event buffer merges an ack that
 *   arrives while that upsert is buffered into it instead of emitting `messages.update`
 *   (lib/Utils/event-buffer.js), so a quick ERROR 463 or DELIVERY_ACK is only visible there;
 * - the server's plain `<ack class="message">`, which the library does not report at all: it is the
 *   SERVER_ACK (the websocket's `CB:ack,class:message` node event), or with `error` the refusal itself.
 *   The library's own report of a refusal (handleBadAck → `messages.update`) can sit in its event
 *   buffer until the 30 s auto-flush (lib/Utils/event-buffer.js BUFFER_TIMEOUT_MS) when a second
 *   refusal follows the first closely, so the ack node is read first; the later duplicate is ignored.
 *
 * The mapping is pure; {@link watchDeliveryStatus} wires it to one socket.
 */
import { proto, type BaileysEventMap, type BinaryNode, type WAMessage } from 'baileys'
import type { DeliveryStatus, MessageStatusUpdate } from '../types'
import type { BaileysSocket } from './socket'

const STATUS = proto.WebMessageInfo.Status

const NAMES: Record<number, DeliveryStatus> = {
  [STATUS.ERROR]: 'ERROR',
  [STATUS.PENDING]: 'PENDING',
  [STATUS.SERVER_ACK]: 'SERVER_ACK',
  [STATUS.DELIVERY_ACK]: 'DELIVERY_ACK',
  [STATUS.READ]: 'READ',
  [STATUS.PLAYED]: 'PLAYED'
}

/**
 * The update for message `id` from a Baileys status (`proto.WebMessageInfo.Status` number) and, with
 * ERROR, the stub parameters whose first one is the server's code; null when there is no status.
 */
export function statusUpdate(id: string | null | undefined, status: number | null | undefined, stubParameters?: string[] | null): MessageStatusUpdate | null {
  if (!id || status === null || status === undefined) return null
  const name = NAMES[status]
  if (!name) return null
  const errorCode = name === 'ERROR' ? stubParameters?.[0] : undefined
  return { id, status: name, ...(errorCode ? { errorCode } : {}) }
}

/** The status an own send's echo (`messages.upsert` append) carries, when an ack was merged into it. */
export function echoStatus(msg: WAMessage): MessageStatusUpdate | null {
  const update = statusUpdate(msg.key?.id, msg.status, msg.messageStubParameters as string[] | null | undefined)
  return update && update.status !== 'PENDING' ? update : null
}

/**
 * Reports every status change of `sock`'s own messages to `report`; answers the detach function.
 * Updates of messages not sent by this account are ignored.
 */
export function watchDeliveryStatus(sock: Pick<BaileysSocket, 'ev' | 'ws'>, report: (update: MessageStatusUpdate) => void): () => void {
  const onUpdate = (updates: BaileysEventMap['messages.update']) => {
    for (const { key, update } of updates) {
      if (!key.fromMe) continue
      const u = statusUpdate(key.id, update.status, update.messageStubParameters as string[] | null | undefined)
      if (u) report(u)
    }
  }
  const onReceipt = (updates: BaileysEventMap['message-receipt.update']) => {
    for (const { key, receipt } of updates) {
      if (!key.fromMe || !key.id) continue
      // A group message is READ once a member read it, DELIVERY_ACK once one received it.
      report({ id: key.id, status: receipt.readTimestamp || receipt.playedTimestamp ? 'READ' : 'DELIVERY_ACK' })
    }
  }
  const onAck = (node: BinaryNode) => {
    if (!node.attrs.id) return
    report(node.attrs.error ? { id: node.attrs.id, status: 'ERROR', errorCode: node.attrs.error } : { id: node.attrs.id, status: 'SERVER_ACK' })
  }
  sock.ev.on('messages.update', onUpdate)
  sock.ev.on('message-receipt.update', onReceipt)
  sock.ws.on(ACK_EVENT, onAck)
  return () => {
    sock.ev.off('messages.update', onUpdate)
    sock.ev.off('message-receipt.update', onReceipt)
    sock.ws.off(ACK_EVENT, onAck)
  }
}

/** The server's ack of a sent message (lib/Socket/socket.js onMessageReceived emits `CB:<tag>,<attr>:<value>`). */
const ACK_EVENT = 'CB:ack,class:message'
