/** Outreach records: scheduled messages and the sends the governor counts (docs/design.md §18). */
import type { OutreachSend, ScheduledMessage } from '../../../shared/schemas/records'
import type { OutreachSendsTable, SchedulesTable } from '../db/schema'
import type { Exec } from './exec'
import { InstanceRecordTable, type Stored } from './record-table'
import { rowMap } from './row-map'
import { msToTimeOrNull, timeToMs } from '../db/times'

export const scheduleRows = rowMap<ScheduledMessage, SchedulesTable>({
  _id: 'as is',
  client_id: 'as is',
  instance_id: 'as is',
  title: 'as is',
  target: 'json',
  message: 'json',
  repeat: 'as is',
  start_at: 'as is',
  days: 'json',
  active: 'flag',
  next_run_at: 'time',
  runs: 'json',
  createdAt: 'time',
  updatedAt: 'time',
  __v: 'as is'
})

export const outreachSendRows = rowMap<OutreachSend, OutreachSendsTable>({ _id: 'as is', instance_id: 'as is', to: 'as is', at: 'as is' })

export class ScheduleRepo extends InstanceRecordTable<ScheduledMessage, 'schedules'> {
  /** Active schedules whose next run is at or before `atIso` (all active ones with a next run when absent), soonest first. */
  async due(atIso?: string): Promise<Stored<ScheduledMessage>[]> {
    let q = this.x.db.selectFrom('schedules').selectAll().where('active', '=', 1).where('next_run_at', 'is not', null)
    if (atIso !== undefined) q = q.where('next_run_at', '<=', timeToMs(atIso))
    return (await q.orderBy('next_run_at').execute()).map((r) => this.toRecord(r))
  }

  /** The soonest next run of every active schedule (ISO), or null. */
  async soonest(): Promise<string | null> {
    const row = await this.x.db.selectFrom('schedules').select('next_run_at').where('active', '=', 1).where('next_run_at', 'is not', null).orderBy('next_run_at').limit(1).executeTakeFirst()
    return msToTimeOrNull(row?.next_run_at ?? null)
  }
}

export class OutreachSendRepo {
  constructor(private readonly x: Exec) {}

  /** The sends of an instance counted from `sinceMs` (epoch ms) on, oldest first. */
  async since(instanceId: string, sinceMs: number): Promise<OutreachSend[]> {
    const rows = await this.x.db.selectFrom('outreach_sends').selectAll().where('instance_id', '=', instanceId).where('at', '>=', sinceMs).orderBy('at').execute()
    return rows.map((r) => outreachSendRows.fromRow(r))
  }

  /** Counts a send and forgets the instance's sends older than `keepAfter` (epoch ms), in one transaction. */
  async add(send: OutreachSend, keepAfter: number): Promise<void> {
    await this.x.write(async (trx) => {
      await trx.deleteFrom('outreach_sends').where('instance_id', '=', send.instance_id).where('at', '<', keepAfter).execute()
      await trx.insertInto('outreach_sends').values(outreachSendRows.toRow(send)).execute()
    })
  }
}
