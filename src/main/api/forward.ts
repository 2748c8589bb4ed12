/**
 * Any worker answers any request (docs/design.md §22 "Forwarding"): a request for an
 * instance whose lease another live worker holds is relayed to that worker's URL, whole (method, path
 * and query, headers with the caller's own Authorization, the body streamed), and the owner's answer
 * (status, headers but the hop-by-hop ones, body) is relayed back unchanged. The owner authenticates
 * the caller again: tokens, keys and sessions live in the shared database.
 *
 * Between workers a forwarded request carries `X-Chatapp-Forwarded-By: <worker id>`, a timestamp and
 * an HMAC-SHA256 of worker, method, path and timestamp keyed by a secret every worker derives from the
 * shared account document (AccountService.forwardKey). The owner refuses a forged or stale signature
 * (401) and never forwards a forwarded request again (no loops): a forwarded request that reaches a
 * worker which does not run the instance answers 409 naming the owner. An owner out of reach: 503 with
 * Retry-After, nothing done here (this worker must not touch a socket it does not own); an owner that
 * took the request and broke off before answering: 503 saying it may have acted (an Idempotency-Key
 * makes the retry safe).
 */
import { createHmac, timingSafeEqual } from 'node:crypto'
import { openAsBlob } from 'node:fs'
import { PassThrough, type Readable } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import { setTimeout as delay } from 'node:timers/promises'
import type { FastifyReply, FastifyRequest } from 'fastify'
import { request, type FormData as UndiciFormData } from 'undici'
import type { Core } from '../core'
import { OPERATIONS, type OperationName } from '../../shared/operations/table'
import type { UploadedFile } from '../services/attachment-service'
import { AppError, RetryLaterError } from '../errors'
import { errorBody } from './envelope'

export const FORWARDED_BY = 'x-chatapp-forwarded-by'
const FORWARD_TS = 'x-chatapp-forward-ts'
const FORWARD_SIG = 'x-chatapp-forward-sig'
/** The configuration document's version the forwarder held: the owner catches up to it first. */
const FORWARD_CONFIG = 'x-chatapp-forward-config'
/** How old a forwarded request's signature may be (clock skew between workers plus transit). */
const MAX_SKEW_MS = 60_000
/** Retry-After of a 503 for an owner out of reach: about when a failover has placed the instance again. */
const RETRY_AFTER_S = 5

/** Operations that start an instance's session: they run where ClusterView.placeFor places them. */
const PLACED: ReadonlySet<string> = new Set(['instances.init'])

/**
 * True for an operation that starts a session ({@link PLACED}): forward it only once its (small JSON)
 * body is parsed, so that a start placed on a worker out of reach can still run here.
 */
export function startsSession(operation: string | undefined): boolean {
  return operation !== undefined && PLACED.has(operation)
}

/** Errors before the request reached the owner (no connection made): nothing can have been done there. */
const NOT_CONNECTED = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'UND_ERR_CONNECT_TIMEOUT'])

/** RFC 9110 §7.6.1 hop-by-hop fields, plus those the relay recomputes. */
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-authenticate', 'proxy-authorization', 'te', 'trailer', 'transfer-encoding', 'upgrade', 'host', 'content-length'])

declare module 'fastify' {
  interface FastifyRequest {
    /** The worker that forwarded this request (its signature checked), if any. */
    forwardedBy?: string
  }
}

function sign(key: Buffer, worker: string, method: string, path: string, ts: string): string {
  return createHmac('sha256', key).update(`${worker}\n${method}\n${path}\n${ts}`).digest('hex')
}

/**
 * The app-wide onRequest check of the worker header: a request that claims to come from a worker must
 * carry a valid, fresh signature (401 otherwise); then `req.forwardedBy` names the worker.
 */
export function checkForwarded(core: Core) {
  return async (req: FastifyRequest, reply: FastifyReply) => {
    const by = req.headers[FORWARDED_BY]
    if (by === undefined) return
    const ts = String(req.headers[FORWARD_TS] ?? '')
    const sig = Buffer.from(String(req.headers[FORWARD_SIG] ?? ''))
    const want = Buffer.from(sign(core.account.forwardKey(), String(by), req.method, req.url, ts))
    const fresh = Math.abs(Date.now() - Number(ts)) <= MAX_SKEW_MS
    if (!fresh || sig.length !== want.length || !timingSafeEqual(sig, want)) {
      return reply.status(401).send(errorBody(new AppError('UNAUTHORIZED', 'Invalid worker signature on a forwarded request.')))
    }
    req.forwardedBy = String(by)
    // An instance (or token, key) the forwarder knows may be too new for this worker's copy of the
    // document: its change notification can arrive after the forwarded request does.
    const version = Number(req.headers[FORWARD_CONFIG])
    if (Number.isSafeInteger(version)) await core.cluster.catchUp(version)
  }
}

