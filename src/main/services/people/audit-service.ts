/**
 * The audit log (docs/design.md §21 "Audit"): logins, failed logins, key use, and changes of settings, staff and
 * keys, for the owner's Audit page. Entries name who and what, never a secret or a message's content.
 * Kept by the history's rule: entries older than the longest retention any instance has go with the
 * daily retention run; with any instance keeping everything, they stay.
 */
import type { Clock } from '../../clock'
import type { Repositories } from '../../store/repos'
import type { AuditEntry } from '../../store/repos'

/** The kinds of entries. */
export type AuditKind = 'login' | 'login_failed' | 'logout' | 'key_used' | 'change'

export class AuditService {
  constructor(
    private readonly repos: Pick<Repositories, 'audit'>,
    private readonly clock: Clock
  ) {}

  /** Adds an entry now. */
  async record(kind: AuditKind, actor: string, ip: string | null, detail: Record<string, unknown> | null = null): Promise<void> {
    await this.repos.audit.add({ at: this.clock.now(), kind, actor, ip, detail })
  }

  /** Entries newest first; `before` is the `seq` of the last entry of the previous page. */
  list(opts: { limit: number; before?: number; kind?: string }): Promise<AuditEntry[]> {
    return this.repos.audit.list({ limit: opts.limit, beforeSeq: opts.before, kind: opts.kind })
  }

  /** Deletes entries older than `days` days (the retention run); none when `days` is null (kept forever). */
  async applyRetention(days: number | null): Promise<number> {
    if (days === null) return 0
    return this.repos.audit.purgeBefore(this.clock.now() - days * 86_400_000)
  }
}
