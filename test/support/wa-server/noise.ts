/**
 * Server side of WhatsApp Web's transport (test code): frame reassembly and the Noise XX handshake,
 * the mirror image of the client in node_modules/baileys/lib/Utils/noise-handler.js and
 * `validateConnection` in lib/Socket/socket.js.
 *
 * Framing: the client's first frame starts with the intro `WA\x06\x03` (or `ED\0\1` + 3-byte length +
 * routing info + `WA\x06\x03`); every frame is then a 3-byte big-endian length and the payload. The
 * server's frames have no intro.
 *
 * Handshake: h = salt = key = NOISE_MODE (32 bytes, not hashed); h = sha256(h‖x) over the header and
 * the client ephemeral. The server answers its ephemeral, DH(e, ce), its static encrypted, DH(s, ce)
 * and the certificate chain encrypted; the client finishes with its static (noise key) encrypted,
 * then DH(e, cs), then the `ClientPayload` encrypted. Mixing is HKDF-SHA256(dh, 64, salt) → salt =
 * first 32 bytes, key = last 32, counter 0. Handshake AEAD: AES-256-GCM, IV = 8 zero bytes + 32-bit
 * big-endian counter, AAD = h; every ciphertext is mixed into h. Transport keys: HKDF(empty, 64,
 * salt); the client writes with the first half, so the server writes with the second.
 */
import { createCipheriv, createDecipheriv, createHash, hkdfSync } from 'node:crypto'
import { Curve, NOISE_MODE, proto } from 'baileys'

export interface KeyPair {
  public: Buffer
  private: Buffer
}

const NOISE_HEADER = Buffer.from([87, 65, 6, 3])

/** A new Curve25519 key pair (32-byte keys, as Baileys' `Curve.generateKeyPair`). */
export function newKeyPair(): KeyPair {
  const k = Curve.generateKeyPair()
  return { public: Buffer.from(k.public), private: Buffer.from(k.private) }
}

const sha256 = (b: Buffer): Buffer => createHash('sha256').update(b).digest()

function iv(counter: number): Buffer {
  const out = Buffer.alloc(12)
  out.writeUInt32BE(counter, 8)
  return out
}

function gcmEncrypt(plain: Uint8Array, key: Buffer, counter: number, aad: Buffer): Buffer {
  const c = createCipheriv('aes-256-gcm', key, iv(counter))
  c.setAAD(aad)
  return Buffer.concat([c.update(plain), c.final(), c.getAuthTag()])
}

function gcmDecrypt(data: Uint8Array, key: Buffer, counter: number, aad: Buffer): Buffer {
  const buf = Buffer.from(data)
  const d = createDecipheriv('aes-256-gcm', key, iv(counter))
  d.setAAD(aad)
  d.setAuthTag(buf.subarray(buf.length - 16))
  return Buffer.concat([d.update(buf.subarray(0, buf.length - 16)), d.final()])
}

function hkdf64(ikm: Buffer, salt: Buffer): [Buffer, Buffer] {
  const out = Buffer.from(hkdfSync('sha256', ikm, salt, Buffer.alloc(0), 64))
  return [out.subarray(0, 32), out.subarray(32)]
}

/** The server's long-term material: a static key and a certificate chain signed by a test root. */
export interface ServerIdentity {
  root: KeyPair
  static: KeyPair
  certChain: Buffer
}

/** Makes a test root, an intermediate signed by it (issuerSerial 0 = WA_CERT_DETAILS.SERIAL) and a leaf. */
export function makeServerIdentity(): ServerIdentity {
  const root = newKeyPair()
  const intermediate = newKeyPair()
  const stat = newKeyPair()
  const Details = proto.CertChain.NoiseCertificate.Details
  const now = Math.floor(Date.now() / 1000)
  const interDetails = Buffer.from(Details.encode({ serial: 1, issuerSerial: 0, key: intermediate.public, notBefore: now - 60, notAfter: now + 86_400 }).finish())
  const leafDetails = Buffer.from(Details.encode({ serial: 2, issuerSerial: 1, key: stat.public, notBefore: now - 60, notAfter: now + 86_400 }).finish())
  const certChain = Buffer.from(
    proto.CertChain.encode({
      intermediate: { details: interDetails, signature: Buffer.from(Curve.sign(root.private, interDetails)) },
      leaf: { details: leafDetails, signature: Buffer.from(Curve.sign(intermediate.private, leafDetails)) }
    }).finish()
  )
  return { root, static: stat, certChain }
}

/**
 * One client's Noise state on the server. Feed raw websocket data to {@link push}; it yields whole
 * frames: handshake messages before {@link transportReady}, decrypted node bytes after.
 */
export class NoiseServer {
  private hash: Buffer
  private salt: Buffer
  private key: Buffer
  private counter = 0
  private inBytes = Buffer.alloc(0)
  private introSeen = false
  private ephemeral: KeyPair = newKeyPair()
  private transport: { enc: Buffer; dec: Buffer; readCounter: number; writeCounter: number } | null = null

