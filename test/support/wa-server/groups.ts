/**
 * Groups on the protocol test server (test code): the groups it holds, the `w:g2` queries it answers,
 * and group messages both ways, each shaped as the real client parses or builds them in
 * node_modules/baileys/lib:
 *
 * - metadata: `<iq xmlns="w:g2" type="get" to="<id>@g.us"><query request="interactive"/></iq>` →
 *   `<group id subject creation creator s_t s_o addressing_mode size><participant jid type? lid|phone_number/>…</group>`
 *   (Socket/groups.js extractGroupMetadata); an unknown group → error 404, an account not in it → 403;
 *   `<participating>` (groupFetchAllParticipating) → `<groups>` with the account's groups;
 * - adding members: `<iq xmlns="w:g2" type="set" to><add><participant jid/>…</add></iq>` →
 *   `<add><participant jid error?/>…</add>` (groupParticipantsUpdate: no `error` is status 200); only an
 *   admin may add (else error 403); a person the server does not know → 404, a member already → 409;
 * - contact → client: `<message from="<id>@g.us" participant id t type notify addressing_mode
 *   participant_lid|participant_pn>` with, the first time the contact writes to that client in the
 *   group, an `<enc type="pkmsg|msg">` carrying its SenderKeyDistributionMessage (1:1 Signal), then
 *   `<enc type="skmsg">` with the message under its sender key (Utils/decode-wa-message.js decrypts
 *   them in that order);
 * - client → group: `<message to="<id>@g.us" addressing_mode>` with `<participants><to jid><enc>` (the
 *   client's SenderKeyDistributionMessage for each member device that lacks it) and one
 *   `<enc type="skmsg">` (Socket/messages-send.js relayMessage). Every member peer (contacts and the
 *   sending account's phone) takes the key it was given and decrypts the skmsg; what it read is
 *   recorded per member, with the group's JID.
 *
 * Members are addressed by phone number (`addressingMode: 'pn'`, the default) or by LID (`'lid'`,
 * what WhatsApp uses for most groups now).
 */
import type { BinaryNode, proto } from 'baileys'
import type { ReceivedMessage } from './types'
import { companionAddress, encryptedParts, newMessageId } from './messaging'
import { child, children, iqResult, jidUser, node } from './nodes'
import type { SignalPeer } from './peer'
import { senderKeysOf, type SenderKeys } from './sender-keys'

export type GroupAddressing = 'pn' | 'lid'

/** A member by phone number and LID (digits), with its admin role. */
export interface GroupMember {
  pn: string
  lid: string
  admin?: 'admin' | 'superadmin'
}

/** A group the server holds. */
export interface GroupRecord {
  /** `<id>` and `<id>@g.us`. */
  id: string
  jid: string
  subject: string
  /** Epoch seconds. */
  creation: number
  addressingMode: GroupAddressing
  members: GroupMember[]
  /** What linked clients sent to the group, as each member decrypted it, in order. */
  deliveries: GroupDelivery[]
}

/** A client's group message as one member decrypted it. */
export interface GroupDelivery extends ReceivedMessage {
  /** The member's phone-number JID. */
  member: string
}

/** What {@link WaTestServer.addGroup} takes. */
export interface GroupSpec {
  subject: string
  /** Members: fake contacts and phones (their `jid` is `<pn>@s.whatsapp.net`, their `lid` `<lid>@lid`). */
  participants: Array<{ jid: string; lid: string }>
  /** Members who are admins; the first is the group's creator (superadmin). */
  admins?: Array<{ jid: string }>
  /** The group id without `@g.us` (digits); default the next `120363…`. */
  id?: string
  addressingMode?: GroupAddressing
}

/** A group as tests see it. */
export interface FakeGroup {
  /** `<id>@g.us`. */
  readonly jid: string
  readonly subject: string
  readonly addressingMode: GroupAddressing
  /** Members' phone-number JIDs, in order. */
  participants(): string[]
  /** What linked clients sent to the group, as each member decrypted it. */
  messages(): GroupDelivery[]
}

let nextGroupId = 120363000000000001n

/** A group record from a spec (ids from a counter shared by every server in the process). */
export function makeGroup(spec: GroupSpec): GroupRecord {
  const id = spec.id ?? String(nextGroupId++)
  const admins = (spec.admins ?? []).map((a) => jidUser(a.jid))
  return {
    id,
    jid: `${id}@g.us`,
    subject: spec.subject,
    creation: Math.floor(Date.now() / 1000) - 86_400,
    addressingMode: spec.addressingMode ?? 'pn',
    members: spec.participants.map((p) => {
      const pn = jidUser(p.jid)
      const role = admins.indexOf(pn)
      return { pn, lid: jidUser(p.lid), ...(role === 0 ? { admin: 'superadmin' as const } : role > 0 ? { admin: 'admin' as const } : {}) }
    }),
    deliveries: []
  }
}

