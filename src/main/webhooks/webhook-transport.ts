/**
 * How a webhook attempt goes over the wire: one POST, only the answer's status and `Retry-After`
 * kept (the body is drained unread, so nothing of a foreign answer is stored or echoed).
 *
 * The product's transport is undici's `request` over a keep-alive {@link Agent} of its own: the
 * dispatcher runs many deliveries a second to one receiver, and `fetch` costs several times as much
 * CPU per request (WHATWG streams, Request/Response objects, an AbortSignal per call), which showed as
 * webhooks cutting the send rate tenfold (issue 11 §11). Redirects are not followed (undici's
 * `request` follows none): a 3xx is an answer like any other.
 */
import type { Agent, request as undiciRequest } from 'undici'

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

/** The product's transport: undici `request` over its own keep-alive agent. */
export function undiciTransport(): WebhookTransport {
  // undici loads at the first delivery, not at start (issue 11 §13). Idle connections are kept 30 s:
  // receivers are few, and a burst of events reuses them.
  let loaded: Promise<{ agent: Agent; request: typeof undiciRequest }> | null = null
  const load = () =>
    (loaded ??= import('undici').then(({ Agent, request }) => ({ agent: new Agent({ keepAliveTimeout: 30_000, keepAliveMaxTimeout: 60_000 }), request })))
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
