/**
 * The local account and its API bearer token (DESIGN.md §3). The token is generated at first start
 * and kept in the data dir, unless `CHATAPP_API_TOKEN` fixes it; it is compared in constant time.
 */
import { timingSafeEqual, createHash } from 'node:crypto'
import { newObjectId, newSecret } from '../ids'
import type { Storage } from '../store/storage'
import { conflict } from './errors'

export class AccountService {
  constructor(
    private readonly storage: Storage,
    /** A token fixed by the environment; overrides the stored one. */
    private readonly fixedToken?: string
  ) {}

  /** Creates the account on first start. */
  async ensure(): Promise<void> {
    if (this.storage.config.data.account) return
    await this.storage.config.update((d) => {
      d.account = { _id: newObjectId(), api_token: newSecret(32), createdAt: new Date().toISOString() }
    })
  }

  get id(): string {
    return this.storage.config.data.account!._id
  }

  /** The bearer token in force. */
  token(): string {
    return this.fixedToken || this.storage.config.data.account!.api_token
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
    await this.storage.config.update((d) => {
      d.account!.api_token = token
    })
    return token
  }
}