/** The tests' view of a group record. */
export function fakeGroup(g: GroupRecord): FakeGroup {
  return {
    jid: g.jid,
    subject: g.subject,
    addressingMode: g.addressingMode,
    participants: () => g.members.map((m) => `${m.pn}@s.whatsapp.net`),
    messages: () => [...g.deliveries]
  }
}

/** How a member is addressed in the group: its LID or its phone-number JID. */
export function memberJid(g: GroupRecord, m: { pn: string; lid: string }): string {
  return g.addressingMode === 'lid' ? `${m.lid}@lid` : `${m.pn}@s.whatsapp.net`
}

const isMember = (g: GroupRecord, account: { pn: string }): boolean => g.members.some((m) => m.pn === account.pn)

/** The `<group>` node of a metadata answer (Socket/groups.js extractGroupMetadata). */
export function groupNode(g: GroupRecord): BinaryNode {
  const creator = g.members.find((m) => m.admin === 'superadmin') ?? g.members[0]
  return node(
    'group',
    {
      id: g.id,
      subject: g.subject,
      creation: g.creation,
      s_t: g.creation,
      s_o: creator ? memberJid(g, creator) : undefined,
      creator: creator ? memberJid(g, creator) : undefined,
      addressing_mode: g.addressingMode,
      size: g.members.length
    },
    g.members.map((m) =>
      node('participant', {
        jid: memberJid(g, m),
        type: m.admin,
        // The other form of the member's id, as WhatsApp sends it (read into phoneNumber / lid).
        ...(g.addressingMode === 'lid' ? { phone_number: `${m.pn}@s.whatsapp.net` } : { lid: `${m.lid}@lid` })
      })
    )
  )
}

const iqError = (iq: BinaryNode, code: number, text: string): BinaryNode =>
  node('iq', { from: iq.attrs.to, type: 'error', id: iq.attrs.id }, [node('error', { code, text })])

/**
 * The answer to a `w:g2` iq from the client of `account` (its phone number, digits), or undefined for
 * one this server does not model (the caller answers it with an empty result). `lookup` finds the
 * people the server knows (for adds), by phone-number JID or LID.
 */
export function answerGroupIq(
  iq: BinaryNode,
  groups: ReadonlyMap<string, GroupRecord>,
  account: string,
  lookup: (jid: string) => { pn: string; lid: string } | undefined
): BinaryNode | undefined {
  if (iq.attrs.xmlns !== 'w:g2') return undefined
  const me = { pn: account }
  if (iq.attrs.type === 'set') {
    const add = child(iq, 'add')
    const g = groups.get(iq.attrs.to ?? '')
    if (!add) return undefined
    if (!g) return iqError(iq, 404, 'item-not-found')
    if (!g.members.some((m) => m.pn === account && m.admin)) return iqError(iq, 403, 'forbidden')
    const results = children(add, 'participant').map((p) => {
      const jid = p.attrs.jid ?? ''
      const person = lookup(jid)
      if (!person) return node('participant', { jid, error: '404' })
      if (g.members.some((m) => m.pn === person.pn)) return node('participant', { jid, error: '409' })
      g.members.push({ pn: person.pn, lid: person.lid })
      return node('participant', { jid })
    })
    return iqResult(iq, [node('add', {}, results)])
  }
  if (iq.attrs.type !== 'get') return undefined
  if (child(iq, 'query')) {
    const g = groups.get(iq.attrs.to ?? '')
    if (!g) return iqError(iq, 404, 'item-not-found')
    if (!isMember(g, me)) return iqError(iq, 403, 'forbidden')
    return iqResult(iq, [groupNode(g)])
  }
  if (child(iq, 'participating')) {
    const mine = [...groups.values()].filter((g) => isMember(g, me))
    return iqResult(iq, [node('groups', {}, mine.map(groupNode))])
  }
  return undefined
}

/** A peer the server knows, found by a JID's user (PN or LID). */
export interface FoundPeer {
  peer: SignalPeer
  pn: string
  lid: string
}

/**
 * A group message from a member peer to the client at `clientAddress`: the SenderKeyDistributionMessage
 * (1:1 encrypted) when `distribute`, then the skmsg (under `opts.keys` when given, else the sender's own keys). Answers the message id, the `<enc>` types and the node.
 */
