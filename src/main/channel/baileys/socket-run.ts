/**
 * One socket's life in a session: the facts the session keeps about it, and the wiring of every
 * library event and websocket node event the session follows, undone in one call (`detach`) when the
 * socket is replaced, so an old socket can never reach the session again.
 */
import type { BaileysEventMap, BinaryNode } from 'baileys'
import type { MessageStatusUpdate } from '../types'
import { watchDeliveryStatus } from './delivery-status'
import { ackIgnoredMessages } from './ignored-messages'
import { IDENTITY_EVENT } from './sender-key-memory'
import type { BaileysSocket } from './socket'

/** Node events of the websocket (lib/Socket/socket.js onMessageReceived: `CB:<tag>,<attr>:<value>`). */
export const REG_REFRESH_EVENT = 'CB:notification,type:companion_reg_refresh'
export const LINK_CODE_EVENT = 'CB:notification,type:link_code_companion_reg'

/** Per-socket facts the session needs. */
export interface SocketRun {
  sock: BaileysSocket
  qrShown: boolean
  /** The last QR the library emitted on this socket (before the adv secret is rewritten into it). */
  lastQr: string | null
  /** The phone answered a pairing-code stage 2 (`primary_hello`): the adv secret must not change any more. */
  pairCodeStage2: boolean
  /** `receivedPendingNotifications` seen: later messages are live. */
  pendingDone: boolean
  detach: () => void
}

/** What the session does with each event of the socket. */
export interface SocketListeners {
  connection(update: BaileysEventMap['connection.update']): void
  creds(update: BaileysEventMap['creds.update']): void
  upsert(update: BaileysEventMap['messages.upsert']): void
  /** A history sync or the answer to a history request (phone-history.ts). */
  history(update: BaileysEventMap['messaging-history.set']): void
  lidMapping(update: BaileysEventMap['lid-mapping.update']): void
  capping(update: BaileysEventMap['message-capping.update']): void
  groupsUpsert(update: BaileysEventMap['groups.upsert']): void
  groupsUpdate(update: BaileysEventMap['groups.update']): void
  participants(update: BaileysEventMap['group-participants.update']): void
  /** `<notification type="companion_reg_refresh">` (pairing.ts). */
  regRefresh(node: BinaryNode): void
  status(update: MessageStatusUpdate): void
  /** `<notification type="encrypt">`: a contact's identity changed (a new phone), or the server's pre-key count (sender-key-memory.ts). */
  encrypt(node: BinaryNode): void
  /** Something the session should log: `level`, fields, message. */
  log(level: 'warn' | 'error', fields: Record<string, unknown>, msg: string): void
}

/** Wires `listeners` to `sock`; answers the run, whose `detach` removes every listener. */
export function attachSocket(sock: BaileysSocket, listeners: SocketListeners): SocketRun {
  const run: SocketRun = { sock, qrShown: false, lastQr: null, pairCodeStage2: false, pendingDone: false, detach: () => {} }
  const ev = {
    'connection.update': listeners.connection,
    'creds.update': listeners.creds,
    'messages.upsert': listeners.upsert,
    'messaging-history.set': listeners.history,
    'lid-mapping.update': listeners.lidMapping,
    'message-capping.update': listeners.capping,
    'groups.upsert': listeners.groupsUpsert,
    'groups.update': listeners.groupsUpdate,
    'group-participants.update': listeners.participants
  } as const
  const onLinkCode = () => void (run.pairCodeStage2 = true)
  for (const [name, fn] of Object.entries(ev)) sock.ev.on(name as keyof BaileysEventMap, fn as never)
  sock.ws.on(REG_REFRESH_EVENT, listeners.regRefresh)
  sock.ws.on(LINK_CODE_EVENT, onLinkCode)
  sock.ws.on(IDENTITY_EVENT, listeners.encrypt)
  const unwatchStatus = watchDeliveryStatus(sock, listeners.status)
  const unwrapMessages = ackIgnoredMessages(
    sock,
    (count) => listeners.log('warn', { count }, 'the library does not have one CB:message listener; ignored messages keep its NACK'),
    (err) => listeners.log('warn', { err }, 'could not ack an ignored message')
  )
  run.detach = () => {
    unwrapMessages()
    unwatchStatus()
    for (const [name, fn] of Object.entries(ev)) sock.ev.off(name as keyof BaileysEventMap, fn as never)
    sock.ws.off(REG_REFRESH_EVENT, listeners.regRefresh)
    sock.ws.off(LINK_CODE_EVENT, onLinkCode)
    sock.ws.off(IDENTITY_EVENT, listeners.encrypt)
  }
  return run
}
