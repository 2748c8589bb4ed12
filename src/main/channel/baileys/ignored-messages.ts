/**
 * Messages the product does not read — status posts (`status@broadcast`), broadcast lists, channels
 * (newsletters) — answered with a plain `<ack class="message">` before the library sees them
 * (docs/baileys.md "Status posts and the offline queue").
 *
 * Why not only the library's `shouldIgnoreJid`: rc14 answers every ignored *message* with a NACK,
 * `error="500"` (lib/Socket/messages-recv.js processNode: `sendMessageAck(node, type === 'message' ?
 * NACK_REASONS.UnhandledError : undefined)`), and so does its own path for a status it cannot decrypt
 * (handleMessage: retry receipt, then `NACK_REASONS.UnhandledError`). The live service keeps a NACKed
 * status pending, re-delivers it first at every login and withholds the rest of the offline queue
 * behind it (Baileys PR #2779): one status posted while the desk was away kept every customer message
 * of the night out. A plain ack lets the server drop it, as WA Web and whatsapp-rust do for status
 * (PR #2779; oxidezap/whatsapp-rust PR #647, "status is acked by the should_ack gate").
 *
 * The library's one `CB:message` listener (lib/Socket/messages-recv.js) is wrapped, through the
 * socket's public websocket emitter: ignored messages get the ack here and never reach it; every
 * other message goes to it unchanged. `shouldIgnoreJid` stays for receipts and notifications from
 * those JIDs, which the library acks without an error.
 */
import { buildAckStanza, isJidBroadcast, isJidNewsletter, type BinaryNode } from 'baileys'
import type { BaileysSocket } from './socket'

/** Node event of every `<message>` stanza (lib/Socket/socket.js onMessageReceived). */
export const MESSAGE_EVENT = 'CB:message'

/** True for the JIDs whose messages the product does not read: status, broadcast lists, channels. */
export function isIgnoredJid(jid: string | undefined): boolean {
  return jid !== undefined && (Boolean(isJidBroadcast(jid)) || Boolean(isJidNewsletter(jid)))
}

/**
 * Puts a plain ack in front of the library for messages from ignored JIDs on `sock`; answers the
 * function that puts the library's listener back. When the library's `CB:message` listener is not
 * the single one expected (another release wires it differently) nothing is changed and `onMismatch`
 * is told, so the product keeps the library's own handling rather than guess.
 */
export function ackIgnoredMessages(
  sock: Pick<BaileysSocket, 'ws' | 'sendNode' | 'authState'>,
  onMismatch: (listeners: number) => void,
  onAckError: (err: unknown) => void
): () => void {
  const found = sock.ws.listeners(MESSAGE_EVENT)
  const library = found[0]
  if (found.length !== 1 || typeof library !== 'function') {
    onMismatch(found.length)
    return () => {}
  }
  const handle = library as (node: BinaryNode) => unknown
  const wrapped = (node: BinaryNode): unknown => {
    if (!isIgnoredJid(node.attrs.from)) return handle(node)
    // The shape WA Web acks with (lib/Utils/stanza-ack.js: id, to, class, participant, type, from = our JID).
    sock.sendNode(buildAckStanza(node, undefined, sock.authState.creds.me?.id)).catch(onAckError)
    return undefined
  }
  sock.ws.off(MESSAGE_EVENT, handle)
  sock.ws.on(MESSAGE_EVENT, wrapped)
  return () => {
    sock.ws.off(MESSAGE_EVENT, wrapped)
    sock.ws.on(MESSAGE_EVENT, handle)
  }
}
