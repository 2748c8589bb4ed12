/**
 * Runs an operation for a caller, the one path both faces take (HTTP routes and the UI contract), and
 * the one place operations are authorized (docs/design.md §21 "Who calls", "Instance limits"):
 *
 * - the caller holds the permission the operation needs (the table names it), else 403 naming it;
 * - an account-wide operation (`reach: 'account'`, the default of the account scope: backups, the
 *   account token, staff, keys, app settings, creating instances…) needs a caller without an instance
 *   limit, else 403;
 * - a credential the operation makes (an API key, a staff member) holds no more than the caller
 *   (`grants`), else 403;
 * - an instance-scoped operation runs only on an instance the caller may reach (403 naming it), and an
 *   account-scoped one naming an instance (`instanceField`) only on one it may reach (404, as for an
 *   unknown instance: its existence is not theirs to learn).
 *
 * Then it runs the runner and records a change of settings, staff, keys or data in the audit log.
 * A refusal runs nothing. Lists that span instances (`type=all`, the inbox, the instance list) are
 * limited by the runners to the instances the caller may reach (runners.ts `reachable`).
 */
import type { TObject } from 'typebox'
import { instanceLimitOf, mayGrant, mayReach, mayReachAccount, mayUse, actorId, type Caller } from '../../shared/access'
import type { OperationDef } from '../../shared/operations/define'
import { OPERATIONS, type OperationName } from '../../shared/operations/table'
import type { Instance } from '../../shared/schemas/records'
import { AppError, forbidden, notFound } from '../errors'
import type { Stored } from '../store/repos'
import { callerOf, RUNNERS, type OperationContext } from './runners'

type AnyRunner = (ctx: OperationContext, input: Record<string, unknown>, inst: Stored<Instance> | undefined) => unknown
type AnyOperation = OperationDef<TObject, unknown, unknown>

/** Reads, which the audit log leaves out (a change or a download is recorded). */
const READ = /\.(get|list|status|about|info|health|me|read|preview|responses|stats|activity)$/

/** Whether a successful run of `name` goes into the audit log: changes that need settings or admin rights. */
export function audited(name: OperationName): boolean {
  const { permission } = OPERATIONS[name] as AnyOperation
  return (permission === 'admin' || permission === 'settings:write') && !READ.test(name)
}

/**
 * 403 unless `caller` (the desktop owner when unset) may use `name` at all: it holds the permission,
 * and an account-wide operation needs a caller without an instance limit. Needs no input, so the faces
 * call it before a request's body is read.
 */
export function authorizePermission(caller: Caller | undefined, name: OperationName): void {
  const who = caller ?? { kind: 'owner', via: 'desktop' }
  const def = OPERATIONS[name] as AnyOperation
  if (!mayUse(who, def.permission)) throw forbidden(def.permission)
  if (def.scope === 'account' && !mayReachAccount(who, def.reach ?? 'account')) {
    const limit = instanceLimitOf(who)!
    throw new AppError(
      'FORBIDDEN',
      `Forbidden: ${name} reaches the whole account, so it needs a caller without an instance limit (this ${who.kind === 'key' ? 'API key' : 'person'} is limited to ${limit.length} instance${limit.length === 1 ? '' : 's'}).`,
      [{ field: 'instance_ids', problem: 'limit the caller to some instances; this operation needs a caller limited to none' }]
    )
  }
}

/** 403 unless the context's caller may run `name` with `input` (on `inst`, for an instance-scoped operation). */
export function authorize(ctx: OperationContext, name: OperationName, input: Record<string, unknown>, inst: Stored<Instance> | undefined): void {
  const caller = callerOf(ctx)
  authorizePermission(caller, name)
  const def = OPERATIONS[name] as AnyOperation
  if (inst && !mayReach(caller, inst._id)) throw forbidden(def.permission, `on instance ${inst._id}`)
  const named = def.instanceField === undefined ? undefined : input[def.instanceField]
  if (typeof named === 'string' && named !== '' && !mayReach(caller, named)) throw notFound('Instance')
  const granted = def.grants?.(input)
  if (granted && !mayGrant(caller, granted.permissions, granted.instanceIds)) {
    throw new AppError('FORBIDDEN', 'Forbidden: a key or person you make cannot hold more than you do: more permissions, or instances beyond your own.', [
      { field: 'scopes', problem: 'grants more than the caller holds' }
    ])
  }
}

/** Authorizes, runs and audits one operation; answers the runner's result. */
export async function invoke(ctx: OperationContext, name: OperationName, input: Record<string, unknown>, inst: Stored<Instance> | undefined): Promise<unknown> {
  authorize(ctx, name, input, inst)
  const result = await (RUNNERS[name] as AnyRunner)(ctx, input, inst)
  if (audited(name)) await ctx.core.people.audit.record('change', actorId(callerOf(ctx)), ctx.ip ?? null, { operation: name, ...(inst ? { instance_id: inst._id } : {}) })
  return result
}
