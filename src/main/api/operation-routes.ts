/**
 * The HTTP face, generated from the operation table (src/shared/operations/table/): one Fastify
 * route per operation with an `http` facet (plus its deprecated aliases), its schemas for validation
 * and the OpenAPI document, and a handler that assembles the input, runs the operation's runner and
 * answers the envelope (docs/design.md §4) or the operation's responder.
 *
 * Where an input field comes from: path params (`http.params`), the query string (`http.query`,
 * coerced), the multipart file (`file`), the JSON body or multipart fields (the rest, strict).
 * Instance credentials (`session_id`, `access_token`) may come from the query string or the body
 * (docs/design.md §3); the instance scope's hook authenticates them once ({@link instanceScope}).
 */
import { tooLarge } from '../services/too-large'
import type { FastifyInstance, FastifyReply, FastifyRequest, RouteShorthandOptions } from 'fastify'
import Type, { type TObject, type TSchema } from 'typebox'
import type { HttpFacet, OperationDef } from '../../shared/operations/define'
import { OPERATIONS, type OperationName } from '../../shared/operations/table'
import { Credentials } from '../../shared/schemas/operations'
import { AppError, HTTP_STATUS } from '../errors'
import type { OperationContext } from '../operations/runners'
import { authorizePermission, invoke } from '../operations/invoke'
import type { Stored } from '../store/repos'
import type { Instance } from '../../shared/schemas/records'
import { ajvProblems, coercingAjv, lazyValidator, strictAjv, validationError } from '../validation'
import { errorBody, ok, responses } from './envelope'
import { readMultipart, type MultipartResult } from './multipart'
import { requestExample } from './request-example'
import { RESPONDERS } from './responders'
import { createWriteStream } from 'node:fs'
import { rm } from 'node:fs/promises'
import { Transform, type Readable } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import { MAX_RESTORE_BYTES } from '../services/backup'
import { formOf, forwardIfOwnedElsewhere, startsSession } from './forward'

type AnyOperation = OperationDef<TObject, unknown, unknown>

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The route applies to the account's only instance when sent without credentials (HttpFacet). */
    soleInstanceWithoutCredentials?: boolean
    /** The operation's name (the table's key). */
    operation?: string
    /** An account route about one instance: the path parameter naming it (forwarded to its owner worker). */
    instanceParam?: string
  }
}
type Bag = Record<string, unknown>

/** Where each input field of an operation travels over HTTP, and the schemas that check it. */
export interface HttpShape {
  params?: TObject
  querystring?: TObject
  /** The JSON body, or the multipart fields. */
  body: TObject
  /** Input fields read from the query string / params (the rest come from the body). */
  queryFields: string[]
  paramFields: Array<[pathName: string, inputField: string]>
}

function pick(props: Record<string, TSchema>, names: string[]): Record<string, TSchema> {
  return Object.fromEntries(names.filter((n) => n in props).map((n) => [n, props[n]!]))
}

/** The HTTP shape of an operation: body, query and params schemas derived from its input. */
export function httpShape(def: AnyOperation, http: HttpFacet<unknown>): HttpShape {
  const props = def.input.properties as Record<string, TSchema>
  const credentials = def.scope === 'instance' ? Credentials : {}
  const paramFields = Object.entries(http.params ?? {})
  const queryFields = http.query ?? []
  const fromElsewhere = new Set([...paramFields.map(([, field]) => field), ...queryFields, 'file'])
  const bodyProps = Object.fromEntries(Object.entries(props).filter(([name]) => !fromElsewhere.has(name)))
  const hasQuery = queryFields.length > 0 || def.scope === 'instance'
  return {
    params: paramFields.length ? Type.Object(Object.fromEntries(paramFields.map(([p]) => [p, Type.String({ description: 'Record identifier.' })]))) : undefined,
    querystring: hasQuery ? Type.Object({ ...credentials, ...pick(props, queryFields) }) : undefined,
    body: Type.Object({ ...credentials, ...bodyProps }),
    queryFields,
    paramFields
  }
}

/** The operation's input from a validated request (credentials dropped; they are the scope's). */
function assembleInput(req: FastifyRequest, shape: HttpShape, upload: MultipartResult<Bag> | undefined): Bag {
  const body = req.body && typeof req.body === 'object' && !Array.isArray(req.body) ? (req.body as Bag) : {}
  const { session_id: _s, access_token: _a, ...input } = body
  const query = (req.query ?? {}) as Bag
  for (const name of shape.queryFields) if (query[name] !== undefined) input[name] = query[name]
  const params = (req.params ?? {}) as Bag
  for (const [pathName, field] of shape.paramFields) input[field] = params[pathName]
  if (upload?.file) input.file = upload.file
  return input
}

