/**
 * Image facts a WhatsApp image message carries (docs/api-seed.md §2.11): width, height and a small JPEG thumbnail
 * (base64, 32 px wide like Baileys' own). Uses sharp, which Baileys also uses for thumbnails.
 */
// sharp (a native image library, ~28 MB of RSS) loads at the first image, not at start (docs/benchmarks.md "Start time and idle memory").
const loadSharp = async () => (await import('sharp')).default

export interface ImageInfo {
  width: number
  height: number
  /** Base64 JPEG, or '' when the image cannot be decoded for a thumbnail. */
  jpegThumbnail: string
}

/** Reads dimensions and makes the thumbnail. Throws when the file is not a decodable image. */
export async function readImageInfo(path: string): Promise<ImageInfo> {
  const sharp = await loadSharp()
  const meta = await sharp(path).metadata()
  let jpegThumbnail = ''
  try {
    const thumb = await sharp(path).resize({ width: 32 }).jpeg({ quality: 50 }).toBuffer()
    jpegThumbnail = thumb.toString('base64')
  } catch {
    // An animated or exotic image still sends; it just has no preview.
  }
  return { width: meta.width ?? 0, height: meta.height ?? 0, jpegThumbnail }
}

/**
 * A preview of image bytes for the desk: JPEG at most `width` px wide (default 320), as a
 * `data:image/jpeg;base64,…` URL. Null when the bytes are not a decodable image.
 */
export async function previewDataUrl(data: Uint8Array, width = 320): Promise<string | null> {
  const sharp = await loadSharp()
  try {
    const jpeg = await sharp(data).rotate().resize({ width, withoutEnlargement: true }).jpeg({ quality: 70 }).toBuffer()
    return `data:image/jpeg;base64,${jpeg.toString('base64')}`
  } catch {
    return null
  }
}
