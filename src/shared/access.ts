/**
 * Who may do what (docs/design.md §21): the permissions an operation can need, the
 * roles of the people at the desk, and the callers the faces authenticate. Pure data and pure rules:
 * the server checks them for every operation (src/main/access/), the UI only reads them to hide what
 * a person may not use.
 *
 * API key scopes are the same strings as permissions. `admin` grants everything; a `:write` grants its
 * `:read`, and `inbox:reply` grants `inbox:read`.
 */

/** Every permission, in the order the docs list them. */
export const PERMISSIONS = [
  'instances:read',
  'instances:connect',
  'settings:write',
  'bot:read',
  'bot:write',
  'messages:read',
  'messages:send',
  'inbox:read',
  'inbox:reply',
  'contacts:read',
  'contacts:write',
  'outreach:read',
  'outreach:write',
  'admin'
] as const
export type Permission = (typeof PERMISSIONS)[number]

/** What an operation needs: a permission, nothing (`public`), or only to be someone (`signed-in`). */
export type OperationPermission = Permission | 'public' | 'signed-in'

export const ROLES = ['owner', 'manager', 'agent'] as const
export type Role = (typeof ROLES)[number]
/** The roles a staff account can have (the owner is the account itself). */
export type StaffRoleName = Exclude<Role, 'owner'>

/**
 * What each role holds. Owner: everything. Manager: the instances' bot settings, intents, surveys,
 * broadcasts and contacts; no backups, tokens, staff, webhooks or deletion of instances. Agent: the
 * Inbox and contacts of the instances they are given: read, reply, resolve, hand off.
 */
export const ROLE_PERMISSIONS: Readonly<Record<Role, readonly Permission[]>> = {
  owner: ['admin'],
  manager: PERMISSIONS.filter((p) => p !== 'admin'),
  agent: ['instances:read', 'messages:read', 'messages:send', 'inbox:read', 'inbox:reply', 'contacts:read']
}

/** Whether holding `held` grants `needed` (admin grants all; a write its read; a reply the inbox's read). */
export function grants(held: readonly string[], needed: Permission): boolean {
  if (held.includes('admin') || held.includes(needed)) return true
  if (needed.endsWith(':read')) {
    const domain = needed.slice(0, -':read'.length)
    if (held.includes(`${domain}:write`)) return true
    if (needed === 'inbox:read' && held.includes('inbox:reply')) return true
  }
  return false
}

/** Who is calling, as the faces authenticated them. */
export type Caller =
  /** The account: the desktop app itself, or its account token (seed compatibility). */
  | { kind: 'owner'; via: 'desktop' | 'token' }
  /** A person signed in with their password (a web session). */
  | { kind: 'staff'; id: string; name: string; role: StaffRoleName; instanceIds: readonly string[] | null }
  /** A script with a scoped API key. */
  | { kind: 'key'; id: string; name: string; scopes: readonly string[]; instanceIds: readonly string[] | null }

/** The permissions a caller holds. */
export function permissionsOf(caller: Caller): readonly string[] {
  if (caller.kind === 'owner') return ROLE_PERMISSIONS.owner
  if (caller.kind === 'staff') return ROLE_PERMISSIONS[caller.role]
  return caller.scopes
}

/** Whether `caller` may use an operation that needs `needed`. */
export function mayUse(caller: Caller, needed: OperationPermission): boolean {
  if (needed === 'public' || needed === 'signed-in') return true
  return grants(permissionsOf(caller), needed)
}

/** Whether `caller` may act on instance `instanceId` (staff and keys may be limited to some). */
export function mayReach(caller: Caller, instanceId: string): boolean {
  if (caller.kind === 'owner') return true
  return caller.instanceIds === null || caller.instanceIds.includes(instanceId)
}

/**
 * The instance limit of a caller: the instances it may reach, or null for none (the owner, and staff
 * or keys given every instance).
 */
export function instanceLimitOf(caller: Caller): readonly string[] | null {
  return caller.kind === 'owner' ? null : caller.instanceIds
}

/**
 * How far an account-scoped operation reaches (docs/design.md §21 "Instance limits"), which decides
 * what a caller limited to some instances may do with it:
 *
 * - `account`: the whole account — backups and restores, the account token, staff, API keys, app
 *   settings, creating instances, the audit log, the cluster, updates, changes to the catalogs every
 *   instance shares (labels, quick replies). Only a caller without an instance limit.
 * - `reachable`: the instances the caller may reach, and no others (the instance list, the inbox; an
 *   instance it names must be one of them).
 * - `shared`: nothing of any instance (who the caller is, the app's version, the shared catalogs read).
 */
export type AccountReach = 'account' | 'reachable' | 'shared'

/** Whether `caller` may run an account-scoped operation of `reach` (an `account` one needs no instance limit). */
export function mayReachAccount(caller: Caller, reach: AccountReach): boolean {
  return reach !== 'account' || instanceLimitOf(caller) === null
}

/**
 * Whether `caller` may give what a new credential would hold — an API key's scopes, a staff role's
 * permissions — limited to `instanceIds` (null: every instance): never more than it holds itself,
 * and never beyond its own instances (`undefined`: the instances are not changed). The owner may
 * give anything.
 */
export function mayGrant(caller: Caller, permissions: readonly string[], instanceIds: readonly string[] | null | undefined): boolean {
  const held = permissionsOf(caller)
  // An unknown scope is not a wider one: the service refuses it with a 400 naming it.
  if (!permissions.every((p) => !(PERMISSIONS as readonly string[]).includes(p) || grants(held, p as Permission))) return false
  const limit = instanceLimitOf(caller)
  if (limit === null || instanceIds === undefined) return true
  return instanceIds !== null && instanceIds.every((id) => limit.includes(id))
}

/** The caller's role as the UI shows it (a key counts as what its scopes make it). */
export function roleOf(caller: Caller): Role | 'key' {
  return caller.kind === 'owner' ? 'owner' : caller.kind === 'staff' ? caller.role : 'key'
}

/** The audit log's and `sent_by`'s name of a caller: `owner`, `staff:<id>`, `key:<id>`. */
export function actorId(caller: Caller): string {
  return caller.kind === 'owner' ? 'owner' : `${caller.kind}:${caller.id}`
}

/** `sent_by` of a message a caller sends (src/shared/schemas/records/messages.ts SentBy). */
export function sentByOf(caller: Caller): { kind: 'owner' | 'staff' | 'key'; id?: string; name: string } {
  return caller.kind === 'owner' ? { kind: 'owner', name: 'Owner' } : { kind: caller.kind, id: caller.id, name: caller.name }
}

/**
 * An instance record as `caller` may see it: the webhook's signing secret and the receiver's request
 * headers (often an Authorization) are the owner's (`admin`) — whoever holds them can forge or read
 * the shop's webhooks — so anyone else sees them blanked.
 */
export function instanceViewFor<I extends { settings: { webhook: { secret: string; requestConfig?: { headers?: Record<string, string> } } } }>(caller: Caller, inst: I): I {
  if (mayUse(caller, 'admin')) return inst
  const { webhook } = inst.settings
  const headers = webhook.requestConfig?.headers
  return {
    ...inst,
    settings: {
      ...inst.settings,
      webhook: {
        ...webhook,
        secret: '',
        ...(webhook.requestConfig ? { requestConfig: { ...webhook.requestConfig, ...(headers ? { headers: Object.fromEntries(Object.keys(headers).map((k) => [k, '(hidden)'])) } : {}) } } : {})
      }
    }
  }
}
