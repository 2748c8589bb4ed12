/**
 * A local WhatsApp-Web-like protocol test server for the real Baileys socket (test support, never
 * shipped). See docs/design.md §5 "Testing the real channel offline" and docs/baileys.md "What the test server still does not model".
 *
 * It listens on 127.0.0.1 (`ws://127.0.0.1:PORT/ws/chat`, port 0) with its own test root key: the
 * client accepts the server's certificate chain once `WA_CERT_DETAILS.PUBLIC_KEY` is that key
 * (`applyTestRootKey(rootPublicKey)`, or `CHATAPP_WA_ROOT_KEY` for a served app). The server holds
 * WhatsApp accounts, each with a fake phone ({@link FakePhone}) that can link one companion (device 12):
 *
 * - registration: a client without credentials gets `<pair-device>` refs and shows a QR;
 *   `phone.scan(qr)` pairs it (`<pair-success>`), then asks for the restart (515);
 * - login: `<success>`, `<ib><offline count="0"/></ib>`, every query answered ({@link answerIq}); once
 *   the client's pre-keys are known, the phone sends a history-sync notification (type FULL, which
 *   the client skips) so the client leaves its initial-sync buffering at once instead of after 20 s;
 * - messages: contacts ({@link WaTestServer.contact}) are libsignal peers that decrypt what the client
 *   sends them and send it encrypted messages; the phone receives the client's own-device copies;
 * - groups ({@link WaTestServer.addGroup}, groups.ts): metadata queries, members writing to the group
 *   with sender keys, and the client's group messages decrypted by every member;
 * - disconnects: {@link WaTestServer.disconnect} drops a logged-in connection (as a network loss) or
 *   ends it with a stream error;
 * - logout: the client's `remove-companion-device` unlinks the device;
 * - media: `media_conn` names the fake HTTPS media host ({@link WaTestServer.media}, media-host.ts),
 *   where the client uploads and from which it downloads; contacts read what the client sent
 *   ({@link FakeContact.readMedia}) and send media themselves ({@link FakeContact.sendMedia}).
 *
 * `control: true` also serves {@link handleControl}'s HTTP API on the same port, for a server in
 * another process (benchmarks, `npm run wa-test-server`).
 */
import { randomBytes } from 'node:crypto'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { createRequire } from 'node:module'
import { Curve, generateSignalPubKey, proto, type BinaryNode } from 'baileys'
import { describe as describeNode, WaConnection, type WsLike } from './connection'
import { companionAddress, encryptedParts, inboundMessage, messageAck } from './messaging'
import { bytes, child, children, iqError, iqResult, jidUser, node, S_WHATSAPP_NET, uintBE } from './nodes'
import { companionFinish, companionHello, primaryHello, type CodeRegistration } from './pairing-code'
import { makeServerIdentity, newKeyPair, type KeyPair } from './noise'
import { pairSuccessIq, parsePairingQr } from './pairing'
import { SignalPeer, textOf, type EncType, type UploadedKeys } from './peer'
import { answerIq, type Directory } from './queries'
import { handleControl } from './control'
import { answerGroupIq, deliverClientGroupMessage, fakeGroup, groupInboundMessage, makeGroup, type FakeGroup, type GroupRecord } from './groups'
import { SenderKeys, senderKeysOf } from './sender-keys'
import { buildMediaMessage, readMedia } from './contact-media'
import { startMediaHost } from './media-host'
import { LinkRefusedError, type DeviceConnection, type DeviceConnections, type FakeContact, type FakePhone, type LinkedDevice, type ReceivedMessage, type WaTestServer, type WaTestServerOptions } from './types'
import { LIVE_BEHAVIOUR, type ServerBehaviour } from './behaviour'
import { answerOf, historyNotification, onDemandRequestOf, type HeldMessage, type OnDemandRequest } from './history'
import { editOf, pollOf, reactionOf, revokeOf, voteOf, type PhoneMessage } from './message-changes'

interface WsServerLike {
  on(event: 'connection', fn: (ws: WsLike) => void): void
  close(cb?: () => void): void
}
const { WebSocketServer } = createRequire(import.meta.url)('ws') as {
  WebSocketServer: new (opts: { server: Server; path: string }) => WsServerLike
}

export {
  LinkRefusedError,
  type DeviceConnection,
  type DeviceConnections,
  type FakeContact,
  type FakePhone,
  type LinkedDevice,
  type LinkedDeviceCreds,
  type ReceivedMessage,
  type WaTestServer,
  type WaTestServerOptions
} from './types'

const COMPANION_DEVICE = 12
const STATUS_JID = 'status@broadcast'

interface Account {
  number: string
  name: string
  lid: string
  keys: KeyPair
  /** The phone (device 0) as a Signal peer: it receives the client's own-device copies. */
  peer: SignalPeer
  phoneMessages: ReceivedMessage[]
  /** Receipts a client addressed to the account's own devices (`read-self`): no contact sees them. */
  ownReceipts: Array<{ id: string; type: string }>
  linked: boolean
  /**
   * The linked companion's Noise static public key, registered at pairing (or adoption): a login
   * from another key is refused, as the live service authenticates a companion by the key it
   * registered (see {@link WaConnection.noiseKey}).
   */
  noiseKey: Buffer | null
  /** Messages for the linked client while it is not connected, delivered at its next login. */
  offlineQueue: BinaryNode[]
  /**
   * The backlog is being delivered to the logged-in client, or is held behind a NACKed status
   * (behaviour.statusNackHoldsOfflineQueue): new messages queue behind it until `<ib><offline>`.
   */
  draining: boolean
  /** The linked companion's name on the phone (DeviceProps.os). */
  deviceName: string | null
  /** What the phone holds of each chat, by the chat's phone-number JID (history.ts), oldest first. */
  history: Map<string, HeldMessage[]>
  /** On-demand history requests the phone got from its linked client. */
  historyRequests: OnDemandRequest[]
  /** Requests the phone has not answered yet (behaviour.answerHistoryRequests off): {@link FakePhone.answerHistoryRequests} answers them. */
  unansweredHistory: OnDemandRequest[]
  uploaded: UploadedKeys | null
  loggedIn: WaConnection | null
  dir: Directory
  phone: FakePhone
}

interface Contact {
  peer: SignalPeer
  pn: string
  lid: string
  name: string
  messages: ReceivedMessage[]
  sent: string[]
  waiters: Array<(m: ReceivedMessage) => void>
  /** The server refuses messages to this contact with this ack error (e.g. 463), not delivering them. */
  ackError: number | null
  /** Per message id the contact received: the JID the client addressed it to, for its receipts. */
  addressedAs: Map<string, string>
  /** Messages this contact sent that a client could not decrypt, by id: sent again on its retry receipt. */
  undelivered: Map<string, proto.IMessage>
  /** Receipts clients sent this contact (read receipts when the desk marks a chat read). */
  receipts: Array<{ id: string; type: string }>
  /** Chat states ("typing…") clients showed this contact, with how many messages it had received by then. */
  chatStates: Array<{ state: string; beforeMessage: number }>
  /** How this contact's messages to clients are addressed (FakeContact.addressing). */
  addressing: 'pn' | 'lid' | 'lid-only'
  /** usync answers give no LID for this number (FakeContact.lidShared false). */
  lidHidden: boolean
  /** The contact's WhatsApp username (FakeContact.username). */
  username: string | null
  /** Accounts whose chat with this contact moved to LID: it wrote to them LID-addressed (behaviour.refusePnInLidChat). */
  lidChats: Set<string>
  /** The privacy token this contact issued to each account (by number), sent to its client as a `privacy_token` notification. */
  issuedTokens: Map<string, Buffer>
  /** Refuse client messages that do not carry the token this contact issued to their account (463). */
  requiresToken: boolean
  /** Ids of client messages the server refused to deliver to this contact, in order (one per attempt). */
  refused: string[]
}

