/**
 * The UI contract over HTTP (web mode): `POST /rpc/{method}` with the bearer token, and the event
 * stream `GET /rpc/events` read with fetch() (EventSource cannot send the Authorization header; see
 * src/main/ui-contract/http-transport.ts), parsed by eventsource-parser. The stream reconnects with a
 * short backoff and sends the last event id it saw (`Last-Event-ID`), so the server replays what was
 * missed; when it cannot, it sends `resync` and the UI reloads what it shows.
 */
import { ContractError, type ContractClient, type ContractEvent, type ContractResult } from '../../../shared/contract'
import { createParser } from 'eventsource-parser'
import { backoffDelayMs, type BackoffOptions } from '../../../shared/domain/backoff'

/** The event stream's reconnect timing: 0.5 s doubling to 10 s, reset by every stream that opens. */
const EVENTS_BACKOFF: BackoffOptions = { baseMs: 500, maxMs: 10_000, jitter: 0 }

/** Builds a client for the server at `base` ('' = same origin) with `token`. */
export function createHttpClient(token: string, base = ''): ContractClient {
  const headers = { authorization: `Bearer ${token}` }
  return {
    async call(method, input) {
      const res = await fetch(`${base}/rpc/${method}`, {
        method: 'POST',
        headers: { ...headers, 'content-type': 'application/json' },
        body: JSON.stringify(input ?? {})
      })
      let body: unknown
      try {
        body = await res.json()
      } catch {
        throw new ContractError({ code: 'INTERNAL', message: `The server answered ${res.status} without JSON.` })
      }
      const result = body as ContractResult<never> | { status: false; message: string; error: { code: string; details?: [] } }
      if ('ok' in result) {
        if (result.ok) return result.data
        throw new ContractError(result.error)
      }
      // Errors raised before the RPC handler (auth, body limit) come in the API's envelope.
      throw new ContractError({ code: result.error?.code ?? 'INTERNAL', message: result.message, details: result.error?.details })
    },
    subscribe(listener: (event: ContractEvent) => void) {
      const ctrl = new AbortController()
      let failures = 0
      let lastEventId: string | undefined
      const parser = createParser({
        onEvent(message) {
          if (message.id) lastEventId = message.id
          listener(JSON.parse(message.data) as ContractEvent)
        }
      })
      const run = async () => {
        while (!ctrl.signal.aborted) {
          try {
            const res = await fetch(`${base}/rpc/events`, {
              headers: { ...headers, ...(lastEventId ? { 'last-event-id': lastEventId } : {}) },
              signal: ctrl.signal
            })
            if (!res.ok || !res.body) throw new Error(`events: HTTP ${res.status}`)
            failures = 0
            parser.reset()
            const reader = res.body.pipeThrough(new TextDecoderStream()).getReader()
            for (;;) {
              const { value, done } = await reader.read()
              if (done) break
              parser.feed(value)
            }
          } catch {
            if (ctrl.signal.aborted) return
          }
          failures += 1
          await new Promise((r) => setTimeout(r, backoffDelayMs(failures, 0, EVENTS_BACKOFF)))
        }
      }
      void run()
      return () => ctrl.abort()
    }
  }
}

/** Trades a one-time login code (from a `/#login=…` link) for the API token; throws a ContractError when refused. */
export async function exchangeLoginCode(code: string, base = ''): Promise<string> {
  const res = await fetch(`${base}/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ code }) })
  const body = (await res.json().catch(() => null)) as { status?: boolean; message?: string; data?: { token: string }; error?: { code: string } } | null
  if (res.ok && body?.data?.token) return body.data.token
  throw new ContractError({ code: body?.error?.code ?? 'INTERNAL', message: body?.message ?? `The server answered ${res.status}.` })
}

/**
 * Whether anyone signs in here with a password (`GET /auth/methods`): false on a desk without staff,
 * whose first screen then opens on the login link and the API token. Answers true when it cannot tell
 * (an older server), the sign-in form being the safe default for people at the desk.
 */
export async function passwordsInUse(base = ''): Promise<boolean> {
  try {
    const res = await fetch(`${base}/auth/methods`)
    const body = (await res.json()) as { data?: { passwords?: unknown } }
    return res.ok && typeof body.data?.passwords === 'boolean' ? body.data.passwords : true
  } catch {
    return true
  }
}

/** Checks a token by calling `app.info`; answers false on UNAUTHORIZED. */
export async function tokenWorks(token: string, base = ''): Promise<boolean> {
  try {
    await createHttpClient(token, base).call('app.info', {})
    return true
  } catch (err) {
    if (err instanceof ContractError && err.code === 'UNAUTHORIZED') return false
    throw err
  }
}

/** A refusal of a public sign-in route, with its HTTP status and, for 429, how long to wait. */
export class SignInError extends Error {
  constructor(
    message: string,
    readonly status: number,
    readonly retryAfterS: number | null
  ) {
    super(message)
  }
}

/** POSTs `body` to a public route and answers the envelope's `data`; throws a {@link SignInError} with the server's message. */
async function postPublic<T>(path: string, body: unknown, base: string): Promise<T> {
  const res = await fetch(`${base}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })
  const answer = (await res.json().catch(() => null)) as { message?: string; data?: T } | null
  if (res.ok && answer?.data) return answer.data
  const wait = Number(res.headers.get('retry-after'))
  throw new SignInError(answer?.message ?? `The server answered ${res.status}.`, res.status, Number.isFinite(wait) && wait > 0 ? wait : null)
}

/** Signs a person in with their login and password (`POST /auth/password`); answers the session's bearer token and who they are. */
export function signInWithPassword(login: string, password: string, base = ''): Promise<{ token: string; expires_at: string; name: string; role: string }> {
  return postPublic('/auth/password', { login, password }, base)
}

/** Accepts an invite (`POST /auth/accept-invite`): sets the person's password; answers their login and name. */
export function acceptInvite(code: string, password: string, base = ''): Promise<{ login: string; name: string }> {
  return postPublic('/auth/accept-invite', { code, password }, base)
}
