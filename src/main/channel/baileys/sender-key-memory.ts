/**
 * A group member on a new phone gets our sender key again (docs/baileys.md "A member changes phone").
 *
 * Baileys keeps, per group, which devices already hold our sender key: the `sender-key-memory` key of
 * the auth store, `{ [groupJid]: { [deviceJid]: true } }`. `relayMessage` (lib/Socket/messages-send.js)
 * sends the SenderKeyDistributionMessage only to devices not marked, and marks every device it sent
 * to. rc14 clears a group's map only when a member's retry receipt is handled (lib/Socket/messages-recv.js
 * sendMessagesAgain); on `<notification type="encrypt"><identity/>` — a contact's WhatsApp on a new phone,
 * same number and device 0, new identity — it only rebuilds the 1:1 session
 * (lib/Utils/identity-change-handler.js). So the new phone stays marked as holding a key it never got,
 * and every later group message shows "Waiting for this message" there (Baileys #2704, #2297; WA Web
 * clears the device record, sender-key flags included, on an identity change: WAWebHandleIdentityChange,
 * as oxidezap/whatsapp-rust PR #489 mirrors).
 *
 * The product, from outside the library: on that notification it removes the member's devices (its
 * phone-number and LID forms) from every group's `sender-key-memory` entry, inside the library's key
 * transaction for our JID — the one `relayMessage` runs in — so a send never interleaves with it.
 * When the notification came with the offline backlog, rc14 also leaves the 1:1 session with the old
 * phone in place ("skipping session refresh during offline processing"), and a distribution message
 * encrypted on it cannot be read by the new phone; the product then deletes that session, so the next
 * send builds one from the new phone's keys (relayMessage → assertSessions).
 */
import { jidDecode, type BinaryNode, type SignalDataTypeMap, type SignalKeyStore } from 'baileys'

/** Node event of an identity change (lib/Socket/messages-recv.js handleEncryptNotification). */
export const IDENTITY_EVENT = 'CB:notification,type:encrypt'

type Memory = SignalDataTypeMap['sender-key-memory']

/** The auth key store as the socket holds it: rc14 adds a transaction per key (lib/Utils/auth-utils.js). */
export type SocketKeyStore = SignalKeyStore & { transaction?<T>(work: () => Promise<T>, key: string): Promise<T> }

/**
 * Removes from each of `groups`' `sender-key-memory` entries every device whose user (the part of the
 * JID before `:`/`@`, digits of a phone number or a LID) is in `users`; answers how many devices were
 * removed. Entries of other users and of other groups are left as they are. Errors of the store reach
 * the caller.
 */
export async function forgetSenderKeyHolders(keys: SignalKeyStore, groups: readonly string[], users: ReadonlySet<string>): Promise<number> {
  if (groups.length === 0 || users.size === 0) return 0
  const stored = await keys.get('sender-key-memory', [...groups])
  const changed: Record<string, Memory> = {}
  let removed = 0
  for (const [group, memory] of Object.entries(stored)) {
    if (!memory) continue
    const kept: Memory = {}
    for (const [device, has] of Object.entries(memory)) {
      const user = jidDecode(device)?.user
      if (user !== undefined && users.has(user)) removed++
      else kept[device] = has
    }
    if (Object.keys(kept).length !== Object.keys(memory).length) changed[group] = kept
  }
  if (Object.keys(changed).length > 0) await keys.set({ 'sender-key-memory': changed })
  return removed
}

/** Who an identity notification is about: the member's users (digits) and primary-device JIDs, in both forms known. */
export interface IdentityChange {
  users: Set<string>
  jids: string[]
}

/**
 * Who an identity notification is about, or null when it is not one the product acts on: no
 * `<identity>` child (a pre-key count from the server), a companion device (device ≠ 0, which WA Web
 * and rc14 ignore), or our own account. Both forms of the member: the notification's, and the other
 * one from the library's LID mapping when it knows it.
 */
export async function identityChangeOf(
  node: BinaryNode,
  me: { id?: string; lid?: string } | undefined,
  lidMapping: { getPNForLID(lid: string): Promise<string | null | undefined>; getLIDForPN(pn: string): Promise<string | null | undefined> }
): Promise<IdentityChange | null> {
  const from = node.attrs.from
  const hasIdentity = Array.isArray(node.content) && node.content.some((c) => c.tag === 'identity')
  const decoded = from ? jidDecode(from) : undefined
  if (!from || !hasIdentity || !decoded?.user || (decoded.device ?? 0) !== 0) return null
  const own = [me?.id, me?.lid].map((j) => (j ? jidDecode(j)?.user : undefined))
  if (own.includes(decoded.user)) return null
  const change: IdentityChange = { users: new Set([decoded.user]), jids: [from] }
  const other = decoded.server === 'lid' ? await lidMapping.getPNForLID(from) : await lidMapping.getLIDForPN(from)
  const otherDecoded = other ? jidDecode(other) : undefined
  if (other && otherDecoded?.user) {
    change.users.add(otherDecoded.user)
    change.jids.push(`${otherDecoded.user}@${otherDecoded.server}`)
  }
  return change
}
