/**
 * The `fetch` the openai SDK calls the endpoint through (./model-client.ts): undici's `request` over
 * the guarded dispatcher (./endpoint-guard.ts), the answer read whole and handed back as a `Response`.
 *
 * Why not Node's `fetch` (undici's, as the SDK would use): it registers every answer's body stream
 * with a FinalizationRegistry through a WeakRef (undici lib/web/fetch/response.js, `registry` in
 * `fromInnerResponse`), and V8's young-generation collections keep a WeakRef's target alive. So each
 * call's stream, and everything it holds (the request, the answer's bytes, undici's state for both),
 * outlived the call, was copied and promoted by the main thread's collections and waited for a full
 * collection: with calls through `fetch`, the desk's main thread kept 4–7 MB of every 47 MB it
 * allocated past a young collection, whose pauses grew from under 1 ms to 6–12 ms (docs/benchmarks.md
 * "The model call's garbage"). The webhooks' transport uses undici's `request` for its CPU cost
 * already (../webhooks/webhook-transport.ts).
 *
 * Like that transport, this follows no redirect: a 3xx is the endpoint's answer (the SDK reports its
 * status). A body other than text (a voice note's form, for transcriptions) still goes through Node's
 * `fetch`: it is rare, and undici's `request` takes no FormData of Node's.
 */
import { STATUS_CODES } from 'node:http'
import { promisify } from 'node:util'
import zlib from 'node:zlib'
import { request, type Dispatcher } from 'undici'

/** The largest answer read (bytes): 32 embeddings of 3,072 numbers as JSON are about 2 MB. */
export const MAX_ANSWER_BYTES = 16 * 1024 * 1024

/** The endpoint answered more than {@link MAX_ANSWER_BYTES}: nothing of it is used. */
export class AnswerTooLargeError extends Error {
  constructor(readonly limit: number) {
    super(`the endpoint's answer is larger than ${limit} bytes`)
    this.name = 'AnswerTooLargeError'
  }
}

const gunzip = promisify(zlib.gunzip)
const inflate = promisify(zlib.inflate)
const brotli = promisify(zlib.brotliDecompress)

/** `bytes` decoded from `encoding` (none, gzip, deflate, br; off the main thread: zlib's pool), at most `maxBytes`. */
async function decoded(bytes: Buffer, encoding: string, maxBytes: number): Promise<Buffer> {
  const coding = encoding.trim().toLowerCase()
  if (coding === '' || coding === 'identity') return bytes
  const decode = coding === 'gzip' || coding === 'x-gzip' ? gunzip : coding === 'deflate' ? inflate : coding === 'br' ? brotli : null
  if (!decode) throw new TypeError(`the endpoint's answer is encoded as ${coding}, which this app cannot read`)
  try {
    return await decode(bytes, { maxOutputLength: maxBytes })
  } catch (err) {
    if ((err as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE') throw new AnswerTooLargeError(maxBytes)
    throw err
  }
}

/**
 * A `fetch` for the SDK over `dispatcher` (asked at each call). Rejects like `fetch` for a failed
 * connection or an aborted signal (with the signal's reason), and with {@link AnswerTooLargeError}.
 */
export function requestFetch(dispatcher: () => Dispatcher, maxBytes = MAX_ANSWER_BYTES): typeof fetch {
  return (async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const body = init?.body
    if ((body !== undefined && body !== null && typeof body !== 'string') || input instanceof Request) {
      return fetch(input, { ...init, dispatcher: dispatcher() } as RequestInit)
    }
    const headers: Record<string, string> = {}
    new Headers(init?.headers).forEach((value, name) => (headers[name] = value))
    // `fetch` asks for compressed answers and decodes them; `request` does neither: ask for none, and
    // decode one that comes anyway (a request without Accept-Encoding allows any: RFC 9110 §12.5.3).
    headers['accept-encoding'] ??= 'identity'
    const res = await request(input, { method: init?.method ?? 'GET', headers, body: body ?? undefined, signal: init?.signal ?? undefined, dispatcher: dispatcher() })
    const chunks: Buffer[] = []
    let size = 0
    for await (const chunk of res.body as AsyncIterable<Buffer>) {
      size += chunk.length
      if (size > maxBytes) {
        res.body.destroy()
        throw new AnswerTooLargeError(maxBytes)
      }
      chunks.push(chunk)
    }
    const answerHeaders = new Headers()
    for (const [name, value] of Object.entries(res.headers)) {
      if (value === undefined || name === 'content-encoding' || name === 'content-length') continue
      for (const v of Array.isArray(value) ? value : [value]) answerHeaders.append(name, v)
    }
    const empty = res.statusCode === 204 || res.statusCode === 205 || res.statusCode === 304
    const answer = empty ? null : await decoded(Buffer.concat(chunks, size), String(res.headers['content-encoding'] ?? ''), maxBytes)
    return new Response(answer, { status: res.statusCode, statusText: STATUS_CODES[res.statusCode] ?? '', headers: answerHeaders })
  })
}
