/**
 * The protocol test server's public shapes (test support): the server, its accounts' fake phones,
 * fake contacts and what they decrypted. Implemented by ./server.ts.
 */
import type { proto } from 'baileys'
import type { MediaExtras, MediaKind } from './contact-media'
import type { FakeGroup, GroupSpec } from './groups'
import type { MediaHost } from './media-host'
import type { EncType } from './peer'
import type { ServerBehaviour } from './behaviour'

/** A message a peer (contact or phone) decrypted. */
export interface ReceivedMessage {
  /** The number of the account whose linked client sent it. */
  account: string
  /** `pkmsg` (a new Signal session) or `msg` (an existing one); `skmsg` for a group message (sender key). */
  type: EncType | 'skmsg'
  /** The decrypted message; own-device copies are unwrapped from `deviceSentMessage`. */
  message: proto.IMessage
  /** The message id the client gave it. */
  id: string
  /** `performance.now()` when the server decrypted it (ms). */
  at: number
  /** The group JID (`<id>@g.us`) when the client sent it to a group this peer is in. */
  group?: string
}

export interface FakeContact {
  /** Phone-number JID (`<pn>@s.whatsapp.net`) and LID (`<lid>@lid`). */
  readonly jid: string
  readonly lid: string
  readonly name: string
  /**
   * When set, the server refuses what clients send this contact with `<ack error>` of this code (e.g.
   * 463: no privacy token, the account may not start chats; 479: stale addressing) and delivers nothing.
   */
  ackError: number | null
  /**
   * How this contact's messages reach clients (Baileys #2683): `pn` from `<pn>@s.whatsapp.net` (last
   * year's service); `lid` from `<lid>@lid` with `addressing_mode="lid"` and the number in `sender_pn`
   * (today's 1:1 messages); `lid-only` the same without `sender_pn` (a sender whose number the
   * companion does not know). Default `pn`. Once the contact wrote to an account LID-addressed, the
   * server refuses that account's sends to the contact's number with 463 (behaviour.refusePnInLidChat).
   */
  addressing: 'pn' | 'lid' | 'lid-only'
  /**
   * Whether the service hands out this number's LID (usync `<lid>` answers). Default true; false is a
   * number the LID rollout had not reached (last year's service): a linked device then keeps its
   * Signal session with the contact under the number (lib/Signal/lid-mapping.js getLIDForPN finds
   * no LID), which a later LID-addressed message does not find (Baileys PR #2763).
   */
  lidShared: boolean
  /**
   * The contact's WhatsApp username (without "@"), or null. Usync answers it for the contact
   * (`username` protocol, lib/WAUSync/Protocols/USyncUsernameProtocol.js) and a lookup by it finds the
   * contact's LID (`<contact username>`, USyncContactProtocol.js).
   */
  username: string | null
  /**
   * The contact refuses (the server acks with error 463, delivers nothing) a message from a client
   * that does not carry, as its `<tctoken>` child, the privacy token this contact issued to that
   * client's account (behaviour.privacyTokens: issued after its first message there). Default false.
   */
  requiresToken: boolean
  /** The privacy token this contact issued to the account of `to` (default: the first), if any. */
  issuedToken(to?: FakePhone): Buffer | undefined
  /** Ids of client messages the server refused to deliver to this contact, one per attempt, in order. */
  refused(): string[]
  /**
   * WhatsApp tells the linked client of `to` (default: the first account) that this contact's LID
   * belongs to its number (a linked-profiles `mex` notification → `lid-mapping.update`). False when
   * that client is not logged in.
   */
  revealPn(to?: FakePhone): boolean
  /**
   * Sends a text a client cannot decrypt (its MAC broken), after an earlier message built the
   * session; the client logs a placeholder and asks for a retry, and the contact then sends it again
   * properly with the same id. Answers the id.
   */
  sendUndecryptable(text: string, to?: FakePhone): Promise<string>
  /**
   * The contact could not decrypt message `id` a client sent it and asks for it again (a retry
   * receipt): the client must resend it from its own store (Baileys' getMessage). False when that
   * client is not logged in.
   */
  requestRetry(id: string, to?: FakePhone): boolean
  /**
   * The contact changes phone (WhatsApp installed again, same number and LID): a new Signal identity
   * and registration id, no sessions, no sender keys — a group message reaches it only with a sender
   * key distributed again. Every linked client gets `<notification type="encrypt"><identity/>` (queued
   * while away). Answers the notification id. (Baileys #2704.)
   */
  changePhone(): string
  /** Receipts clients sent this contact: `{id, type}` (`read`, `retry`, …; `delivery` when untyped). */
  receivedReceipts(): Array<{ id: string; type: string }>
  /**
   * Chat states clients showed this contact (`composing` for "typing…", `paused`), each with how many
   * messages the contact had received from them by then (0 = before the first).
   */
  chatStates(): Array<{ state: string; beforeMessage: number }>
  /**
   * Posts a status (a broadcast to `status@broadcast`) that the linked client of `to` receives (as
   * offline backlog while it is away). `undecryptable`: under a sender key the client was never given,
   * so it cannot decrypt it (a status whose key distribution it missed). Answers the id.
   */
  postStatus(text: string, to?: FakePhone, opts?: { undecryptable?: boolean }): Promise<string>
  /** The contact reads what clients sent it (all, or `ids`): read receipts. Answers how many. */
  read(ids?: string[]): number
  /** The contact plays voice notes clients sent it (all, or `ids`): played receipts. Answers how many. */
  played(ids?: string[]): number
  /**
   * Sends an encrypted text to the linked client of `to` (default: the first account); answers the
   * message id. While that client is not connected the message waits on the server and comes with
   * its next login, marked `offline`, before `<ib><offline count>` (the offline backlog).
   */
  sendText(text: string, to?: FakePhone): Promise<string>
  /** Sends any encrypted `proto.Message`; answers the message id. */
  send(message: proto.IMessage, to?: FakePhone): Promise<string>
  /** Edits the contact's own message `id` to `text` (message-changes.ts: MESSAGE_EDIT, `edit="1"`). Answers the edit's id. */
  edit(id: string, text: string, to?: FakePhone): Promise<string>
  /** Deletes the contact's own message `id` for everyone (REVOKE, `edit="7"`). Answers the deletion's id. */
  deleteForEveryone(id: string, to?: FakePhone): Promise<string>
  /**
   * Reacts with `emoji` to message `target.id` (`fromMe`: the contact wrote it; false: the shop did);
   * `''` takes the reaction back (`type="reaction"`). Answers the reaction's id.
   */
  react(target: { id: string; fromMe: boolean }, emoji: string, to?: FakePhone): Promise<string>
  /**
   * Votes `chosen` (option names; `[]` withdraws) on the shop's poll `poll.id`, whose message secret
   * is `poll.secret` (the poll's `messageContextInfo.messageSecret`): an encrypted `pollUpdateMessage`
   * keyed by the JIDs this contact addresses the chat by (message-changes.ts). Answers the vote's id.
   */
  vote(poll: { id: string; secret: Uint8Array }, chosen: string[], to?: FakePhone): Promise<string>
  /**
   * Writes to `group` (this contact must be a member), to the linked client of `to` (default: the
   * first account): with its sender key, distributed to that client the first time. Answers the id.
   */
  sendGroup(group: FakeGroup, message: proto.IMessage, to?: FakePhone): Promise<string>
  sendGroupText(group: FakeGroup, text: string, to?: FakePhone): Promise<string>
  /** Texts linked clients sent to this contact (or to a group it is in), decrypted, in order. */
  received(): string[]
  /** Everything linked clients sent to this contact, decrypted, in order. */
  messages(): ReceivedMessage[]
  /** Resolves with the next message this contact receives (rejects after `timeoutMs`). */
  nextMessage(timeoutMs?: number): Promise<ReceivedMessage>
  /** How each of those arrived: `pkmsg` or `msg`. */
  receivedTypes(): string[]
  /** How each message this contact sent went out: `pkmsg` or `msg`; group messages `pkmsg+skmsg`, `msg+skmsg` or `skmsg`. */
  sentTypes(): string[]
  /**
   * Sends `bytes` as a `kind` message the way a phone does: encrypted, stored on the media host, and
   * referenced (url, directPath, mediaKey, hashes, fileLength) with `extras` (caption, mimetype, …).
   * Answers the message id.
   */
  sendMedia(kind: MediaKind, bytes: Buffer, extras?: MediaExtras, to?: FakePhone): Promise<string>
  /** `sendMedia('image', …)`. */
  sendImage(bytes: Buffer, extras?: MediaExtras, to?: FakePhone): Promise<string>
  /** The file of a media message this contact received, fetched from the media host, checked and decrypted (contact-media.ts). */
  readMedia(message: proto.IMessage): Promise<Buffer>
}

