/** Chats whose bot is paused for a person (hand-off, docs/design.md §13): one row per chat. */
import type { ChatPause } from '../../../shared/schemas/records'
import type { ChatPausesTable } from '../db/schema'
import type { Exec } from './exec'
import type { Stored } from './record-table'
import { rowMap } from './row-map'
import { timeToMs } from '../db/times'

/** A pause ↔ its row; the `_id` is no column but the instance and chat it names. */
const chatPauseRows = rowMap<Omit<ChatPause, '_id'>, ChatPausesTable>({
  instance_id: 'as is',
  chatId: 'as is',
  since: 'time',
  until: 'time',
  reason: 'as is',
  by: 'as is',
  taken_by: 'optional json'
})

function fromRow(w: ChatPausesTable): Stored<ChatPause> {
  return Object.freeze({ _id: `${w.instance_id}:${w.chat_id}`, ...chatPauseRows.fromRow(w) })
}

/** The row of a pause (`_id` aside: the instance and chat columns hold it). */
export function chatPauseToRow(p: ChatPause): ChatPausesTable {
  return chatPauseRows.toRow(p)
}

export class ChatPauseRepo {
  constructor(private readonly x: Exec) {}

  async find(instanceId: string, chatId: string): Promise<Stored<ChatPause> | undefined> {
    const row = await this.x.db.selectFrom('chat_pauses').selectAll().where('instance_id', '=', instanceId).where('chat_id', '=', chatId).executeTakeFirst()
    return row ? fromRow(row) : undefined
  }

  /** The pauses of an instance in force at `nowIso` (until resumed, or until later), newest first. */
  async inForce(instanceId: string, nowIso: string): Promise<Stored<ChatPause>[]> {
    const rows = await this.x.db
      .selectFrom('chat_pauses')
      .selectAll()
      .where('instance_id', '=', instanceId)
      .where((eb) => eb.or([eb('until', 'is', null), eb('until', '>', timeToMs(nowIso))]))
      .orderBy('since', 'desc')
      .execute()
    return rows.map(fromRow)
  }

  /** Stores the chat's pause (replacing an earlier one). */
  async put(pause: ChatPause): Promise<Stored<ChatPause>> {
    const row = chatPauseToRow(pause)
    await this.x.write((trx) =>
      trx
        .insertInto('chat_pauses')
        .values(row)
        .onConflict((oc) => oc.columns(['instance_id', 'chat_id']).doUpdateSet({ since: row.since, until: row.until, reason: row.reason, by: row.by, taken_by: row.taken_by }))
        .execute()
    )
    return Object.freeze(pause)
  }

  /** Removes the chat's pause; answers whether there was one. */
  async remove(instanceId: string, chatId: string): Promise<boolean> {
    return this.x.write(async (trx) => {
      const res = await trx.deleteFrom('chat_pauses').where('instance_id', '=', instanceId).where('chat_id', '=', chatId).executeTakeFirst()
      return Number(res.numDeletedRows) > 0
    })
  }
}
