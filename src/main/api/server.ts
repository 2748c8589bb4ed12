/**
 * The local HTTP API (docs/api-seed.md §4, docs/design.md §2–§9) on Fastify.
 *
 * - Validation: the operation schemas of `src/shared/schemas` through Ajv. Bodies are strict (a string
 *   where a boolean belongs is a 400, never coerced); query strings and path params are coerced.
 *   Unknown top-level fields are ignored; `action` members are strict (schema-level).
 * - GET routes read JSON bodies: the seed sends credentials in GET bodies (docs/design.md §3).
 * - Every error is the envelope `{status:false, message, error:{code, details?}}` of docs/design.md §4;
 *   unexpected errors are logged with the request id and answered without internals.
 * - Routes: generated from the operation table (./operation-routes.ts), one Fastify scope each:
 *   public (health, docs, the web UI's files), account (bearer token hook) and, inside it, instance
 *   (a hook that authenticates `session_id`/`access_token` once). A route is guarded by the scope it
 *   is registered in, never by a list of URLs.
 * - Security: Host-header check against DNS rebinding, no CORS headers.
 * - Docs: the OpenAPI 3.1 document at `/openapi.json` and an interactive page at `/docs`.
 */
import type { AddressInfo } from 'node:net'
import Fastify, { LogController, type FastifyBaseLogger, type FastifyError, type FastifyInstance, type FastifyPluginAsync, type FastifyReply, type FastifyRequest } from 'fastify'
import multipart from '@fastify/multipart'
import swagger from '@fastify/swagger'
import swaggerUi from '@fastify/swagger-ui'
import { webhookDocs } from './webhook-docs'
import type { Core, Limits } from '../core'
import { AppError, HTTP_STATUS, RetryLaterError } from '../errors'
import { storageAppError } from '../storage-app-error'
import { ajvProblems, coercingAjv, lazyValidator, strictAjv, validationError } from '../validation'
import { forwardBeforeBody, forwardByPath, instanceScope as instanceScopeHook, registerOperationRoutes } from './operation-routes'
import { checkForwarded } from './forward'
import type { AppFacts, OperationContext } from '../operations/runners'
import { errorBody } from './envelope'
import { clientErrorHandler } from './client-errors'
import { tooLarge } from '../services/too-large'
import { discardRest, type DiscardCaps } from './discard-body'
import { AuthThrottle } from '../services/auth-throttle'
import { isPeopleToken, SESSION_COOKIE } from '../services/people'
import type { Caller } from '../../shared/access'
import { timingSafeEqual } from 'node:crypto'
import { crossSiteProblem, isJsonBody } from './cross-site'

/** A form's limits besides the file size (one file is taken; more file parts are allowed for a form's empty file rows). */
const MULTIPART_LIMITS = { files: 10, fields: 30, fieldSize: 1024 * 1024, parts: 40 }

export interface ApiServerOptions {
  /** The address the server binds to; the Host header must name it (or localhost). */
  host: string
  version: string
  /** What `app.info` answers besides the version (the UI contract's /rpc); default: web mode. */
  app?: Pick<AppFacts, 'mode' | 'defaultChannel'>
  /** Plugins served without the bearer token (e.g. the web UI's files), registered after the API's routes. */
  publicPlugins?: FastifyPluginAsync[]
  /** Plugins behind the bearer token (e.g. the UI contract's /rpc and its events). */
  accountPlugins?: FastifyPluginAsync[]
  /**
   * The reverse proxy's addresses (`CHATAPP_TRUST_PROXY`): from them, the client's address and scheme
   * are read from `X-Forwarded-For` / `X-Forwarded-Proto` (throttles count the client, the session
   * cookie is `Secure` over https). Unset: none.
   */
  trustProxy?: string
}

