/**
 * Checks an action object (docs/api-seed.md §2.5) against the instance's records, so a typo or a
 * dangling id is a 400 at save time instead of an action that silently fails at run time
 * (docs/design.md §4).
 */
import { toGroupJid, toJid } from '../channel/jid'
import type { Action, Instance } from '../../shared/schemas/records'
import type { Repositories } from '../store/repos'
import { AppError, type FieldProblem } from '../errors'

/** Throws VALIDATION_ERROR listing every problem found. */
export async function checkAction(action: Action | null | undefined, inst: Pick<Instance, '_id'>, repos: Pick<Repositories, 'attachments' | 'surveySteps' | 'contactGroups'>): Promise<void> {
  if (!action) return
  const problems: FieldProblem[] = []
  const attachment = (id: string) => repos.attachments.owned(inst._id, id)
  if (action.send_file !== undefined && !(await attachment(action.send_file))) {
    problems.push({ field: 'action.send_file', problem: 'names no attachment of this instance' })
  }
  if (action.send_photo !== undefined) {
    const a = await attachment(action.send_photo)
    if (!a) problems.push({ field: 'action.send_photo', problem: 'names no attachment of this instance' })
    else if (!a.mimetype.startsWith('image/')) problems.push({ field: 'action.send_photo', problem: `is ${a.mimetype}, not an image` })
  }
  if (action.start_survey !== undefined && !(await repos.surveySteps.owned(inst._id, action.start_survey))) {
    problems.push({ field: 'action.start_survey', problem: 'names no survey step of this instance' })
  }
  // A contact group of this instance (the original service's meaning) or a WhatsApp group (docs/design.md §17).
  if (action.add_to_group !== undefined && !toGroupJid(action.add_to_group) && !(await repos.contactGroups.owned(inst._id, action.add_to_group))) {
    problems.push({ field: 'action.add_to_group', problem: 'must be a contact group id of this instance or a WhatsApp group id such as 120363012345678901@g.us' })
  }
  if (action.send_contact && !toJid(action.send_contact.number)) {
    problems.push({ field: 'action.send_contact.number', problem: 'must be a phone number' })
  }
  const n = action.send_notification
  if (n) {
    if (!n.email && !n.chatapp_number) problems.push({ field: 'action.send_notification', problem: 'needs email or chatapp_number' })
    if (n.chatapp_number && !toJid(n.chatapp_number)) problems.push({ field: 'action.send_notification.chatapp_number', problem: 'must be a phone number' })
  }
  const loc = action.send_location
  if (loc) {
    if (Math.abs(Number(loc.lat)) > 90) problems.push({ field: 'action.send_location.lat', problem: 'must be between -90 and 90' })
    if (Math.abs(Number(loc.lng)) > 180) problems.push({ field: 'action.send_location.lng', problem: 'must be between -180 and 180' })
  }
  if (problems.length) {
    throw new AppError('VALIDATION_ERROR', `Invalid request: ${problems.map((p) => `${p.field} ${p.problem}`).join('; ')}`, problems)
  }
}
