/**
 * A fake WhatsApp media host (test code): HTTPS on 127.0.0.1 with the test-only certificate in
 * ./tls (trusted through NODE_EXTRA_CA_CERTS, see vitest.config.ts; regenerate with tls/make-certs.sh).
 *
 * The protocol test server announces it in its `media_conn` answer as `<host hostname="127.0.0.1:PORT"/>`
 * (queries.ts), so the unmodified library talks to it:
 * - upload (node_modules/baileys/lib/Utils/messages-media.js `getWAUploadToServer`, with node's https):
 *   `POST /mms/<type>/<fileEncSha256, base64url>?auth=<media_conn auth>&token=<the same hash>`, body =
 *   the encrypted blob. Answered like WhatsApp with JSON `{url, direct_path}`; a wrong auth is 401, a
 *   body whose sha256 is not the token is 400.
 * - download (`downloadContentFromMessage`, with global fetch): `GET https://<host of the message url><directPath>`
 *   serves the stored blob (404 when unknown).
 * Peers of the server store blobs directly ({@link MediaHost.put}) and read them ({@link MediaHost.get}).
 */
import { createHash, randomBytes } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { createServer, type Server } from 'node:https'
import type { AddressInfo } from 'node:net'

/** Where a stored blob lives: the message's `url` and `directPath`. */
export interface MediaLocation {
  url: string
  directPath: string
}

/** One upload the client made. */
export interface MediaUpload extends MediaLocation {
  /** The upload path's type segment (`image`, `video`, `audio`, `document`). */
  type: string
  /** Blob size in bytes (ciphertext and mac). */
  size: number
}

export interface MediaHost {
  /** `127.0.0.1:PORT`: the `hostname` of the `media_conn` answer. */
  readonly host: string
  /** The `auth` token of the `media_conn` answer; uploads must carry it. */
  readonly auth: string
  /** Stores `blob` as if uploaded as `type`; answers its location. */
  put(type: string, blob: Buffer): MediaLocation
  /** The blob stored at a direct path or full URL (its query ignored), if any. */
  get(pathOrUrl: string): Buffer | undefined
  /** Uploads the client made, in order. */
  uploads(): MediaUpload[]
  /** GETs served (path and status), in order. */
  downloads(): Array<{ path: string; status: number }>
  close(): Promise<void>
}

const tls = (name: string): Buffer => readFileSync(new URL(`./tls/${name}`, import.meta.url))

/** base64url without padding, as the library writes the hash in the upload path. */
const b64url = (buf: Buffer): string => buf.toString('base64url')

/** Starts a media host on an ephemeral port of 127.0.0.1. */
export async function startMediaHost(): Promise<MediaHost> {
  const blobs = new Map<string, Buffer>()
  const uploads: MediaUpload[] = []
  const downloads: Array<{ path: string; status: number }> = []
  const auth = randomBytes(24).toString('base64')
  let host = ''

  /** WhatsApp-like names: `/v/t62.7118-24/<random>.enc?ccb=11-4&oh=…&oe=…&_nc_sid=…`. */
  function put(type: string, blob: Buffer): MediaLocation {
    const pathname = `/v/t62.7118-24/${randomBytes(12).toString('hex')}_${type}.enc`
    const directPath = `${pathname}?ccb=11-4&oh=01_TEST${randomBytes(8).toString('hex')}&oe=${Math.floor(Date.now() / 1000 + 14 * 86400).toString(16).toUpperCase()}&_nc_sid=5e03e0`
    blobs.set(pathname, blob)
    return { url: `https://${host}${directPath}&mms3=true`, directPath }
  }

  const pathOf = (pathOrUrl: string): string => new URL(pathOrUrl, 'https://media.invalid').pathname

  const server: Server = createServer({ cert: tls('media-host.crt'), key: tls('media-host.key') }, (req, res) => {
    const url = new URL(req.url ?? '/', `https://${host}`)
    const json = (status: number, body: unknown): void => void res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body))
    if (req.method === 'POST' && url.pathname.startsWith('/mms/')) {
      const chunks: Buffer[] = []
      req.on('data', (c: Buffer) => chunks.push(c))
      req.on('end', () => {
        const type = url.pathname.split('/')[2] ?? ''
        if (url.searchParams.get('auth') !== auth) return json(401, { error: 'bad auth' })
        const blob = Buffer.concat(chunks)
        const token = url.searchParams.get('token')
        if (token !== b64url(createHash('sha256').update(blob).digest()) || !url.pathname.endsWith(`/${token}`)) return json(400, { error: 'hash mismatch' })
        const location = put(type, blob)
        uploads.push({ ...location, type, size: blob.length })
        json(200, { url: location.url, direct_path: location.directPath })
      })
      return
    }
    if (req.method === 'GET') {
      const blob = blobs.get(url.pathname)
      downloads.push({ path: url.pathname, status: blob ? 200 : 404 })
      if (!blob) return void res.writeHead(404).end()
      return void res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': blob.length }).end(blob)
    }
    res.writeHead(405).end()
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  host = `127.0.0.1:${(server.address() as AddressInfo).port}`

  return {
    get host() {
      return host
    },
    auth,
    put,
    get: (pathOrUrl) => blobs.get(pathOf(pathOrUrl)),
    uploads: () => [...uploads],
    downloads: () => [...downloads],
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections()
        server.close((err) => (err ? reject(err) : resolve()))
      })
  }
}