/** Maps any thrown error to the envelope error (logging a 500 with its request id); a 413 states the limit passed. */
function toAppError(err: FastifyError | AppError | Error, req: FastifyRequest, limits: Pick<Limits, 'jsonBytes' | 'fileBytes'>): AppError {
  let appErr: AppError
  if (err instanceof AppError) {
    appErr = err
  } else if ((err as FastifyError).validation) {
    const fe = err as FastifyError
    appErr = validationError(ajvProblems(fe.validation ?? []))
  } else {
    const fe = err as FastifyError
    const code = fe.code ?? ''
    const status = fe.statusCode ?? 500
    if (code === 'FST_FILES_LIMIT' || code === 'FST_PARTS_LIMIT') {
      appErr = new AppError('PAYLOAD_TOO_LARGE', `The form has more ${code === 'FST_FILES_LIMIT' ? `files than the limit of ${MULTIPART_LIMITS.files}` : `parts than the limit of ${MULTIPART_LIMITS.parts}`}; send one file part named file.`)
    } else if (code === 'FST_ERR_CTP_BODY_TOO_LARGE' || code === 'FST_REQ_FILE_TOO_LARGE' || status === 413) {
      appErr = code === 'FST_ERR_CTP_BODY_TOO_LARGE' ? tooLarge('The request body', limits.jsonBytes, 'CHATAPP_MAX_JSON_KB') : tooLarge('The file', limits.fileBytes, 'CHATAPP_MAX_FILE_MB')
    } else if (code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE' || code === 'FST_INVALID_MULTIPART_CONTENT_TYPE' || status === 415) {
      appErr = new AppError('UNSUPPORTED_MEDIA_TYPE', `Unsupported Content-Type ${req.headers['content-type'] ?? '(none)'}; send application/json${code === 'FST_INVALID_MULTIPART_CONTENT_TYPE' ? ' or multipart/form-data' : ''}.`)
    } else if (err instanceof SyntaxError || code === 'FST_ERR_CTP_INVALID_JSON_BODY') {
      appErr = new AppError('VALIDATION_ERROR', `Malformed JSON body: ${err.message}`, [{ field: '(body)', problem: 'is not valid JSON' }])
    } else if (status >= 400 && status < 500) {
      const mapped = status === 401 ? 'UNAUTHORIZED' : status === 404 ? 'NOT_FOUND' : status === 409 ? 'CONFLICT' : 'VALIDATION_ERROR'
      appErr = new AppError(mapped, err.message)
    } else if (storageAppError(err)) {
      req.log.error({ err, reqId: req.id }, 'storage refused the write')
      appErr = storageAppError(err)!
    } else {
      req.log.error({ err, reqId: req.id }, 'unhandled error')
      appErr = new AppError('INTERNAL', `Internal error (request ${req.id}); see the app log.`)
    }
  }
  return appErr
}

/**
 * The error handler: any thrown error becomes the envelope with its status. When the body was not
 * read to its end (over the limit, refused by its parser), the rest is read and discarded first
 * (within `caps`), so that clients which write the whole body before reading get the answer.
 */
function errorHandler(caps: DiscardCaps, limits: Pick<Limits, 'jsonBytes' | 'fileBytes'>) {
  return (err: FastifyError | AppError | Error, req: FastifyRequest, reply: FastifyReply): Promise<ReturnType<typeof errorBody>> | undefined => {
    const appErr = toAppError(err, req, limits)
    if (appErr.code === 'UNAUTHORIZED') reply.header('WWW-Authenticate', 'Bearer')
    if (appErr instanceof RetryLaterError) reply.header('Retry-After', String(appErr.retryAfterS))
    void reply.status(HTTP_STATUS[appErr.code])
    // `complete` on a socket's request; an injected one only tells it has ended.
    if (req.raw.complete || req.raw.readableEnded) {
      void reply.send(errorBody(appErr))
      return undefined
    }
    return discardRest(req.raw, caps).then((ended) => {
      // Fastify asks to close after a refused body; once it is all read, the connection can stay.
      if (ended) reply.removeHeader('connection')
      else reply.header('connection', 'close')
      return errorBody(appErr)
    })
  }
}

/** The Host-header check against DNS rebinding for a server bound to `boundHost` (names allowed made once). */
function hostCheck(boundHost: string): (hostHeader: string | undefined) => boolean {
  if (boundHost === '0.0.0.0' || boundHost === '::') return () => true
  const allowed = new Set(['localhost', '127.0.0.1', '[::1]', boundHost, boundHost.includes(':') ? `[${boundHost}]` : boundHost])
  return (hostHeader) => {
    if (!hostHeader) return false
    const name = hostHeader.startsWith('[') ? hostHeader.slice(0, hostHeader.indexOf(']') + 1) : hostHeader.split(':')[0]!
    return allowed.has(name.toLowerCase())
  }
}

