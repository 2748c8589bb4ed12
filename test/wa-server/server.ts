/**
 * A local WhatsApp-Web-like protocol test server for the real Baileys socket (test code, not shipped).
 * See DESIGN.md §5 "Testing the real channel offline" and notes/wa-test-server.md beside it.
 *
 * It listens on 127.0.0.1 (`ws://127.0.0.1:PORT/ws/chat`, port 0) with its own test root key: the
 * client accepts the server's certificate chain once `WA_CERT_DETAILS.PUBLIC_KEY` is that key
 * (`applyTestRootKey(rootPublicKey)`). One server holds one WhatsApp account:
 *
 * - registration: a client without credentials gets `<pair-device>` refs and shows a QR;
 *   {@link WaTestServer.phone}`.scan(qr)` pairs it (`<pair-success>`), then asks for the restart (515);
 * - login: `<success>`, `<ib><offline count="0"/></ib>`, every query answered ({@link answerIq}); once
 *   the client's pre-keys are known, the phone sends a history-sync notification (type FULL, which
 *   the client skips) so the client leaves its initial-sync buffering at once instead of after 20 s;
 * - messages: contacts ({@link WaTestServer.contact}) are libsignal peers that decrypt what the client
 *   sends them and send it encrypted texts; the phone receives the client's own-device copies;
 * - logout: the client's `remove-companion-device` unlinks the device.
 */
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { createRequire } from 'node:module'
import { proto, type BinaryNode } from 'baileys'
import { describe as describeNode, WaConnection, type WsLike } from './connection'
import { encryptedParts, inboundMessage, messageAck, CLIENT_ADDRESS } from './messaging'
import { child, jidUser, node, S_WHATSAPP_NET } from './nodes'
import { makeServerIdentity, newKeyPair, type KeyPair } from './noise'
import { pairSuccessIq, parsePairingQr } from './pairing'
import { SignalPeer, textOf, type UploadedKeys } from './peer'
import { answerIq, type Directory } from './queries'

interface WsServerLike {
  on(event: 'connection', fn: (ws: WsLike) => void): void
  close(cb?: () => void): void
}
const { WebSocketServer } = createRequire(import.meta.url)('ws') as {
  WebSocketServer: new (opts: { server: Server; path: string }) => WsServerLike
}

export interface FakeContact {
  /** Phone-number JID (`<pn>@s.whatsapp.net`) and LID (`<lid>@lid`). */
  readonly jid: string
  readonly lid: string
  readonly name: string
  /** Sends an encrypted text to the linked client; answers the message id. */
  sendText(text: string): Promise<string>
  /** Texts the client sent to this contact, decrypted, in order. */
  received(): string[]
  /** How each of those arrived: `pkmsg` (a new Signal session) or `msg` (an existing one). */
  receivedTypes(): string[]
  /** How each text this contact sent went out: `pkmsg` or `msg`. */
  sentTypes(): string[]
}

export interface FakePhone {
  /** The account's number, phone-number JID and LID (the linked device gets device 12 of both). */
  readonly number: string
  readonly jid: string
  readonly lid: string
  /** Scans a pairing QR shown by the client: pairs it, then the server asks it to restart (515). */
  scan(qr: string): Promise<void>
  /** Own-device copies of what the client sent (`deviceSentMessage`), decrypted. */
  received(): string[]
  /** True while a companion is linked (false after its logout). */
  readonly linked: boolean
}

export interface WaTestServer {
  /** `ws://127.0.0.1:PORT/ws/chat`, for Baileys' `waWebSocketUrl` / `CHATAPP_WA_WS_URL`. */
  readonly url: string
  /** The test root key the certificate chain is signed with (32 bytes) and its base64 (`CHATAPP_WA_ROOT_KEY`). */
  readonly rootPublicKey: Buffer
  readonly rootPublicKeyB64: string
  readonly phone: FakePhone
  /** The contact with phone number `pn` (digits), made on first use. */
  contact(pn: string, name?: string): FakeContact
  /** Client connections opened so far (each reconnect is one more), and those still open. */
  readonly connections: number
  readonly openConnections: number
  /** Stanzas seen, for failure messages (`WA_TEST_DEBUG=1` prints them). */
  readonly log: string[]
  close(): Promise<void>
}

interface Contact {
  peer: SignalPeer
  pn: string
  lid: string
  name: string
  texts: string[]
  types: string[]
  sent: string[]
}

