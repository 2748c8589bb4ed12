/**
 * Operations of the people at the desk (docs/design.md §21): staff accounts, signing in and out, scoped API
 * keys, the audit log. Names and shapes are the issue's §4 (scripts and checks rely on them).
 */
import Type, { type Static } from 'typebox'
import { PERMISSIONS, ROLE_PERMISSIONS, type StaffRoleName } from '../../access'
import { op } from '../define'
import { Empty, Id } from './common'

const InstanceIds = Type.Array(Type.String({ minLength: 1 }), { maxItems: 200, description: 'The instances (ids) this one works on; omitted or null: every instance.' })
const StaffRole = Type.Union([Type.Literal('manager'), Type.Literal('agent')])
const Password = Type.String({ minLength: 1, maxLength: 1024 })

/** What a staff member made or changed by `input` will hold (`grants` of the operation). */
function staffGrants(input: Record<string, unknown>): { permissions: readonly string[]; instanceIds?: readonly string[] | null } {
  const role = input.role as StaffRoleName | undefined
  return { permissions: role ? ROLE_PERMISSIONS[role] : [], instanceIds: input.instance_ids as readonly string[] | null | undefined }
}

export const StaffView = Type.Object({
  id: Type.String(),
  name: Type.String(),
  login: Type.String(),
  role: StaffRole,
  instance_ids: Type.Union([Type.Array(Type.String()), Type.Null()]),
  active: Type.Boolean({ description: 'False until the person accepted the invite (set a password).' }),
  created_at: Type.String(),
  updated_at: Type.String()
})
export type StaffViewT = Static<typeof StaffView>

export const InviteView = Type.Object({
  id: Type.String(),
  invite_url: Type.String({ description: 'The one-time invite link (it carries the `code` for POST /auth/accept-invite); good for 72 hours.' }),
  expires_at: Type.String()
})
export type InviteViewT = Static<typeof InviteView>

export const ApiKeyView = Type.Object({
  id: Type.String(),
  name: Type.String(),
  scopes: Type.Array(Type.String()),
  instance_ids: Type.Union([Type.Array(Type.String()), Type.Null()]),
  created_at: Type.String(),
  last_used_at: Type.Union([Type.String(), Type.Null()]),
  last_used_ip: Type.Union([Type.String(), Type.Null()]),
  revoked_at: Type.Union([Type.String(), Type.Null()])
})
export type ApiKeyViewT = Static<typeof ApiKeyView>

export const AuditEntryView = Type.Object({
  seq: Type.Integer(),
  at: Type.String({ description: 'ISO 8601.' }),
  kind: Type.String({ description: 'login, login_failed, logout, key_used or change.' }),
  actor: Type.String({ description: '`owner`, `staff:<id>`, `key:<id>`, or the login tried.' }),
  actor_name: Type.Union([Type.String(), Type.Null()]),
  ip: Type.Union([Type.String(), Type.Null()]),
  detail: Type.Union([Type.Record(Type.String(), Type.Unknown()), Type.Null()])
})
export type AuditEntryViewT = Static<typeof AuditEntryView>

export const MeView = Type.Object({
  kind: Type.Union([Type.Literal('owner'), Type.Literal('staff'), Type.Literal('key')]),
  id: Type.Union([Type.String(), Type.Null()]),
  name: Type.String(),
  role: Type.Union([Type.Literal('owner'), Type.Literal('manager'), Type.Literal('agent'), Type.Literal('key')]),
  permissions: Type.Array(Type.String()),
  instance_ids: Type.Union([Type.Array(Type.String()), Type.Null()])
})
export type MeViewT = Static<typeof MeView>

export const SessionView = Type.Object({
  token: Type.String({ description: 'A session bearer token for clients without cookies (`Authorization: Bearer`).' }),
  csrf_token: Type.String({ description: 'What a write sent with the session cookie must carry in `X-CSRF-Token`.' }),
  expires_at: Type.String(),
  name: Type.String(),
  role: StaffRole
})
export type SessionViewT = Static<typeof SessionView>

const STAFF_ID = { staff_id: 'id' }

