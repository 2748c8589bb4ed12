/**
 * What the signed-in caller may use, for the UI to offer only that (docs/ui.md "People at the desk"). The server is the
 * guard: every operation names its permission (src/shared/operations/table/) and answers 403 without
 * it; these rules only read the same table with the caller's permissions from `auth.me`.
 */
import { grants, type Permission } from '../../shared/access'
import type { ContractMethod } from '../../shared/contract'
import { OPERATIONS } from '../../shared/operations/table'
import type { MeViewT } from '../../shared/operations/table/people'
import type { TabId } from './tabs/tab-props'

/**
 * Whether `me` may call the contract method `method` (false before `auth.me` answered): it holds the
 * permission, and an account-wide operation needs a caller without an instance limit (the server's
 * rule, src/main/operations/invoke.ts).
 */
export function mayCall(me: (Pick<MeViewT, 'permissions'> & Partial<Pick<MeViewT, 'instance_ids'>>) | null, method: ContractMethod): boolean {
  const def = OPERATIONS[method]
  const needed = def.permission
  if (needed === 'public' || needed === 'signed-in') return true
  if (!me || !grants(me.permissions, needed)) return false
  const reach = ('reach' in def ? def.reach : undefined) ?? 'account'
  return def.scope !== 'account' || reach !== 'account' || me.instance_ids === undefined || me.instance_ids === null
}

/** The method whose permission opens each tab (what the tab is for, not only what it reads). */
export const TAB_NEEDS: Readonly<Record<TabId, ContractMethod>> = {
  instances: 'instances.init',
  pairing: 'pairing.qr',
  settings: 'settings.updateGeneral',
  intents: 'intents.list',
  surveys: 'surveys.list',
  messages: 'inbox.list',
  contacts: 'contacts.list',
  outreach: 'broadcasts.list',
  testchat: 'sandbox.inbound',
  api: 'apiToken.get',
  people: 'staff.list'
}

/** The tabs `me` sees, in the window's order (`order`). */
export function visibleTabs<T extends TabId>(me: Pick<MeViewT, 'permissions'> | null, order: readonly T[]): T[] {
  return order.filter((id) => mayCall(me, TAB_NEEDS[id]))
}

/** The tab to open: the one asked for when `me` sees it, else the first `me` sees (null: none). */
export function openingTab<T extends TabId>(wanted: T | null, visible: readonly T[]): T | null {
  return wanted && visible.includes(wanted) ? wanted : (visible[0] ?? null)
}

export type AssignedFilter = 'mine' | 'unassigned' | 'all'

/**
 * The Inbox's assignment filter to start on: the one this browser kept, else "all" for everyone. New
 * customers' conversations arrive unassigned and nothing hands them out by itself (round-robin is a
 * click), so an agent started on "mine" would not see them; the instances an agent works on already
 * limit what "all" holds.
 */
export function initialAssignedFilter(kept: string | null): AssignedFilter {
  return kept === 'mine' || kept === 'unassigned' || kept === 'all' ? kept : 'all'
}

/** Whether `me` holds `permission` (for choices inside a screen, e.g. round-robin for managers). */
export function holds(me: Pick<MeViewT, 'permissions'> | null, permission: Permission): boolean {
  return !!me && grants(me.permissions, permission)
}
