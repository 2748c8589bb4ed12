/** Survey runs and their answers (docs/design.md §9): one row per run. */
import { produce, type Draft } from 'immer'
import type { Kysely } from 'kysely'
import type { SurveyRun } from '../../../shared/schemas/records'
import type { Database, SurveyRunsTable } from '../db/schema'
import type { Exec } from './exec'
import type { Stored } from './record-table'
import { rowMap } from './row-map'
import { timeToMs } from '../db/times'

export const surveyRunRows = rowMap<SurveyRun, SurveyRunsTable>({
  _id: 'as is',
  instance_id: 'as is',
  survey_title: 'as is',
  chatId: 'as is',
  contactId: 'optional',
  pushName: 'as is',
  status: 'as is',
  current_step_id: 'as is',
  answers: 'json',
  startedAt: 'time',
  updatedAt: 'time',
  completedAt: 'time',
  handled: 'optional flag'
})

const freeze = (w: SurveyRunsTable): Stored<SurveyRun> => Object.freeze(surveyRunRows.fromRow(w))

export class SurveyRunRepo {
  constructor(private readonly x: Exec) {}

  async find(id: string): Promise<Stored<SurveyRun> | undefined> {
    const row = await this.x.db.selectFrom('survey_runs').selectAll().where('id', '=', id).executeTakeFirst()
    return row ? freeze(row) : undefined
  }

  /** The runs of one survey of an instance, oldest first. */
  async ofSurvey(instanceId: string, title: string): Promise<Stored<SurveyRun>[]> {
    const rows = await this.x.db.selectFrom('survey_runs').selectAll().where('instance_id', '=', instanceId).where('survey_title', '=', title).orderBy('started_at').orderBy('id').execute()
    return rows.map(freeze)
  }

  /** Runs in progress in a chat (of one contact when `contactId` is given), oldest first. */
  async inProgress(instanceId: string, chatId: string, contactId?: string): Promise<Stored<SurveyRun>[]> {
    let q = this.x.db.selectFrom('survey_runs').selectAll().where('instance_id', '=', instanceId).where('chat_id', '=', chatId).where('status', '=', 'in_progress')
    if (contactId !== undefined) q = q.where((eb) => eb(eb.fn.coalesce('contact_id', 'chat_id'), '=', contactId))
    return (await q.orderBy('started_at').execute()).map(freeze)
  }

  /** Runs in progress not touched since `beforeIso` (to expire). */
  async idleSince(beforeIso: string): Promise<Stored<SurveyRun>[]> {
    const rows = await this.x.db.selectFrom('survey_runs').selectAll().where('status', '=', 'in_progress').where('updated_at', '<', timeToMs(beforeIso)).execute()
    return rows.map(freeze)
  }

  /** How many runs are in progress and were answered at `sinceIso` or later (not idle past their expiry). */
  async countInProgressSince(sinceIso: string): Promise<number> {
    const { n } = await this.x.db
      .selectFrom('survey_runs')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('status', '=', 'in_progress')
      .where('updated_at', '>=', timeToMs(sinceIso))
      .executeTakeFirstOrThrow()
    return Number(n)
  }

  /** Runs of an instance in chat `jid` or answered by contact `jid` (a LID to re-key). */
  async ofChatOrContact(instanceId: string, jid: string): Promise<Stored<SurveyRun>[]> {
    const rows = await this.x.db
      .selectFrom('survey_runs')
      .selectAll()
      .where('instance_id', '=', instanceId)
      .where((eb) => eb.or([eb('chat_id', '=', jid), eb('contact_id', '=', jid)]))
      .execute()
    return rows.map(freeze)
  }

  /** Stores a run (new, or replacing the one with its `_id`). */
  async put(run: SurveyRun): Promise<Stored<SurveyRun>> {
    await this.x.write((trx) => this.putIn(trx, run))
    return Object.freeze(run)
  }

  /** Replaces a run only if it still exists (a deleted instance's run is not brought back). */
  async replace(run: SurveyRun): Promise<boolean> {
    return this.x.write(async (trx) => {
      const row = surveyRunRows.toRow(run)
      const { id: _id, ...rest } = row
      const res = await trx.updateTable('survey_runs').set(rest).where('id', '=', run._id).executeTakeFirst()
      return Number(res.numUpdatedRows) > 0
    })
  }

  async update(id: string, recipe: (d: Draft<SurveyRun>) => void): Promise<Stored<SurveyRun> | undefined> {
    return this.x.write(async (trx) => {
      const row = await trx.selectFrom('survey_runs').selectAll().where('id', '=', id).executeTakeFirst()
      if (!row) return undefined
      const current = surveyRunRows.fromRow(row)
      const next = produce(current, recipe)
      if (next === current) return Object.freeze(current)
      await this.putIn(trx, next)
      return Object.freeze(next)
    })
  }

  private async putIn(db: Kysely<Database>, run: SurveyRun): Promise<void> {
    const row = surveyRunRows.toRow(run)
    const { id: _id, ...rest } = row
    await db.insertInto('survey_runs').values(row).onConflict((oc) => oc.column('id').doUpdateSet(rest)).execute()
  }
}