/**
 * A multipart upload read here already (its fields, and its file in a temp file) as a form to send
 * again: the same fields, the file part named `file` with its name and declared type, read from disk
 * as undici sends it. Used when the credentials were only in the form's fields, so the owner was
 * known only after the body was read.
 */
export async function formOf(upload: { fields: Record<string, unknown>; file?: UploadedFile }): Promise<FormData> {
  const form = new FormData()
  for (const [name, value] of Object.entries(upload.fields)) if (typeof value === 'string') form.append(name, value)
  if (upload.file) form.append('file', await openAsBlob(upload.file.path, { type: upload.file.declaredMimetype ?? 'application/octet-stream' }), upload.file.filename)
  return form
}

/**
 * When another worker runs `instanceId`, relays the request there and answers true (the reply is
 * sent); false when this worker answers it. `body` is the request body to send: the raw stream (not
 * read yet), the parsed JSON, or a multipart form read already, built only if it is sent ({@link formOf}). A request already
 * forwarded is never forwarded again (409 naming the owner); an owner that cannot be reached answers
 * 503 with Retry-After. `operation`: the operation's name; a start (`instances.init`) of an instance no
 * worker holds goes to the least-loaded worker (ClusterView.placeFor).
 */
export async function forwardIfOwnedElsewhere(
  core: Core,
  req: FastifyRequest,
  reply: FastifyReply,
  instanceId: string,
  body: Readable | string | (() => Promise<FormData>) | undefined,
  operation?: string
): Promise<boolean> {
  // A change asked during a take-over waits for it, up to the bound and the caller's `Prefer: wait`;
  // reads answer at once (the status then says CONNECTING).
  const until = Date.now() + (req.method === 'GET' || readsOnly(operation) || req.forwardedBy || startsSession(operation) ? 0 : takeOverWait(core, req))
  for (;;) {
    const forwarded = await forwardOnce(core, req, reply, instanceId, body, operation, until)
    if (forwarded !== 'again') return forwarded
    await delay(Math.max(0, Math.min(core.cluster.takeOverPollMs, until - Date.now())))
  }
}

/**
 * `src` as a stream that starts reading `src` on its own first read (undici reads a body only once
 * connected); `started()` says whether it did. Destroying the wrapper before that leaves `src` as it was.
 */
function readOnDemand(src: Readable): { body: Readable; started(): boolean } {
  let started = false
  const body = new PassThrough()
  const start: (size?: number) => unknown = body.read.bind(body)
  body.read = (size?: number): unknown => {
    if (!started) {
      started = true
      src.pipe(body)
      src.once('error', (err) => body.destroy(err))
    }
    return start(size)
  }
  return { body, started: () => started }
}

/** True for an operation that only reads (its permission is a `…:read` one): the UI's `/rpc` reads are POSTs. */
function readsOnly(operation: string | undefined): boolean {
  const def = operation !== undefined && Object.hasOwn(OPERATIONS, operation) ? OPERATIONS[operation as OperationName] : undefined
  return def !== undefined && 'permission' in def && String(def.permission).endsWith(':read')
}

/**
 * How long a change may wait for a take-over here, ms: ClusterView.takeOverWaitMs, or less when the
 * caller asks with RFC 7240's `Prefer: wait=<seconds>` (0: answer at once).
 */
function takeOverWait(core: Core, req: FastifyRequest): number {
  const bound = core.cluster.takeOverWaitMs
  const prefer = String(req.headers.prefer ?? '')
  const m = /(?:^|[,;\s])wait=(\d+)/i.exec(prefer)
  return m ? Math.min(bound, Number(m[1]) * 1000) : bound
}

/**
 * One attempt of {@link forwardIfOwnedElsewhere}: true (relayed), false (answer here) or 'again' (a
 * take-over is under way and `until` has not passed: look again after a pause).
 */
