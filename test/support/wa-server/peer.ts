/**
 * A Signal peer for the protocol test server (test code): the fake phone and the fake contacts
 * encrypt and decrypt 1:1 messages with libsignal, the same library Baileys uses
 * (lib/Signal/libsignal.js), so what they read is what the real client sent.
 *
 * Keys use libsignal's format (public keys 33 bytes with the 0x05 type byte); on the wire, bundles
 * carry 32-byte keys, as the client uploads them (lib/Utils/signal.js getNextPreKeysNode).
 */
import { createRequire } from 'node:module'
import { proto, unpadRandomMax16, writeRandomPadMax16, type BinaryNode } from 'baileys'
import { bytes, child, node, readUintBE, uintBE } from './nodes'

interface LsKeyPair {
  pubKey: Buffer
  privKey: Buffer
}
interface LsAddress {
  toString(): string
}
interface LsSessionRecord {
  serialize(): unknown
}
interface LsStorage {
  isTrustedIdentity(id: string, key: Buffer): Promise<boolean>
  loadSession(id: string): Promise<LsSessionRecord | undefined>
  storeSession(id: string, record: LsSessionRecord): Promise<void>
  loadPreKey(id: number): Promise<LsKeyPair | undefined>
  removePreKey(id: number): Promise<void>
  loadSignedPreKey(id: number): Promise<LsKeyPair | undefined>
  getOurIdentity(): Promise<LsKeyPair>
  getOurRegistrationId(): Promise<number>
}
interface PreKeyBundle {
  registrationId: number
  identityKey: Buffer
  signedPreKey: { keyId: number; publicKey: Buffer; signature: Buffer }
  preKey?: { keyId: number; publicKey: Buffer }
}
interface Libsignal {
  keyhelper: {
    generateIdentityKeyPair(): LsKeyPair
    generateRegistrationId(): number
    generateSignedPreKey(identity: LsKeyPair, keyId: number): { keyId: number; keyPair: LsKeyPair; signature: Buffer }
    generatePreKey(keyId: number): { keyId: number; keyPair: LsKeyPair }
  }
  ProtocolAddress: new (id: string, device: number) => LsAddress
  SessionBuilder: new (storage: LsStorage, addr: LsAddress) => { initOutgoing(bundle: PreKeyBundle): Promise<void> }
  SessionCipher: new (
    storage: LsStorage,
    addr: LsAddress
  ) => {
    encrypt(data: Buffer): Promise<{ type: number; body: Buffer | string }>
    decryptPreKeyWhisperMessage(data: Buffer): Promise<Buffer>
    decryptWhisperMessage(data: Buffer): Promise<Buffer>
  }
}

/** libsignal is CommonJS without types; loaded the way Baileys does (same package). */
const libsignal = createRequire(import.meta.url)('libsignal') as Libsignal

export type EncType = 'pkmsg' | 'msg'

const to33 = (k: Uint8Array): Buffer => (k.length === 33 ? Buffer.from(k) : Buffer.concat([Buffer.from([5]), k]))
const to32 = (k: Uint8Array): Buffer => (k.length === 33 ? Buffer.from(k.subarray(1)) : Buffer.from(k))

/** A libsignal identity with its signed pre-key, one-time pre-keys and sessions, all in memory. */
export class SignalPeer {
  readonly registrationId = libsignal.keyhelper.generateRegistrationId()
  readonly identity: LsKeyPair
  private readonly signed: { keyId: number; keyPair: LsKeyPair; signature: Buffer }
  private readonly preKeys = new Map<number, LsKeyPair>()
  private readonly sessions = new Map<string, LsSessionRecord>()
  private nextPreKeyId = 1
  private readonly storage: LsStorage

  /** `identity`: an existing key pair (the phone uses its account key); default a new one. */
  constructor(identity?: { public: Buffer; private: Buffer }) {
    this.identity = identity ? { pubKey: to33(identity.public), privKey: Buffer.from(identity.private) } : libsignal.keyhelper.generateIdentityKeyPair()
    this.signed = libsignal.keyhelper.generateSignedPreKey(this.identity, 1)
    this.storage = {
      isTrustedIdentity: async () => true,
      loadSession: async (id) => this.sessions.get(id),
      storeSession: async (id, record) => void this.sessions.set(id, record),
      loadPreKey: async (id) => this.preKeys.get(id),
      removePreKey: async (id) => void this.preKeys.delete(id),
      loadSignedPreKey: async (id) => (id === this.signed.keyId ? this.signed.keyPair : undefined),
      getOurIdentity: async () => this.identity,
      getOurRegistrationId: async () => this.registrationId
    }
  }

