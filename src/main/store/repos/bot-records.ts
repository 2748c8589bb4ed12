/**
 * The bot's records: intents, survey steps (docs/design.md §9) and attachments, one row each, owned
 * by an instance.
 */
import type { Attachment, Intent, Survey } from '../../../shared/schemas/records'
import type { AttachmentsTable, IntentsTable, SurveyStepsTable } from '../db/schema'
import { InstanceRecordTable, type Stored } from './record-table'
import { rowMap } from './row-map'

/** The fields an intent and a survey step share, in the records' order: whose it is, its words and its reply. */
const KEYWORD_RECORD = { _id: 'as is', client_id: 'as is', instance_id: 'as is', title: 'as is', keyword: 'as is', reply: 'as is' } as const

export const intentRows = rowMap<Intent, IntentsTable>({
  ...KEYWORD_RECORD,
  action: 'optional json',
  createdAt: 'time',
  updatedAt: 'time',
  __v: 'as is'
})

export const surveyStepRows = rowMap<Survey, SurveyStepsTable>({
  ...KEYWORD_RECORD,
  sort_id: 'as is',
  action: 'optional json',
  closing_msg: 'optional',
  createdAt: 'time',
  updatedAt: 'time',
  __v: 'as is'
})

export const attachmentRows = rowMap<Attachment, AttachmentsTable>({
  _id: 'as is',
  client_id: 'as is',
  instance_id: 'as is',
  filename: 'as is',
  mimetype: 'as is',
  size: 'as is',
  sha256: 'as is',
  createdAt: 'time'
})

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
