/**
 * What intents and survey steps share (seed §2.2–2.5, §4.1–4.2): title, keyword, reply and an
 * optional action on an instance-owned record with the bookkeeping fields; creating one and
 * patching one (`action: null` removes it; updatedAt and __v move).
 */
import { newObjectId } from '../ids'
import type { Action, Instance } from '../../shared/schemas/records'

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

/** Applies `patch` to `record` in place. */
export function applyRecordPatch(record: KeywordRecord, patch: KeywordRecordPatch): void {
  if (patch.title !== undefined) record.title = patch.title
  if (patch.keyword !== undefined) record.keyword = patch.keyword
  if (patch.reply !== undefined) record.reply = patch.reply
  if (patch.action === null) delete record.action
  else if (patch.action !== undefined) record.action = patch.action
  record.updatedAt = new Date().toISOString()
  record.__v += 1
}

/** The fields of a new intent or survey step owned by `inst`, with fresh bookkeeping. */
export function newKeywordRecord(inst: Instance, fields: { title: string; keyword: string; reply: string; action?: Action }) {
  const now = new Date().toISOString()
  return {
    _id: newObjectId(),
    client_id: inst.user_id,
    instance_id: inst._id,
    title: fields.title,
    keyword: fields.keyword,
    reply: fields.reply,
    ...(fields.action ? { action: fields.action } : {}),
    createdAt: now,
    updatedAt: now,
    __v: 0
  }
}
