/**
 * The update shared by intents and survey steps (seed §4.1–4.2): title, keyword, reply and action
 * (`null` removes it), then the bookkeeping of seed 2.2 (updatedAt, __v).
 */
import type { Action } from '../../shared/schemas/records'

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
