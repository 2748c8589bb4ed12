/**
 * 1:1 messages through the protocol test server (test code).
 *
 * Client → server: `<message to id type><participants><to jid><enc v="2" type="pkmsg|msg">…</enc></to>…</participants></message>`
 * (or a single `<enc>` child); each `<to>` is decrypted by the peer it names. The client also fans the
 * message out to its own phone as `deviceSentMessage` (lib/Socket/messages-send.js relayMessage).
 * The server acks with `<ack class="message">`.
 *
 * Server → client: `<message from id type="text" t notify><enc v="2" type>…</enc></message>`, decrypted
 * by the client in lib/Utils/decode-wa-message.js and emitted as `messages.upsert`.
 */
import { randomBytes } from 'node:crypto'
import { proto, type BinaryNode } from 'baileys'
import { bytes, children, node } from './nodes'
import type { SignalPeer } from './peer'

/** The Signal address peers use for the linked client (companion device 12) of the account `number` (libsignal refuses dots in addresses). */
export const companionAddress = (number: string): string => `companion-${number}`

let nextMessage = 1
/**
 * A message id as a sender's device makes it: unique, never reused by a later server run (the live
 * ids are random, e.g. lib/Utils/generics.js generateMessageIDV2 `3EB0` + hex), so a data dir made
 * with another run of this server (test/fixtures/legacy-0.1.0) holds none of today's ids and the app's
 * dedup by id does not drop them. The counter keeps them in order in logs.
 */
export const newMessageId = (): string => `3EB0TEST${String(nextMessage++).padStart(8, '0')}${randomBytes(4).toString('hex').toUpperCase()}`

/** Each `<enc>` of a client message with the JID it is for. */
export function encryptedParts(msg: BinaryNode): Array<{ jid: string; type: string; ciphertext: Buffer }> {
  const parts: Array<{ jid: string; type: string; ciphertext: Buffer }> = []
  for (const to of children(children(msg, 'participants')[0], 'to')) {
    for (const enc of children(to, 'enc')) parts.push({ jid: to.attrs.jid ?? '', type: enc.attrs.type ?? '', ciphertext: bytes(enc) })
  }
  for (const enc of children(msg, 'enc')) parts.push({ jid: msg.attrs.to ?? '', type: enc.attrs.type ?? '', ciphertext: bytes(enc) })
  return parts
}

/** The server's ack of a client message; with `error` (e.g. 463) the server refused it. */
export function messageAck(msg: BinaryNode, error?: number): BinaryNode {
  return node('ack', { class: 'message', id: msg.attrs.id, from: msg.attrs.to, t: Math.floor(Date.now() / 1000), error })
}

/** An encrypted message from `fromJid` (a contact, or the account's own phone) to the client at `clientAddress`. */
export async function inboundMessage(
  peer: SignalPeer,
  clientAddress: string,
  fromJid: string,
  message: proto.IMessage,
  opts: { pushName?: string; type?: string; recipient?: string; attrs?: Record<string, string>; id?: string; corrupt?: boolean } = {}
): Promise<{ id: string; type: string; node: BinaryNode }> {
  const { type, ciphertext } = await peer.encryptMessage(clientAddress, message)
  // A flipped last byte breaks the message's MAC: the client cannot decrypt it (and asks for a retry).
  if (opts.corrupt) ciphertext.writeUInt8(ciphertext.readUInt8(ciphertext.length - 1) ^ 0xff, ciphertext.length - 1)
  const id = opts.id ?? newMessageId()
  return {
    id,
    type,
    node: node(
      'message',
      {
        from: fromJid,
        id,
        type: opts.type ?? 'text',
        t: Math.floor(Date.now() / 1000),
        notify: opts.pushName,
        recipient: opts.recipient,
        ...opts.attrs
      },
      [node('enc', { v: '2', type }, ciphertext)]
    )
  }
}