export interface FakePhone {
  /** The account's number, phone-number JID and LID (the linked device gets device 12 of both). */
  readonly number: string
  /** The account's push name (the phone's own messages carry it; the client takes it as `creds.me.name`). */
  readonly name: string
  readonly jid: string
  readonly lid: string
  /** Scans a pairing QR shown by a client: pairs it, then the server asks it to restart (515). */
  scan(qr: string): Promise<void>
  /**
   * The owner types a pairing code (Linked devices → Link with phone number) that a client asked for
   * with this account's number: stage 2, then pair-success and the 515. Resolves once the client
   * signed the pairing; rejects with {@link LinkRefusedError} for a wrong code or no pending request.
   */
  enterCode(code: string): Promise<void>
  /** Own-device copies of what the client sent (`deviceSentMessage`), decrypted texts. */
  received(): string[]
  messages(): ReceivedMessage[]
  /** Receipts the client sent for the account's own devices only (`read-self`, read receipts off). */
  ownReceipts(): Array<{ id: string; type: string }>
  /**
   * The owner types `text` to the contact `jid` on the phone: the linked client gets the phone's copy
   * (`deviceSentMessage` from the account's JID, `recipient` the contact). Answers the message id.
   */
  typeTo(jid: string, text: string): Promise<string>
  /** The owner deletes the shop's message `id` in the chat with `jid` for everyone, on the phone (the copy: REVOKE, `edit="7"`). */
  deleteForEveryone(jid: string, id: string): Promise<string>
  /** The owner edits the shop's message `id` in the chat with `jid` to `text`, on the phone. */
  edit(jid: string, id: string, text: string): Promise<string>
  /** The owner reacts on the phone to message `target.id` of the chat with `jid` (`fromMe`: the shop wrote it); `''` takes it back. */
  react(jid: string, target: { id: string; fromMe: boolean }, emoji: string): Promise<string>
  /** The owner sends a poll on the phone to `jid` (`selectable` 1: one choice; 0: any); answers its id and message secret. */
  sendPoll(jid: string, name: string, options: string[], selectable?: number): Promise<{ id: string; secret: Buffer }>
  /**
   * The phone holds these messages of the chat `jid` (a contact's PN or LID, filed under its number),
   * added to what it holds; ids are made when missing, a contact's messages carry its name. Answers
   * their ids. What the phone answers an on-demand history request from (history.ts).
   */
  holdHistory(jid: string, messages: Array<{ id?: string; fromMe: boolean; text: string; at: number; pushName?: string }>): string[]
  /**
   * The phone sends its linked client a RECENT history sync of the newest `perChat` messages of each
   * chat it holds (all by default), as after a link. Answers the ids sent.
   */
  sendHistorySync(opts?: { perChat?: number }): Promise<string[]>
  /** The on-demand history requests the linked client sent the phone (history.ts OnDemandRequest). */
  /**
   * A slow phone answers the history requests it left unanswered (behaviour `answerHistoryRequests`
   * off) now; answers how many.
   */
  answerHistoryRequests(): Promise<number>
  historyRequests(): Array<{ requestId: string; chatJid: string; oldestMsgId: string; oldestMsgFromMe: boolean; oldestMsgTimestampMs: number; count: number }>
  /** True while a companion is linked (false after its logout). */
  readonly linked: boolean
  /** The linked companion as the phone lists it under Linked devices (its DeviceProps.os), null when none. */
  readonly linkedDeviceName: string | null
  /** True while the linked client is logged in on an open connection. */
  readonly online: boolean
  /**
   * The owner removes the linked device on the phone: the account forgets the companion and its
   * open connection ends with `<stream:error code="401"><conflict type="device_removed"/>`
   * (Baileys: lib/Utils/generics.js getErrorCodeFromStreamError → 401 loggedOut).
   */
  removeDevice(): void
}

