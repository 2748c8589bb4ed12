/**
 * The API's views of the people records (snake_case, ISO times, as the issue's §4 names them): pure
 * mappings, so HTTP and the UI contract answer the same shapes.
 */
import { permissionsOf, roleOf, type Caller } from '../../../shared/access'
import type { ApiKeyViewT, AuditEntryViewT, InviteViewT, MeViewT, SessionViewT, StaffViewT } from '../../../shared/operations/table/people'
import type { ApiKeyRecord, AuditEntry, StaffMember } from '../../store/repos'
import type { NewSession } from './staff-service'
import { INVITE_TTL_MS } from './staff-service'

export function staffView(m: StaffMember): StaffViewT {
  return { id: m.id, name: m.name, login: m.login, role: m.role, instance_ids: m.instanceIds ? [...m.instanceIds] : null, active: m.active, created_at: m.createdAt, updated_at: m.updatedAt }
}

/** The invite of member `id` with code `code`, as a link to the web UI at `baseUrl`. */
export function inviteView(id: string, code: string, baseUrl: string, now: number): InviteViewT {
  return { id, invite_url: `${baseUrl}/#invite=${encodeURIComponent(code)}`, expires_at: new Date(now + INVITE_TTL_MS).toISOString() }
}

export function apiKeyView(k: ApiKeyRecord): ApiKeyViewT {
  return { id: k.id, name: k.name, scopes: [...k.scopes], instance_ids: k.instanceIds ? [...k.instanceIds] : null, created_at: k.createdAt, last_used_at: k.lastUsedAt, last_used_ip: k.lastUsedIp, revoked_at: k.revokedAt }
}

/** An audit entry with the actor's current name (`names`: actor → name) when known. */
export function auditView(e: AuditEntry, names: ReadonlyMap<string, string>): AuditEntryViewT {
  return { seq: e.seq, at: new Date(e.at).toISOString(), kind: e.kind, actor: e.actor, actor_name: e.actor === 'owner' ? 'Owner' : (names.get(e.actor) ?? null), ip: e.ip, detail: e.detail }
}

export function sessionView(s: NewSession): SessionViewT {
  return { token: s.token, csrf_token: s.csrfToken, expires_at: new Date(s.expiresAt).toISOString(), name: s.member.name, role: s.member.role }
}

export function meView(c: Caller): MeViewT {
  return {
    kind: c.kind,
    id: c.kind === 'owner' ? null : c.id,
    name: c.kind === 'owner' ? 'Owner' : c.name,
    role: roleOf(c),
    permissions: [...permissionsOf(c)],
    instance_ids: c.kind === 'owner' || c.instanceIds === null ? null : [...c.instanceIds]
  }
}
