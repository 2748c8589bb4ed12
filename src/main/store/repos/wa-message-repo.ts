/**
 * Recent WhatsApp messages the real channel keeps whole (`wa_messages`: the `proto.WebMessageInfo`
 * bytes), per instance: its own sends, which a recipient may ask for again with a retry receipt, and
 * inbound media messages, whose keys a later download needs. A bounded cache of what the phone also
 * has, not the message log: the channel decides what goes in and for how long
 * (channel/baileys/message-store.ts); this repository stores, finds and prunes.
 */
import type { Exec } from './exec'
import { flag, isSet } from './exec'
import { larger } from '../db/search-sql'

/** A kept message. */
export interface WaMessageRow {
  /** The WhatsApp message id (`key.id`). */
  id: string
  /** When it was first kept (epoch ms). */
  at: number
  /** Sent by this instance. */
  own: boolean
  /** `proto.WebMessageInfo` bytes. */
  message: Uint8Array
}

function fromRow(r: { id: string; at: number; own: number; message: Uint8Array }): WaMessageRow {
  return { id: r.id, at: r.at, own: isSet(r.own), message: r.message }
}

export class WaMessageRepo {
  constructor(private readonly x: Exec) {}

  /**
   * Keeps a message. A message kept before keeps its first `at`, stays `own` once it was, and takes
   * the newer bytes (a later copy of the same message, e.g. with its media URL refreshed).
   */
  async put(instanceId: string, m: WaMessageRow): Promise<void> {
    await this.x.write((trx) =>
      trx
        .insertInto('wa_messages')
        .values({ instance_id: instanceId, id: m.id, at: m.at, own: flag(m.own), message: m.message })
        .onConflict((oc) =>
          oc.columns(['instance_id', 'id']).doUpdateSet((eb) => ({
            message: eb.ref('excluded.message'),
            own: larger(trx, eb.ref('wa_messages.own'), eb.ref('excluded.own'))
          }))
        )
        .execute()
    )
  }

  /** The kept message `id` of an instance, kept at or after `since` (epoch ms). */
  async find(instanceId: string, id: string, since = 0): Promise<WaMessageRow | undefined> {
    const row = await this.x.db.selectFrom('wa_messages').select(['id', 'at', 'own', 'message']).where('instance_id', '=', instanceId).where('id', '=', id).where('at', '>=', since).executeTakeFirst()
    return row ? fromRow(row) : undefined
  }

  /** The newest `limit` messages of an instance kept at or after `since` (epoch ms), oldest first. */
  async recent(instanceId: string, since: number, limit: number): Promise<WaMessageRow[]> {
    const rows = await this.x.db
      .selectFrom('wa_messages')
      .select(['id', 'at', 'own', 'message'])
      .where('instance_id', '=', instanceId)
      .where('at', '>=', since)
      .orderBy('at', 'desc')
      .orderBy('id', 'desc')
      .limit(limit)
      .execute()
    return rows.reverse().map(fromRow)
  }

  /**
   * Deletes the instance's messages kept before `before` (epoch ms) and all but the newest `keep`.
   * Answers how many went.
   */
  async prune(instanceId: string, before: number, keep: number): Promise<number> {
    return this.x.write(async (trx) => {
      const expired = await trx.deleteFrom('wa_messages').where('instance_id', '=', instanceId).where('at', '<', before).executeTakeFirst()
      // The newest `keep` by (at, id): the same order recent() reads them in.
      const edge = await trx
        .selectFrom('wa_messages')
        .select(['at', 'id'])
        .where('instance_id', '=', instanceId)
        .orderBy('at', 'desc')
        .orderBy('id', 'desc')
        .offset(keep)
        .limit(1)
        .executeTakeFirst()
      let beyond = 0n
      if (edge) {
        const res = await trx
          .deleteFrom('wa_messages')
          .where('instance_id', '=', instanceId)
          .where((eb) => eb.or([eb('at', '<', edge.at), eb.and([eb('at', '=', edge.at), eb('id', '<=', edge.id)])]))
          .executeTakeFirst()
        beyond = res.numDeletedRows
      }
      return Number(expired.numDeletedRows + beyond)
    })
  }

  /** Number of messages kept for an instance (diagnostics, tests). */
  async count(instanceId: string): Promise<number> {
    const row = await this.x.db.selectFrom('wa_messages').select((eb) => eb.fn.countAll<number>().as('n')).where('instance_id', '=', instanceId).executeTakeFirstOrThrow()
    return Number(row.n)
  }

  /** Deletes every message kept for an instance (logout, delete). */
  /** Deletes one kept message (a message deleted for everyone: its media keys go with it). */
  async removeOne(instanceId: string, id: string): Promise<void> {
    await this.x.write((trx) => trx.deleteFrom('wa_messages').where('instance_id', '=', instanceId).where('id', '=', id).execute())
  }

  async remove(instanceId: string): Promise<void> {
    await this.x.write((trx) => trx.deleteFrom('wa_messages').where('instance_id', '=', instanceId).execute())
  }
}
