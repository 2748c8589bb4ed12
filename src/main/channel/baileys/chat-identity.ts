/**
 * One chat per customer on LID-addressed WhatsApp (docs/design.md §13, docs/baileys.md "LID"): since
 * Baileys 7 a 1:1 message may come from `<lid>@lid`, with the phone number beside it in
 * `key.remoteJidAlt` (`sender_pn` on the stanza, lib/Utils/decode-wa-message.js
 * extractAddressingContext) or only in the library's LID mapping
 * (`signalRepository.lidMapping.getPNForLID`, filled from envelopes, usync and `lid-mapping.update`).
 * The app files the conversation under the phone-number JID whenever it is known, so the log, the
 * bot and webhooks see one chat; a LID whose number is unknown stays a LID chat until the mapping
 * arrives ({@link ChatIdentity}).
 */
import type { SignalKeyStore } from 'baileys'
import type { ChatIdentity, InboundMessage } from '../types'
import { stripDevice } from './inbound-mapper'

/** The part of the library's LID store used here (lib/Signal/lid-mapping.js). */
export interface LidLookup {
  getPNForLID(lid: string): Promise<string | null | undefined>
}

async function pnOf(lid: string, lookup: LidLookup | undefined): Promise<string | undefined> {
  if (!lookup) return undefined
  try {
    const pn = await lookup.getPNForLID(lid)
    return pn ? stripDevice(pn) : undefined
  } catch {
    // An unreadable mapping is no mapping: the LID chat stays as it is.
    return undefined
  }
}

/**
 * `msg` filed under its stable chat id, and the LID→number link it revealed (if any). 1:1 chats
 * addressed by LID move to the phone-number JID when known; group senders get their number filled
 * in. Other messages come back unchanged.
 */
export async function withStableChat<T extends Pick<InboundMessage, 'chatId' | 'senderId' | 'senderPn' | 'senderLid' | 'fromMe'>>(
  msg: T,
  lookup: LidLookup | undefined
): Promise<{ message: T; identity?: ChatIdentity }> {
  if (msg.chatId.endsWith('@lid')) {
    const lid = msg.chatId
    const pn = (msg.senderPn ?? (await pnOf(lid, lookup)))?.replace(/@c\.us$/, '@s.whatsapp.net')
    if (!pn?.endsWith('@s.whatsapp.net')) return { message: msg }
    const moved: T = { ...msg, chatId: pn, senderPn: pn, senderLid: lid, senderId: msg.senderId === lid ? pn : msg.senderId }
    return { message: moved, identity: { lid, pn } }
  }
  if (msg.chatId.endsWith('@s.whatsapp.net') && msg.senderLid && !msg.fromMe) {
    // A number-addressed message that names its LID: the same link, seen from the other side.
    return { message: msg, identity: { lid: msg.senderLid, pn: msg.chatId } }
  }
  if (msg.chatId.endsWith('@g.us') && msg.senderLid && !msg.senderPn) {
    const pn = await pnOf(msg.senderLid, lookup)
    if (pn) return { message: { ...msg, senderPn: pn } }
  }
  return { message: msg }
}

/**
 * The LID (`<lid>@lid`) the library already maps the phone-number JID `pnJid` to, read from the
 * session's key store only: the `lid-mapping` keys `<pn user>` → `<lid user>` that the library writes
 * from message envelopes, usync answers and `lid-mapping.update` (lib/Signal/lid-mapping.js
 * storeLIDPNMappings). Unlike the library's `getLIDForPN`, it never asks the server (a usync query
 * per send to a new number). Undefined when `pnJid` is not a phone-number JID, no mapping is stored,
 * or the store cannot be read.
 */
export async function knownLidFor(pnJid: string, keys: Pick<SignalKeyStore, 'get'>): Promise<string | undefined> {
  if (!pnJid.endsWith('@s.whatsapp.net')) return undefined
  const user = stripDevice(pnJid).split('@')[0]!
  try {
    const lid = (await keys.get('lid-mapping', [user]))[user]
    return typeof lid === 'string' && /^\d+$/.test(lid) ? `${lid}@lid` : undefined
  } catch {
    // An unreadable mapping is no mapping: the send goes to the number, as before.
    return undefined
  }
}
