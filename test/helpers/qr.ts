/** Reads the text of a QR code image (PNG bytes or a `data:image/png;base64,` URL), as a phone camera would. */
import jsQR from 'jsqr'
import sharp from 'sharp'

export async function decodeQr(png: Buffer | string): Promise<string | undefined> {
  const bytes = typeof png === 'string' ? Buffer.from(png.replace(/^data:image\/png;base64,/, ''), 'base64') : png
  const { data, info } = await sharp(bytes).ensureAlpha().raw().toBuffer({ resolveWithObject: true })
  return jsQR(new Uint8ClampedArray(data), info.width, info.height)?.data
}