export async function startWaTestServer(opts: WaTestServerOptions = {}): Promise<WaTestServer> {
  const identity = makeServerIdentity()
  const media = await startMediaHost()
  const debugOn = process.env.WA_TEST_DEBUG === '1'
  const log: string[] = []
  const debug = (msg: string): void => {
    log.push(msg)
    if (log.length > 500) log.shift()
    if (debugOn) console.log(`[wa-server] ${msg}`)
  }

  const accounts = new Map<string, Account>()
  const contacts = new Map<string, Contact>()
  const groups = new Map<string, GroupRecord>()
  const conns = new Set<WaConnection>()
  const pairing = new Map<string, WaConnection>()
  /** Per registration connection: adv secrets the server retired (companion_reg_refresh), and whether it sent one. */
  const registrations = new WeakMap<WaConnection, { retired: Set<string>; refreshed: boolean }>()
  /** The device name a registering client gave (its DeviceProps.os: what the phone lists under Linked devices). */
  const deviceNames = new WeakMap<WaConnection, string>()
  /** Pairing-code registrations by account number, waiting for the owner to type the code. */
  const codeRegistrations = new Map<string, { conn: WaConnection; registration: CodeRegistration; resolve?: () => void; reject?: (err: Error) => void }>()
  const behaviour: ServerBehaviour = { ...LIVE_BEHAVIOUR, ...opts.behaviour, loginStreamErrors: [...(opts.behaviour?.loginStreamErrors ?? [])] }
  const accountOf = new WeakMap<WaConnection, Account>()
  const historySent = new WeakSet<WaConnection>()
  let connections = 0
  /** Epoch ms of each successful login, and logins answered with a stream error (behaviour.loginStreamErrors). */
  const logins: number[] = []
  let loginFailures = 0
  /** Per device JID: the connections that logged in as it (DeviceConnections) and which of them are live. */
  const deviceLogs = new Map<string, { device: string; connections: DeviceConnection[]; live: Set<WaConnection>; maxLive: number }>()
  const deviceEntry = new WeakMap<WaConnection, DeviceConnection>()
  /** Group metadata queries (`w:g2` get `<query>`) answered so far. */
  let groupMetadataQueries = 0
  /** Registrations: clients without credentials that were sent `<pair-device>` refs (each shows a QR). */
  let pairingRequests = 0
  /** Ids of the messages clients answered with a receipt or an `<ack>`: handled or ignored, no longer pending. */
  const clientAcks = new Set<string>()
  /** Per message id: the client's `<ack>` for it, with its error code when it was a NACK (absent: none or a receipt). */
  const clientNacks = new Map<string, string>()
  /** Waiting for a client's answer (receipt or ack) to a message id on a connection; null when it closed first. */
  const answerWaiters = new Map<string, { conn: WaConnection; resolve: (answer: BinaryNode | null) => void }>()
  let nextAccount = 15550001111
  let nextAccountLid = 210000000000001
  let nextContactLid = 220000000000001

  /** The next contact LID no account or contact has (a test may have given one explicitly). */
  function freeContactLid(): string {
    while (peerFor(`${nextContactLid}@lid`)) nextContactLid++
    return String(nextContactLid++)
  }

  /** The next account LID no account or contact has (an adopted device brings its own). */
  function freeAccountLid(): string {
    while (peerFor(`${nextAccountLid}@lid`)) nextAccountLid++
    return String(nextAccountLid++)
  }

  /** The phone or contact behind a JID's user (PN or LID). */
  function peerFor(jid: string): { peer: SignalPeer; pn: string; lid: string; lidHidden?: boolean; username?: string; account?: Account; contact?: Contact } | undefined {
    const user = jidUser(jid)
    for (const a of accounts.values()) if (a.number === user || a.lid === user) return { peer: a.peer, pn: a.number, lid: a.lid, account: a }
    for (const c of contacts.values()) {
      if (c.pn === user || c.lid === user) return { peer: c.peer, pn: c.pn, lid: c.lid, lidHidden: c.lidHidden, ...(c.username ? { username: c.username } : {}), contact: c }
    }
    return undefined
  }

  function addAccount(number = String(nextAccount++), name = `Test Shop ${number.slice(-4)}`): Account {
    if (accounts.has(number)) throw new Error(`account ${number} exists`)
    const keys = newKeyPair()
    const account: Account = {
      number,
      name,
      lid: freeAccountLid(),
      keys,
      peer: new SignalPeer(keys),
      phoneMessages: [],
      ownReceipts: [],
      linked: false,
      noiseKey: null,
      deviceName: null,
      history: new Map(),
      historyRequests: [],
      unansweredHistory: [],
      offlineQueue: [],
      draining: false,
      uploaded: null,
      loggedIn: null,
      dir: {
        peerFor,
        byUsername: (username) => {
          for (const c of contacts.values()) if (c.username?.toLowerCase() === username) return { pn: c.pn, lid: c.lid }
          return undefined
        },
        // An upload adds to the pre-keys the server still holds (the client asks for the count and
        // tops it up: lib/Socket/socket.js uploadPreKeysToServerIfRequired uploads 5 more when 5 or
        // fewer are left); the identity, registration id and signed pre-key are the latest.
        onKeyUpload: (keys) => {
          const added = new Set(keys.preKeys.map((k) => k.keyId))
          const kept = (account.uploaded?.preKeys ?? []).filter((k) => !added.has(k.keyId))
          account.uploaded = { ...keys, preKeys: [...kept, ...keys.preKeys] }
        },
        onLogout: () => {
          account.linked = false
          account.noiseKey = null
          account.uploaded = null
          account.offlineQueue = []
          account.draining = false
        },
        uploadedPreKeyCount: () => account.uploaded?.preKeys.length ?? 0,
        // WhatsApp's defaults, with read receipts as the behaviour says.
        privacy: () => ({ readreceipts: behaviour.readReceipts, last: 'all', online: 'all', profile: 'all', status: 'contacts', groupadd: 'all' }),
        groupIq: (iq) => {
          if (iq.attrs.type === 'get' && child(iq, 'query')) groupMetadataQueries++
          return answerGroupIq(iq, groups, account.number, peerFor)
        },
        mediaConn: () => ({ auth: media.auth, ttlSeconds: 300, hostname: media.host })
      },
      phone: undefined as unknown as FakePhone
    }
    account.phone = {
      number,
      name,
      jid: `${number}@s.whatsapp.net`,
      get lid() {
        return `${account.lid}@lid`
      },
      get linked() {
        return account.linked
      },
      get linkedDeviceName() {
        return account.linked ? account.deviceName : null
      },
      get online() {
        return account.loggedIn !== null
      },
      received: () => account.phoneMessages.flatMap((m) => textOf(m.message) ?? []),
      messages: () => [...account.phoneMessages],
      ownReceipts: () => [...account.ownReceipts],
      typeTo: (jid, text) => typeOnPhone(account, jid, text),
      deleteForEveryone: (jid, id) => sendFromPhone(account, jid, revokeOf({ remoteJid: phoneChat(jid), id, fromMe: true })),
      edit: (jid, id, text) => sendFromPhone(account, jid, editOf({ remoteJid: phoneChat(jid), id, fromMe: true }, text)),
      react: (jid, target, emoji) => sendFromPhone(account, jid, reactionOf({ remoteJid: phoneChat(jid), ...target }, emoji)),
      sendPoll: async (jid, name, options, selectable) => {
        const poll = pollOf(name, options, selectable)
        return { id: await sendFromPhone(account, jid, poll), secret: poll.secret }
      },
      holdHistory: (jid, messages) => holdHistory(account, jid, messages),
      sendHistorySync: (opts) => sendHistorySync(account, opts),
      historyRequests: () => [...account.historyRequests],
      answerHistoryRequests: async () => {
        const pending = account.unansweredHistory.splice(0)
        for (const request of pending) await sendHistoryAnswer(account, request)
        return pending.length
      },
      scan: (qr) => scan(account, qr),
      enterCode: (code) => enterCode(account, code),
      removeDevice() {
        account.linked = false
        account.noiseKey = null
        account.uploaded = null
        const conn = account.loggedIn
        if (!conn) return
        conn.send(node('stream:error', { code: '401' }, [node('conflict', { type: 'device_removed' })]))
        conn.close()
      }
    }
    accounts.set(number, account)
    return account
  }

  async function scan(account: Account, qr: string): Promise<void> {
    const data = parsePairingQr(qr)
    const conn = pairing.get(data.ref)
    if (!conn || conn.closed) throw new Error(`no client is showing the QR ref ${data.ref}`)
    const reg = registrations.get(conn) ?? { retired: new Set<string>(), refreshed: false }
    registrations.set(conn, reg)
    const secret = data.advSecret.toString('base64')
    if (reg.retired.has(secret)) throw new LinkRefusedError('the QR still carries an adv secret the server retired (companion_reg_refresh)')
    if (behaviour.qrRefreshOnScan && !reg.refreshed) {
      // The live service (#2737): the first scan retires the advertised secret and asks the companion to refresh.
      reg.refreshed = true
      reg.retired.add(secret)
      sendRefresh(conn)
      throw new LinkRefusedError('the server retired the QR\'s adv secret and sent companion_reg_refresh; scan the refreshed QR')
    }
    await completePairing(conn, account, data)
  }

  /** `pair-success` for the companion on `conn` (its identity key, MACed with the adv secret), then the 515. */
  async function completePairing(conn: WaConnection, account: Account, companion: { identityKey: Buffer; advSecret: Buffer }): Promise<void> {
    const reply = await conn.query(
      pairSuccessIq(`pair-success-${conn.id}`, companion, account.keys, {
        jid: `${account.number}:${COMPANION_DEVICE}@s.whatsapp.net`,
        lid: `${account.lid}:${COMPANION_DEVICE}@lid`,
        keyIndex: 1
      })
    )
    if (!child(reply, 'pair-device-sign')) throw new LinkRefusedError(`the client refused the pairing: ${describeNode(reply)}`)
    account.linked = true
    // The registering connection's static key is the companion's noise key (the QR's, or companion_server_auth_key_pub).
    account.noiseKey = conn.noiseKey
    account.deviceName = deviceNames.get(conn) ?? null
    account.uploaded = null
    // WhatsApp asks a freshly paired client to reconnect and log in.
    conn.send(node('stream:error', { code: '515' }))
  }

  /**
   * The companion `creds` describe becomes the linked device 12 of its account (made when missing),
   * as the live service knows a device it registered: what a pairing told it (the noise key, the
   * QR's or `companion_server_auth_key_pub`; the LID of `pair-success`) and what the device uploaded
   * at its logins (`<iq xmlns="encrypt" type="set">`: registration id, identity key, signed pre-key,
   * one-time pre-keys; lib/Utils/signal.js getNextPreKeysNode). WaTestServer.adoptLinkedDevice says
   * what follows and when it throws.
   */
  function adoptLinkedDevice({ creds, preKeys = [] }: LinkedDevice): FakePhone {
    const me = /^(\d+):(\d+)@s\.whatsapp\.net$/.exec(creds.me?.id ?? '')
    if (!me) throw new Error(`the creds name no linked device (me.id: ${creds.me?.id ?? 'none'}); a client without one registers with a QR`)
    if (Number(me[2]) !== COMPANION_DEVICE) throw new Error(`this server links companions as device ${COMPANION_DEVICE}; the creds name device ${me[2]}`)
    const identity = Buffer.from(creds.signedIdentityKey.public)
    const signed = creds.signedPreKey
    // What libsignal checks before it builds a session on the bundle (initOutgoing): said here, not at a contact's first message.
    if (!Curve.verify(identity, generateSignalPubKey(signed.keyPair.public), signed.signature)) {
      throw new Error(`the signed pre-key ${signed.keyId} is not signed by the creds' identity key`)
    }
    const account = accounts.get(me[1]!) ?? addAccount(me[1])
    if (account.linked) throw new Error(`account ${account.number} already has a linked device`)
    if (creds.me?.lid) {
      const lid = jidUser(creds.me.lid)
      const holder = peerFor(`${lid}@lid`)
      if (holder && holder.account !== account) throw new Error(`LID ${lid} belongs to ${holder.pn}`)
      account.lid = lid
    }
    account.linked = true
    account.noiseKey = Buffer.from(creds.noiseKey.public)
    account.deviceName = null
    account.offlineQueue = []
    account.uploaded = {
      registrationId: creds.registrationId,
      identity,
      signedPreKey: { keyId: signed.keyId, public: Buffer.from(signed.keyPair.public), signature: Buffer.from(signed.signature) },
      preKeys: [...preKeys].sort((a, b) => a.keyId - b.keyId).map((k) => ({ keyId: k.keyId, public: Buffer.from(k.public) }))
    }
    // A device new to every peer: none goes on with a session (or sender key) of an earlier companion of the account.
    const address = companionAddress(account.number)
    for (const peer of [...[...accounts.values()].map((a) => a.peer), ...[...contacts.values()].map((c) => c.peer)]) {
      peer.forgetSession(address)
      senderKeysOf(peer).forgetRecipient(account.number)
    }
    return account.phone
  }

  /** The owner types `code` on the phone of `account` (pairing-code.ts stage 2); resolves once linked. */
  async function enterCode(account: Account, code: string): Promise<void> {
    const pending = codeRegistrations.get(account.number)
    if (!pending || pending.conn.closed) throw new LinkRefusedError(`no client asked for a pairing code for ${account.number}`)
    const hello = await primaryHello(pending.registration, code.replace(/[^0-9A-Za-z]/g, '').toUpperCase(), account.keys).catch(() => {
      throw new LinkRefusedError('the code is wrong')
    })
    const linked = new Promise<void>((resolve, reject) => Object.assign(pending, { resolve, reject }))
    pending.conn.send(hello)
    await linked
  }

  /** Stage 1 and 3 of a pairing by code, on a registration connection (pairing-code.ts). */
  function onLinkCodeIq(conn: WaConnection, iq: BinaryNode): void {
    const stage = child(iq, 'link_code_companion_reg')?.attrs.stage
    if (stage === 'companion_hello') {
      const hello = companionHello(iq)
      conn.send(hello.answer)
      if (!('registration' in hello)) return
      const account = accounts.get(jidUser(hello.registration.jid))
      if (account) codeRegistrations.set(account.number, { conn, registration: hello.registration })
      return
    }
    if (stage === 'companion_finish') {
      const entry = [...codeRegistrations.entries()].find(([, p]) => p.conn === conn)
      if (!entry) return void conn.send(iqError(iq, 404, 'item-not-found'))
      const [number, pending] = entry
      codeRegistrations.delete(number)
      const fail = (err: unknown) => pending.reject?.(err instanceof LinkRefusedError ? err : new LinkRefusedError(String(err)))
      let companion: { identityKey: Buffer; advSecret: Buffer }
      try {
        companion = companionFinish(iq, pending.registration, accounts.get(number)!.keys)
      } catch (err) {
        conn.send(iqError(iq, 400, 'bad-request'))
        return fail(err)
      }
      conn.send(iqResult(iq))
      if (behaviour.refreshAfterStage2) sendRefresh(conn)
      // Not awaited: the client's answer to pair-success is a later frame of this same connection.
      completePairing(conn, accounts.get(number)!, companion).then(() => pending.resolve?.(), fail)
    }
  }

  /** The JID of `account`'s linked companion, as its logins name it. */
  function deviceJid(account: Account): string {
    return `${account.number}:${COMPANION_DEVICE}@s.whatsapp.net`
  }

  /** A login as `account`'s device on `conn`: logged, and the most live at once updated. */
  function recordDeviceLogin(account: Account, conn: WaConnection): void {
    const device = deviceJid(account)
    let log = deviceLogs.get(device)
    if (!log) deviceLogs.set(device, (log = { device, connections: [], live: new Set(), maxLive: 0 }))
    const entry: DeviceConnection = { id: conn.id, loggedInAt: Date.now(), endedAt: null, endedBy: null }
    log.connections.push(entry)
    deviceEntry.set(conn, entry)
    log.live.add(conn)
    log.maxLive = Math.max(log.maxLive, liveOf(log.live))
  }

  /** Live: logged in, not closed, and the server has not started ending it. */
  function liveOf(set: Set<WaConnection>): number {
    return [...set].filter((c) => !c.closed && !c.endedByServer).length
  }

  /** Another login took the device's session: the old connection ends with a conflict (440 in Baileys). */
  function endReplaced(conn: WaConnection): void {
    const entry = deviceEntry.get(conn)
    if (entry && entry.endedBy === null) entry.endedBy = 'replaced'
    conn.send(node('stream:error', {}, [node('conflict', { type: 'replaced' })]))
    conn.close()
  }

  /** What {@link WaTestServer.devices} answers for one device. */
  function deviceView(log: { device: string; connections: DeviceConnection[]; live: Set<WaConnection>; maxLive: number }): DeviceConnections {
    return {
      device: log.device,
      connections: log.connections.map((c) => ({ ...c })),
      live: liveOf(log.live),
      maxLive: log.maxLive,
      replaced: log.connections.filter((c) => c.endedBy === 'replaced').length
    }
  }

  /** `<notification type="companion_reg_refresh">` to an unpaired companion (Baileys #2737, PR #2765). */
  function sendRefresh(conn: WaConnection): void {
    conn.send(
      node('notification', { from: S_WHATSAPP_NET, type: 'companion_reg_refresh', id: `refresh-${conn.id}-${Date.now()}`, t: Math.floor(Date.now() / 1000) }, [
        node(behaviour.qrRefreshChild, {})
      ])
    )
  }

  const handlers = {
    debug,
    onClose(conn: WaConnection) {
      conns.delete(conn)
      for (const [number, p] of codeRegistrations) {
        if (p.conn !== conn) continue
        codeRegistrations.delete(number)
        p.reject?.(new LinkRefusedError('the client closed the connection before the pairing finished'))
      }
      for (const [ref, c] of pairing) if (c === conn) pairing.delete(ref)
      const entry = deviceEntry.get(conn)
      if (entry && entry.endedAt === null) {
        entry.endedAt = Date.now()
        entry.endedBy ??= conn.endedByServer ? 'server' : 'client'
      }
      for (const log of deviceLogs.values()) log.live.delete(conn)
      const account = accountOf.get(conn)
      if (account?.loggedIn === conn) {
        account.loggedIn = null
        account.draining = false
      }
      for (const [id, w] of answerWaiters) {
        if (w.conn !== conn) continue
        answerWaiters.delete(id)
        w.resolve(null)
      }
    },
    onLogin(conn: WaConnection, payload: proto.ClientPayload) {
      if (payload.devicePairingData) {
        const props = payload.devicePairingData.deviceProps
        if (props) deviceNames.set(conn, proto.DeviceProps.decode(props).os ?? '')
        pairingRequests++
        const refs = Array.from({ length: 6 }, (_, i) => `TESTREF${conn.id}-${i}-${Math.random().toString(36).slice(2, 10)}`)
        for (const r of refs) pairing.set(r, conn)
        void conn
          .query(node('iq', { from: S_WHATSAPP_NET, type: 'set', id: `pair-device-${conn.id}`, xmlns: 'md' }, [
            node('pair-device', {}, refs.map((r) => node('ref', {}, Buffer.from(r))))
          ]))
          .catch((err) => debug(String(err)))
        return
      }
      const account = accounts.get(String(payload.username))
      if (!account?.linked || payload.device !== COMPANION_DEVICE) {
        debug(`login refused for ${payload.username}:${payload.device}`)
        conn.send(node('failure', { reason: '401', location: 'test' }))
        return
      }
      if (account.noiseKey && !conn.noiseKey?.equals(account.noiseKey)) {
        debug(`login refused for ${payload.username}:${payload.device}: not the noise key the device registered`)
        conn.send(node('failure', { reason: '401', location: 'test' }))
        return
      }
      const failWith = behaviour.loginStreamErrors.shift()
      if (failWith !== undefined) {
        loginFailures++
        conn.send(node('stream:error', { code: String(failWith) }))
        conn.close()
        return
      }
      // Counted before the replacement: a login while another connection of the device is live is a
      // second live connection, whatever the server does about it next.
      recordDeviceLogin(account, conn)
      // One session per companion: a new login replaces the older connection, as WhatsApp does. The
      // old client gets <stream:error><conflict type="replaced"/>, which Baileys ends with
      // DisconnectReason.connectionReplaced (440): WhiskeySockets/Baileys v7.0.0-rc13
      // src/Socket/socket.ts:982-988 ('CB:stream:error' → end(Boom(statusCode))) and
      // src/Utils/generics.ts:355-371 (getErrorCodeFromStreamError: CODE_MAP conflict → 440); the
      // installed rc14 build: lib/Socket/socket.js:791-795, lib/Utils/generics.js:282-298.
      if (account.loggedIn && account.loggedIn !== conn) endReplaced(account.loggedIn)
      account.loggedIn = conn
      accountOf.set(conn, account)
      logins.push(Date.now())
      conn.send(node('success', { t: Math.floor(Date.now() / 1000), lid: `${account.lid}@lid`, creation: Math.floor(Date.now() / 1000) - 3600 }))
      if (behaviour.dropAfterLoginMs !== null) setTimeout(() => conn.kill(), behaviour.dropAfterLoginMs).unref()
      void deliverBacklog(account, conn).catch((err) => debug(String(err)))
      // A later login: the keys are known already.
      if (account.uploaded) void sendHistoryNotification(account, conn).catch((err) => debug(String(err)))
    },
    async onNode(conn: WaConnection, n: BinaryNode) {
      const account = accountOf.get(conn)
      if (!account) {
        if (n.tag === 'iq' && n.attrs.xmlns === 'md' && child(n, 'link_code_companion_reg')) onLinkCodeIq(conn, n)
        return
      }
      if (n.tag === 'iq') {
        const answer = answerIq(n, account.dir)
        if (answer) conn.send(answer)
        // A first login: the phone can write once the client uploaded its pre-keys.
        if (answer && account.uploaded && conn === account.loggedIn && child(n, 'list')) await sendHistoryNotification(account, conn)
        return
      }
      if ((n.tag === 'receipt' || n.tag === 'ack') && n.attrs.id) {
        // A client answers each message it handled with a receipt, or acks one it ignored
        // (lib/Socket/messages-recv.js sendReceipt / sendMessageAck).
        clientAcks.add(n.attrs.id)
        if (n.tag === 'ack' && n.attrs.error) clientNacks.set(n.attrs.id, n.attrs.error)
        const waiter = answerWaiters.get(n.attrs.id)
        if (waiter?.conn === conn) {
          answerWaiters.delete(n.attrs.id)
          waiter.resolve(n)
        }
      }
      if (n.tag === 'receipt') return onClientReceipt(account, n)
      if (n.tag === 'chatstate') {
        // "typing…" in a chat (lib/Socket/chats.js sendPresenceUpdate): `<chatstate to><composing/></chatstate>`,
        // relayed to the contact's phone; the server answers nothing.
        const c = contactOf(n.attrs.to ?? '')
        const state = children(n)[0]?.tag
        if (c && state) c.chatStates.push({ state, beforeMessage: c.messages.length })
        return
      }
      if (n.tag === 'ack') return
      if (n.tag === 'message') {
        const to = n.attrs.to ?? ''
        const recipient = contactOf(to)
        // A chat that moved to LID refuses sends to the number (Baileys #2683).
        const pnInLidChat = behaviour.refusePnInLidChat && to.endsWith('@s.whatsapp.net') && recipient?.lidChats.has(account.number)
        // A contact that requires its privacy token refuses a message without the one it issued this account.
        const issued = recipient?.issuedTokens.get(account.number)
        const noToken = recipient?.requiresToken && !(issued && bytes(child(n, 'tctoken')).equals(issued))
        const refused = recipient?.ackError ?? (pnInLidChat || noToken ? 463 : null)
        if (refused) {
          // The server rejects the message (lib/Socket/messages-recv.js handleBadAck): nobody gets it.
          recipient?.refused.push(n.attrs.id ?? '')
          conn.send(messageAck(n, refused))
          return
        }
        conn.send(messageAck(n))
        const group = groups.get(n.attrs.to ?? '')
        if (group) return deliverClientGroupMessage(n, group, { account: account.number, peerFor, record, debug })
        for (const part of encryptedParts(n)) {
          debug(`   part ${part.jid} ${part.type}`)
          const found = peerFor(part.jid)
          if (!found) {
            debug(`message part for unknown ${part.jid}`)
            continue
          }
          try {
            const decrypted = await found.peer.decryptMessage(companionAddress(account.number), part.type, part.ciphertext)
            const message = decrypted.deviceSentMessage?.message ?? decrypted
            record(found, { account: account.number, type: part.type as EncType, message, id: n.attrs.id ?? '', at: performance.now() })
            const request = found.account === account ? onDemandRequestOf(message, n.attrs.id ?? '') : undefined
            if (request) await answerHistoryRequest(account, request)
            if (found.contact && n.attrs.id) {
              found.contact.addressedAs.set(n.attrs.id, n.attrs.to ?? part.jid)
              // A phone that got the message answers with a delivery receipt (no type).
              if (behaviour.deliveryReceipts) sendReceipt(account, found.contact, [n.attrs.id])
            }
          } catch (err) {
            debug(`could not decrypt for ${part.jid}: ${String(err)}`)
          }
        }
      }
    }
  }

  /**
   * The contact issues `account` a privacy token (behaviour.privacyTokens): 16 random bytes, kept to
   * check the client's later messages, and passed to the account's client as a `privacy_token`
   * notification from the contact (by its number with `sender_lid`, or by its LID once its messages are
   * LID-addressed: WA Web's parser wants one of the two to be a LID), `<token jid>` naming the account
   * (lib/Socket/messages-recv.js: "In notifications tokenNode.attrs.jid is your own device JID"). A
   * client that is away gets it at its next login, with the offline backlog.
   */
  function issueToken(account: Account, contact: Contact): void {
    const token = randomBytes(16)
    contact.issuedTokens.set(account.number, token)
    const t = Math.floor(Date.now() / 1000)
    const from = contact.addressing === 'pn' ? { from: `${contact.pn}@s.whatsapp.net`, sender_lid: `${contact.lid}@lid` } : { from: `${contact.lid}@lid` }
    const notification = node('notification', { ...from, type: 'privacy_token', id: `tctoken-${t}-${randomBytes(4).toString('hex')}`, t }, [
      node('tokens', {}, [node('token', { jid: account.phone.jid, t, type: 'trusted_contact' }, token)])
    ])
    if (account.loggedIn) account.loggedIn.send(notification)
    else account.offlineQueue.push(notification)
  }

  /**
   * WhatsApp tells a companion that a LID belongs to a phone number: a `mex` notification
   * `NotificationLinkedProfilesUpdates` (lib/Socket/messages-recv.js handleLegacyMexNewsletterNotification
   * emits `lid-mapping.update` for it).
   */
  function linkedProfilesNotification(lid: string, pnJid: string): BinaryNode {
    return mexNotification('NotificationLinkedProfilesUpdates', { xwa2_notify_linked_profiles: { jid: lid, added_profiles: [pnJid] } })
  }

  /** A GraphQL (`mex`) notification with `op_name` and JSON `data` (lib/Socket/messages-recv.js handleMexNotification). */
  function mexNotification(opName: string, data: unknown): BinaryNode {
    return node('notification', { from: S_WHATSAPP_NET, type: 'mex', id: `mex-${Date.now()}-${Math.random().toString(36).slice(2, 8)}`, t: Math.floor(Date.now() / 1000) }, [
      node('update', { op_name: opName }, Buffer.from(JSON.stringify({ data })))
    ])
  }

  /** `status@broadcast` as a group record whose only member is the poster (groups.ts message shape). */
  function statusBroadcast(contact: Contact): GroupRecord {
    return { id: 'status', jid: STATUS_JID, subject: 'status', creation: 0, addressingMode: 'pn', members: [{ pn: contact.pn, lid: contact.lid }], deliveries: [] }
  }

  /**
   * The owner types a message on the phone: WhatsApp delivers it to the contact and a copy to the
   * account's linked devices, encrypted by the phone (device 0) as `deviceSentMessage{destinationJid,
   * message}` from the account's own JID with `recipient` naming the chat (lib/Utils/decode-wa-message.js
   * decodeMessageNode: `fromMe`, chatId = recipient; the wrapper is unwrapped on decrypt).
   */
  async function typeOnPhone(account: Account, jid: string, text: string): Promise<string> {
    return sendFromPhone(account, jid, { message: { conversation: text }, attrs: {} })
  }

  /** The chat with `jid` as the phone names it in message keys: the contact's phone-number JID. */
  function phoneChat(jid: string): string {
    const contact = contactOf(jid)
    if (!contact) throw new Error(`no contact ${jid}`)
    return `${contact.pn}@s.whatsapp.net`
  }

  /**
   * The owner does something on the phone in the chat with `jid` (a text, an edit, a deletion, a
   * reaction, a poll): the linked client gets the phone's copy as in {@link typeOnPhone}, with the
   * stanza attributes of that kind (message-changes.ts). Answers the id.
   */
  async function sendFromPhone(account: Account, jid: string, built: PhoneMessage): Promise<string> {
    const destinationJid = phoneChat(jid)
    const { id } = await sendTo(account, account.peer, `${account.number}@s.whatsapp.net`, { deviceSentMessage: { destinationJid, message: built.message } }, account.name, {
      recipient: destinationJid,
      ...built.attrs
    })
    return id
  }

  /** The chat key of `jid` in a phone's history: a contact's phone-number JID (given by PN or LID), else the JID without device. */
  function historyChat(jid: string): string {
    const c = contactOf(jid)
    return c ? `${c.pn}@s.whatsapp.net` : `${jidUser(jid)}@${jid.split('@')[1] ?? 's.whatsapp.net'}`
  }

  /** The phone holds `messages` of the chat `jid` (added to what it holds); answers their ids. */
  function holdHistory(account: Account, jid: string, messages: Array<Omit<HeldMessage, 'id'> & { id?: string }>): string[] {
    const chat = historyChat(jid)
    const contact = contactOf(jid)
    const held = account.history.get(chat) ?? []
    const added = messages.map((m) => ({ ...m, id: m.id ?? `3EB0${randomBytes(8).toString('hex').toUpperCase()}`, ...(!m.fromMe && contact && !m.pushName ? { pushName: contact.name } : {}) }))
    account.history.set(chat, [...held.filter((h) => !added.some((a) => a.id === h.id)), ...added].sort((a, b) => a.at - b.at))
    return added.map((m) => m.id)
  }

  /** A RECENT history sync of the newest `perChat` messages of every chat the phone holds (all by default); answers their ids. */
  async function sendHistorySync(account: Account, opts: { perChat?: number } = {}): Promise<string[]> {
    const chats = [...account.history].map(([jid, held]) => ({ jid, messages: opts.perChat === undefined ? held : held.slice(-opts.perChat) }))
    await sendTo(account, account.peer, account.phone.jid, historyNotification(proto.HistorySync.HistorySyncType.RECENT, chats), account.name)
    return chats.flatMap((c) => c.messages.map((m) => m.id))
  }

  /**
   * The phone's answer to an on-demand history request (history.ts): an ON_DEMAND history sync of the
   * chat's messages older than the anchor, with the request's id; nothing when the behaviour says the
   * phone does not answer.
   */
  async function answerHistoryRequest(account: Account, request: OnDemandRequest): Promise<void> {
    account.historyRequests.push(request)
    if (!behaviour.answerHistoryRequests) return void account.unansweredHistory.push(request)
    await sendHistoryAnswer(account, request)
  }

  /** An ON_DEMAND history sync answering `request`: the chat's messages older than its anchor. */
  async function sendHistoryAnswer(account: Account, request: OnDemandRequest): Promise<void> {
    const chat = historyChat(request.chatJid)
    const messages = answerOf(account.history.get(chat) ?? [], request)
    await sendTo(account, account.peer, account.phone.jid, historyNotification(proto.HistorySync.HistorySyncType.ON_DEMAND, [{ jid: chat, messages }], request.requestId), account.name)
  }

  /** A client's receipt to a contact: a retry for a message it could not decrypt gets it again (same id). */
  async function onClientReceipt(account: Account, n: BinaryNode): Promise<void> {
    const id = n.attrs.id
    const ids = [id ?? '', ...children(child(n, 'list'), 'item').map((i) => i.attrs.id ?? '')]
    // Read receipts for the account's own devices only (privacy: read receipts off) reach no contact.
    if (n.attrs.type === 'read-self') {
      for (const one of ids) account.ownReceipts.push({ id: one, type: 'read-self' })
      return
    }
    const contact = contactOf(n.attrs.to ?? '')
    if (!contact || !id) return
    for (const one of ids) contact.receipts.push({ id: one, type: n.attrs.type ?? 'delivery' })
    if (n.attrs.type !== 'retry') return
    const message = contact.undelivered.get(id)
    if (!message) return
    contact.undelivered.delete(id)
    const pnJid = `${contact.pn}@s.whatsapp.net`
    await sendTo(account, contact.peer, pnJid, message, contact.name, undefined, { id })
  }

  /** The contact behind a JID (PN or LID), if any. */
  function contactOf(jid: string): Contact | undefined {
    const user = jidUser(jid)
    for (const c of contacts.values()) if (c.pn === user || c.lid === user) return c
    return undefined
  }

  /**
   * A receipt from `contact` for messages the client sent it: delivery (no type), `read` or `played`
   * (lib/Utils/generics.js getStatusFromReceiptType), from the JID the client addressed, with further
   * ids in `<list><item id/>` (lib/Socket/messages-recv.js handleReceipt).
   */
  function sendReceipt(account: Account, contact: Contact, ids: string[], type?: 'read' | 'played'): void {
    const conn = account.loggedIn
    if (!conn || ids.length === 0) return
    const from = contact.addressedAs.get(ids[0]!) ?? `${contact.pn}@s.whatsapp.net`
    const rest = ids.slice(1).map((id) => node('item', { id }))
    conn.send(node('receipt', { from, id: ids[0], t: Math.floor(Date.now() / 1000), type }, rest.length ? [node('list', {}, rest)] : undefined))
  }

  /** Keeps a message a peer decrypted: the phone's own-device copies, or a contact's messages (waking its waiters). */
  function record(found: { account?: Account; contact?: Contact }, received: ReceivedMessage): void {
    if (found.account) found.account.phoneMessages.push(received)
    else if (found.contact) {
      found.contact.messages.push(received)
      for (const w of found.contact.waiters.splice(0)) w(received)
    }
  }

  /**
   * Once per login, the phone's history-sync notification, of type FULL, which the client does not
   * sync (`shouldSyncHistoryMessage`): it ends the client's initial-sync buffering at once
   * (lib/Socket/chats.js AwaitingInitialSync) instead of after its 20 s timeout. (A real phone sends
   * the history sync after pairing and the client then runs an app-state sync, which this server
   * does not serve.)
   */
  async function sendHistoryNotification(account: Account, conn: WaConnection): Promise<void> {
    if (historySent.has(conn)) return
    historySent.add(conn)
    // With the account's push name: the client takes it as its own name (lib/Socket/chats.js upsertMessage).
    await sendTo(
      account,
      account.peer,
      account.phone.jid,
      {
        protocolMessage: {
          type: proto.Message.ProtocolMessage.Type.HISTORY_SYNC_NOTIFICATION,
          historySyncNotification: { syncType: proto.HistorySync.HistorySyncType.FULL }
        }
      },
      account.name
    )
  }

  /** Encrypts `message` from `peer` (as `fromJid`) to the logged-in client of `account` and sends it. */
  async function sendTo(
    account: Account,
    peer: SignalPeer,
    fromJid: string,
    message: proto.IMessage,
    pushName?: string,
    attrs?: Record<string, string>,
    extra: { id?: string; corrupt?: boolean } = {}
  ): Promise<{ id: string; type: string }> {
    const conn = account.loggedIn
    // A linked client that is not connected gets it later, as offline backlog (queued below).
    if ((!conn && !account.linked) || !account.uploaded) throw new Error(`account ${account.number} has no logged-in client to send to`)
    const address = companionAddress(account.number)
    if (!peer.hasSession(address)) await peer.initFromUpload(address, account.uploaded)
    const { id, type, node: msg } = await inboundMessage(peer, address, fromJid, message, { pushName, attrs, ...extra })
    deliver(account, msg)
    return { id, type }
  }

  /**
   * Sends `msg` to the logged-in client of `account`, or queues it: while the client is away, or
   * while its backlog is being delivered or is held (it comes after the backlog, as the live
   * service streams it), marked `offline` (the library upserts it as 'append', lib/Socket/messages-recv.js
   * handleMessage).
   */
  function deliver(account: Account, msg: BinaryNode): void {
    const conn = account.loggedIn
    if (conn && !account.draining) conn.send(msg)
    else account.offlineQueue.push({ ...msg, attrs: { ...msg.attrs, offline: '0' } })
  }

  /**
   * The backlog at a login: each queued message in order, then `<ib><offline count>`, which ends it
   * (lib/Socket/messages-recv.js; the client's initial-sync wait). With
   * `behaviour.statusNackHoldsOfflineQueue`, after a status (`status@broadcast`) the server waits for
   * the client's answer: a NACK (an `<ack>` with `error`) keeps that status and everything after it
   * queued for the next login, and nothing more comes on this one (Baileys PR #2779); a plain ack or a
   * receipt lets the rest through.
   */
  async function deliverBacklog(account: Account, conn: WaConnection): Promise<void> {
    account.draining = true
    let sent = 0
    while (account.offlineQueue.length > 0) {
      const msg = account.offlineQueue.shift()!
      const isStatus = msg.tag === 'message' && msg.attrs.from === STATUS_JID
      const answered = isStatus && behaviour.statusNackHoldsOfflineQueue && msg.attrs.id ? clientAnswer(conn, msg.attrs.id) : null
      conn.send(msg)
      sent++
      if (!answered) continue
      const answer = await answered
      if (answer === null || (answer.tag === 'ack' && answer.attrs.error)) {
        account.offlineQueue.unshift(msg)
        debug(`status ${msg.attrs.id} ${answer ? `NACKed (${answer.attrs.error})` : 'unanswered'}: the backlog (${account.offlineQueue.length}) is held`)
        return
      }
      if (account.loggedIn !== conn) return
    }
    account.draining = false
    conn.send(node('ib', {}, [node('offline', { count: String(sent) })]))
  }

  /** The client's next receipt or ack for message `id` on `conn`; null when the connection closes first. */
  function clientAnswer(conn: WaConnection, id: string): Promise<BinaryNode | null> {
    return new Promise((resolve) => answerWaiters.set(id, { conn, resolve }))
  }

  /** A contact's message to `group`, to the logged-in client of `account` (groups.ts groupInboundMessage). */
  async function sendToGroup(account: Account, contact: Contact, group: GroupRecord, message: proto.IMessage): Promise<{ id: string; type: string }> {
    const conn = account.loggedIn
    if (!conn || !account.uploaded) throw new Error(`account ${account.number} has no logged-in client to send to`)
    if (!group.members.some((m) => m.pn === contact.pn)) throw new Error(`${contact.pn} is not a member of ${group.jid}`)
    const address = companionAddress(account.number)
    const distribute = senderKeysOf(contact.peer).markDistributed(group.jid, account.number)
    if (distribute && !contact.peer.hasSession(address)) await contact.peer.initFromUpload(address, account.uploaded)
    const { id, types, node: msg } = await groupInboundMessage(group, contact, address, message, { distribute, pushName: contact.name })
    conn.send(msg)
    return { id, type: types.join('+') }
  }

  const first = addAccount(opts.accountNumber, opts.accountName ?? 'Test Shop')

  const api: WaTestServer = {
    behaviour,
    url: '',
    httpUrl: '',
    rootPublicKey: identity.root.public,
    rootPublicKeyB64: identity.root.public.toString('base64'),
    phone: first.phone,
    addPhone: (number) => addAccount(number).phone,
    phoneOf: (number) => accounts.get(number)?.phone,
    phones: () => [...accounts.values()].map((a) => a.phone),
    get connections() {
      return connections
    },
    get openConnections() {
      return conns.size
    },
    get logins() {
      return [...logins]
    },
    get loginFailures() {
      return loginFailures
    },
    get groupMetadataQueries() {
      return groupMetadataQueries
    },
    get pairingRequests() {
      return pairingRequests
    },
    adoptLinkedDevice,
    acknowledged: (id) => clientAcks.has(id),
    nackOf: (id) => clientNacks.get(id) ?? null,
    capMessaging(info, phone = first.phone) {
      const conn = accounts.get(phone.number)?.loggedIn
      if (!conn) return false
      // WhatsApp caps messages to people who have not answered (Baileys #2445): message-capping.update.
      conn.send(mexNotification('MessageCappingInfoNotification', { xwa2_notify_new_chat_messages_capping_info_update: info }))
      return true
    },
    lockReachout(lock, phone = first.phone) {
      const conn = accounts.get(phone.number)?.loggedIn
      if (!conn) return false
      // A reach-out time lock: connection.update.reachoutTimeLock (handleReachoutTimelockNotification).
      const payload = lock.active
        ? { is_active: true, ...(lock.endsAt ? { time_enforcement_ends: String(Math.floor(lock.endsAt / 1000)) } : {}), enforcement_type: lock.type ?? 'DEFAULT' }
        : { is_active: false }
      conn.send(mexNotification('NotificationUserReachoutTimelockUpdate', { xwa2_notify_account_reachout_timelock: payload }))
      return true
    },
    replaceSession(phone = first.phone) {
      const conn = accounts.get(phone.number)?.loggedIn
      if (!conn) return false
      // Another client took the session: lib/Utils/generics.js getErrorCodeFromStreamError maps it to 440.
      endReplaced(conn)
      return true
    },
    devices: () => [...deviceLogs.values()].map(deviceView),
    deviceConnections(phone = first.phone) {
      const account = accounts.get(phone.number)
      const log = account && deviceLogs.get(deviceJid(account))
      return log && deviceView(log)
    },
    media,
    log,
    addGroup(spec) {
      const g = makeGroup(spec)
      if (groups.has(g.jid)) throw new Error(`group ${g.jid} exists`)
      groups.set(g.jid, g)
      return fakeGroup(g)
    },
    contact(pn, name = 'Ana', opts = {}) {
      let c = contacts.get(pn)
      if (c && opts.lid !== undefined && c.lid !== opts.lid) throw new Error(`contact ${pn} has LID ${c.lid}, not ${opts.lid}`)
      if (!c) {
        const lid = opts.lid ?? freeContactLid()
        const holder = peerFor(`${lid}@lid`)
        if (holder) throw new Error(`LID ${lid} belongs to ${holder.pn}`)
        c = { peer: new SignalPeer(), pn, lid, name, messages: [], sent: [], waiters: [], ackError: null, addressedAs: new Map(), addressing: 'pn', lidHidden: false, username: null, undelivered: new Map(), receipts: [], chatStates: [], lidChats: new Set(), issuedTokens: new Map(), requiresToken: false, refused: [] }
        contacts.set(pn, c)
      }
      const contact = c
      const send = async (message: proto.IMessage, to: FakePhone = first.phone, extra: { id?: string; corrupt?: boolean; attrs?: Record<string, string> } = {}): Promise<string> => {
        const account = accounts.get(to.number)
        if (!account) throw new Error(`no account ${to.number}`)
        // How WhatsApp addresses a 1:1 message today (Baileys #2683, lib/Utils/decode-wa-message.js
        // extractAddressingContext): by LID, with the phone number in sender_pn when it shares it.
        const pnJid = `${pn}@s.whatsapp.net`
        const lidJid = `${contact.lid}@lid`
        const { attrs: kindAttrs, ...rest } = extra
        const { id, type } =
          contact.addressing === 'pn'
            ? await sendTo(account, contact.peer, pnJid, message, contact.name, kindAttrs, rest)
            : await sendTo(
                account,
                contact.peer,
                lidJid,
                message,
                contact.name,
                { addressing_mode: 'lid', ...(contact.addressing === 'lid' ? { sender_pn: pnJid } : {}), ...kindAttrs },
                rest
              )
        contact.sent.push(type)
        if (contact.addressing !== 'pn') contact.lidChats.add(account.number)
        // After its first message to the account, the contact's phone issues the account a privacy token.
        if (behaviour.privacyTokens && !contact.issuedTokens.has(account.number)) issueToken(account, contact)
        return id
      }
      const sendGroup = async (group: FakeGroup, message: proto.IMessage, to: FakePhone = first.phone): Promise<string> => {
        const account = accounts.get(to.number)
        const g = groups.get(group.jid)
        if (!account || !g) throw new Error(`no account ${to.number} or group ${group.jid}`)
        const { id, type } = await sendToGroup(account, contact, g, message)
        contact.sent.push(type)
        return id
      }
      /** The account as this contact's phone names it in keys: by LID once the chat is LID-addressed (Baileys #2683). */
      const shopJid = (to: FakePhone): string => (contact.addressing === 'pn' ? to.jid : to.lid)
      /** This contact as its own phone names itself (the voter JID of a poll vote). */
      const selfJid = (): string => (contact.addressing === 'pn' ? `${pn}@s.whatsapp.net` : `${contact.lid}@lid`)
      const sendBuilt = (built: PhoneMessage, to: FakePhone = first.phone) => send(built.message, to, { attrs: built.attrs })
      const receipt = (type: 'read' | 'played', ids?: string[]): number => {
        const wanted = ids ?? contact.messages.map((m) => m.id)
        const byAccount = new Map<string, string[]>()
        for (const m of contact.messages) if (wanted.includes(m.id)) byAccount.set(m.account, [...(byAccount.get(m.account) ?? []), m.id])
        for (const [number, list] of byAccount) sendReceipt(accounts.get(number)!, contact, list, type)
        return [...byAccount.values()].reduce((n, l) => n + l.length, 0)
      }
      return {
        jid: `${pn}@s.whatsapp.net`,
        lid: `${contact.lid}@lid`,
        name: contact.name,
        get ackError() {
          return contact.ackError
        },
        set ackError(code: number | null) {
          contact.ackError = code
        },
        get addressing() {
          return contact.addressing
        },
        get requiresToken() {
          return contact.requiresToken
        },
        set requiresToken(on: boolean) {
          contact.requiresToken = on
        },
        issuedToken: (to = first.phone) => contact.issuedTokens.get(to.number),
        refused: () => [...contact.refused],
        set addressing(mode) {
          contact.addressing = mode
        },
        get lidShared() {
          return !contact.lidHidden
        },
        set lidShared(on: boolean) {
          contact.lidHidden = !on
        },
        get username() {
          return contact.username
        },
        set username(name: string | null) {
          contact.username = name
        },
        revealPn: (to = first.phone) => {
          const conn = accounts.get(to.number)?.loggedIn
          if (!conn) return false
          conn.send(linkedProfilesNotification(`${contact.lid}@lid`, `${pn}@s.whatsapp.net`))
          return true
        },
        sendUndecryptable: async (text, to = first.phone) => {
          const account = accounts.get(to.number)
          if (!account || !contact.peer.hasSession(companionAddress(account.number))) {
            throw new Error(`${pn} must have written to ${to.number} before: a broken first message would break the session itself`)
          }
          const message: proto.IMessage = { conversation: text }
          const id = await send(message, to, { corrupt: true })
          contact.undelivered.set(id, message)
          return id
        },
        requestRetry: (id, to = first.phone) => {
          const conn = accounts.get(to.number)?.loggedIn
          if (!conn) return false
          const from = contact.addressedAs.get(id) ?? `${pn}@s.whatsapp.net`
          // The recipient could not decrypt: lib/Socket/messages-recv.js handleReceipt → sendMessagesAgain (getMessage).
          conn.send(
            node('receipt', { from, id, type: 'retry', t: Math.floor(Date.now() / 1000) }, [
              node('retry', { count: '1', id, t: Math.floor(Date.now() / 1000), v: '1' }),
              node('registration', {}, uintBE(contact.peer.registrationId, 4))
            ])
          )
          return true
        },
        receivedReceipts: () => [...contact.receipts],
        chatStates: () => [...contact.chatStates],
        changePhone: () => {
          // WhatsApp installed on a new phone (same number, same LID, device 0): a new identity key and
          // registration id; the old phone's sessions and sender keys (its own and those it was given) are gone.
          contact.peer = new SignalPeer()
          const from = contact.addressing === 'pn' ? `${pn}@s.whatsapp.net` : `${contact.lid}@lid`
          const id = `identity-${pn}-${Date.now()}-${Math.random().toString(36).slice(2, 8)}`
          // The server tells the contact's contacts (lib/Socket/messages-recv.js handleEncryptNotification →
          // Utils/identity-change-handler.js; WA Web WAWebHandleIdentityChange).
          for (const account of accounts.values()) {
            if (!account.linked) continue
            deliver(account, node('notification', { from, type: 'encrypt', id, t: Math.floor(Date.now() / 1000) }, [node('identity', {})]))
          }
          return id
        },
        postStatus: async (text, to = first.phone, { undecryptable = false } = {}) => {
          const account = accounts.get(to.number)
          if (!account?.linked || !account.uploaded) throw new Error(`account ${to.number} has no linked client`)
          const address = companionAddress(account.number)
          // Undecryptable: under a sender key the client was never given (its distribution lost).
          const distribute = !undecryptable && senderKeysOf(contact.peer).markDistributed(STATUS_JID, account.number)
          if (distribute && !contact.peer.hasSession(address)) await contact.peer.initFromUpload(address, account.uploaded)
          // A status is a broadcast with the poster's sender key, like a group message to status@broadcast.
          const { id, node: msg } = await groupInboundMessage(statusBroadcast(contact), contact, address, { conversation: text }, {
            distribute,
            pushName: contact.name,
            ...(undecryptable ? { keys: new SenderKeys() } : {})
          })
          deliver(account, msg)
          return id
        },
        read: (ids) => receipt('read', ids),
        played: (ids) => receipt('played', ids),
        received: () => contact.messages.flatMap((m) => textOf(m.message) ?? []),
        messages: () => [...contact.messages],
        receivedTypes: () => contact.messages.map((m) => m.type),
        sentTypes: () => [...contact.sent],
        nextMessage: (timeoutMs = 5000) =>
          new Promise<ReceivedMessage>((resolve, reject) => {
            const timer = setTimeout(() => {
              contact.waiters = contact.waiters.filter((w) => w !== waiter)
              reject(new Error(`${pn} received nothing within ${timeoutMs} ms`))
            }, timeoutMs)
            const waiter = (m: ReceivedMessage): void => {
              clearTimeout(timer)
              resolve(m)
            }
            contact.waiters.push(waiter)
          }),
        send,
        sendText: (text, to) => send({ conversation: text }, to),
        edit: (id, text, to = first.phone) => sendBuilt(editOf({ remoteJid: shopJid(to), id, fromMe: true }, text), to),
        deleteForEveryone: (id, to = first.phone) => sendBuilt(revokeOf({ remoteJid: shopJid(to), id, fromMe: true }), to),
        react: (target, emoji, to = first.phone) => sendBuilt(reactionOf({ remoteJid: shopJid(to), ...target }, emoji), to),
        vote: (poll, chosen, to = first.phone) =>
          sendBuilt(voteOf({ key: { remoteJid: shopJid(to), id: poll.id, fromMe: false }, secret: poll.secret, creatorJid: shopJid(to) }, selfJid(), chosen), to),
        sendGroup,
        sendGroupText: (group, text, to) => sendGroup(group, { conversation: text }, to),
        sendMedia: async (kind, bytes, extras, to) => send(await buildMediaMessage(media, kind, bytes, extras), to),
        sendImage: async (bytes, extras, to) => send(await buildMediaMessage(media, 'image', bytes, extras), to),
        readMedia: (message) => readMedia(media, message)
      }
    },
    disconnect({ phone, code } = {}) {
      let ended = 0
      for (const a of accounts.values()) {
        if (phone && a.number !== phone.number) continue
        const conn = a.loggedIn
        if (!conn) continue
        ended++
        if (code === undefined) conn.kill()
        else {
          conn.send(node('stream:error', { code: String(code) }))
          conn.close()
        }
      }
      return ended
    },
    async close() {
      for (const c of conns) c.kill()
      conns.clear()
      await new Promise<void>((resolve) => wss.close(() => resolve()))
      await new Promise<void>((resolve, reject) => http.close((err) => (err ? reject(err) : resolve())))
      await media.close()
    }
  }

  const http = createServer((req, res) => {
    if (opts.control && req.url?.startsWith('/control')) return void handleControl(api, req, res)
    res.writeHead(404).end()
  })
  const wss = new WebSocketServer({ server: http, path: '/ws/chat' })
  wss.on('connection', (ws) => {
    connections++
    conns.add(new WaConnection(ws, identity, handlers))
  })
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve))
  const { port } = http.address() as AddressInfo
  Object.assign(api, { url: `ws://127.0.0.1:${port}/ws/chat`, httpUrl: `http://127.0.0.1:${port}` })
  return api
}
