/**
 * The local account and its API bearer token (docs/design.md §3). The token is generated at first
 * start and kept in the data dir, unless `CHATAPP_API_TOKEN` fixes it; it is compared in constant time.
 * One-time login codes let the headless server print a login link that holds no secret worth keeping:
 * a code is good for one exchange for the token, within {@link LOGIN_CODE_TTL_MS}. The codes the server
 * issues are kept in memory; those `npm run login-link` makes (the app running or not) come through
 * the data dir's login-code file (store/login-code-file.ts).
 */
import { timingSafeEqual, createHash } from 'node:crypto'
import { isoNow, type Clock } from '../clock'
import { newObjectId, newSecret } from '../ids'
import type { AccountRepo } from '../store/repos'
import type { LoginCodeFile } from '../store/login-code-file'
import { AppError, conflict } from '../errors'
import type { CoreEventBus } from '../events'

const digest = (s: string) => createHash('sha256').update(s).digest('hex')

/** How long a login code stays good (ms). */
export const LOGIN_CODE_TTL_MS = 10 * 60_000

export class AccountService {
  /** Whether this start generated the token (then it is shown once). */
  generatedNow = false
  /** The token in force and its sha256 (recomputed when the token changes). */
  private tokenDigest: { token: string; digest: Buffer } | null = null
  /** Login codes by their sha256, with their expiry (epoch ms). */
  private readonly loginCodes = new Map<string, number>()

  constructor(
    private readonly account: AccountRepo,
    private readonly clock: Clock,
    /** A token fixed by the environment; overrides the stored one. */
    private readonly fixedToken?: string,
    /** Where a replaced token is announced (what was opened with the old one ends: event streams). */
    private readonly events?: CoreEventBus,
    /** Codes made by `npm run login-link` (none: only the server's own). */
    private readonly codeFile?: LoginCodeFile
  ) {}

  /** Creates the account on first start. */
  async ensure(): Promise<void> {
    if (this.account.get()) return
    const mine = { _id: newObjectId(), api_token: newSecret(32), createdAt: isoNow(this.clock) }
    // Another worker on the same database may create the account at the same moment: one account wins.
    const stored = await this.account.createIfNone(mine)
    this.generatedNow = !this.fixedToken && stored._id === mine._id
  }

  /**
   * The key workers sign forwarded requests with (api/forward.ts): derived from the STORED token of the
   * account document every worker of the database shares (not CHATAPP_API_TOKEN, which each worker may
   * set on its own), so no extra secret needs distributing.
   */
  forwardKey(): Buffer {
    return createHash('sha256').update('chatapp-worker-forward\0').update(this.account.get()!.api_token).digest()
  }

  /** A new one-time login code, good for {@link LOGIN_CODE_TTL_MS}. */
  issueLoginCode(): string {
    const code = newSecret(18)
    this.loginCodes.set(digest(code), this.clock.now() + LOGIN_CODE_TTL_MS)
    return code
  }

  /**
   * The token for a login code, which is used up: one the server issued, or one `npm run login-link`
   * wrote to the data dir. 401 for an unknown, used or expired code.
   */
  async redeemLoginCode(code: string): Promise<string> {
    const key = digest(code)
    const now = this.clock.now()
    const expires = this.loginCodes.get(key)
    this.loginCodes.delete(key)
    for (const [k, at] of this.loginCodes) if (at <= now) this.loginCodes.delete(k)
    if (expires !== undefined && expires > now) return this.token()
    if (expires === undefined && (await this.codeFile?.take(key, now))) return this.token()
    throw new AppError('UNAUTHORIZED', 'This login link was used already or has expired. For a new one, run npm run login-link where the app runs (or restart it), or log in with the API token.')
  }

  get id(): string {
    return this.account.get()!._id
  }

  /** The bearer token in force. */
  token(): string {
    return this.fixedToken || this.account.get()!.api_token
  }

  /** True when the token in force is the environment's (it cannot be regenerated here). */
  get fixed(): boolean {
    return Boolean(this.fixedToken)
  }

  /** True when `candidate` is the token (constant time). */
  verify(candidate: string): boolean {
    // Hash both sides so the comparison does not leak the token's length either; the token's own
    // digest is computed once per token, not per request.
    const token = this.token()
    if (this.tokenDigest?.token !== token) this.tokenDigest = { token, digest: createHash('sha256').update(token).digest() }
    return timingSafeEqual(createHash('sha256').update(candidate).digest(), this.tokenDigest.digest)
  }

  /** Makes a new stored token; 409 when the environment fixes it. */
  async regenerate(): Promise<string> {
    if (this.fixedToken) throw conflict('The API token is set by CHATAPP_API_TOKEN; change it there.')
    const token = newSecret(32)
    await this.account.set({ ...this.account.get()!, api_token: token })
    this.events?.emit('revoked', { kind: 'accountToken', id: '' })
    return token
  }
}
