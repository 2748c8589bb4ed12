/**
 * What the bot remembers between messages: its activity log ("why no reply", newest kept per
 * instance) and when it last sent a rate-limited message (the default and away messages) to a chat.
 */
import type { BotActivity } from '../../../shared/schemas/records'
import { fromJson, toJson, type Exec } from './exec'
import { msToTime, timeToMs } from '../db/times'

export class BotActivityRepo {
  constructor(private readonly x: Exec) {}

  /** The newest `limit` entries of an instance, oldest first. */
  async ofInstance(instanceId: string, limit: number): Promise<BotActivity[]> {
    const rows = await this.x.db.selectFrom('bot_activity').selectAll().where('instance_id', '=', instanceId).orderBy('seq', 'desc').limit(limit).execute()
    return rows.reverse().map((r) => ({
      at: msToTime(r.at),
      instance_id: r.instance_id,
      chatId: r.chat_id,
      messageId: r.message_id,
      matched: r.matched,
      actions: fromJson<BotActivity['actions']>(r.actions),
      ...(r.assistant ? { assistant: fromJson<NonNullable<BotActivity['assistant']>>(r.assistant) } : {})
    }))
  }

  /** Adds an entry; only the newest `keep` of its instance stay. */
  async add(entry: BotActivity, keep: number): Promise<void> {
    await this.x.write(async (trx) => {
      await trx
        .insertInto('bot_activity')
        .values({ instance_id: entry.instance_id, at: timeToMs(entry.at), chat_id: entry.chatId, message_id: entry.messageId, matched: entry.matched, actions: toJson(entry.actions), assistant: entry.assistant ? toJson(entry.assistant) : null })
        .execute()
      const edge = await trx.selectFrom('bot_activity').select('seq').where('instance_id', '=', entry.instance_id).orderBy('seq', 'desc').offset(keep).limit(1).executeTakeFirst()
      if (edge) await trx.deleteFrom('bot_activity').where('instance_id', '=', entry.instance_id).where('seq', '<=', edge.seq).execute()
    })
  }
}

/** The kinds of rate-limited bot messages. */
export type ReplyMarkKind = 'default' | 'away'

export class ReplyMarkRepo {
  constructor(private readonly x: Exec) {}

  /**
   * Claims the right to send a `kind` message to a chat at `nowMs`: true (and recorded) when none
   * was sent within `windowMs`, false otherwise. One transaction: two messages arriving together
   * cannot both claim it.
   */
  async claim(kind: ReplyMarkKind, instanceId: string, chatId: string, nowMs: number, windowMs: number): Promise<boolean> {
    return this.x.write(async (trx) => {
      const row = await trx.selectFrom('bot_reply_marks').select('at').where('kind', '=', kind).where('instance_id', '=', instanceId).where('chat_id', '=', chatId).executeTakeFirst()
      if (row && nowMs - row.at < windowMs && nowMs >= row.at) return false
      await trx
        .insertInto('bot_reply_marks')
        .values({ kind, instance_id: instanceId, chat_id: chatId, at: nowMs })
        .onConflict((oc) => oc.columns(['kind', 'instance_id', 'chat_id']).doUpdateSet({ at: nowMs }))
        .execute()
      // Marks older than a week answer no window the bot has (at most 24 h by default).
      await trx.deleteFrom('bot_reply_marks').where('at', '<', nowMs - 7 * 86_400_000).execute()
      return true
    })
  }

  /** Moves a chat's marks to another chat id (a LID filed under its number), keeping the newer. */
  async rekey(instanceId: string, from: string, to: string): Promise<void> {
    await this.x.write(async (trx) => {
      const rows = await trx.selectFrom('bot_reply_marks').selectAll().where('instance_id', '=', instanceId).where('chat_id', '=', from).execute()
      for (const r of rows) {
        await trx
          .insertInto('bot_reply_marks')
          .values({ ...r, chat_id: to })
          .onConflict((oc) => oc.columns(['kind', 'instance_id', 'chat_id']).doUpdateSet((eb) => ({ at: eb.case().when('bot_reply_marks.at', '<', r.at).then(r.at).else(eb.ref('bot_reply_marks.at')).end() })))
          .execute()
      }
      await trx.deleteFrom('bot_reply_marks').where('instance_id', '=', instanceId).where('chat_id', '=', from).execute()
    })
  }
}