  /** The `<user jid>` node of an encrypt/get key answer (lib/Utils/signal.js parseAndInjectE2ESessions). */
  bundleNode(jid: string): BinaryNode {
    const id = this.nextPreKeyId++
    const pre = libsignal.keyhelper.generatePreKey(id)
    this.preKeys.set(id, pre.keyPair)
    return node('user', { jid }, [
      node('registration', {}, uintBE(this.registrationId, 4)),
      node('type', {}, Buffer.from([5])),
      node('identity', {}, to32(this.identity.pubKey)),
      node('skey', {}, [
        node('id', {}, uintBE(this.signed.keyId, 3)),
        node('value', {}, to32(this.signed.keyPair.pubKey)),
        node('signature', {}, this.signed.signature)
      ]),
      node('key', {}, [node('id', {}, uintBE(id, 3)), node('value', {}, to32(pre.keyPair.pubKey))])
    ])
  }

  hasSession(remote: string): boolean {
    return this.sessions.has(this.address(remote).toString())
  }

  /** Drops the session with `remote` (a device new to this peer: the next message starts one from its bundle). */
  forgetSession(remote: string): void {
    this.sessions.delete(this.address(remote).toString())
  }

  /** Starts a session with `remote` from a bundle the remote uploaded (lib/Utils/signal.js getNextPreKeysNode). */
  async initFromUpload(remote: string, upload: UploadedKeys): Promise<void> {
    const preKey = upload.preKeys.shift()
    await new libsignal.SessionBuilder(this.storage, this.address(remote)).initOutgoing({
      registrationId: upload.registrationId,
      identityKey: to33(upload.identity),
      signedPreKey: { keyId: upload.signedPreKey.keyId, publicKey: to33(upload.signedPreKey.public), signature: upload.signedPreKey.signature },
      ...(preKey ? { preKey: { keyId: preKey.keyId, publicKey: to33(preKey.public) } } : {})
    })
  }

  /** Encrypts a `proto.Message` for `remote`, padded as WhatsApp does. */
  async encryptMessage(remote: string, message: proto.IMessage): Promise<{ type: EncType; ciphertext: Buffer }> {
    const plain = Buffer.from(writeRandomPadMax16(proto.Message.encode(message).finish()))
    const { type, body } = await new libsignal.SessionCipher(this.storage, this.address(remote)).encrypt(plain)
    return { type: type === 3 ? 'pkmsg' : 'msg', ciphertext: typeof body === 'string' ? Buffer.from(body, 'binary') : Buffer.from(body) }
  }

  /** Decrypts an `<enc>` from `remote` into the `proto.Message` it carries. */
  async decryptMessage(remote: string, type: string, ciphertext: Buffer): Promise<proto.Message> {
    const cipher = new libsignal.SessionCipher(this.storage, this.address(remote))
    const plain = type === 'pkmsg' ? await cipher.decryptPreKeyWhisperMessage(ciphertext) : await cipher.decryptWhisperMessage(ciphertext)
    return proto.Message.decode(unpadRandomMax16(plain))
  }

  private address(remote: string): LsAddress {
    return new libsignal.ProtocolAddress(remote, 0)
  }
}

/** The keys a client uploaded with `<iq xmlns="encrypt" type="set">` (registration, identity, list, skey). */
export interface UploadedKeys {
  registrationId: number
  identity: Buffer
  signedPreKey: { keyId: number; public: Buffer; signature: Buffer }
  preKeys: Array<{ keyId: number; public: Buffer }>
}

/** Parses a pre-key upload iq. */
export function parseKeyUpload(iq: BinaryNode): UploadedKeys {
  const skey = child(iq, 'skey')
  const list = child(iq, 'list')
  const keys = Array.isArray(list?.content) ? list.content : []
  return {
    registrationId: readUintBE(bytes(child(iq, 'registration'))),
    identity: bytes(child(iq, 'identity')),
    signedPreKey: { keyId: readUintBE(bytes(child(skey, 'id'))), public: bytes(child(skey, 'value')), signature: bytes(child(skey, 'signature')) },
    preKeys: keys.map((k) => ({ keyId: readUintBE(bytes(child(k, 'id'))), public: bytes(child(k, 'value')) }))
  }
}

/** Text of a decrypted message (plain, extended, or the own-device copy). */
export function textOf(msg: proto.IMessage | null | undefined): string | undefined {
  if (!msg) return undefined
  if (msg.deviceSentMessage?.message) return textOf(msg.deviceSentMessage.message)
  return msg.conversation ?? msg.extendedTextMessage?.text ?? undefined
}