/** OpenAPI answers of an operation: the envelope with its data, the files of the responders, the errors. */
function documentedResponses(def: AnyOperation, http: HttpFacet<unknown>) {
  const hasBody = http.method !== 'GET' && http.method !== 'DELETE'
  const errors: Record<number, string> = { 403: 'The Host header is not 127.0.0.1 or localhost (DNS rebinding guard)' }
  if (def.scope !== 'public') errors[429] = 'Too many failed token attempts from this address; try again later'
  if (hasBody) errors[413] = 'The body is larger than the limit (CHATAPP_MAX_JSON_KB for JSON; the file size limit for uploads)'
  if (http.multipart && !http.multipart.alsoJson) errors[415] = 'Not multipart/form-data'
  if (def.scope !== 'public') errors[507] = 'The disk is full: nothing was saved (free some space and try again)'
  Object.assign(errors, http.errors, { 500: 'Unexpected error; the message names the request id to find in the app log' })
  const base = responses(http.message, http.data ?? def.output, errors)
  const binary = { schema: { type: 'string', format: 'binary' } }
  switch (http.respond) {
    case 'qrImage':
      return { ...base, 200: { description: 'PNG image (default) or JSON (format=base64text)', content: { 'image/png': binary, 'application/json': { schema: base[200] } } } }
    case 'attachmentFile':
    case 'mediaFile':
      return { ...base, 200: { description: 'The file', content: { 'application/octet-stream': binary } } }
    case 'csvWhenAsked':
      return { ...base, 200: { description: 'JSON (default) or CSV (format=csv)', content: { 'application/json': { schema: base[200] }, 'text/csv': { schema: { type: 'string' } } } } }
    default:
      return base
  }
}

/** Fastify route options that read a multipart body in preValidation (the file streams to a temp file). */
function multipartOptions(ctx: OperationContext, def: AnyOperation, http: HttpFacet<unknown>, shape: HttpShape): RouteShorthandOptions {
  const multipart = http.multipart!
  const validateJson = lazyValidator(strictAjv, shape.body)
  return {
    // Fastify must not validate the body: the parts are read as a stream and checked here.
    validatorCompiler: ({ schema, httpPart }) => (httpPart === 'body' ? () => true : lazyValidator(coercingAjv, schema)),
    preValidation: async (req) => {
      if (!req.isMultipart()) {
        // The seed sends a form; scripts often send JSON. Both carry the same fields.
        if (!multipart.alsoJson) throw new AppError('UNSUPPORTED_MEDIA_TYPE', 'Send this request as multipart/form-data with a file part named file.')
        if (!validateJson(req.body)) throw validationError(ajvProblems(validateJson.errors ?? []))
        return
      }
      const upload = await readMultipart(req, shape.body, { requireFile: multipart.file === 'required', tmpPath: () => ctx.core.attachments.tmpPath('up') })
      uploads.set(req, upload)
      req.body = upload.fields
    },
    onResponse: async (req) => {
      await uploads.get(req)?.cleanup()
    },
    schema: {
      ...schemaOf(def, http, shape),
      consumes: multipart.alsoJson ? ['multipart/form-data', 'application/json'] : ['multipart/form-data'],
      body: withExample(
        Type.Object({ ...shape.body.properties, ...(multipart.file === 'none' ? {} : { file: Type.String({ format: 'binary', description: 'The file.' }) }) }),
        exampleFor(def, shape)
      )
    }
  }
}

/**
 * Fastify route options for a body that is a file sent as `application/octet-stream` (a backup to
 * restore): the body streams into a temp file (at most `maxBytes`, else 413) before the handler, which
 * gets it as input `file` ({path, size}); the file goes when the answer is sent.
 */
function rawBodyOptions(ctx: OperationContext, def: AnyOperation, http: HttpFacet<unknown>, shape: HttpShape, maxBytes: number): RouteShorthandOptions {
  return {
    validatorCompiler: ({ schema, httpPart }) => (httpPart === 'body' ? () => true : lazyValidator(coercingAjv, schema)),
    preValidation: async (req) => {
      const type = req.headers['content-type']?.split(';')[0]?.trim().toLowerCase()
      if (type !== 'application/octet-stream') throw new AppError('UNSUPPORTED_MEDIA_TYPE', 'Send the file as the request body with Content-Type: application/octet-stream.')
      const path = ctx.core.attachments.tmpPath('raw')
      const file = await receiveFile(req.body as Readable, path, maxBytes)
      uploads.set(req, { fields: {}, file: { ...file, filename: '', sha256: '' }, cleanup: () => rm(path, { force: true }) })
      req.body = {}
    },
    onResponse: async (req) => {
      await uploads.get(req)?.cleanup()
    },
    schema: { ...schemaOf(def, http, shape), consumes: ['application/octet-stream'], body: Type.String({ format: 'binary', description: 'The file.' }) }
  }
}

