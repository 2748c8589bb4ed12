/**
 * Linking a companion on today's WhatsApp: the QR's adv secret refresh and the pairing-code request
 * (docs/baileys.md "Pairing"). Baileys 7.0.0-rc14 fails both against the live service; the product
 * answers both from outside the library, through the socket's public surface (its websocket's node
 * events, `query`, `authState`), so no patch of the library is carried:
 *
 * - `<notification type="companion_reg_refresh">` (WhiskeySockets/Baileys #2737, open PR #2765): the
 *   server retires the adv secret the QR advertises. rc14 acks and drops it (lib/Socket/messages-recv.js
 *   handleNotification), so its QR keeps the retired secret and phones answer "Couldn't link device".
 *   WA Web (`WAWebHandleCompanionReqRefreshNotification`) makes a new 32-byte secret and re-renders the
 *   CURRENT ref. We do the same: {@link rotateAdvSecret} writes the new secret into `creds` (the object
 *   the socket verifies `pair-success` with, lib/Utils/validate-connection.js configureSuccessfulPairing)
 *   and every QR the library emits afterwards is rewritten with {@link withAdvSecret}, because
 *   lib/Socket/socket.js genPairQR captured the old secret when the refs arrived.
 *   Never after a pairing-code stage 2 (whatsapp-rust PR #1163): the phone's `primary_hello` derives the
 *   secret the pending `pair-success` HMAC is computed over.
 * - Pairing code (PR #2769, issue #2764): rc14's `requestPairingCode` sends
 *   `companion_platform_display = "${browser[1]} (${browser[0]})"`, and the server answers 400
 *   bad-request when browser[0] is a product name ("Chrome (Chatapp Desk)"); worse, it returns a locally
 *   made code without waiting for that answer. {@link requestPairingCode} sends the same stanza through
 *   `query` (the server's answer is awaited and an error rejects) with a display the server accepts
 *   ("Chrome (Windows)": browser name and this PC's OS), while `browser[0]` stays the product name that
 *   the phone lists under Linked devices (DeviceProps.os, lib/Utils/validate-connection.js).
 */
import { randomBytes } from 'node:crypto'
import { platform } from 'node:os'
import {
  aesEncryptCTR,
  bytesToCrockford,
  derivePairingCodeKey,
  getCompanionPlatformId,
  jidEncode,
  S_WHATSAPP_NET,
  type AuthenticationCreds,
  type BinaryNode,
  type WABrowserDescription
} from 'baileys'

/** Bytes of an adv secret, as WA Web's `generateADVSecretKey` makes it. */
export const ADV_SECRET_BYTES = 32

/** A new adv secret, base64 (the form `creds.advSecretKey` and the QR use). */
export function newAdvSecret(random: (n: number) => Buffer = randomBytes): string {
  return random(ADV_SECRET_BYTES).toString('base64')
}

/**
 * The pairing QR text with its adv secret replaced. The QR is
 * `https://wa.me/settings/linked_devices#ref,noiseKeyB64,identityKeyB64,advSecretB64,platform`
 * (lib/Utils/companion-reg-client-utils.js buildPairingQRData); anything else comes back unchanged.
 */
export function withAdvSecret(qr: string, advSecretB64: string): string {
  const hash = qr.indexOf('#')
  if (hash < 0) return qr
  const fields = qr.slice(hash + 1).split(',')
  if (fields.length < 4) return qr
  fields[3] = advSecretB64
  return `${qr.slice(0, hash + 1)}${fields.join(',')}`
}

/** The OS names WA Web puts in the pairing-code display (PR #2769: "Chrome (Windows)" is accepted). */
const DISPLAY_OS: Partial<Record<NodeJS.Platform, string>> = { win32: 'Windows', darwin: 'Mac OS', linux: 'Linux' }

/**
 * `companion_platform_display` of a pairing-code request: `<browser> (<OS>)` with this PC's OS name,
 * never the product name (PR #2769). `os` is Node's platform id; unknown platforms count as Linux.
 */
export function pairingDisplay(browser: WABrowserDescription, os: NodeJS.Platform = platform()): string {
  return `${browser[1]} (${DISPLAY_OS[os] ?? 'Linux'})`
}

/** What {@link requestPairingCode} needs of the socket (lib/Socket/socket.js). */
export interface PairingSocket {
  authState: { creds: AuthenticationCreds }
  query(node: BinaryNode, timeoutMs?: number): Promise<unknown>
  ev: { emit(event: 'creds.update', update: Partial<AuthenticationCreds>): boolean }
}

/** The server refused a pairing-code request; `code` is its error code (e.g. 400), when given. */
export class PairingRefusedError extends Error {
  constructor(
    readonly code: number | undefined,
    why: string
  ) {
    super(why)
    this.name = 'PairingRefusedError'
  }
}

/**
 * Registers a pairing code for `phoneDigits` with the server (stage `companion_hello`) and answers
 * the 8-character code to type on the phone, only once the server accepted it. Throws
 * {@link PairingRefusedError} when the server answers an error (e.g. 400 bad-request). Mirrors rc14's
 * `requestPairingCode` (lib/Socket/socket.js) but awaits the answer and sets `creds.me` only after it;
 * stage 2 (`primary_hello`) stays the library's (lib/Socket/messages-recv.js), which reads
 * `creds.pairingCode` and `creds.me`.
 */
export async function requestPairingCode(sock: PairingSocket, phoneDigits: string, browser: WABrowserDescription, os?: NodeJS.Platform): Promise<string> {
  const creds = sock.authState.creds
  const code = bytesToCrockford(randomBytes(5))
  const salt = randomBytes(32)
  const iv = randomBytes(16)
  const key = await derivePairingCodeKey(code, salt)
  const wrappedEphemeral = Buffer.concat([salt, iv, aesEncryptCTR(creds.pairingEphemeralKeyPair.public, key, iv)])
  const jid = jidEncode(phoneDigits, 's.whatsapp.net')
  const stanza: BinaryNode = {
    tag: 'iq',
    attrs: { to: S_WHATSAPP_NET, type: 'set', xmlns: 'md' },
    content: [
      {
        tag: 'link_code_companion_reg',
        attrs: { jid, stage: 'companion_hello', should_show_push_notification: 'true' },
        content: [
          { tag: 'link_code_pairing_wrapped_companion_ephemeral_pub', attrs: {}, content: wrappedEphemeral },
          { tag: 'companion_server_auth_key_pub', attrs: {}, content: creds.noiseKey.public },
          { tag: 'companion_platform_id', attrs: {}, content: getCompanionPlatformId(browser) },
          { tag: 'companion_platform_display', attrs: {}, content: pairingDisplay(browser, os) },
          { tag: 'link_code_pairing_nonce', attrs: {}, content: '0' }
        ]
      }
    ]
  }
  try {
    await sock.query(stanza)
  } catch (err) {
    // lib/WABinary/generic-utils.js assertNodeErrorFree: Boom with the server's code in `data`.
    const data = (err as { data?: unknown }).data
    const serverCode = typeof data === 'number' ? data : undefined
    throw new PairingRefusedError(serverCode, err instanceof Error ? err.message : String(err))
  }
  creds.pairingCode = code
  creds.me = { id: jid, name: '~' }
  sock.ev.emit('creds.update', { pairingCode: code, me: creds.me })
  return code
}
