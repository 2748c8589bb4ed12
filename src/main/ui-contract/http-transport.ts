/**
 * The UI contract over HTTP, for the headless server's web UI (docs/design.md §1 third face):
 *
 * - `POST /rpc/{method}` with the input as the JSON body answers `{ok:true, data}` or
 *   `{ok:false, error:{code, message, details?}}` with the docs/design.md §4 status of the code.
 * - `GET /rpc/events` streams the contract's events as server-sent events (`id: <stream>.<n>` and
 *   `data: <json>` frames, a comment heartbeat every 15 s). A client that reconnects with
 *   `Last-Event-ID` gets the events it missed first; when they are no longer kept, or the id is
 *   another stream's (the app restarted, or a proxy sent the client to another worker, whose events
 *   are numbered apart), it gets a `resync` event and reloads what it shows.
 *
 * A stream ends when the credential it was opened with stops being good (a key revoked, a session
 * ended, a person deleted or their rights changed, the account token replaced), on every worker: the
 * `revoked` event, relayed between workers like the others (docs/design.md §21 "Instance limits").
 *
 * Both need `Authorization: Bearer <token>` (the API's auth hook covers `/rpc`). EventSource cannot
 * set headers, so the web UI reads the SSE stream with fetch() and a ReadableStream instead: the token
 * never lands in a URL (server logs, browser history, Referer).
 */
import { randomBytes } from 'node:crypto'
import type { FastifyInstance } from 'fastify'
import type { Core } from '../core'
import { HTTP_STATUS, RetryLaterError, type ErrorCode } from '../errors'
import { forwardIfOwnedElsewhere } from '../api/forward'
import type { ContractEvent, ContractHandlers } from '../../shared/contract'
import { dispatch, toErrorShape } from './handlers'
import { BACKUP_CHUNK_BYTES } from '../../shared/backup-chunk'
import { subscribeContractEvents } from './event-bridge'
import { EventReplay, type NumberedEvent } from './event-replay'
import { mayReach, mayUse, type Caller } from '../../shared/access'
import type { CoreEvents } from '../events'
import { tokenHash } from '../services/people/tokens'

/** SSE heartbeat, so proxies and the browser keep the stream open (ms). */
export const SSE_HEARTBEAT_MS = 15_000

/**
 * A Fastify plugin (for `startApp`'s `plugins`) that adds the RPC and SSE routes. `moreEvents`
 * subscribes to events from outside the core (the updater's) and answers the unsubscribe function.
 */
