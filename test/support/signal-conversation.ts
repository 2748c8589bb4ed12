/**
 * A 1:1 Signal conversation between the product's side — Baileys' own signal repository
 * (lib/Signal/libsignal.js `makeLibSignalRepository`, the default `makeSignalRepository`) over the product's {@link AuthState}
 * (on a SQLite file in a temp dir) — and a
 * contact (the test server's libsignal peer). Each turn the contact writes and the product answers,
 * so both sides step the Double Ratchet as in a real chat. Used by the session-record test and the
 * size benchmark (docs/benchmarks.md "Signal session record size").
 */
import { createRequire } from 'node:module'
import { addTransactionCapability, BufferJSON, DEFAULT_CONNECTION_CONFIG, proto, writeRandomPadMax16, type SignalKeyStore } from 'baileys'
import { AuthState } from '../../src/main/channel/baileys/auth-state'
import { silentLogger } from '../../src/main/logger'
import { openTestChannelStore } from '../helpers/channel-store'
import { SignalPeer } from './wa-server/peer'

const libsignal = createRequire(import.meta.url)('libsignal') as {
  keyhelper: { generatePreKey(id: number): { keyId: number; keyPair: { pubKey: Buffer; privKey: Buffer } } }
}

const CONTACT = '15550001111@s.whatsapp.net'
const ME = '15559990000'

export interface SignalConversation {
  /** One turn: the contact writes, the product decrypts and answers, the contact decrypts. */
  turn(): Promise<void>
  /** Bytes of the contact's session record as the auth store keeps it (JSON, as written). */
  recordBytes(): Promise<number>
  close(): Promise<void>
}

/** A key store kept in memory as the library hands values over (no pruning): the benchmark's "before". */
function plainKeyStore(): SignalKeyStore {
  const map = new Map<string, unknown>()
  return {
    get: async (type, ids) => Object.fromEntries(ids.filter((id) => map.has(`${type}:${id}`)).map((id) => [id, map.get(`${type}:${id}`)])) as never,
    set: async (data) => {
      for (const [type, entries] of Object.entries(data)) {
        for (const [id, v] of Object.entries(entries ?? {})) {
          if (v === null || v === undefined) map.delete(`${type}:${id}`)
          else map.set(`${type}:${id}`, v)
        }
      }
    }
  }
}

export interface SignalConversationOptions {
  /** Keep the product's keys in a bare in-memory store (libsignal's own behaviour, nothing pruned). */
  plain?: boolean
  /**
   * Wraps the product's key store before the library's transaction layer (benchmarks: timing, a
   * cache); may first fill the auth state's database.
   */
  wrap?: (keys: SignalKeyStore, auth: AuthState) => SignalKeyStore | Promise<SignalKeyStore>
}

/** Opens a conversation on a temporary database; the first message is a pre-key message. */
export async function openSignalConversation(opts: SignalConversationOptions = {}): Promise<SignalConversation> {
  const db = await openTestChannelStore()
  const store = await AuthState.open(db.store.auth, 'signal-conversation')
  const logger = silentLogger() as never
  const own = opts.plain ? plainKeyStore() : store.keys
  const base = opts.wrap ? await opts.wrap(own, store) : own
  // Keys wrapped as the socket wraps them (lib/Socket/socket.js), so each step commits as one keys.set();
  // the repository every Baileys socket makes (lib/Defaults/index.js makeSignalRepository).
  const keys = addTransactionCapability(base, logger, DEFAULT_CONNECTION_CONFIG.transactionOpts)
  const repo = DEFAULT_CONNECTION_CONFIG.makeSignalRepository({ creds: store.creds, keys }, logger)
  const pre = libsignal.keyhelper.generatePreKey(1)
  await base.set({ 'pre-key': { '1': { public: pre.keyPair.pubKey.subarray(1), private: pre.keyPair.privKey } } })
  const contact = new SignalPeer()
  const { creds } = store
  await contact.initFromUpload(ME, {
    registrationId: creds.registrationId,
    identity: Buffer.from(creds.signedIdentityKey.public),
    signedPreKey: { keyId: creds.signedPreKey.keyId, public: Buffer.from(creds.signedPreKey.keyPair.public), signature: Buffer.from(creds.signedPreKey.signature) },
    preKeys: [{ keyId: 1, public: pre.keyPair.pubKey.subarray(1) }]
  })
  let n = 0
  return {
    async turn() {
      n++
      const inbound = await contact.encryptMessage(ME, { conversation: `order ${n}, please` })
      const plain = await repo.decryptMessage({ jid: CONTACT, type: inbound.type, ciphertext: inbound.ciphertext })
      if (plain.length === 0) throw new Error('decrypted nothing')
      const reply = Buffer.from(writeRandomPadMax16(proto.Message.encode({ conversation: `Thanks, order ${n} is noted.` }).finish()))
      const outbound = await repo.encryptMessage({ jid: CONTACT, data: reply })
      const got = await contact.decryptMessage(ME, outbound.type, Buffer.from(outbound.ciphertext))
      if (got.conversation !== `Thanks, order ${n} is noted.`) throw new Error('the contact read something else')
    },
    async recordBytes() {
      const addr = repo.jidToSignalProtocolAddress(CONTACT)
      const record = (await base.get('session', [addr]))[addr]
      if (!record) throw new Error('no session record')
      return Buffer.byteLength(JSON.stringify(record, BufferJSON.replacer))
    },
    async close() {
      await store.close()
      await db.close()
    }
  }
}
