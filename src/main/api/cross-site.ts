/**
 * Cross-site requests on the routes a browser's ambient credentials reach (docs/design.md §21
 * "Signing in"): the password and invite exchanges, and every request made with the session cookie.
 * A page on another site can make a browser send a "simple" request (a form, or fetch with
 * `Content-Type: text/plain`) without asking first; such a request must not sign in, lock an account
 * by failing, or act with the cookie. Refused when the browser says it is cross-site — `Sec-Fetch-Site`
 * other than `same-origin` or `none` (Fetch Metadata, W3C), or an `Origin` that is not this server's
 * own — and, on the password routes, unless the body is `application/json`, which a page can send
 * cross-site only after a CORS preflight this server never grants (OWASP CSRF Prevention Cheat
 * Sheet, "Fetch Metadata headers", "Verifying origin with standard headers"). Scripts and curl send
 * none of these headers and are not affected. Pure.
 */

/** Headers as Node gives them. */
type Headers = Record<string, string | string[] | undefined>

const header = (headers: Headers, name: string): string | undefined => {
  const v = headers[name]
  return Array.isArray(v) ? v[0] : v
}

/**
 * Why a request is cross-site, or null when nothing says it is. `host` is the request's Host (the
 * address the browser used, also behind a proxy that passes it through).
 */
export function crossSiteProblem(headers: Headers): string | null {
  const site = header(headers, 'sec-fetch-site')
  if (site !== undefined && site !== 'same-origin' && site !== 'none') return `the browser says it comes from another site (Sec-Fetch-Site: ${site})`
  const origin = header(headers, 'origin')
  if (origin === undefined) return null
  const host = header(headers, 'host')
  try {
    const from = new URL(origin)
    // The Host read with the Origin's scheme, so a default port written in one and not the other compares equal.
    if (host && from.host === new URL(`${from.protocol}//${host}`).host) return null
  } catch {
    // An Origin that is no URL ("null" from a sandboxed frame) is not this server.
  }
  return `its Origin (${origin}) is not this server`
}

/** Whether a request's body is declared JSON (`application/json`, with or without parameters). */
export function isJsonBody(headers: Headers): boolean {
  return header(headers, 'content-type')?.split(';')[0]?.trim().toLowerCase() === 'application/json'
}