/** The 429 of an address that guessed wrong too often (`wait` s until it may guess again). */
function tooManyGuesses(wait: number): AppError {
  return new AppError('TOO_MANY_REQUESTS', `Too many wrong tokens or codes from this address; try again in ${wait} s.`)
}

/** 403 for a request a page of another site made the browser send (./cross-site.ts). */
function crossSiteRefusal(problem: string): AppError {
  return new AppError('FORBIDDEN', `Refused: ${problem}. Sign in and use the desk from its own address.`)
}

declare module 'fastify' {
  interface FastifyRequest {
    /** Who the request comes from (the account scope's hook), for the operations' checks. */
    caller?: Caller
    /** The web session token, when the request came with one (logout ends it). */
    sessionToken?: string
  }
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS'])

/** The session cookie's value, if the request has one. */
function sessionCookie(req: FastifyRequest): string | undefined {
  for (const part of (req.headers.cookie ?? '').split(';')) {
    const eq = part.indexOf('=')
    if (eq > 0 && part.slice(0, eq).trim() === SESSION_COOKIE) return decodeURIComponent(part.slice(eq + 1).trim())
  }
  return undefined
}

/**
 * The account scope's hook: who is calling. `Authorization: Bearer <token>` (the account token, an
 * API key or a session token), else the session cookie, whose writes must echo the session's CSRF
 * token in `X-CSRF-Token` (403 otherwise: a cross-site form cannot set that header), and no cookie
 * request may come from another site (./cross-site.ts). Neither: 401.
 *
 * What is guessed is throttled, never the valid credential: an unknown account token counts toward
 * its address's throttle, and once over it the address's unknown tokens answer 429 instead of 401,
 * while a valid token, key or session is always let in (every local caller shares 127.0.0.1, so a
 * script's wrong guesses must not lock the owner out).
 */
function authenticate(core: Core, throttle: AuthThrottle) {
  return async (req: FastifyRequest, reply: FastifyReply) => {
    const header = req.headers.authorization
    const bearer = header?.startsWith('Bearer ') ? header.slice(7).trim() : ''
    const refuse = (message: string) => {
      reply.header('WWW-Authenticate', 'Bearer')
      return reply.status(401).send(errorBody(new AppError('UNAUTHORIZED', message)))
    }
    if (bearer) {
      const caller = await core.people.auth.fromBearer(bearer, req.ip)
      if (!caller) {
        const wait = throttle.blockedFor(req.ip)
        if (wait !== null) return reply.status(429).header('Retry-After', String(wait)).send(errorBody(tooManyGuesses(wait)))
        // Guessing is the risk for the account token (CHATAPP_API_TOKEN may be weak); session and key
        // tokens are 192-bit random, and an ended session's tab must not lock its address out.
        if (!isPeopleToken(bearer)) throttle.fail(req.ip)
        return refuse('Invalid bearer token')
      }
      req.caller = caller
      if (caller.kind === 'staff') req.sessionToken = bearer
      return
    }
    const cookie = sessionCookie(req)
    if (!cookie) return refuse('Missing bearer token: send Authorization: Bearer <token>')
    const crossSite = crossSiteProblem(req.headers)
    if (crossSite) return reply.status(403).send(errorBody(crossSiteRefusal(crossSite)))
    const session = await core.people.auth.fromCookie(cookie)
    if (!session) {
      return refuse('Your session has ended; sign in again.')
    }
    if (!SAFE_METHODS.has(req.method)) {
      const sent = req.headers['x-csrf-token']
      if (typeof sent !== 'string' || !safeEqual(sent, session.csrfToken)) {
        return reply.status(403).send(errorBody(new AppError('FORBIDDEN', 'Missing or wrong X-CSRF-Token: a write with the session cookie must echo the csrf_token of the login.')))
      }
    }
    req.caller = session.caller
    req.sessionToken = cookie
  }
}

/** Constant-time equality of two strings. */
function safeEqual(a: string, b: string): boolean {
  const [x, y] = [Buffer.from(a), Buffer.from(b)]
  return x.length === y.length && timingSafeEqual(x, y)
}

/** Liveness, without a token. */
function healthRoute(app: FastifyInstance, version: string): void {
  const started = Date.now()
  app.get('/health', { schema: { tags: ['health'], summary: 'Liveness (no token needed)', operationId: 'app.health', security: [] } }, async () => ({
    status: true,
    message: 'ok',
    data: { version, uptime_s: Math.floor((Date.now() - started) / 1000) }
  }))
}

function listeningUrl(app: FastifyInstance, host: string): string {
  const address = app.server.address() as AddressInfo | null
  const name = host.includes(':') ? `[${host}]` : host
  return address ? `http://${name}:${address.port}` : ''
}

/** Builds the server (not listening). */
export async function buildApiServer(core: Core, opts: ApiServerOptions): Promise<FastifyInstance> {
  // Typed as Fastify's base logger so the instance keeps Fastify's default generics.
  const appLogger: FastifyBaseLogger = core.logger
  const app = Fastify({
    // The app's log (pino): an unexpected error is logged with its request id, which the 500 names.
    loggerInstance: appLogger,
    logController: new LogController({ disableRequestLogging: true }),
    bodyLimit: core.limits.jsonBytes,
    routerOptions: { caseSensitive: true, ignoreTrailingSlash: true },
    // GET routes carry body schemas (credentials in GET bodies); HEAD twins cannot.
    exposeHeadRoutes: false,
    requestIdHeader: false,
    ...(opts.trustProxy ? { trustProxy: opts.trustProxy } : {}),
    ajv: { customOptions: { coerceTypes: false } },
    // What Node's HTTP parser refuses (431 headers too large, 408, 400) gets the envelope too.
    clientErrorHandler
  })
  // The seed sends credentials in GET bodies; let Fastify parse them.
  app.addHttpMethod('GET', { hasBody: true, overrideExisting: true })
  // Scripts often send `Content-Type: application/json` with no body at all (curl -X POST -H …):
  // treat that as no body, and parse everything else with Fastify's own (prototype-safe) parser.
  const jsonParser = app.getDefaultJsonParser('error', 'error')
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (req, body, done) => {
    if (typeof body === 'string' && body.trim() === '') done(null, undefined)
    else void jsonParser(req, body as string, done)
  })