export interface WaTestServer {
  /** How the server behaves where the live service changed (behaviour.ts); mutable: tests flip knobs. */
  readonly behaviour: ServerBehaviour
  /** `ws://127.0.0.1:PORT/ws/chat`, for Baileys' `waWebSocketUrl` / `CHATAPP_WA_WS_URL`. */
  readonly url: string
  /** `http://127.0.0.1:PORT`: the control API when started with `control: true`. */
  readonly httpUrl: string
  /** The test root key the certificate chain is signed with (32 bytes) and its base64 (`CHATAPP_WA_ROOT_KEY`). */
  readonly rootPublicKey: Buffer
  readonly rootPublicKeyB64: string
  /** The first account's phone. */
  readonly phone: FakePhone
  /** Adds an account (default number: the next free one); answers its phone. */
  addPhone(number?: string): FakePhone
  /** The phone of account `number`, if any. */
  phoneOf(number: string): FakePhone | undefined
  /** Every account's phone, the first one first. */
  phones(): FakePhone[]
  /**
   * The contact with phone number `pn` (digits), made on first use; `opts.lid` (digits) gives it that
   * LID instead of the next free one (a contact a linked device already knows by its LID: WhatsApp
   * never changes a number's LID). Throws when the LID is another's, or differs from an existing contact's.
   */
  contact(pn: string, name?: string, opts?: { lid?: string }): FakeContact
  /**
   * The account named by `device.creds.me.id` (`<number>:12@s.whatsapp.net`; made when missing) takes
   * that companion as its linked device 12, as the live service knows a device it registered earlier
   * (a fresh server's accounts live in memory and know none): the device's noise key, identity key,
   * registration id and signed pre-key, its LID from `creds.me.lid`, and the one-time pre-keys
   * `device.preKeys` it uploaded and the server has not handed out yet. Then:
   * - a login with those creds (`username`/`device` from `me.id`, the Noise static key `noiseKey`) is
   *   accepted, no QR; a login with another noise key is refused (401);
   * - the key-count query answers how many of `preKeys` are left (none given: 0, and the client
   *   uploads 812 at login; 5 or fewer: it uploads 5 more), and what the client uploads is added to
   *   those left;
   * - contacts and the phone build Signal sessions to the device from that bundle (a pre-key message
   *   on one of `preKeys`, or on the signed pre-key alone once none is left), and decrypt what it sends.
   * Peers forget any session with an earlier companion of the account. The phone itself is this
   * server's (new keys): the creds' `account` signature from the old phone is not checked.
   * Throws when the creds name no device 12, the signed pre-key is not signed by the identity key,
   * the LID is another's, or the account already has a linked device. Answers the account's phone.
   */
  adoptLinkedDevice(device: LinkedDevice): FakePhone
  /** Clients that came without credentials and were given pairing refs (each shows a QR) so far. */
  readonly pairingRequests: number
  /** Adds a group (see groups.ts); answers it. */
  addGroup(spec: GroupSpec): FakeGroup
  /**
   * Ends the logged-in connection of `phone` (default: every account's): without `code` the socket is
   * cut as by a network loss; with it the server first sends `<stream:error code>`. Answers how many ended.
   */
  disconnect(opts?: { phone?: FakePhone; code?: number }): number
  /** Epoch ms of each successful login (`<success>`) so far. */
  readonly logins: number[]
  /** True once a client answered the message with that id with a receipt or an ack (it handled or ignored it). */
  acknowledged(id: string): boolean
  /** The error code of the client's NACK (`<ack class="message" error>`) of message `id`, or null when it sent none. */
  nackOf(id: string): string | null
  /** Group metadata queries (`w:g2` `<query>`) clients made so far. */
  readonly groupMetadataQueries: number
  /** Logins answered with a stream error instead (behaviour.loginStreamErrors). */
  readonly loginFailures: number
  /**
   * WhatsApp caps `phone`'s messages to people who have not answered (a `message-capping.update`,
   * Baileys #2445): `capping_status` NONE, FIRST_WARNING, SECOND_WARNING or CAPPED, with quotas and
   * the cycle's end (epoch seconds as strings). False when that account has no client logged in.
   */
  capMessaging(
    info: { capping_status: string; used_quota?: number; total_quota?: number; cycle_end_timestamp?: string },
    phone?: FakePhone
  ): boolean
  /** WhatsApp locks (or unlocks) `phone` from reaching out to new people until `endsAt` (epoch ms). */
  lockReachout(lock: { active: boolean; endsAt?: number; type?: string }, phone?: FakePhone): boolean
  /**
   * Another WhatsApp Web client takes over `phone`'s session (default: the first account's): its
   * connection ends with `<stream:error><conflict type="replaced"/>` (440 in Baileys). False when not logged in.
   */
  replaceSession(phone?: FakePhone): boolean
  /**
   * Per linked device (`<number>:12@s.whatsapp.net`), every connection that logged in as it and how
   * it ended, and the most that were live at once (see {@link DeviceConnections}). Devices in the
   * order of their first login. `GET /control/devices` answers the same.
   */
  devices(): DeviceConnections[]
  /** {@link devices} for the device of `phone`'s account (default: the first account's); undefined before its first login. */
  deviceConnections(phone?: FakePhone): DeviceConnections | undefined
  /** Client connections opened so far (each reconnect is one more), and those still open. */
  readonly connections: number
  readonly openConnections: number
  /** The fake HTTPS media host the `media_conn` answer names (127.0.0.1, test CA in ./tls). */
  readonly media: MediaHost
  /** Stanzas seen, for failure messages (`WA_TEST_DEBUG=1` prints them). */
  readonly log: string[]
  close(): Promise<void>
}

