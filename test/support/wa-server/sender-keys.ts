/**
 * Sender keys of one fake peer (test code): how the protocol test server's contacts and phones
 * encrypt and decrypt group messages (`<enc type="skmsg">`), with the group cipher Baileys ships
 * (lib/Signal/Group: GroupSessionBuilder, GroupCipher, SenderKeyDistributionMessage), so what they
 * read is what the real client sent and what they write is what the client's
 * `decryptGroupMessage` / `processSenderKeyDistributionMessage` (lib/Signal/libsignal.js) accept.
 *
 * A sender key is named by (group JID, sender): the sender is any string without dots (libsignal's
 * address form `id.device`); the peer's own key is named by `self`. Plaintexts are `proto.Message`s
 * padded as WhatsApp pads them (`encodeWAMessage`, lib/Utils/generics.js).
 */
import { encodeWAMessage, proto, unpadRandomMax16 } from 'baileys'
import { GroupCipher, GroupSessionBuilder, SenderKeyDistributionMessage, SenderKeyName, SenderKeyRecord } from 'baileys/lib/Signal/Group/index.js'

/** The sender part of a sender-key name (what libsignal's ProtocolAddress gives Baileys). */
const senderOf = (id: string) => ({ id, deviceId: 0, toString: () => `${id}.0` })

/** One peer's sender keys: its own per group, and those other senders distributed to it. */
export class SenderKeys {
  private readonly records = new Map<string, SenderKeyRecord>()
  /** `${group}|${recipient}` pairs this peer has sent its own key to. */
  private readonly distributed = new Set<string>()
  private readonly store = {
    loadSenderKey: async (name: SenderKeyName) => this.records.get(name.toString()) ?? new SenderKeyRecord(),
    storeSenderKey: async (name: SenderKeyName, record: SenderKeyRecord) => void this.records.set(name.toString(), record)
  }

  /** The serialized SenderKeyDistributionMessage of this peer's own key for `group` (made on first use). */
  async distribution(group: string, self: string): Promise<Uint8Array> {
    const skdm = await new GroupSessionBuilder(this.store).create(new SenderKeyName(group, senderOf(self)))
    return skdm.serialize()
  }

  /** Encrypts `message` with this peer's own key for `group`: the `skmsg` bytes. */
  async encrypt(group: string, self: string, message: proto.IMessage): Promise<Uint8Array> {
    const name = new SenderKeyName(group, senderOf(self))
    await new GroupSessionBuilder(this.store).create(name)
    return new GroupCipher(this.store, name).encrypt(encodeWAMessage(message))
  }

  /** Takes `sender`'s key for `group` from its distribution message (`axolotlSenderKeyDistributionMessage`). */
  async process(group: string, sender: string, skdm: Uint8Array): Promise<void> {
    const message = new SenderKeyDistributionMessage(null, null, null, null, skdm)
    await new GroupSessionBuilder(this.store).process(new SenderKeyName(group, senderOf(sender)), message)
  }

  /** Decrypts an `skmsg` of `sender` in `group`; throws when no key of that sender was distributed here. */
  async decrypt(group: string, sender: string, skmsg: Uint8Array): Promise<proto.Message> {
    const plain = await new GroupCipher(this.store, new SenderKeyName(group, senderOf(sender))).decrypt(skmsg)
    return proto.Message.decode(unpadRandomMax16(plain))
  }

  /** True when `sender` distributed a key for `group` to this peer. */
  has(group: string, sender: string): boolean {
    return !(this.records.get(new SenderKeyName(group, senderOf(sender)).toString())?.isEmpty() ?? true)
  }

  /**
   * Marks `recipient` as holding this peer's key for `group`; answers whether it was new (so the
   * distribution message must go with the next group message, as lib/Socket/messages-send.js does
   * with its sender-key-memory).
   */
  markDistributed(group: string, recipient: string): boolean {
    const k = `${group}|${recipient}`
    if (this.distributed.has(k)) return false
    this.distributed.add(k)
    return true
  }

  /** Forgets that `recipient` holds this peer's keys (a new device there): the next group message distributes them again. */
  forgetRecipient(recipient: string): void {
    for (const k of this.distributed) if (k.endsWith(`|${recipient}`)) this.distributed.delete(k)
  }
}

const byPeer = new WeakMap<object, SenderKeys>()

/** The sender keys of a peer (any object identifying it: its SignalPeer), made on first use. */
export function senderKeysOf(peer: object): SenderKeys {
  let keys = byPeer.get(peer)
  if (!keys) byPeer.set(peer, (keys = new SenderKeys()))
  return keys
}