export function rpcPlugin(core: Core, handlers: ContractHandlers, moreEvents?: (listener: (event: ContractEvent) => void) => () => void) {
  return async (app: FastifyInstance): Promise<void> => {
    const log = (err: unknown) => core.logger.error({ err }, 'UI contract call failed')
    // Uploads travel as base64 in JSON: allow the file limit (or a backup's chunk, if larger: a
    // restore must not depend on CHATAPP_MAX_FILE_MB) plus the encoding's third.
    const bodyLimit = Math.ceil((Math.max(core.limits.fileBytes, BACKUP_CHUNK_BYTES) * 4) / 3) + 64 * 1024
    // Open event streams, ended at shutdown so `server.close()` does not wait for browsers.
    const streams = new Set<() => void>()
    const replay = new EventReplay()
    // Names this process's numbering in the ids it sends: a Last-Event-ID of an earlier run, or of
    // another worker behind the same proxy, is not a position in this one's.
    const stream = randomBytes(6).toString('hex')
    const listeners = new Set<(e: NumberedEvent) => void>()
    const publish = (event: ContractEvent) => {
      const numbered = replay.add(event)
      for (const listener of listeners) listener(numbered)
    }
    const offCore = subscribeContractEvents(core, publish)
    const offMore = moreEvents?.(publish)
    // Each open stream's caller and session, to end the ones a revocation names.
    const opened = new Map<() => void, { caller: Caller | undefined; session: string | undefined }>()
    const offRevoked = core.events.on('revoked', (revoked) => {
      for (const [end, { caller, session }] of [...opened]) if (endedBy(revoked, caller, session)) end()
    })
    const offEvents = () => (offCore(), offMore?.(), offRevoked())
    app.addHook('preClose', async () => {
      for (const end of [...streams]) end()
      offEvents()
    })

    app.post('/rpc/:method', { bodyLimit, schema: { hide: true } }, async (req, reply) => {
      const { method } = req.params as { method: string }
      // Database mode: a call for an instance another worker runs is relayed there, as the API's are
      // (api/forward.ts); the owner checks the caller again. Its refusals answer in the contract's shape.
      const instanceId = (req.body as { instanceId?: unknown } | undefined)?.instanceId
      if (typeof instanceId === 'string') {
        try {
          if (await forwardIfOwnedElsewhere(core, req, reply, instanceId, JSON.stringify(req.body), method)) return reply
        } catch (err) {
          const error = toErrorShape(err, log)
          void reply.status(HTTP_STATUS[error.code as ErrorCode] ?? 500)
          if (err instanceof RetryLaterError) void reply.header('Retry-After', String(err.retryAfterS))
          return { ok: false, error }
        }
      }
      const result = await dispatch(handlers, method, req.body, log, req.caller ? { caller: req.caller, ip: req.ip, sessionToken: req.sessionToken } : undefined)
      if (!result.ok) void reply.status(HTTP_STATUS[result.error.code as ErrorCode] ?? 500)
      return result
    })

    app.get('/rpc/events', { schema: { hide: true } }, (req, reply) => {
      // The stream carries messages: a caller who may read neither the inbox nor the log gets none.
      if (req.caller && !mayUse(req.caller, 'inbox:read') && !mayUse(req.caller, 'messages:read')) {
        return reply.status(403).send({ ok: false, error: { code: 'FORBIDDEN', message: 'Forbidden: the event stream needs the inbox:read or messages:read permission.' } })
      }
      reply.hijack()
      const res = reply.raw
      res.writeHead(200, {
        'Content-Type': 'text/event-stream; charset=utf-8',
        'Cache-Control': 'no-store',
        Connection: 'keep-alive',
        'X-Accel-Buffering': 'no'
      })
      res.write(': connected\n\n')
      // A person limited to some instances hears only theirs (the events carry messages).
      const caller = req.caller
      const send = ({ id, event }: NumberedEvent) => {
        const instanceId = (event as { instanceId?: unknown }).instanceId
        if (caller && typeof instanceId === 'string' && !mayReach(caller, instanceId)) return
        res.write(`id: ${stream}.${id}\ndata: ${JSON.stringify(event)}\n\n`)
      }
      const lastId = req.headers['last-event-id']
      if (typeof lastId === 'string') {
        const [of, n] = lastId.split('.')
        const missed = of === stream && n !== undefined ? replay.since(Number(n)) : null
        if (missed) missed.forEach(send)
        else res.write(`data: ${JSON.stringify({ type: 'resync' })}\n\n`)
      }
      listeners.add(send)
      const off = () => listeners.delete(send)
      const beat = setInterval(() => res.write(': ping\n\n'), SSE_HEARTBEAT_MS)
      beat.unref()
      const end = () => {
        clearInterval(beat)
        off()
        streams.delete(end)
        opened.delete(end)
        if (!res.writableEnded) res.end()
      }
      streams.add(end)
      opened.set(end, { caller, session: req.sessionToken === undefined ? undefined : tokenHash(req.sessionToken) })
      req.raw.on('close', end)
    })
  }
}

/** Whether a stream of `caller` (opened with the session whose token hashes to `session`) ends with `revoked`. */
function endedBy(revoked: CoreEvents['revoked'], caller: Caller | undefined, session: string | undefined): boolean {
  switch (revoked.kind) {
    case 'key':
      return caller?.kind === 'key' && caller.id === revoked.id
    case 'staff':
      return caller?.kind === 'staff' && caller.id === revoked.id
    case 'session':
      return session === revoked.id
    case 'accountToken':
      return caller?.kind === 'owner' && caller.via === 'token'
  }
}