/** One connection that logged in as a device: `id` is the server's connection number. */
export interface DeviceConnection {
  id: number
  /** Epoch ms of its `<success>`. */
  loggedInAt: number
  /** Epoch ms the websocket closed; null while it is open. */
  endedAt: number | null
  /**
   * Who ended it: `client` (the client closed it, or its process died and the OS closed the socket),
   * `replaced` (a later login as the same device took over: `<stream:error><conflict type="replaced"/>`,
   * 440 in Baileys), `server` (any other end the server caused: a disconnect, an unlink); null while open.
   */
  endedBy: 'client' | 'replaced' | 'server' | null
}

/**
 * What the server saw of one linked device's connections. A connection is live from its login until
 * the client closes it or the server starts ending it; `maxLive` is the most live at once, counted at
 * each login before a replacement (2: a second client logged in while the first still held the
 * session, which the live service answers by replacing the first: both clients of one credential
 * then evict each other).
 */
export interface DeviceConnections {
  /** `<number>:12@s.whatsapp.net`. */
  device: string
  connections: DeviceConnection[]
  /** Live now. */
  live: number
  maxLive: number
  /** Connections ended as `replaced`. */
  replaced: number
}

/**
 * The parts of Baileys' `AuthenticationCreds` (lib/Types/Auth.d.ts, a `creds.json` revived with
 * `BufferJSON.reviver`) that a server registered for a linked companion. Keys are the 32-byte
 * public keys Baileys keeps.
 */