  // The published curl samples send JSON without `Content-Type: application/json` (curl -d says
  // x-www-form-urlencoded): a body that parses as a JSON object is taken whatever its type (docs/design.md §17).
  app.removeContentTypeParser(['text/plain'])
  app.addContentTypeParser('*', { parseAs: 'string' }, (req, body, done) => {
    const text = typeof body === 'string' ? body : String(body)
    if (text.trim() === '') return done(null, undefined)
    const notJson = () => new AppError('UNSUPPORTED_MEDIA_TYPE', `Send the body as JSON (Content-Type: application/json)${req.headers['content-type'] ? `, not ${String(req.headers['content-type']).split(';')[0]}` : ''}, as multipart/form-data on upload routes, or as application/octet-stream on POST /restore.`)
    void jsonParser(req, text, (err, value) => {
      if (err || value === null || typeof value !== 'object' || Array.isArray(value)) done(notJson(), undefined)
      else done(null, value)
    })
  })

  app.setValidatorCompiler(({ schema, httpPart }) => lazyValidator(httpPart === 'body' ? strictAjv : coercingAjv, schema))
  // Response schemas document the API; answers are serialised as they are.
  app.setSerializerCompiler(() => (data) => JSON.stringify(data))
  // Bodiless POSTs (the seed's createNewChatapp sends none) validate as an empty object.
  app.addHook('preValidation', async (req) => {
    if (req.body === undefined || req.body === null) req.body = {}
  })

  // A body past the limit is still read to its end, up to twice the largest file taken, for 10 s at most.
  app.setErrorHandler(errorHandler({ maxBytes: 2 * core.limits.fileBytes, timeoutMs: 10_000 }, core.limits))
  app.setNotFoundHandler((req, reply) => {
    void reply.status(404).send(errorBody(new AppError('NOT_FOUND', `No route ${req.method} ${req.url.split('?')[0]}`)))
  })