/** Streams `body` into `path` (0600); 413 past `maxBytes`, with the partial file removed. */
async function receiveFile(body: Readable, path: string, maxBytes: number): Promise<{ path: string; size: number }> {
  let size = 0
  const limit = new Transform({
    transform(chunk: Buffer, _enc, done) {
      size += chunk.length
      done(size > maxBytes ? tooLarge('The file', maxBytes) : null, chunk)
    }
  })
  try {
    await pipeline(body, limit, createWriteStream(path, { mode: 0o600 }))
  } catch (err) {
    await rm(path, { force: true })
    throw err
  }
  return { path, size }
}

const uploads = new WeakMap<FastifyRequest, MultipartResult<Bag>>()
const instances = new WeakMap<FastifyRequest, Stored<Instance>>()

/** The documented request example: the operation's own (`input.examples`), else one made from the body schema. */
function exampleFor(def: AnyOperation, shape: HttpShape): Bag {
  return ((def.input as { examples?: Bag[] }).examples?.[0] ?? requestExample(shape.body))
}

/** `schema` with `example` as its OpenAPI example (none when the example is empty). */
function withExample<S extends TObject>(schema: S, example: Bag): S {
  return Object.keys(example).length === 0 ? schema : { ...schema, examples: [example] }
}

function schemaOf(def: AnyOperation, http: HttpFacet<unknown>, shape: HttpShape) {
  const bodyless = http.method === 'GET' || http.method === 'DELETE' || http.bodyOptional
  const body = http.method === 'GET' || http.method === 'DELETE' ? shape.body : withExample(shape.body, exampleFor(def, shape))
  const permission = def.permission === 'signed-in' ? 'Any signed-in caller may use it.' : `Requires the \`${def.permission}\` permission (the owner, a role that holds it, or an API key with that scope).`
  const accountWide = def.scope === 'account' && (def.reach ?? 'account') === 'account' && def.permission !== 'signed-in'
  const needs = accountWide ? `${permission} It reaches the whole account, so a person or key limited to some instances may not use it.` : permission
  return {
    tags: def.tags,
    summary: def.summary,
    description: def.scope === 'public' ? def.description : [def.description, needs].filter(Boolean).join('\n\n'),
    // OpenAPI 3.1 lets a bearer requirement list role names: the scope an API key needs.
    ...(def.scope === 'public' ? { security: [] } : { security: [{ bearer: def.permission === 'signed-in' ? [] : [def.permission] }], 'x-required-scope': def.permission }),
    ...(http.deprecated ? { deprecated: true } : {}),
    ...(shape.params ? { params: shape.params } : {}),
    ...(shape.querystring ? { querystring: shape.querystring } : {}),
    body: bodyless ? Type.Optional(body) : body,
    response: documentedResponses(def, http)
  }
}

