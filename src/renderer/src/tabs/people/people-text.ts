/** Words of the People tab (pure, for tests): instances, audit entries, when. */
import { OPERATIONS } from '../../../../shared/operations/table'
import type { AuditEntryViewT } from '../../../../shared/operations/table/people'

/** The instances a person or key works on, by name: "Every instance" when not limited. */
export function instancesText(ids: readonly string[] | null, nameOf: (id: string) => string): string {
  return ids === null ? 'Every instance' : ids.length === 0 ? 'No instance' : ids.map(nameOf).join(', ')
}

/** `instance_ids` of a form's multiselect: none picked means every instance (null). */
export function instanceIdsOf(picked: readonly string[]): string[] | null {
  return picked.length ? [...picked] : null
}

/**
 * A recorded change in words: its operation's `audit` text in the operation table ("Revoked an API
 * key" for `apiKeys.delete`); the operation's name when the table does not know it (an entry written
 * by another release).
 */
export function operationText(name: string): string {
  return (OPERATIONS as Record<string, { audit?: string } | undefined>)[name]?.audit ?? name
}

/** What an audit entry records, in words; `nameOf` names the instance a change was about. */
export function auditWhat(e: Pick<AuditEntryViewT, 'kind' | 'detail'>, nameOf?: (id: string) => string): string {
  const d = e.detail ?? {}
  switch (e.kind) {
    case 'login':
      return 'Signed in'
    case 'login_failed':
      return d.reason === 'locked' ? 'Sign-in refused (account locked)' : 'Sign-in failed (wrong password)'
    case 'logout':
      return d.everywhere ? 'Signed out everywhere' : 'Signed out'
    case 'key_used':
      return 'Used the API key'
    case 'change':
      if (typeof d.operation !== 'string') return 'Changed'
      return typeof d.instance_id === 'string' && nameOf ? `${operationText(d.operation)} · ${nameOf(d.instance_id)}` : operationText(d.operation)
    default:
      return e.kind
  }
}

/** Who an audit entry names: their name when known, else the actor (`owner`, `key:…`, the login tried). */
export function auditWho(e: Pick<AuditEntryViewT, 'actor' | 'actor_name'>): string {
  return e.actor_name ?? (e.actor === 'owner' ? 'Owner' : e.actor)
}

/** A stored time as the screen shows it (local date and time); "never" for null. */
export function when(iso: string | null): string {
  return iso ? new Date(iso).toLocaleString() : 'never'
}
