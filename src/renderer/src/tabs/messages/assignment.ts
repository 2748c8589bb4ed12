/** Who a conversation can be assigned to from the open chat, and its timeline in words (pure, for tests). */
import type { MeViewT, StaffViewT } from '../../../../shared/operations/table/people'
import type { TimelineEntryT } from '../../../../shared/operations/results'

/** `inbox.assign`'s input besides the chat: a person (`owner` too), nobody (null), or round-robin. */
export type AssignTo = { staff_id: string | null } | { round_robin: true }

export interface AssignChoice {
  label: string
  to: AssignTo
}

/** The assignee id of the caller: `owner` for the account, the staff id for a person; null for a key. */
export function selfAssigneeId(me: Pick<MeViewT, 'kind' | 'id'>): string | null {
  return me.kind === 'owner' ? 'owner' : me.kind === 'staff' ? me.id : null
}

/**
 * The assign menu's choices: the caller, each active person who works on the instance (only when the
 * caller may list the staff), round-robin among the instance's signed-in agents (not for an agent),
 * and unassigning (an agent only their own conversation). The current assignee is left out.
 */
export function assignChoices(
  me: Pick<MeViewT, 'kind' | 'id' | 'role'>,
  staff: readonly Pick<StaffViewT, 'id' | 'name' | 'active' | 'instance_ids'>[] | null,
  instanceId: string,
  assigned: { id: string } | null
): AssignChoice[] {
  const self = selfAssigneeId(me)
  const choices: AssignChoice[] = []
  if (self && assigned?.id !== self) choices.push({ label: 'Assign to me', to: { staff_id: self } })
  for (const p of staff ?? []) {
    if (p.id === self || p.id === assigned?.id || !p.active || (p.instance_ids !== null && !p.instance_ids.includes(instanceId))) continue
    choices.push({ label: `Assign to ${p.name}`, to: { staff_id: p.id } })
  }
  if (me.role === 'owner' || me.role === 'manager') choices.push({ label: 'Round-robin (a signed-in agent)', to: { round_robin: true } })
  if (assigned && (me.role !== 'agent' || assigned.id === self)) choices.push({ label: 'Unassign', to: { staff_id: null } })
  return choices
}

/** A timeline entry as a line: who assigned it to whom (or unassigned it), and when. */
export function timelineText(e: TimelineEntryT): string {
  const when = new Date(e.at).toLocaleString()
  if (!e.assigned_to) return `${e.by.name} unassigned this conversation · ${when}`
  const byId = e.by.kind === 'owner' ? 'owner' : e.by.id
  if (byId !== undefined && byId === e.assigned_to.id) return `${e.by.name} took this conversation · ${when}`
  return `${e.by.name} assigned this conversation to ${e.assigned_to.name} · ${when}`
}
