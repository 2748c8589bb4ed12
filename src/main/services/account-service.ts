/**
 * The local account and its API bearer token (docs/design.md §3). The token is generated at first
 * start and kept in the data dir, unless `CHATAPP_API_TOKEN` fixes it; it is compared in constant time.
 */
import { timingSafeEqual, createHash } from 'node:crypto'
import { isoNow, type Clock } from '../clock'
import { newObjectId, newSecret } from '../ids'
import type { AccountRepo } from '../store/repos'
import { conflict } from './errors'

export class AccountService {
  constructor(
    private readonly account: AccountRepo,
    private readonly clock: Clock,
    /** A token fixed by the environment; overrides the stored one. */
    private readonly fixedToken?: string
  ) {}

  /** Creates the account on first start. */
  async ensure(): Promise<void> {
    if (this.account.get()) return
    await this.account.set({ _id: newObjectId(), api_token: newSecret(32), createdAt: isoNow(this.clock) })
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
    // Hash both sides so the comparison does not leak the token's length either.
    const a = createHash('sha256').update(candidate).digest()
    const b = createHash('sha256').update(this.token()).digest()
    return timingSafeEqual(a, b)
  }

  /** Makes a new stored token; 409 when the environment fixes it. */
  async regenerate(): Promise<string> {
    if (this.fixedToken) throw conflict('The API token is set by CHATAPP_API_TOKEN; change it there.')
    const token = newSecret(32)
    await this.account.set({ ...this.account.get()!, api_token: token })
    return token
  }
}