export async function groupInboundMessage(
  g: GroupRecord,
  sender: FoundPeer,
  clientAddress: string,
  message: proto.IMessage,
  opts: { distribute: boolean; pushName?: string; keys?: SenderKeys }
): Promise<{ id: string; types: string[]; node: BinaryNode }> {
  // `keys`: other sender keys than the peer's own (e.g. a key the client was never given).
  const keys = opts.keys ?? senderKeysOf(sender.peer)
  const self = `member-${sender.pn}`
  const encs: BinaryNode[] = []
  if (opts.distribute) {
    const skdm = await keys.distribution(g.jid, self)
    const { type, ciphertext } = await sender.peer.encryptMessage(clientAddress, {
      senderKeyDistributionMessage: { groupId: g.jid, axolotlSenderKeyDistributionMessage: skdm }
    })
    encs.push(node('enc', { v: '2', type }, ciphertext))
  }
  encs.push(node('enc', { v: '2', type: 'skmsg' }, await keys.encrypt(g.jid, self, message)))
  const id = newMessageId()
  const lid = g.addressingMode === 'lid'
  return {
    id,
    types: encs.map((e) => e.attrs.type ?? ''),
    node: node(
      'message',
      {
        from: g.jid,
        participant: memberJid(g, sender),
        // The other form of the sender's id (Utils/decode-wa-message.js extractAddressingContext → key.participantAlt).
        ...(lid ? { participant_pn: `${sender.pn}@s.whatsapp.net` } : { participant_lid: `${sender.lid}@lid` }),
        addressing_mode: g.addressingMode,
        id,
        type: 'text',
        t: Math.floor(Date.now() / 1000),
        notify: opts.pushName
      },
      encs
    )
  }
}

/** What {@link deliverClientGroupMessage} needs from the server. */
export interface GroupDeliveryContext<F extends FoundPeer> {
  /** The number of the account whose linked client sent the message. */
  account: string
  peerFor(jid: string): F | undefined
  /** Records a decrypted message for the peer (a contact's or phone's messages). */
  record(found: NoInfer<F>, received: ReceivedMessage): void
  debug(msg: string): void
}

/**
 * Delivers a client's `<message to="<id>@g.us">` to the members of `g`: each `<to>` part (a
 * SenderKeyDistributionMessage) gives its peer the client's sender key; then every member holding
 * that key decrypts the skmsg, which is recorded for it and on the group.
 */
export async function deliverClientGroupMessage<F extends FoundPeer>(msg: BinaryNode, g: GroupRecord, ctx: GroupDeliveryContext<F>): Promise<void> {
  const sender = companionAddress(ctx.account)
  for (const part of encryptedParts(msg)) {
    if (part.jid === g.jid) continue // the skmsg, below
    const found = ctx.peerFor(part.jid)
    if (!found) {
      ctx.debug(`group message part for unknown ${part.jid}`)
      continue
    }
    try {
      const decrypted = await found.peer.decryptMessage(sender, part.type, part.ciphertext)
      const skdm = decrypted.senderKeyDistributionMessage
      if (skdm?.groupId !== g.jid || !skdm.axolotlSenderKeyDistributionMessage) throw new Error(`not a sender key for ${g.jid}`)
      await senderKeysOf(found.peer).process(g.jid, sender, skdm.axolotlSenderKeyDistributionMessage)
    } catch (err) {
      ctx.debug(`could not take the sender key for ${part.jid}: ${String(err)}`)
    }
  }
  const skmsg = children(msg, 'enc').find((e) => e.attrs.type === 'skmsg')
  const content = skmsg?.content
  if (!(content instanceof Uint8Array)) return ctx.debug(`group message ${msg.attrs.id} without an skmsg`)
  for (const m of g.members) {
    const found = ctx.peerFor(`${m.pn}@s.whatsapp.net`)
    if (!found) continue
    const keys = senderKeysOf(found.peer)
    if (!keys.has(g.jid, sender)) {
      ctx.debug(`member ${m.pn} holds no sender key of ${sender} in ${g.jid}`)
      continue
    }
    try {
      const message = await keys.decrypt(g.jid, sender, content)
      const received: ReceivedMessage = { account: ctx.account, type: 'skmsg', message, id: msg.attrs.id ?? '', at: performance.now(), group: g.jid }
      g.deliveries.push({ ...received, member: `${m.pn}@s.whatsapp.net` })
      ctx.record(found, received)
    } catch (err) {
      ctx.debug(`member ${m.pn} could not decrypt ${msg.attrs.id}: ${String(err)}`)
    }
  }
}