export interface WaTestServerOptions {
  /** The account's phone number (digits). */
  accountNumber?: string
  accountName?: string
}

export async function startWaTestServer(opts: WaTestServerOptions = {}): Promise<WaTestServer> {
  const identity = makeServerIdentity()
  const debugOn = process.env.WA_TEST_DEBUG === '1'
  const log: string[] = []
  const debug = (msg: string): void => {
    log.push(msg)
    if (log.length > 500) log.shift()
    if (debugOn) console.log(`[wa-server] ${msg}`)
  }

  const accountNumber = opts.accountNumber ?? '15550001111'
  const accountLid = '210000000000001'
  const account: KeyPair = newKeyPair()
  const phonePeer = new SignalPeer(account)
  const phoneTexts: string[] = []
  const companionDevice = 12
  let linked = false
  let uploaded: UploadedKeys | null = null
  const historySent = new WeakSet<WaConnection>()
  const contacts = new Map<string, Contact>()
  const conns = new Set<WaConnection>()
  const pairing = new Map<string, WaConnection>()
  let loggedIn: WaConnection | null = null
  let connections = 0

  const dir: Directory = {
    peerFor(jid) {
      const user = jidUser(jid)
      if (user === accountNumber || user === accountLid) return { peer: phonePeer, pn: accountNumber, lid: accountLid }
      for (const c of contacts.values()) if (c.pn === user || c.lid === user) return c
      return undefined
    },
    onKeyUpload(keys) {
      uploaded = keys
    },
    onLogout() {
      linked = false
      uploaded = null
    },
    uploadedPreKeyCount: () => uploaded?.preKeys.length ?? 0
  }

  const handlers = {
    debug,
    onClose(conn: WaConnection) {
      conns.delete(conn)
      for (const [ref, c] of pairing) if (c === conn) pairing.delete(ref)
      if (loggedIn === conn) loggedIn = null
    },
    onLogin(conn: WaConnection, payload: proto.ClientPayload) {
      if (payload.devicePairingData) {
        const refs = Array.from({ length: 6 }, (_, i) => `TESTREF${conn.id}-${i}-${Math.random().toString(36).slice(2, 10)}`)
        for (const r of refs) pairing.set(r, conn)
        void conn
          .query(node('iq', { from: S_WHATSAPP_NET, type: 'set', id: `pair-device-${conn.id}`, xmlns: 'md' }, [
            node('pair-device', {}, refs.map((r) => node('ref', {}, Buffer.from(r))))
          ]))
          .catch((err) => debug(String(err)))
        return
      }
      if (!linked || String(payload.username) !== accountNumber || payload.device !== companionDevice) {
        debug(`login refused for ${payload.username}:${payload.device}`)
        conn.send(node('failure', { reason: '401', location: 'test' }))
        return
      }
      loggedIn = conn
      conn.send(node('success', { t: Math.floor(Date.now() / 1000), lid: `${accountLid}@lid`, creation: Math.floor(Date.now() / 1000) - 3600 }))
      conn.send(node('ib', {}, [node('offline', { count: '0' })]))
      // A later login: the keys are known already.
      if (uploaded) void sendHistoryNotification(conn).catch((err) => debug(String(err)))
    },
    async onNode(conn: WaConnection, n: BinaryNode) {
      if (n.tag === 'iq') {
        const answer = answerIq(n, dir)
        if (answer) conn.send(answer)
        // A first login: the phone can write once the client uploaded its pre-keys.
        if (answer && uploaded && conn === loggedIn && child(n, 'list')) await sendHistoryNotification(conn)
        return
      }
      if (n.tag === 'message') {
        conn.send(messageAck(n))
        for (const part of encryptedParts(n)) {
          debug(`   part ${part.jid} ${part.type}`)
          const found = dir.peerFor(part.jid)
          if (!found) {
            debug(`message part for unknown ${part.jid}`)
            continue
          }
          try {
            const msg = await found.peer.decryptMessage(CLIENT_ADDRESS, part.type, part.ciphertext)
            const text = textOf(msg)
            if (text === undefined) continue
            if (found.peer === phonePeer) phoneTexts.push(text)
            else {
              contacts.get(found.pn)?.texts.push(text)
              contacts.get(found.pn)?.types.push(part.type)
            }
          } catch (err) {
            debug(`could not decrypt for ${part.jid}: ${String(err)}`)
          }
        }
      }
    }
  }

  /**
   * Once per login, the phone's history-sync notification, of type FULL, which the client does not
   * sync (`shouldSyncHistoryMessage`): it ends the client's initial-sync buffering at once
   * (lib/Socket/chats.js AwaitingInitialSync) instead of after its 20 s timeout. (A real phone sends
   * the history sync after pairing and the client then runs an app-state sync, which this server
   * does not serve.)
   */
  async function sendHistoryNotification(conn: WaConnection): Promise<void> {
    if (historySent.has(conn)) return
    historySent.add(conn)
    await sendFromPhone(conn, {
      protocolMessage: {
        type: proto.Message.ProtocolMessage.Type.HISTORY_SYNC_NOTIFICATION,
        historySyncNotification: { syncType: proto.HistorySync.HistorySyncType.FULL }
      }
    })
  }

  /** A message from the account's own phone (device 0) to the companion. */
  async function sendFromPhone(conn: WaConnection, message: proto.IMessage): Promise<void> {
    if (!uploaded) throw new Error('the client has not uploaded its pre-keys')
    if (!phonePeer.hasSession(CLIENT_ADDRESS)) await phonePeer.initFromUpload(CLIENT_ADDRESS, uploaded)
    const { node: msg } = await inboundMessage(phonePeer, `${accountNumber}@s.whatsapp.net`, message)
    conn.send(msg)
  }

  const http = createServer((_req, res) => res.writeHead(404).end())
  const wss = new WebSocketServer({ server: http, path: '/ws/chat' })
  wss.on('connection', (ws) => {
    connections++
    conns.add(new WaConnection(ws, identity, handlers))
  })
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve))
  const { port } = http.address() as AddressInfo

  const phone: FakePhone = {
    number: accountNumber,
    jid: `${accountNumber}@s.whatsapp.net`,
    lid: `${accountLid}@lid`,
    get linked() {
      return linked
    },
    received: () => [...phoneTexts],
    async scan(qr) {
      const data = parsePairingQr(qr)
      const conn = pairing.get(data.ref)
      if (!conn || conn.closed) throw new Error(`no client is showing the QR ref ${data.ref}`)
      const reply = await conn.query(
        pairSuccessIq(`pair-success-${conn.id}`, data, account, {
          jid: `${accountNumber}:${companionDevice}@s.whatsapp.net`,
          lid: `${accountLid}:${companionDevice}@lid`,
          keyIndex: 1
        })
      )
      if (!child(reply, 'pair-device-sign')) throw new Error(`the client refused the pairing: ${describeNode(reply)}`)
      linked = true
      uploaded = null
      // WhatsApp asks a freshly paired client to reconnect and log in.
      conn.send(node('stream:error', { code: '515' }))
    }
  }

  let nextLid = 220000000000001
  return {
    url: `ws://127.0.0.1:${port}/ws/chat`,
    rootPublicKey: identity.root.public,
    rootPublicKeyB64: identity.root.public.toString('base64'),
    phone,
    get connections() {
      return connections
    },
    get openConnections() {
      return conns.size
    },
    log,
    contact(pn, name = 'Ana') {
      let c = contacts.get(pn)
      if (!c) {
        c = { peer: new SignalPeer(), pn, lid: String(nextLid++), name, texts: [], types: [], sent: [] }
        contacts.set(pn, c)
      }
      const contact = c
      return {
        jid: `${pn}@s.whatsapp.net`,
        lid: `${contact.lid}@lid`,
        name: contact.name,
        received: () => [...contact.texts],
        receivedTypes: () => [...contact.types],
        sentTypes: () => [...contact.sent],
        async sendText(text) {
          const conn = loggedIn
          if (!conn || !uploaded) throw new Error('no logged-in client to send to')
          if (!contact.peer.hasSession(CLIENT_ADDRESS)) await contact.peer.initFromUpload(CLIENT_ADDRESS, uploaded)
          const { id, type, node: msg } = await inboundMessage(contact.peer, `${pn}@s.whatsapp.net`, { conversation: text }, { pushName: contact.name })
          contact.sent.push(type)
          conn.send(msg)
          return id
        }
      }
    },
    async close() {
      for (const c of conns) c.kill()
      conns.clear()
      await new Promise<void>((resolve) => wss.close(() => resolve()))
      await new Promise<void>((resolve, reject) => http.close((err) => (err ? reject(err) : resolve())))
    }
  }
}
