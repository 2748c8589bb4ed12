/**
 * Runs an operation for a caller, the one path both faces take (HTTP routes and the UI contract):
 * checks the caller's permission for the operation (the table names it) and, for an instance-scoped
 * one, that the caller may reach the instance; runs the runner; and records a change of settings,
 * staff, keys or data in the audit log (issue 27 §1, §5). A refusal is a 403 naming the missing
 * permission; nothing runs.
 */
import type { TObject } from 'typebox'
import { mayReach, mayUse, actorId, type Caller } from '../../shared/access'
import type { OperationDef } from '../../shared/operations/define'
import { OPERATIONS, type OperationName } from '../../shared/operations/table'
import type { Instance } from '../../shared/schemas/records'
import { forbidden } from '../services/errors'
import type { Stored } from '../store/repos'
import { callerOf, RUNNERS, type OperationContext } from './runners'

type AnyRunner = (ctx: OperationContext, input: Record<string, unknown>, inst: Stored<Instance> | undefined) => unknown

/** Reads, which the audit log leaves out (a change or a download is recorded). */
const READ = /\.(get|list|status|about|info|health|me|read|preview|responses|stats|activity)$/

/** Whether a successful run of `name` goes into the audit log: changes that need settings or admin rights. */
export function audited(name: OperationName): boolean {
  const { permission } = OPERATIONS[name] as OperationDef<TObject, unknown, unknown>
  return (permission === 'admin' || permission === 'settings:write') && !READ.test(name)
}

/** 403 unless `caller` (the desktop owner when unset) holds the permission `name` needs. */
export function authorizePermission(caller: Caller | undefined, name: OperationName): void {
  const { permission } = OPERATIONS[name] as OperationDef<TObject, unknown, unknown>
  if (!mayUse(caller ?? { kind: 'owner', via: 'desktop' }, permission)) throw forbidden(permission)
}

/** 403 unless the context's caller may run `name` (on `inst`, for an instance-scoped operation). */
export function authorize(ctx: OperationContext, name: OperationName, inst: Stored<Instance> | undefined): void {
  const caller = callerOf(ctx)
  authorizePermission(caller, name)
  if (inst && !mayReach(caller, inst._id)) throw forbidden((OPERATIONS[name] as OperationDef<TObject, unknown, unknown>).permission, `on instance ${inst._id}`)
}

/** Authorizes, runs and audits one operation; answers the runner's result. */
export async function invoke(ctx: OperationContext, name: OperationName, input: Record<string, unknown>, inst: Stored<Instance> | undefined): Promise<unknown> {
  authorize(ctx, name, inst)
  const result = await (RUNNERS[name] as AnyRunner)(ctx, input, inst)
  if (audited(name)) await ctx.core.people.audit.record('change', actorId(callerOf(ctx)), ctx.ip ?? null, { operation: name, ...(inst ? { instance_id: inst._id } : {}) })
  return result
}
