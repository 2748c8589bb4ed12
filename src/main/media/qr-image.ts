/**
 * The one QR renderer: a pairing payload (the `ref,noiseKey,identityKey,advSecret` string the channel
 * publishes) as a PNG, for the scan route, the UI and its events. 320 px with a 2-module quiet zone,
 * which phones read from a laptop screen at arm's length.
 */
import QRCode from 'qrcode'

const OPTIONS = { margin: 2, width: 320 } as const

/** The QR as PNG bytes. */
export function qrPng(payload: string): Promise<Buffer> {
  return QRCode.toBuffer(payload, { ...OPTIONS, type: 'png' })
}

/** The QR as a `data:image/png;base64,…` URL. */
export function qrDataUrl(payload: string): Promise<string> {
  return QRCode.toDataURL(payload, OPTIONS)
}
