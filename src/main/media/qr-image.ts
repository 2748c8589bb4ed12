/**
 * The one QR renderer: a pairing payload (the `ref,noiseKey,identityKey,advSecret` string the channel
 * publishes) as a PNG, for the scan route, the UI and its events. 320 px with a 2-module quiet zone,
 * which phones read from a laptop screen at arm's length.
 */
// Loaded at the first QR (pairing), not at start (docs/benchmarks.md "Start time and idle memory").
const loadQr = async () => (await import('qrcode')).default

const OPTIONS = { margin: 2, width: 320 } as const

/** The QR as PNG bytes. */
export async function qrPng(payload: string): Promise<Buffer> {
  return (await loadQr()).toBuffer(payload, { ...OPTIONS, type: 'png' })
}

/** The QR as a `data:image/png;base64,…` URL. */
export async function qrDataUrl(payload: string): Promise<string> {
  return (await loadQr()).toDataURL(payload, OPTIONS)
}
