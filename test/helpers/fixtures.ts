/**
 * Test fixtures: real files of each media kind (made at run time, no binaries in git) and a
 * multipart/form-data body builder for inject.
 */
import { randomBytes } from 'node:crypto'
import sharp from 'sharp'

/** A real PNG of the given size. */
export function png(width = 64, height = 48): Promise<Buffer> {
  return sharp({ create: { width, height, channels: 3, background: { r: 30, g: 140, b: 90 } } }).png().toBuffer()
}

/** A real JPEG of the given size. */
export function jpeg(width = 80, height = 60): Promise<Buffer> {
  return sharp({ create: { width, height, channels: 3, background: { r: 200, g: 60, b: 40 } } }).jpeg().toBuffer()
}

/** A minimal PDF (enough for magic-number detection). */
export function pdf(): Buffer {
  return Buffer.from('%PDF-1.4\n1 0 obj<</Type/Catalog>>endobj\ntrailer<</Root 1 0 R>>\n%%EOF\n')
}

/** An Ogg page whose first packet is an Opus header (detected as audio/ogg). */
export function oggOpus(): Buffer {
  const head = Buffer.alloc(28)
  head.write('OggS', 0, 'latin1')
  return Buffer.concat([head, Buffer.from('OpusHead', 'latin1'), randomBytes(64)])
}

/** An ISO BMFF header with brand isom (detected as video/mp4). */
export function mp4(): Buffer {
  const ftyp = Buffer.alloc(24)
  ftyp.writeUInt32BE(24, 0)
  ftyp.write('ftypisom', 4, 'latin1')
  ftyp.writeUInt32BE(0x200, 12)
  ftyp.write('isomiso2', 16, 'latin1')
  return Buffer.concat([ftyp, randomBytes(256)])
}

export interface FilePart {
  name?: string
  filename: string
  contentType: string
  data: Buffer
}

/** A multipart/form-data body with text fields and an optional file part. */
export function multipart(fields: Record<string, string>, file?: FilePart): { payload: Buffer; headers: Record<string, string> } {
  const boundary = `----chatapp${randomBytes(8).toString('hex')}`
  const chunks: Buffer[] = []
  for (const [k, v] of Object.entries(fields)) {
    chunks.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${k}"\r\n\r\n${v}\r\n`))
  }
  if (file) {
    chunks.push(
      Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="${file.name ?? 'file'}"; filename="${file.filename}"\r\nContent-Type: ${file.contentType}\r\n\r\n`
      ),
      file.data,
      Buffer.from('\r\n')
    )
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`))
  return { payload: Buffer.concat(chunks), headers: { 'content-type': `multipart/form-data; boundary=${boundary}` } }
}
