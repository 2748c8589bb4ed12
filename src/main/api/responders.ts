/**
 * Answers of the operations that are not the JSON envelope (named by `http.respond` in the operation
 * table): the pairing QR as an image, attachment and inbound-media files, survey responses as CSV.
 */
import { createReadStream } from 'node:fs'
import type { FastifyReply } from 'fastify'
import type { Responder } from '../../shared/operations/define'
import type { Attachment } from '../../shared/schemas/records'
import { qrDataUrl, qrPng } from '../media/qr-image'
import { ok } from './envelope'
import { SESSION_COOKIE } from '../services/people'
import type { SessionViewT } from '../../shared/operations/table/people'

/** `Content-Disposition` for a download named `fileName` (RFC 6266 / RFC 5987 encoding). */
function attachmentDisposition(fileName: string): string {
  return `attachment; filename*=UTF-8''${encodeURIComponent(fileName)}`
}

/**
 * ` Secure` when the request came over https — which this plain-HTTP server learns only from a trusted
 * proxy's `X-Forwarded-Proto` (`CHATAPP_TRUST_PROXY`): the browser then never sends the session over
 * plain HTTP. Empty otherwise (loopback, where a Secure cookie would not be kept).
 */
function secure(reply: FastifyReply): string {
  return reply.request.protocol === 'https' ? ' Secure;' : ''
}

type Respond = (reply: FastifyReply, result: unknown, input: Record<string, unknown>, message: string) => Promise<unknown>

/**
 * The headers every file answer carries: the browser must take the declared type as it is (a file
 * uploaded as an image must never be sniffed into HTML and run on this origin) and save it rather
 * than show it in place (`Content-Disposition: attachment`, the file's name or `fallback`).
 */
function asFile(reply: FastifyReply, fileName: string | undefined, fallback: string): FastifyReply {
  return reply.header('X-Content-Type-Options', 'nosniff').header('Content-Disposition', attachmentDisposition(fileName || fallback))
}

export const RESPONDERS: Record<Responder, Respond> = {
  /** docs/api-seed.md scan: a PNG by default, the envelope with a data URL when `format=base64text`. */
  async qrImage(reply, result, input, message) {
    const { qr, status } = result as { qr: string; status: string }
    if (input.format === 'base64text') return ok(message, { qrcode: await qrDataUrl(qr), status })
    return asFile(reply, undefined, 'qr.png').header('Cache-Control', 'no-store').type('image/png').send(await qrPng(qr))
  },
  async attachmentFile(reply, result) {
    const { attachment: a, path } = result as { attachment: Attachment; path: string }
    return asFile(reply, a.filename, 'attachment').type(a.mimetype).header('Content-Length', a.size).send(createReadStream(path))
  },
  async mediaFile(reply, result) {
    const media = result as { data: Uint8Array; mimetype: string; fileName?: string }
    asFile(reply, media.fileName, 'media').type(media.mimetype)
    return reply.send(Buffer.from(media.data.buffer, media.data.byteOffset, media.data.byteLength))
  },
  /** A file made for this answer, streamed: `{filename, contentType, stream}` (a backup). */
  async download(reply, result) {
    const d = result as { filename: string; contentType: string; stream: NodeJS.ReadableStream }
    return asFile(reply, d.filename, 'download').type(d.contentType).header('Cache-Control', 'no-store').send(d.stream)
  },
  /** A page of a list: the records as `data` (the seed's shape), their total in `X-Total-Count`. */
  async paged(reply, result, _input, message) {
    const { items, total } = result as { items: unknown[]; total: number }
    void reply.header('X-Total-Count', String(total))
    return ok(message, items)
  },
  /** 204 and no body (the original service's broadcast delete). */
  async noContent(reply) {
    return reply.code(204).send()
  },
  /** A new web session: the session cookie (HttpOnly, SameSite=Strict) and the envelope with the session's tokens. */
  async startSession(reply, result, _input, message) {
    const s = result as SessionViewT
    const maxAge = Math.max(0, Math.floor((Date.parse(s.expires_at) - Date.now()) / 1000))
    void reply.header('Set-Cookie', `${SESSION_COOKIE}=${encodeURIComponent(s.token)}; Path=/; HttpOnly;${secure(reply)} SameSite=Strict; Max-Age=${maxAge}`).header('Cache-Control', 'no-store')
    return ok(message, s)
  },
  /** A session ended: the cookie is cleared. */
  async endSession(reply, result, _input, message) {
    void reply.header('Set-Cookie', `${SESSION_COOKIE}=; Path=/; HttpOnly;${secure(reply)} SameSite=Strict; Max-Age=0`)
    return ok(message, result)
  },
  /** The JSON envelope, or with `format=csv` the file (docs/design.md §9). */
  async csvWhenAsked(reply, result, _input, message) {
    // A runner answers the CSV file as {fileName, csv}; anything else is the JSON answer.
    const file = result as { fileName?: unknown; csv?: unknown } | null
    if (typeof file?.fileName !== 'string' || typeof file.csv !== 'string') return ok(message, result)
    const { fileName, csv } = result as { fileName: string; csv: string }
    return asFile(reply, fileName, 'export.csv').type('text/csv; charset=utf-8').send(csv)
  }
}