export interface LinkedDeviceCreds {
  /** `id`: `<number>:<device>@s.whatsapp.net`; `lid`: `<lid>@lid` or `<lid>:<device>@lid`. */
  me?: { id: string; lid?: string } | null
  noiseKey: { public: Uint8Array }
  signedIdentityKey: { public: Uint8Array }
  registrationId: number
  /** `signature`: the identity key's signature of the 33-byte (0x05-prefixed) public key (lib/Utils/crypto.js signedKeyPair). */
  signedPreKey: { keyId: number; keyPair: { public: Uint8Array }; signature: Uint8Array }
}

/** A companion device linked before this server started: see {@link WaTestServer.adoptLinkedDevice}. */
export interface LinkedDevice {
  creds: LinkedDeviceCreds
  /** One-time pre-keys (id, 32-byte public key) the device uploaded that the server still holds; handed out lowest id first. */
  preKeys?: ReadonlyArray<{ keyId: number; public: Uint8Array }>
}

export interface WaTestServerOptions {
  /** The first account's phone number (digits). */
  accountNumber?: string
  /** The first account's push name; default `Test Shop`. */
  accountName?: string
  /** Serve the HTTP control API (control.ts) beside the websocket. */
  control?: boolean
  /** Knobs over the live defaults (behaviour.ts). */
  behaviour?: Partial<ServerBehaviour>
}

/** The phone refused to link (it shows "Couldn't link device"). */
export class LinkRefusedError extends Error {
  constructor(why: string) {
    super(`Couldn't link device: ${why}`)
    this.name = 'LinkRefusedError'
  }
}
