/**
 * The people at the desk (docs/design.md §21): staff accounts and their sessions, scoped API keys, the audit log,
 * and the authenticator that tells the faces who a request comes from.
 */
import type { Clock } from '../../clock'
import type { CoreEventBus } from '../../events'
import type { Repositories } from '../../store/repos'
import type { AccountService } from '../account-service'
import { ApiKeyService } from './api-key-service'
import { AuditService } from './audit-service'
import { Authenticator } from './authenticator'
import { StaffService } from './staff-service'
import { auditView } from './views'
import type { AuditEntryViewT } from '../../../shared/operations/table/people'

export { SESSION_COOKIE } from './authenticator'
export { isPeopleToken } from './tokens'
export { INVITE_TTL_MS, LOCK_AFTER_FAILURES, LOCK_MS, SESSION_TTL_MS, type NewSession } from './staff-service'
export type { AuditKind } from './audit-service'
export { apiKeyView, inviteView, meView, sessionView, staffView } from './views'

export class People {
  /** The audit log newest first, each entry with its actor's current name. */
  async auditLog(opts: { limit: number; before?: number; kind?: string }): Promise<AuditEntryViewT[]> {
    const [entries, staff, keys] = await Promise.all([this.audit.list(opts), this.staff.list(), this.keys.list()])
    const names = new Map<string, string>([...staff.map((m) => [`staff:${m.id}`, m.name] as const), ...keys.map((k) => [`key:${k.id}`, k.name] as const)])
    return entries.map((e) => auditView(e, names))
  }

  readonly audit: AuditService
  readonly staff: StaffService
  readonly keys: ApiKeyService
  readonly auth: Authenticator

  /** `events`: where revocations are announced (the faces end the event streams opened with them). */
  constructor(deps: { repos: Repositories; account: AccountService; clock: Clock; events: CoreEventBus; scryptLog2n?: number }) {
    this.audit = new AuditService(deps.repos, deps.clock)
    this.staff = new StaffService(deps.repos, this.audit, deps.clock, deps.events, deps.scryptLog2n)
    this.keys = new ApiKeyService(deps.repos, this.audit, deps.clock, deps.events)
    this.auth = new Authenticator(deps.account, this.staff, this.keys)
  }
}
