/** Outreach records: scheduled messages and the sends the governor counts (issue 14 §4–5). */
import type { OutreachSend, ScheduledMessage } from '../../../shared/schemas/records'
import type { SchedulesTable } from '../db/schema'
import { flag, fromJson, isSet, toJson, type Exec } from './exec'
import { InstanceRecordTable, type RowMap, type Stored } from './record-table'

export const scheduleRows: RowMap<ScheduledMessage, SchedulesTable> = {
  toRow: (r) => ({
    id: r._id,
    instance_id: r.instance_id,
    client_id: r.client_id,
    title: r.title,
    target: toJson(r.target),
    message: toJson(r.message),
    repeat: r.repeat,
    start_at: r.start_at,
    days: toJson(r.days),
    active: flag(r.active),
    next_run_at: r.next_run_at,
    runs: toJson(r.runs),
    created_at: r.createdAt,
    updated_at: r.updatedAt,
    v: r.__v
  }),
  fromRow: (w) => ({
    _id: w.id,
    client_id: w.client_id,
    instance_id: w.instance_id,
    title: w.title,
    target: fromJson<ScheduledMessage['target']>(w.target),
    message: fromJson<ScheduledMessage['message']>(w.message),
    repeat: w.repeat as ScheduledMessage['repeat'],
    start_at: w.start_at,
    days: fromJson<ScheduledMessage['days']>(w.days),
    active: isSet(w.active),
    next_run_at: w.next_run_at,
    runs: fromJson<ScheduledMessage['runs']>(w.runs),
    createdAt: w.created_at,
    updatedAt: w.updated_at,
    __v: w.v
  })
}

export class ScheduleRepo extends InstanceRecordTable<ScheduledMessage, 'schedules'> {
  /** Active schedules whose next run is at or before `atIso` (all active ones with a next run when absent), soonest first. */
  async due(atIso?: string): Promise<Stored<ScheduledMessage>[]> {
    let q = this.x.db.selectFrom('schedules').selectAll().where('active', '=', 1).where('next_run_at', 'is not', null)
    if (atIso !== undefined) q = q.where('next_run_at', '<=', atIso)
    return (await q.orderBy('next_run_at').execute()).map((r) => this.toRecord(r))
  }

  /** The soonest next run of every active schedule (ISO), or null. */
  async soonest(): Promise<string | null> {
    const row = await this.x.db.selectFrom('schedules').select('next_run_at').where('active', '=', 1).where('next_run_at', 'is not', null).orderBy('next_run_at').limit(1).executeTakeFirst()
    return row?.next_run_at ?? null
  }
}

export class OutreachSendRepo {
  constructor(private readonly x: Exec) {}

  /** The sends of an instance counted from `sinceMs` (epoch ms) on, oldest first. */
  async since(instanceId: string, sinceMs: number): Promise<OutreachSend[]> {
    const rows = await this.x.db.selectFrom('outreach_sends').selectAll().where('instance_id', '=', instanceId).where('at', '>=', sinceMs).orderBy('at').execute()
    return rows.map((r) => ({ _id: r.id, instance_id: r.instance_id, to: r.to, at: r.at }))
  }

  /** Counts a send and forgets the instance's sends older than `keepAfter` (epoch ms), in one transaction. */
  async add(send: OutreachSend, keepAfter: number): Promise<void> {
    await this.x.write(async (trx) => {
      await trx.deleteFrom('outreach_sends').where('instance_id', '=', send.instance_id).where('at', '<', keepAfter).execute()
      await trx.insertInto('outreach_sends').values({ id: send._id, instance_id: send.instance_id, to: send.to, at: send.at }).execute()
    })
  }
}