/** Registers the routes of every operation of `scope` on `app`. */
export function registerOperationRoutes(app: FastifyInstance, ctx: OperationContext, scope: 'public' | 'account' | 'instance'): void {
  for (const [name, def] of Object.entries(OPERATIONS) as Array<[OperationName, AnyOperation]>) {
    const http = def.http
    if (!http || def.scope !== scope) continue
    const shape = httpShape(def, http)
    const options: RouteShorthandOptions = http.multipart
      ? multipartOptions(ctx, def, http, shape)
      : http.rawBody
        ? rawBodyOptions(ctx, def, http, shape, MAX_RESTORE_BYTES)
        : { schema: schemaOf(def, http, shape) }
    // The raw file reaches the route as a stream; other routes of the scope refuse such a body (it is no JSON object).
    if (http.rawBody && !app.hasContentTypeParser('application/octet-stream')) app.addContentTypeParser('application/octet-stream', (_req, payload, done) => done(null, payload))
    const run = async (req: FastifyRequest, reply: FastifyReply, input: Bag) => {
      const result = await invoke({ ...ctx, caller: req.caller, ip: req.ip, sessionToken: req.sessionToken }, name, input, instances.get(req))
      if (http.respond) return RESPONDERS[http.respond](reply, result, input, http.message)
      return ok(http.message, http.wire ? http.wire(result) : result)
    }
    const handler = async (req: FastifyRequest, reply: FastifyReply) => {
      const input = assembleInput(req, shape, uploads.get(req))
      const key = req.headers['idempotency-key']
      if (typeof key === 'string' && key !== '' && IDEMPOTENT.test(name) && !http.respond) return idempotent(ctx, req, reply, name, key, input, () => run(req, reply, input))
      return run(req, reply, input)
    }
    // The permission is checked before the body is read or validated: a caller without it learns nothing more than 403.
    const onRequest = async (req: FastifyRequest) => {
      if (scope !== 'public') authorizePermission(req.caller, name)
    }
    const instanceParam = Object.entries(http.params ?? {}).find(([, field]) => field === 'instanceId')?.[0]
    for (const [i, path] of [http.path, ...(http.aliases ?? [])].entries()) {
      const base = options.schema as { description?: string }
      const schema = { ...base, ...(IDEMPOTENT.test(name) ? idempotencySchema(base.description) : {}), operationId: i === 0 ? name : `${name}.alias${i}` }
      app.route({ ...options, onRequest, method: http.method, url: path, schema, handler, config: { soleInstanceWithoutCredentials: http.soleInstanceWithoutCredentials === true, operation: name, ...(scope === 'account' && instanceParam ? { instanceParam } : {}) } })
    }
  }
}

/** The operations an `Idempotency-Key` applies to: the sends. */
const IDEMPOTENT = /^messages\.send/

/** The OpenAPI part of a send's `Idempotency-Key`: the header and what it does. */
function idempotencySchema(description: string | undefined) {
  const what =
    'Send `Idempotency-Key: <up to 255 characters>` to make a retry safe: a retry with the same key (same caller, same instance) answers the first answer with `Idempotent-Replayed: true` and sends nothing again; 409 while the first still runs; 422 for another body with the same key. Kept for 24 h; 409, 429 and 5xx answers are not kept.'
  return {
    headers: Type.Object({ 'idempotency-key': Type.Optional(Type.String({ minLength: 1, maxLength: 255, description: 'Makes a retry of this send safe (see the description).' })) }),
    description: [description, what].filter(Boolean).join('\n\n')
  }
}

/** Statuses a retry may change (busy, not connected yet, rate-limited, server errors): not stored. */
const transient = (status: number) => status === 409 || status === 429 || status >= 500

/**
 * A send with an `Idempotency-Key` (docs/design.md §22): the key, the caller, the operation and the
 * instance identify it. The first runs and its answer (status and body) is stored; a retry answers
 * that answer without sending again (header `Idempotent-Replayed: true`); a retry while the first runs
 * answers 409; a retry with another input answers 422. An answer a retry may change (409, 429, 5xx) is
 * not stored: the retry sends. On a forwarded request the owner applies it (the forward comes first).
 */
async function idempotent(ctx: OperationContext, req: FastifyRequest, reply: FastifyReply, name: string, key: string, input: Bag, run: () => Promise<unknown>): Promise<unknown> {
  const svc = ctx.core.idempotency
  const id = svc.idOf(key, req.caller, name, instances.get(req)?._id ?? '')
  const file = input.file as { sha256?: string; size?: number } | undefined
  const hash = svc.hashOf({ ...input, file: file ? { sha256: file.sha256, size: file.size } : undefined })
  const found = await svc.begin(id, hash, instances.get(req)?._id ?? '')
  if (found.state === 'running') throw new AppError('CONFLICT', 'A request with this Idempotency-Key is still in progress; retry once it has answered.')
  if (found.state === 'orphaned') {
    // At most once: the first attempt may have sent before its worker stopped, so it is never run again.
    throw new AppError('CONFLICT', `The request first made with this Idempotency-Key was taken by ${found.taker.token === null ? 'an earlier run of this server' : `worker ${found.taker.worker}`}, which stopped before answering; it may or may not have been sent. Check the chat's messages, and send again with a new key if it is not there.`)
  }
  if (found.state === 'mismatch') {
    return reply.status(422).send(errorBody(new AppError('VALIDATION_ERROR', 'This Idempotency-Key was used for a request with another body; use a new key for a new request.', [{ field: 'Idempotency-Key', problem: 'was used with another body' }])))
  }
  if (found.state === 'done') return reply.status(found.status).header('idempotent-replayed', 'true').type('application/json; charset=utf-8').send(found.body)
  try {
    const answer = await run()
    await svc.finish(id, 200, JSON.stringify(answer))
    return answer
  } catch (err) {
    const status = err instanceof AppError ? HTTP_STATUS[err.code] : 500
    if (err instanceof AppError && !transient(status)) await svc.finish(id, status, JSON.stringify(errorBody(err)))
    else await svc.abandon(id)
    throw err
  }
}

