/**
 * What intents and survey steps share (docs/api-seed.md §2.2–2.5, §4.1–4.2): title, keyword, reply and
 * an optional action on an instance-owned record with the bookkeeping fields; creating one and
 * patching one (`action: null` removes it; updatedAt and __v move).
 */
import type { Draft } from 'immer'
import { newObjectId } from '../ids'
import { splitKeywords } from '../../shared/domain/keywords'
import type { Action, Instance } from '../../shared/schemas/records'
import { invalid } from '../errors'

interface KeywordRecord {
  title: string
  keyword: string
  reply: string
  action?: Action
  updatedAt: string
  __v: number
}

export interface KeywordRecordPatch {
  title?: string
  keyword?: string
  reply?: string
  action?: Action | null
}

/** Throws 400 when a keyword field yields no keyword the bot could ever match (shared/domain/keywords.ts). */
export function requireKeywords(field: string, csv: string): void {
  if (splitKeywords(csv).length === 0) throw invalid(field, 'must list at least one keyword (comma-separated)')
}

/** Applies `patch` to a draft of the record, stamped `now` (ISO). */
/**
 * An action as stored: `send_notification.whatsapp_number` (the original service's name, docs/design.md §17)
 * becomes `chatapp_number` unless that is given too, so the rest of the app knows one name.
 */
export function storedAction(action: Action): Action {
  const n = action.send_notification
  if (!n || n.whatsapp_number === undefined) return action
  const { whatsapp_number, ...rest } = n
  return { ...action, send_notification: { ...rest, chatapp_number: rest.chatapp_number ?? whatsapp_number } }
}

export function applyRecordPatch(record: Draft<KeywordRecord>, patch: KeywordRecordPatch, now: string): void {
  if (patch.title !== undefined) record.title = patch.title
  if (patch.keyword !== undefined) record.keyword = patch.keyword
  if (patch.reply !== undefined) record.reply = patch.reply
  if (patch.action === null) delete record.action
  else if (patch.action !== undefined) record.action = storedAction(patch.action)
  record.updatedAt = now
  record.__v += 1
}

/** The fields of a new intent or survey step owned by `inst`, created `now` (ISO). */
export function newKeywordRecord(inst: Pick<Instance, '_id' | 'user_id'>, fields: { title: string; keyword: string; reply: string; action?: Action }, now: string) {
  return {
    _id: newObjectId(),
    client_id: inst.user_id,
    instance_id: inst._id,
    title: fields.title,
    keyword: fields.keyword,
    reply: fields.reply,
    ...(fields.action ? { action: storedAction(fields.action) } : {}),
    createdAt: now,
    updatedAt: now,
    __v: 0
  }
}