  const hostAllowed = hostCheck(opts.host)
  app.addHook('onRequest', async (req, reply) => {
    if (!hostAllowed(req.headers.host)) {
      return reply.status(403).send(errorBody(new AppError('UNAUTHORIZED', 'Host not allowed; use http://127.0.0.1 or http://localhost.')))
    }
    // While a restore swaps the data the services are stopped; a moment later they serve the restored data.
    if (core.isRestoring() && req.url !== '/health') {
      return reply
        .status(503)
        .header('Retry-After', '5')
        .send(errorBody(new AppError('SERVICE_UNAVAILABLE', 'A backup is being restored; try again in a few seconds.')))
    }
  })

  // A request signed by another worker (forwarded to this one as the instance's owner): checked first.
  app.addHook('onRequest', checkForwarded(core))

  await app.register(multipart, {
    // One file is taken (multipart.ts); more file parts are allowed for a form's empty file rows.
    limits: { fileSize: core.limits.fileBytes, ...MULTIPART_LIMITS },
    throwFileSizeLimit: true
  })
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Chatapp Desk local API',
        version: opts.version,
        description:
          'Local HTTP API of Chatapp Desk (WhatsApp bot instances). Every route but /health, /docs and /openapi.json needs ' +
          '`Authorization: Bearer <token>`. Instance-scoped routes take `session_id` and `access_token` in the query string ' +
          'or the JSON body. The `x-refresh` header is accepted and ignored.'
      },
      components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } } },
      security: [{ bearer: [] }],
      webhooks: webhookDocs()
    }
  })
  await app.register(swaggerUi, { routePrefix: '/docs' })
  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger())

  const ctx: OperationContext = {
    core,
    app: { baseUrl: () => listeningUrl(app, opts.host), mode: opts.app?.mode ?? 'web', defaultChannel: opts.app?.defaultChannel ?? 'baileys' }
  }
  // Scopes (Fastify encapsulation): what a plugin registers is guarded by its scope's hooks only.
  const throttle = new AuthThrottle(core.clock)
  await app.register(async (publicScope) => {
    healthRoute(publicScope, opts.version)
    // The exchanges a browser makes with what a person types: never from another site, always JSON
    // (a page elsewhere cannot send that without a preflight). The one-time codes (login link, invite)
    // are what is guessed there: a wrong one counts toward its address's throttle, and once over it
    // the address's wrong codes answer 429 while a right one still works. A password's guesses are
    // counted per login name (the staff service's lock), never per address.
    await publicScope.register(async (login) => {
      login.addHook('onRequest', async (req, reply) => {
        const crossSite = crossSiteProblem(req.headers)
        if (crossSite) return reply.status(403).send(errorBody(crossSiteRefusal(crossSite)))
        // A read (GET /auth/methods, asked by the first screen) carries nothing typed and needs no body.
        if (req.method !== 'GET' && !isJsonBody(req.headers)) {
          return reply.status(415).send(errorBody(new AppError('UNSUPPORTED_MEDIA_TYPE', 'Send this request as JSON (Content-Type: application/json).')))
        }
      })
      login.addHook('onSend', async (req, reply, payload) => {
        if (reply.statusCode !== 401 || req.routeOptions.config.operation === 'auth.password') return payload
        const wait = throttle.blockedFor(req.ip)
        throttle.fail(req.ip)
        if (wait === null) return payload
        void reply.status(429).header('Retry-After', String(wait))
        return JSON.stringify(errorBody(tooManyGuesses(wait)))
      })
      registerOperationRoutes(login, ctx, 'public')
    })
  })
  await app.register(async (accountScope) => {
    accountScope.addHook('onRequest', authenticate(core, throttle))
    // Database mode: an account route about an instance another worker runs is relayed there.
    accountScope.addHook('preHandler', forwardByPath(ctx))
    registerOperationRoutes(accountScope, ctx, 'account')
    for (const plugin of opts.accountPlugins ?? []) await accountScope.register(plugin)
    await accountScope.register(async (instanceScope) => {
      // Database mode: a request for an instance another worker runs is relayed there (api/forward.ts).
      instanceScope.addHook('preParsing', forwardBeforeBody(ctx))
      instanceScope.addHook('preHandler', instanceScopeHook(ctx))
      registerOperationRoutes(instanceScope, ctx, 'instance')
    })
  })
  // Public plugins (the web UI's files) come after every API route, which they give way to.
  await app.register(async (publicScope) => {
    for (const plugin of opts.publicPlugins ?? []) await publicScope.register(plugin)
  })
  return app
}