/** The account's only instance, for a seed request sent without credentials; 400 when there are none or several. */
function soleInstance(ctx: OperationContext): Stored<Instance> {
  const all = ctx.core.instances.list()
  if (all.length === 1) return all[0]!
  throw new AppError(
    'VALIDATION_ERROR',
    all.length === 0
      ? 'Invalid request: there is no instance yet; create one first.'
      : `Invalid request: the account has ${all.length} instances; pass session_id and access_token in the query string to say which.`,
    [{ field: 'session_id', problem: 'is required when the account has several instances' }]
  )
}

/** The credentials of an instance-scoped request found in its query string or `body`. */
function credentialsOf(req: FastifyRequest, body: Bag): [unknown, unknown] {
  const query = (req.query ?? {}) as Bag
  const credential = (name: string) => (query[name] !== undefined ? query[name] : body[name])
  return [credential('session_id'), credential('access_token')]
}

/** Requests whose owner worker was already looked up (preParsing), so preHandler does not again. */
const ownerChecked = new WeakSet<FastifyRequest>()

/**
 * The account scope's hook (database mode; api/forward.ts): an account route about one instance named
 * in its path (`DELETE /chatapp/:instance_id`) is relayed to the worker running that instance, which
 * answers it as its own (a delete stops the socket there).
 */
export function forwardByPath(ctx: OperationContext) {
  return async (req: FastifyRequest, reply: FastifyReply): Promise<void> => {
    const param = req.routeOptions.config.instanceParam
    const id = param ? (req.params as Bag)[param] : undefined
    if (typeof id === 'string' && id !== '') await forwardIfOwnedElsewhere(ctx.core, req, reply, id, undefined)
  }
}

/**
 * The instance scope's preParsing hook (database mode; api/forward.ts): when the credentials are in
 * the query string, the instance is known before the body is read, so a request for an instance that
 * another worker runs is relayed there with its body streamed as it arrives (JSON, multipart or a raw
 * file alike). Wrong credentials are left to the preHandler's answer.
 */
export function forwardBeforeBody(ctx: OperationContext) {
  return async (req: FastifyRequest, reply: FastifyReply, payload: Readable): Promise<Readable> => {
    const [sessionId, accessToken] = credentialsOf(req, {})
    if (sessionId === undefined || accessToken === undefined || startsSession(req.routeOptions.config.operation)) return payload
    let instance: Stored<Instance>
    try {
      instance = ctx.core.instances.authenticate(sessionId, accessToken)
    } catch {
      return payload
    }
    ownerChecked.add(req)
    await forwardIfOwnedElsewhere(ctx.core, req, reply, instance._id, payload, req.routeOptions.config.operation)
    return payload
  }
}

/**
 * The instance scope's hook: authenticates `session_id`/`access_token` (query string first, then the
 * body or multipart fields) once per request, before the handler. 400 names a missing credential,
 * 401 answers wrong ones (docs/design.md §3). In database mode, a request for an instance another
 * worker runs is then relayed there: its JSON body, or the multipart form read here, sent again.
 */
export function instanceScope(ctx: OperationContext) {
  return async (req: FastifyRequest, reply: FastifyReply): Promise<void> => {
    const body = (req.body && typeof req.body === 'object' && !Array.isArray(req.body) ? req.body : {}) as Bag
    const [sessionId, accessToken] = credentialsOf(req, body)
    const instance =
      sessionId === undefined && accessToken === undefined && req.routeOptions.config.soleInstanceWithoutCredentials
        ? soleInstance(ctx)
        : ctx.core.instances.authenticate(sessionId, accessToken)
    instances.set(req, instance)
    if (ownerChecked.has(req)) return
    const upload = uploads.get(req)
    if (upload) {
      // The form is read (its file in a temp file, removed by onResponse either way): only when another
      // worker runs the instance is it built again to be sent there.
      await forwardIfOwnedElsewhere(ctx.core, req, reply, instance._id, () => formOf(upload))
      return
    }
    await forwardIfOwnedElsewhere(ctx.core, req, reply, instance._id, JSON.stringify(req.body ?? {}), req.routeOptions.config.operation)
  }
}
