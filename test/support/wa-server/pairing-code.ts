/**
 * Pairing by code on the protocol test server (test code): the server's and the phone's side of the
 * exchange the client runs in node_modules/baileys/lib (stage 1 `companion_hello`: Socket/socket.js
 * requestPairingCode; stage 2 `primary_hello` → `companion_finish`: Socket/messages-recv.js
 * handleNotification `link_code_companion_reg`).
 *
 * 1. The client registers a code: `<iq xmlns="md"><link_code_companion_reg stage="companion_hello">`
 *    with its pairing ephemeral key wrapped under the code (salt‖iv‖AES-CTR, key = PBKDF2 of the code),
 *    its platform id and `companion_platform_display`. The live service answers 400 bad-request when
 *    the display names a product instead of an OS (WhiskeySockets/Baileys PR #2769: "Chrome (Acme)" is
 *    refused, "Chrome (Windows)" accepted); else a result with the pairing ref.
 * 2. The owner types the code on the phone ({@link PhoneCodeEntry}): the phone unwraps the client's
 *    ephemeral key, wraps its own, and the server sends `<notification type="link_code_companion_reg">`
 *    `<link_code_companion_reg stage="primary_hello">` with the ref, the account identity key and it.
 * 3. The client answers `companion_finish` with a key bundle (its identity key, the phone's, 32 random
 *    bytes) under HKDF(DH of the ephemerals); both sides derive the adv secret
 *    HKDF(ephemeral DH ‖ identity DH ‖ random, info "adv_secret"), and the server sends `pair-success`
 *    MACed with it.
 */
import { aesDecryptCTR, aesDecryptGCM, aesEncryptCTR, Curve, derivePairingCodeKey, hkdf, type BinaryNode } from 'baileys'
import { randomBytes } from 'node:crypto'
import { bytes, child, iqResult, node, S_WHATSAPP_NET } from './nodes'
import type { KeyPair } from './noise'

/** Browser names and OS names the test server accepts in `companion_platform_display` (`<browser> (<os>)`). */
const BROWSERS = ['Chrome', 'Edge', 'Firefox', 'IE', 'Opera', 'Safari']
const OSES = ['Windows', 'Mac OS', 'Linux', 'Ubuntu', 'ChromeOS']

/** True when the live service accepts `display` (PR #2769). */
export function acceptedPlatformDisplay(display: string): boolean {
  const m = /^(.+) \((.+)\)$/.exec(display)
  return Boolean(m && BROWSERS.includes(m[1]!) && OSES.includes(m[2]!))
}

/** A code registration the client made (stage 1), waiting for the owner to type the code. */
export interface CodeRegistration {
  ref: string
  /** The phone-number JID the client named. */
  jid: string
  wrappedCompanionEphemeral: Buffer
  display: string
  /** Set once the phone answered (stage 2). */
  phoneEphemeral?: KeyPair
  companionEphemeral?: Buffer
}

/** Parses stage 1; answers the registration, or the error iq to send back. */
export function companionHello(iq: BinaryNode): { registration: CodeRegistration; answer: BinaryNode } | { answer: BinaryNode } {
  const reg = child(iq, 'link_code_companion_reg')!
  const display = bytes(child(reg, 'companion_platform_display')).toString('utf8')
  if (!acceptedPlatformDisplay(display)) {
    return { answer: node('iq', { from: S_WHATSAPP_NET, type: 'error', id: iq.attrs.id }, [node('error', { code: '400', text: 'bad-request' })]) }
  }
  const ref = `CODEREF-${randomBytes(6).toString('hex')}`
  return {
    registration: { ref, jid: reg.attrs.jid ?? '', wrappedCompanionEphemeral: bytes(child(reg, 'link_code_pairing_wrapped_companion_ephemeral_pub')), display },
    answer: iqResult(iq, [node('link_code_companion_reg', {}, [node('link_code_pairing_ref', {}, Buffer.from(ref))])])
  }
}

/**
 * The phone's stage 2 for `code`: the `primary_hello` notification for the client. Throws when the
 * code does not unwrap the client's key (a mistyped code).
 */
export async function primaryHello(registration: CodeRegistration, code: string, account: KeyPair): Promise<BinaryNode> {
  const wrapped = registration.wrappedCompanionEphemeral
  const companionEphemeral = aesDecryptCTR(wrapped.subarray(48, 80), await derivePairingCodeKey(code, wrapped.subarray(0, 32)), wrapped.subarray(32, 48))
  const k = Curve.generateKeyPair()
  const phoneEphemeral = { public: Buffer.from(k.public), private: Buffer.from(k.private) }
  const salt = randomBytes(32)
  const iv = randomBytes(16)
  const wrappedPrimary = Buffer.concat([salt, iv, aesEncryptCTR(phoneEphemeral.public, await derivePairingCodeKey(code, salt), iv)])
  registration.phoneEphemeral = phoneEphemeral
  registration.companionEphemeral = Buffer.from(companionEphemeral)
  return node('notification', { from: S_WHATSAPP_NET, type: 'link_code_companion_reg', id: `link-${registration.ref}`, t: Math.floor(Date.now() / 1000) }, [
    node('link_code_companion_reg', { stage: 'primary_hello' }, [
      node('link_code_pairing_ref', {}, Buffer.from(registration.ref)),
      node('primary_identity_pub', {}, account.public),
      node('link_code_pairing_wrapped_primary_ephemeral_pub', {}, wrappedPrimary)
    ])
  ])
}

/**
 * Reads the client's `companion_finish` iq: its identity key and the adv secret both sides now share.
 * Throws when the bundle does not decrypt or names other keys.
 */
export function companionFinish(iq: BinaryNode, registration: CodeRegistration, account: KeyPair): { identityKey: Buffer; advSecret: Buffer } {
  const reg = child(iq, 'link_code_companion_reg')!
  if (!registration.phoneEphemeral || !registration.companionEphemeral) throw new Error('companion_finish before primary_hello')
  const bundle = bytes(child(reg, 'link_code_pairing_wrapped_key_bundle'))
  const companionShared = Buffer.from(Curve.sharedKey(registration.phoneEphemeral.private, registration.companionEphemeral))
  const key = hkdf(companionShared, 32, { salt: bundle.subarray(0, 32), info: 'link_code_pairing_key_bundle_encryption_key' })
  const plain = Buffer.from(aesDecryptGCM(bundle.subarray(44), key, bundle.subarray(32, 44), Buffer.alloc(0)))
  const identityKey = plain.subarray(0, 32)
  if (!plain.subarray(32, 64).equals(account.public)) throw new Error('the key bundle names another primary identity')
  if (!identityKey.equals(bytes(child(reg, 'companion_identity_public')))) throw new Error('the key bundle names another companion identity')
  const identityShared = Buffer.from(Curve.sharedKey(account.private, identityKey))
  const advSecret = Buffer.from(hkdf(Buffer.concat([companionShared, identityShared, plain.subarray(64, 96)]), 32, { info: 'adv_secret' }))
  return { identityKey: Buffer.from(identityKey), advSecret }
}
