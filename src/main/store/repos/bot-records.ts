/**
 * The bot's records: intents, survey steps (docs/design.md §9) and attachments, one row each, owned
 * by an instance.
 */
import type { Attachment, Intent, Survey } from '../../../shared/schemas/records'
import type { AttachmentsTable, IntentsTable, SurveyStepsTable } from '../db/schema'
import { fromJson, toJson } from './exec'
import { InstanceRecordTable, type RowMap, type Stored } from './record-table'

export const intentRows: RowMap<Intent, IntentsTable> = {
  toRow: (r) => ({
    id: r._id,
    instance_id: r.instance_id,
    client_id: r.client_id,
    title: r.title,
    keyword: r.keyword,
    reply: r.reply,
    action: r.action === undefined ? null : toJson(r.action),
    created_at: r.createdAt,
    updated_at: r.updatedAt,
    v: r.__v
  }),
  fromRow: (w) => ({
    _id: w.id,
    client_id: w.client_id,
    instance_id: w.instance_id,
    title: w.title,
    keyword: w.keyword,
    reply: w.reply,
    ...(w.action !== null ? { action: fromJson<Intent['action']>(w.action) } : {}),
    createdAt: w.created_at,
    updatedAt: w.updated_at,
    __v: w.v
  })
}

export const surveyStepRows: RowMap<Survey, SurveyStepsTable> = {
  toRow: (r) => ({
    id: r._id,
    instance_id: r.instance_id,
    client_id: r.client_id,
    title: r.title,
    keyword: r.keyword,
    reply: r.reply,
    sort_id: r.sort_id,
    action: r.action === undefined ? null : toJson(r.action),
    closing_msg: r.closing_msg ?? null,
    created_at: r.createdAt,
    updated_at: r.updatedAt,
    v: r.__v
  }),
  fromRow: (w) => ({
    _id: w.id,
    client_id: w.client_id,
    instance_id: w.instance_id,
    title: w.title,
    keyword: w.keyword,
    reply: w.reply,
    sort_id: w.sort_id,
    ...(w.action !== null ? { action: fromJson<Survey['action']>(w.action) } : {}),
    ...(w.closing_msg !== null ? { closing_msg: w.closing_msg } : {}),
    createdAt: w.created_at,
    updatedAt: w.updated_at,
    __v: w.v
  })
}

export const attachmentRows: RowMap<Attachment, AttachmentsTable> = {
  toRow: (r) => ({ id: r._id, instance_id: r.instance_id, client_id: r.client_id, filename: r.filename, mimetype: r.mimetype, size: r.size, sha256: r.sha256, created_at: r.createdAt }),
  fromRow: (w) => ({ _id: w.id, client_id: w.client_id, instance_id: w.instance_id, filename: w.filename, mimetype: w.mimetype, size: w.size, sha256: w.sha256, createdAt: w.created_at })
}

export class IntentRepo extends InstanceRecordTable<Intent, 'intents'> {}

export class AttachmentRepo extends InstanceRecordTable<Attachment, 'attachments'> {}

export class SurveyStepRepo extends InstanceRecordTable<Survey, 'survey_steps'> {
  /** The steps of the survey `title` of an instance, by `sort_id` then creation. */
  async stepsOf(instanceId: string, title: string): Promise<Stored<Survey>[]> {
    const rows = await this.x.db.selectFrom('survey_steps').selectAll().where('instance_id', '=', instanceId).where('title', '=', title).orderBy('sort_id').orderBy('created_at').execute()
    return rows.map((r) => this.toRecord(r))
  }

  /** Gives `steps` the sort ids 1…n in one transaction (only those whose position changes). */
  async reorder(steps: readonly Stored<Survey>[], now: string): Promise<void> {
    await this.x.write(async (trx) => {
      for (const [i, s] of steps.entries()) {
        if (s.sort_id !== i + 1) await this.putIn(trx, { ...s, sort_id: i + 1, updatedAt: now, __v: s.__v + 1 })
      }
    })
  }
}