export const PEOPLE_OPERATIONS = {
  /* ---------- signing in (docs/design.md §21) ---------- */

  'auth.password': op<SessionViewT>()({
    summary: 'Sign in with a login and password',
    description:
      'Sets the session cookie (HttpOnly, SameSite=Strict) and answers a session bearer token for non-browser clients. Writes sent with the cookie must carry `X-CSRF-Token: <csrf_token>`. Five wrong passwords in a row lock the account for 15 minutes (429); failures also count toward the per-address throttle.',
    tags: ['people'],
    scope: 'public',
    permission: 'public',
    input: Type.Object({ login: Type.String({ minLength: 1, maxLength: 64 }), password: Password }),
    output: SessionView,
    http: { method: 'POST', path: '/auth/password', message: 'Signed in', respond: 'startSession', errors: { 401: 'Wrong login or password', 429: 'Too many failed attempts (account locked, or this address)' } }
  }),
  'auth.methods': op<{ passwords: boolean }>()({
    summary: 'How people sign in here: whether anyone has a password yet',
    description:
      'For the web UI’s first screen: `passwords` is false on a desk where no person has set a password (no staff yet), which then opens on what works — the one-time login link the server prints, or the API token.',
    tags: ['people'],
    scope: 'public',
    permission: 'public',
    input: Empty,
    output: Type.Object({ passwords: Type.Boolean() }),
    http: { method: 'GET', path: '/auth/methods', message: 'Sign-in methods', bodyOptional: true }
  }),
  'auth.acceptInvite': op<{ login: string; name: string }>()({
    summary: 'Accept an invite: set the password',
    audit: 'Accepted an invite and set a password',
    tags: ['people'],
    scope: 'public',
    permission: 'public',
    input: Type.Object({ code: Type.String({ minLength: 1, maxLength: 100 }), password: Password }),
    output: Type.Object({ login: Type.String(), name: Type.String() }),
    http: { method: 'POST', path: '/auth/accept-invite', message: 'Password set; sign in with it', errors: { 401: 'Unknown, used or expired invite' } }
  }),
  'auth.logout': op<{ signed_out: number }>()({
    summary: 'Sign out (this session, or every session of the person)',
    tags: ['people'],
    scope: 'account',
    permission: 'signed-in',
    reach: 'shared',
    input: Type.Object({ everywhere: Type.Optional(Type.Boolean({ description: 'End every session of the person, on every device.' })) }),
    output: Type.Object({ signed_out: Type.Integer() }),
    http: { method: 'POST', path: '/auth/logout', message: 'Signed out', respond: 'endSession', bodyOptional: true },
    rpc: true
  }),
  'auth.me': op<MeViewT>()({
    summary: 'Who the caller is: role, permissions and instances',
    tags: ['people'],
    scope: 'account',
    permission: 'signed-in',
    reach: 'shared',
    input: Empty,
    output: MeView,
    http: { method: 'GET', path: '/auth/me', message: 'Caller fetched', bodyOptional: true },
    rpc: true
  }),

  /* ---------- staff (owner) ---------- */

  'staff.create': op<StaffViewT & InviteViewT>()({
    summary: 'Add a person: name, login, role and instances; answers the one-time invite link',
    audit: 'Added a person',
    tags: ['people'],
    scope: 'account',
    permission: 'admin',
    // Created without instance_ids, a person works on every instance.
    grants: (input) => ({ ...staffGrants(input), instanceIds: (input.instance_ids as readonly string[] | null | undefined) ?? null }),
    input: Type.Object({
      name: Type.String({ minLength: 1, maxLength: 100 }),
      login: Type.String({ minLength: 2, maxLength: 64, description: 'Letters, digits and . _ @ -; case-insensitive; unique.' }),
      role: StaffRole,
      instance_ids: Type.Optional(Type.Union([InstanceIds, Type.Null()]))
    }),
    output: Type.Intersect([StaffView, InviteView]),
    http: { method: 'POST', path: '/staff', message: 'Staff member created', errors: { 409: 'The login is taken' } },
    rpc: true
  }),
  'staff.list': op<StaffViewT[]>()({
    summary: 'The people at the desk',
    tags: ['people'],
    scope: 'account',
    permission: 'admin',
    input: Empty,
    output: Type.Array(StaffView),
    http: { method: 'GET', path: '/staff', message: 'Staff fetched', bodyOptional: true },
    rpc: true
  }),
  'staff.update': op<StaffViewT>()({
    summary: 'Change a person’s name, role or instances',
    audit: 'Changed a person’s name, role or instances',
    tags: ['people'],
    scope: 'account',
    permission: 'admin',
    grants: staffGrants,
    input: Type.Object({ id: Id, name: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })), role: Type.Optional(StaffRole), instance_ids: Type.Optional(Type.Union([InstanceIds, Type.Null()])) }),
    output: StaffView,
    http: { method: 'PUT', path: '/staff/:staff_id', params: STAFF_ID, message: 'Staff member updated', errors: { 404: 'Unknown staff member' } },
    rpc: true
  }),
  'staff.delete': op<{ id: string }>()({
    summary: 'Remove a person (their sessions end at once; their chats are unassigned)',
    audit: 'Removed a person',
    tags: ['people'],
    scope: 'account',
    permission: 'admin',
    input: Type.Object({ id: Id }),
    output: Type.Object({ id: Type.String() }),
    http: { method: 'DELETE', path: '/staff/:staff_id', params: STAFF_ID, message: 'Staff member deleted', errors: { 404: 'Unknown staff member' } },
    rpc: true
  }),
  'staff.invite': op<InviteViewT>()({
    summary: 'A new invite link for a person (a lost link, or a password reset); earlier links stop working',
    audit: 'Made a new invite link',
    tags: ['people'],
    scope: 'account',
    permission: 'admin',
    input: Type.Object({ id: Id }),
    output: InviteView,
    http: { method: 'POST', path: '/staff/:staff_id/invite', params: STAFF_ID, message: 'Invite created', bodyOptional: true, errors: { 404: 'Unknown staff member' } },
    rpc: true
  }),
  'staff.signOut': op<{ signed_out: number }>()({
    summary: 'Sign a person out everywhere (every session ends at once)',
    audit: 'Signed a person out everywhere',
    tags: ['people'],
    scope: 'account',
    permission: 'admin',
    input: Type.Object({ id: Id }),
    output: Type.Object({ signed_out: Type.Integer() }),
    http: { method: 'POST', path: '/staff/:staff_id/sign-out', params: STAFF_ID, message: 'Signed out everywhere', bodyOptional: true, errors: { 404: 'Unknown staff member' } },
    rpc: true
  }),

  /* ---------- API keys (owner) ---------- */

  'apiKeys.create': op<ApiKeyViewT & { key: string }>()({
    summary: 'A named API key with scopes; the key is shown only in this answer',
    audit: 'Made an API key',
    description: `Scopes: ${PERMISSIONS.join(', ')}. \`admin\` is everything; a \`:write\` includes its \`:read\`. Limit it to instances with \`instance_ids\`.`,
    tags: ['people'],
    scope: 'account',
    permission: 'admin',
    grants: (input) => ({ permissions: input.scopes as readonly string[], instanceIds: (input.instance_ids as readonly string[] | null | undefined) ?? null }),
    input: Type.Object({
      name: Type.String({ minLength: 1, maxLength: 100 }),
      scopes: Type.Array(Type.String({ minLength: 1 }), { minItems: 1, maxItems: PERMISSIONS.length }),
      instance_ids: Type.Optional(Type.Union([InstanceIds, Type.Null()]))
    }),
    output: Type.Intersect([ApiKeyView, Type.Object({ key: Type.String() })]),
    http: { method: 'POST', path: '/api-keys', message: 'API key created' },
    rpc: true
  }),
  'apiKeys.list': op<ApiKeyViewT[]>()({
    summary: 'The API keys (never the keys themselves), with their last use',
    tags: ['people'],
    scope: 'account',
    permission: 'admin',
    input: Empty,
    output: Type.Array(ApiKeyView),
    http: { method: 'GET', path: '/api-keys', message: 'API keys fetched', bodyOptional: true },
    rpc: true
  }),
  'apiKeys.delete': op<{ id: string }>()({
    summary: 'Revoke an API key (refused at once)',
    audit: 'Revoked an API key',
    tags: ['people'],
    scope: 'account',
    permission: 'admin',
    input: Type.Object({ id: Id }),
    output: Type.Object({ id: Type.String() }),
    http: { method: 'DELETE', path: '/api-keys/:key_id', params: { key_id: 'id' }, message: 'API key revoked', errors: { 404: 'Unknown or already revoked key' } },
    rpc: true
  }),

  /* ---------- audit (owner) ---------- */

  'audit.list': op<AuditEntryViewT[]>()({
    summary: 'The audit log, newest first: logins, failed logins, key use, changes',
    description: 'Kept as long as the history (the longest retention of any instance). Page with `before` = the last entry’s `seq`.',
    tags: ['people'],
    scope: 'account',
    permission: 'admin',
    input: Type.Object({
      limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 500, default: 100 })),
      before: Type.Optional(Type.Integer({ minimum: 1 })),
      kind: Type.Optional(Type.Union([Type.Literal('login'), Type.Literal('login_failed'), Type.Literal('logout'), Type.Literal('key_used'), Type.Literal('change')]))
    }),
    output: Type.Array(AuditEntryView),
    http: { method: 'GET', path: '/audit', query: ['limit', 'before', 'kind'], message: 'Audit log fetched', bodyOptional: true },
    rpc: true
  })
} as const
