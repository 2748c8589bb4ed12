/**
 * The fake phone's side of QR pairing (test code), checked by the client in
 * node_modules/baileys/lib/Utils/validate-connection.js `configureSuccessfulPairing`.
 *
 * The QR is `https://wa.me/settings/linked_devices#ref,noiseKeyB64,identityKeyB64,advSecretB64,platform`.
 * The phone signs `[6,0] ‖ ADVDeviceIdentity ‖ companion identity key` with its account key, wraps it as
 * `ADVSignedDeviceIdentity`, MACs that with the companion's ADV secret (`ADVSignedDeviceIdentityHMAC`)
 * and the server delivers it in `<pair-success>` with the companion's new JIDs.
 */
import { Curve, proto, type BinaryNode } from 'baileys'
import type { KeyPair } from './noise'
import { createHmac } from 'node:crypto'
import { node, S_WHATSAPP_NET } from './nodes'

export interface PairingQr {
  ref: string
  noiseKey: Buffer
  identityKey: Buffer
  advSecret: Buffer
  platform: string
}

/** Parses the text of a pairing QR. */
export function parsePairingQr(qr: string): PairingQr {
  const payload = qr.includes('#') ? qr.slice(qr.indexOf('#') + 1) : qr
  const [ref, noiseKey, identityKey, advSecret, platform] = payload.split(',')
  if (!ref || !noiseKey || !identityKey || !advSecret) throw new Error(`not a pairing QR: ${qr}`)
  return {
    ref,
    noiseKey: Buffer.from(noiseKey, 'base64'),
    identityKey: Buffer.from(identityKey, 'base64'),
    advSecret: Buffer.from(advSecret, 'base64'),
    platform: platform ?? ''
  }
}

/** The `<iq><pair-success>` a server sends once the phone accepted the QR. */
export function pairSuccessIq(
  id: string,
  qr: Pick<PairingQr, 'identityKey' | 'advSecret'>,
  account: KeyPair,
  device: { jid: string; lid: string; keyIndex: number; platform?: string; businessName?: string }
): BinaryNode {
  const details = Buffer.from(proto.ADVDeviceIdentity.encode({ rawId: 1, timestamp: Math.floor(Date.now() / 1000), keyIndex: device.keyIndex }).finish())
  const accountSignature = Buffer.from(Curve.sign(account.private, Buffer.concat([Buffer.from([6, 0]), details, qr.identityKey])))
  const signed = Buffer.from(proto.ADVSignedDeviceIdentity.encode({ details, accountSignatureKey: account.public, accountSignature }).finish())
  const hmac = createHmac('sha256', qr.advSecret).update(signed).digest()
  const identity = Buffer.from(proto.ADVSignedDeviceIdentityHMAC.encode({ details: signed, hmac }).finish())
  return node('iq', { from: S_WHATSAPP_NET, type: 'set', id, t: Math.floor(Date.now() / 1000) }, [
    node('pair-success', {}, [
      node('device-identity', {}, identity),
      node('platform', { name: device.platform ?? 'android' }),
      node('device', { jid: device.jid, lid: device.lid }),
      ...(device.businessName ? [node('biz', { name: device.businessName })] : [])
    ])
  ])
}