  constructor(private readonly identity: ServerIdentity) {
    this.hash = Buffer.from(NOISE_MODE)
    this.salt = this.hash
    this.key = this.hash
    this.authenticate(NOISE_HEADER)
  }

  get transportReady(): boolean {
    return this.transport !== null
  }

  /** Splits incoming bytes into frames (drops the client's intro once). Decrypts in transport mode. */
  push(data: Buffer): Buffer[] {
    this.inBytes = Buffer.concat([this.inBytes, data])
    if (!this.introSeen) {
      if (this.inBytes.length < 4) return []
      if (this.inBytes[0] === 0x45 && this.inBytes[1] === 0x44) {
        if (this.inBytes.length < 7) return []
        const len = (this.inBytes[4]! << 16) | this.inBytes.readUInt16BE(5)
        if (this.inBytes.length < 7 + len + 4) return []
        this.inBytes = this.inBytes.subarray(7 + len)
      }
      if (!this.inBytes.subarray(0, 4).equals(NOISE_HEADER)) throw new Error('bad noise intro')
      this.inBytes = this.inBytes.subarray(4)
      this.introSeen = true
    }
    const frames: Buffer[] = []
    while (this.inBytes.length >= 3) {
      const size = (this.inBytes[0]! << 16) | (this.inBytes[1]! << 8) | this.inBytes[2]!
      if (this.inBytes.length < size + 3) break
      const frame = this.inBytes.subarray(3, size + 3)
      this.inBytes = this.inBytes.subarray(size + 3)
      if (this.transport) {
        frames.push(gcmDecrypt(frame, this.transport.dec, this.transport.readCounter++, Buffer.alloc(0)))
      } else {
        frames.push(Buffer.from(frame))
      }
    }
    return frames
  }

  /** A frame for the client: length-prefixed, encrypted once in transport mode. */
  frame(payload: Uint8Array): Buffer {
    const data = this.transport ? gcmEncrypt(payload, this.transport.enc, this.transport.writeCounter++, Buffer.alloc(0)) : Buffer.from(payload)
    const head = Buffer.from([(data.length >>> 16) & 0xff, (data.length >>> 8) & 0xff, data.length & 0xff])
    return Buffer.concat([head, data])
  }

  /** Answers the client hello (a `HandshakeMessage` with `clientHello.ephemeral`) with the server hello. */
  serverHello(clientHelloFrame: Buffer): Buffer {
    const hello = proto.HandshakeMessage.decode(clientHelloFrame)
    const clientEphemeral = Buffer.from(hello.clientHello?.ephemeral ?? [])
    if (clientEphemeral.length !== 32) throw new Error('client hello without an ephemeral key')
    this.authenticate(clientEphemeral)
    this.authenticate(this.ephemeral.public)
    this.mix(Curve.sharedKey(this.ephemeral.private, clientEphemeral))
    const staticEnc = this.encrypt(this.identity.static.public)
    this.mix(Curve.sharedKey(this.identity.static.private, clientEphemeral))
    const payloadEnc = this.encrypt(this.identity.certChain)
    return this.frame(proto.HandshakeMessage.encode({ serverHello: { ephemeral: this.ephemeral.public, static: staticEnc, payload: payloadEnc } }).finish())
  }

  /** Takes the client finish; switches to transport mode and answers the decoded `ClientPayload`. */
  clientFinish(frame: Buffer): { payload: proto.ClientPayload; noiseKey: Buffer } {
    const finish = proto.HandshakeMessage.decode(frame).clientFinish
    if (!finish?.static || !finish.payload) throw new Error('client finish without static key or payload')
    // Counter 1: the client decrypted our payload with 0, then encrypted its static.
    const noiseKey = this.decrypt(finish.static)
    this.mix(Curve.sharedKey(this.ephemeral.private, noiseKey))
    const payload = proto.ClientPayload.decode(this.decrypt(finish.payload))
    const [clientWrite, clientRead] = hkdf64(Buffer.alloc(0), this.salt)
    this.transport = { enc: clientRead, dec: clientWrite, readCounter: 0, writeCounter: 0 }
    return { payload, noiseKey }
  }

  private authenticate(data: Uint8Array): void {
    this.hash = sha256(Buffer.concat([this.hash, data]))
  }

  private mix(dh: Uint8Array): void {
    const [salt, key] = hkdf64(Buffer.from(dh), this.salt)
    this.salt = salt
    this.key = key
    this.counter = 0
  }

  private encrypt(plain: Uint8Array): Buffer {
    const out = gcmEncrypt(plain, this.key, this.counter++, this.hash)
    this.authenticate(out)
    return out
  }

  private decrypt(data: Uint8Array): Buffer {
    const out = gcmDecrypt(data, this.key, this.counter++, this.hash)
    this.authenticate(data)
    return out
  }
}
