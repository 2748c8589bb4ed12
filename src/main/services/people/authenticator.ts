/**
 * Who a request comes from (docs/design.md §21): the account token is the owner (seed compatibility), a
 * `cak_` token an API key, a `cas_` token (bearer or the session cookie) a person's web session.
 * A session read from the cookie must echo its CSRF token on writes: the faces ask
 * {@link Authenticator.fromCookie} and check it, since only they see the method and headers.
 */
import type { Caller } from '../../../shared/access'
import type { AccountService } from '../account-service'
import type { ApiKeyService } from './api-key-service'
import type { StaffService } from './staff-service'
import { KEY_PREFIX, SESSION_PREFIX } from './tokens'

/** The session cookie's name. */
export const SESSION_COOKIE = 'chatapp_session'

export class Authenticator {
  constructor(
    private readonly account: AccountService,
    private readonly staff: StaffService,
    private readonly keys: ApiKeyService
  ) {}

  /** The caller of a bearer token, or undefined for an unknown, revoked or expired one. */
  async fromBearer(token: string, ip: string | null): Promise<Caller | undefined> {
    if (token.startsWith(KEY_PREFIX)) return this.keys.authenticate(token, ip)
    if (token.startsWith(SESSION_PREFIX)) return (await this.staff.session(token))?.caller
    return this.account.verify(token) ? { kind: 'owner', via: 'token' } : undefined
  }

  /** The caller of a session cookie and the CSRF token its writes must carry, or undefined. */
  async fromCookie(token: string): Promise<{ caller: Caller; csrfToken: string } | undefined> {
    if (!token.startsWith(SESSION_PREFIX)) return undefined
    const s = await this.staff.session(token)
    return s ? { caller: s.caller, csrfToken: s.csrfToken } : undefined
  }
}