async function forwardOnce(
  core: Core,
  req: FastifyRequest,
  reply: FastifyReply,
  instanceId: string,
  body: Readable | string | (() => Promise<FormData>) | undefined,
  operation: string | undefined,
  until: number
): Promise<boolean | 'again'> {
  // A start goes where it should run (the least-loaded worker) when no worker holds the instance; a
  // start forwarded here already is run here, whatever the loads are now (one hop).
  const owner = startsSession(operation) && !req.forwardedBy ? await core.cluster.placeFor(instanceId) : await core.cluster.ownerElsewhere(instanceId)
  if (!owner) {
    if (Date.now() >= until) return false
    const inst = core.instances.list().find((i) => i._id === instanceId)
    return inst && (await core.cluster.takingOver(inst)) ? 'again' : false
  }
  const named = `worker ${owner.id}${owner.url ? ` (${owner.url})` : ''}`
  if (req.forwardedBy) {
    // The forwarder believed this worker owns it; the lease moved meanwhile. One hop only: no loops.
    throw new AppError('CONFLICT', `This instance runs on ${named}, not on the worker ${req.forwardedBy} forwarded to; send the request again.`)
  }
  if (!owner.url) throw new AppError('CONFLICT', `This instance runs on ${named}, which has no CHATAPP_WORKER_URL to forward to; send the request there.`)
  const sent = typeof body === 'function' ? await body() : body
  // A stream is handed to undici through a wrapper that reads it only once undici writes the body: a
  // connection refused leaves the request's own stream unread, to send again or to parse here.
  const lazy = sent && typeof sent !== 'string' && !(sent instanceof FormData) ? readOnDemand(sent) : undefined
  const headers: Record<string, string> = {}
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined || HOP_BY_HOP.has(name) || name.startsWith('x-chatapp-forward')) continue
    headers[name] = Array.isArray(value) ? value.join(', ') : value
  }
  // A body parsed here is sent again: as JSON, or as a new form whose boundary undici sets; the relay
  // sets the length of both. A stream goes on as it came.
  if (typeof sent === 'string') headers['content-type'] = 'application/json'
  else if (sent instanceof FormData) delete headers['content-type']
  else if (req.headers['content-length']) headers['content-length'] = req.headers['content-length']
  const ts = String(Date.now())
  headers[FORWARDED_BY] = core.cluster.self
  headers[FORWARD_TS] = ts
  headers[FORWARD_SIG] = sign(core.account.forwardKey(), core.cluster.self, req.method, req.url, ts)
  const version = core.cluster.configVersion()
  if (version !== null) headers[FORWARD_CONFIG] = String(version)
  headers['x-forwarded-for'] = [req.headers['x-forwarded-for'], req.ip].filter(Boolean).join(', ')
  let upstream: Awaited<ReturnType<typeof request>>
  try {
    upstream = await request(new URL(req.url, owner.url), {
      method: req.method as 'GET',
      headers,
      // Node's own FormData (a file read from disk as a Blob): undici 7's FormData class stalls on such a
      // Blob, while its request() sends Node's with the boundary and length set; the types differ only.
      body: (lazy?.body ?? sent ?? null) as Readable | string | UndiciFormData | null
    })
  } catch (err) {
    req.log.warn({ err, owner: owner.id }, 'forwarding to the owner worker failed')
    const stream = lazy ? sent as Readable : undefined
    if (NOT_CONNECTED.has((err as { code?: string }).code ?? '')) {
      // A start placed on a worker that cannot be reached runs here instead: nothing happened there,
      // and a start must not fail because one worker is down (its heartbeat lapses soon).
      if ('placed' in owner && owner.placed && (sent === undefined || typeof sent === 'string')) return false
      // The owner died: its lease lapses and another worker takes the instance over. A change waits
      // for that, its body still unread (no connection was made, so nothing of it was sent).
      if (Date.now() < until && !lazy?.started()) return 'again'
      stream?.resume()
      throw new RetryLaterError(`This instance runs on ${named}, which cannot be reached now; nothing was done. Try again shortly (a failover moves it within the lease time).`, RETRY_AFTER_S, 'SERVICE_UNAVAILABLE')
    }
    stream?.resume()
    // The request reached the owner, which may have acted on it before the connection broke.
    throw new RetryLaterError(`This instance runs on ${named}, which took the request but did not answer; it may have been done there. Check before sending again, or retry with the same Idempotency-Key.`, RETRY_AFTER_S, 'SERVICE_UNAVAILABLE')
  }
  reply.hijack()
  const out: Record<string, string | string[]> = {}
  for (const [name, value] of Object.entries(upstream.headers)) if (value !== undefined && !HOP_BY_HOP.has(name)) out[name] = value
  if (upstream.headers['content-length']) out['content-length'] = upstream.headers['content-length']
  reply.raw.writeHead(upstream.statusCode, out)
  try {
    await pipeline(upstream.body, reply.raw)
  } catch (err) {
    // The status is sent; a relay cut midway ends the caller's connection, as the owner's cut would.
    req.log.warn({ err, owner: owner.id }, 'relaying the owner worker\'s answer failed')
    reply.raw.destroy()
  }
  return true
}
