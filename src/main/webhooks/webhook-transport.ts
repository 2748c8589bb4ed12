/**
 * How a webhook attempt goes over the wire: one POST, only the answer's status and `Retry-After`
 * kept (the body is drained unread, so nothing of a foreign answer is stored or echoed).
 *
 * The product's transport is undici's `request` over a keep-alive {@link Agent} of its own: the
 * dispatcher runs many deliveries a second to one receiver, and `fetch` costs several times as much
 * CPU per request (WHATWG streams, Request/Response objects, an AbortSignal per call), which showed as
 * webhooks cutting the send rate tenfold (docs/benchmarks.md "API send throughput, webhooks off and on"). Redirects are not followed (undici's
 * `request` follows none): a 3xx is an answer like any other.
 */
import { lookup as dnsLookup, type LookupAddress, type LookupOptions } from 'node:dns'
import { isIP } from 'node:net'
import type { Agent, request as undiciRequest } from 'undici'

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void
/** node:dns `lookup` with `all: true` (tests pass one that answers what they need). */
export type Lookup = (hostname: string, options: { all: true }, callback: (err: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => void) => void

/** A delivery refused at connect time: the address the receiver's name resolved to is refused. */
export class RefusedAddressError extends Error {
  readonly code = 'EREFUSEDADDRESS'
  constructor(host: string, address: string) {
    super(`The webhook's host ${host} resolved to ${address}, which points at this app's own API; not delivered.`)
    this.name = 'RefusedAddressError'
  }
}

export interface UndiciTransportOptions {
  /**
   * Whether a connection to `address` (an IP) on `port` is refused (this app's own API). Checked on
   * the address the connection is made to, after the lookup that found it: a name is never looked up
   * once to be checked and again to be delivered (DNS rebinding).
   */
  refuses?: (address: string, port: number) => boolean
  /** The resolver (default node:dns `lookup`). */
  lookup?: Lookup
}

/** One webhook POST; rejects on a network error (with the error's `code`) or when `signal` aborts. */
export type WebhookPost = (
  url: string,
  req: { headers: Record<string, string>; body: string; signal: AbortSignal }
) => Promise<{ status: number; retryAfter: string | null }>

export interface WebhookTransport {
  post: WebhookPost
  /** Closes the kept-alive connections. */
  close(): Promise<void>
}

/**
 * The product's transport: undici `request` over its own keep-alive agent, whose every connection
 * resolves the receiver's name once and connects to the address it checked (`opts.refuses`).
 */
export function undiciTransport(opts: UndiciTransportOptions = {}): WebhookTransport {
  const resolve = opts.lookup ?? dnsLookup
  // undici loads at the first delivery, not at start (docs/benchmarks.md "Start time and idle memory"). Idle connections are kept 30 s:
  // receivers are few, and a burst of events reuses them.
  let loaded: Promise<{ agent: Agent; request: typeof undiciRequest }> | null = null
  const load = () =>
    (loaded ??= import('undici').then(({ Agent, buildConnector, request }) => {
      const refuses = opts.refuses
      const agent = new Agent({
        keepAliveTimeout: 30_000,
        keepAliveMaxTimeout: 60_000,
        connect: (options, callback) => {
          const host = options.hostname.replace(/^\[|\]$/g, '')
          const port = Number(options.port || (options.protocol === 'https:' ? 443 : 80))
          if (refuses && isIP(host) && refuses(host, port)) return callback(new RefusedAddressError(host, host), null)
          // The port is known here, not in a lookup: a connector per connection (they are kept alive).
          const lookup = (hostname: string, lookupOpts: LookupOptions, cb: LookupCallback) =>
            resolve(hostname, { all: true }, (err, addresses) => {
              if (err) return cb(err, [])
              const refused = refuses ? addresses.find((a) => refuses(a.address, port)) : undefined
              if (refused) return cb(new RefusedAddressError(hostname, refused.address), [])
              if (lookupOpts.all) return cb(null, addresses)
              cb(null, addresses[0]!.address, addresses[0]!.family)
            })
          buildConnector({ lookup })(options, callback)
        }
      })
      return { agent, request }
    }))
  return {
    post: async (url, { headers, body, signal }) => {
      const { agent, request } = await load()
      const res = await request(url, { method: 'POST', headers, body, signal, dispatcher: agent })
      await res.body.dump().catch(() => {})
      const retryAfter = res.headers['retry-after']
      return { status: res.statusCode, retryAfter: Array.isArray(retryAfter) ? (retryAfter[0] ?? null) : (retryAfter ?? null) }
    },
    close: async () => {
      if (loaded) await (await loaded).agent.close()
    }
  }
}

/** A transport over a `fetch` (tests and callers that have one). */
export function fetchTransport(fetchImpl: typeof fetch): WebhookTransport {
  return {
    post: async (url, { headers, body, signal }) => {
      const res = await fetchImpl(url, { method: 'POST', headers, body, signal, redirect: 'manual' })
      await res.body?.cancel().catch(() => {})
      return { status: res.status, retryAfter: res.headers.get('retry-after') }
    },
    close: async () => {}
  }
}
