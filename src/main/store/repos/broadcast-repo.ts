/**
 * Broadcasts (docs/design.md §18 "Broadcasts") with their recipients: the broadcast in `broadcasts`, each recipient in
 * `broadcast_recipients` with where it stands (pending, current, sent, failed, skipped). The service
 * works on the whole record (its `pending`, `sent`, `failed`, `skipped` lists and `current`); a change
 * writes the broadcast row and only the recipients whose state moved, in one transaction.
 */
import { produce, type Draft } from 'immer'
import type { Kysely } from 'kysely'
import type { Broadcast } from '../../../shared/schemas/records'
import type { BroadcastRecipientsTable, BroadcastsTable, Database } from '../db/schema'
import type { Exec } from './exec'
import type { Stored } from './record-table'
import { rowMap } from './row-map'
import { msToTime, timeToMs } from '../db/times'

type RecipientState = BroadcastRecipientsTable['state']
type Recipient = Omit<BroadcastRecipientsTable, 'broadcast_id' | 'position' | 'done_seq'>

/** A broadcast ↔ its row, recipients apart (rows of `broadcast_recipients`: {@link recipientsOf}). */
const broadcastRows = rowMap<Omit<Broadcast, 'sent' | 'pending' | 'failed' | 'skipped'>, BroadcastsTable>({
  _id: 'as is',
  client_id: 'as is',
  instance_id: 'as is',
  send_type: 'as is',
  to: 'as is',
  message: 'json',
  status: 'as is',
  status_reason: 'as is',
  current: 'json',
  schedule_id: 'as is',
  createdAt: 'time',
  updatedAt: 'time',
  __v: 'as is'
})

/** A recipient's time as stored: epoch ms, or NULL for none (the record's empty text). */
const atOf = (at: string): number | null => (at === '' ? null : timeToMs(at))

/** Where each recipient of a record stands, by number, and the order of each finished list. */
function recipientsOf(b: Broadcast): Map<string, Recipient & { order: number }> {
  const out = new Map<string, Recipient & { order: number }>()
  const none = { name: null, contact_id: null, message_id: null, reason: null, at: null }
  b.pending.forEach((p, i) => out.set(p.number, { ...none, number: p.number, name: p.name, contact_id: p.contact_id, state: 'pending', order: i }))
  if (b.current) out.set(b.current.number, { ...none, number: b.current.number, state: 'current', at: atOf(b.current.started_at), order: 0 })
  b.sent.forEach((s, i) => out.set(s.number, { ...none, number: s.number, state: 'sent', message_id: s.message_id, at: atOf(s.at), order: i }))
  b.failed.forEach((f, i) => out.set(f.number, { ...none, number: f.number, state: 'failed', reason: f.reason, at: atOf(f.at), order: i }))
  b.skipped.forEach((s, i) => out.set(s.number, { ...none, number: s.number, state: 'skipped', reason: s.reason, order: i }))
  return out
}

function broadcastFromRows(w: BroadcastsTable, recipients: readonly BroadcastRecipientsTable[]): Broadcast {
  const of = (state: RecipientState) => recipients.filter((r) => r.state === state).sort((a, b) => (a.done_seq ?? a.position) - (b.done_seq ?? b.position) || a.position - b.position)
  return {
    ...broadcastRows.fromRow(w),
    sent: of('sent').map((r) => ({ number: r.number, message_id: r.message_id ?? '', at: r.at === null ? '' : msToTime(r.at) })),
    pending: recipients.filter((r) => r.state === 'pending').sort((a, b) => a.position - b.position).map((r) => ({ number: r.number, name: r.name, contact_id: r.contact_id })),
    failed: of('failed').map((r) => ({ number: r.number, reason: r.reason ?? '', at: r.at === null ? '' : msToTime(r.at) })),
    skipped: of('skipped').map((r) => ({ number: r.number, reason: r.reason ?? '' }))
  }
}

export class BroadcastRepo {
  constructor(private readonly x: Exec) {}

  async find(id: string): Promise<Stored<Broadcast> | undefined> {
    return (await this.load(this.x.db, [id]))[0]
  }

  /** The broadcast `id` if it belongs to `instanceId`. */
  async owned(instanceId: string, id: string): Promise<Stored<Broadcast> | undefined> {
    const b = await this.find(id)
    return b && b.instance_id === instanceId ? b : undefined
  }

  /** An instance's broadcasts, newest first. */
  async ofInstance(instanceId: string): Promise<Stored<Broadcast>[]> {
    const ids = await this.x.db.selectFrom('broadcasts').select('id').where('instance_id', '=', instanceId).orderBy('created_at', 'desc').orderBy('id', 'desc').execute()
    return this.load(this.x.db, ids.map((r) => r.id))
  }

  /** Broadcasts with `status`, oldest first (of one instance when given). */
  async withStatus(status: Broadcast['status'], instanceId?: string): Promise<Stored<Broadcast>[]> {
    let q = this.x.db.selectFrom('broadcasts').select('id').where('status', '=', status)
    if (instanceId !== undefined) q = q.where('instance_id', '=', instanceId)
    const ids = await q.orderBy('created_at').orderBy('id').execute()
    return this.load(this.x.db, ids.map((r) => r.id))
  }

  /** How many broadcasts have `status`. */
  async countWithStatus(status: Broadcast['status']): Promise<number> {
    const { n } = await this.x.db.selectFrom('broadcasts').select((eb) => eb.fn.countAll<number>().as('n')).where('status', '=', status).executeTakeFirstOrThrow()
    return Number(n)
  }

  /** Broadcasts cut in the middle of a send (a recipient `current`). */
  async interrupted(): Promise<Stored<Broadcast>[]> {
    const ids = await this.x.db.selectFrom('broadcasts').select('id').where('current', 'is not', null).execute()
    return this.load(this.x.db, ids.map((r) => r.id))
  }

  /** Stores a new broadcast with its recipients. */
  async put(b: Broadcast): Promise<Stored<Broadcast>> {
    await this.x.write(async (trx) => {
      await trx.insertInto('broadcasts').values(broadcastRows.toRow(b)).execute()
      const rows = [...recipientsOf(b).values()].map((r, position) => ({
        broadcast_id: b._id,
        position,
        number: r.number,
        name: r.name,
        contact_id: r.contact_id,
        state: r.state,
        message_id: r.message_id,
        reason: r.reason,
        at: r.at,
        done_seq: r.state === 'pending' ? null : r.order
      }))
      for (let i = 0; i < rows.length; i += 200) await trx.insertInto('broadcast_recipients').values(rows.slice(i, i + 200)).execute()
    })
    return Object.freeze(b)
  }

  /**
   * Changes a broadcast through `recipe`; writes the broadcast and the recipients whose state moved,
   * in one transaction. Answers the new record, or undefined when there is none with that id.
   */
  async update(id: string, recipe: (d: Draft<Broadcast>) => void): Promise<Stored<Broadcast> | undefined> {
    return this.x.write(async (trx) => {
      const [current] = await this.load(trx, [id])
      if (!current) return undefined
      const next = produce(current as Broadcast, recipe)
      if (next === current) return current
      await trx.updateTable('broadcasts').set(broadcastRows.toRow(next)).where('id', '=', id).execute()
      const rows = await trx.selectFrom('broadcast_recipients').selectAll().where('broadcast_id', '=', id).execute()
      const byNumber = new Map(rows.map((r) => [r.number, r]))
      let doneSeq = Math.max(-1, ...rows.map((r) => r.done_seq ?? -1))
      let position = Math.max(-1, ...rows.map((r) => r.position))
      for (const r of recipientsOf(next).values()) {
        const old = byNumber.get(r.number)
        byNumber.delete(r.number)
        if (old && old.state === r.state && old.message_id === r.message_id && old.reason === r.reason && old.at === r.at) continue
        const done = r.state === 'pending' || r.state === 'current' ? null : old && old.state === r.state ? old.done_seq : ++doneSeq
        if (old) {
          await trx.updateTable('broadcast_recipients').set({ state: r.state, message_id: r.message_id, reason: r.reason, at: r.at, done_seq: done }).where('broadcast_id', '=', id).where('position', '=', old.position).execute()
        } else {
          await trx.insertInto('broadcast_recipients').values({ broadcast_id: id, position: ++position, number: r.number, name: r.name, contact_id: r.contact_id, state: r.state, message_id: r.message_id, reason: r.reason, at: r.at, done_seq: done }).execute()
        }
      }
      for (const gone of byNumber.values()) await trx.deleteFrom('broadcast_recipients').where('broadcast_id', '=', id).where('position', '=', gone.position).execute()
      return Object.freeze(next)
    })
  }

  async remove(id: string): Promise<boolean> {
    return this.x.write(async (trx) => {
      const res = await trx.deleteFrom('broadcasts').where('id', '=', id).executeTakeFirst()
      return Number(res.numDeletedRows) > 0
    })
  }

  private async load(db: Kysely<Database>, ids: readonly string[]): Promise<Stored<Broadcast>[]> {
    if (ids.length === 0) return []
    const rows = await db.selectFrom('broadcasts').selectAll().where('id', 'in', ids).execute()
    const recipients = await db.selectFrom('broadcast_recipients').selectAll().where('broadcast_id', 'in', ids).execute()
    const byBroadcast = new Map<string, BroadcastRecipientsTable[]>()
    for (const r of recipients) {
      const list = byBroadcast.get(r.broadcast_id)
      if (list) list.push(r)
      else byBroadcast.set(r.broadcast_id, [r])
    }
    const byId = new Map(rows.map((w) => [w.id, Object.freeze(broadcastFromRows(w, byBroadcast.get(w.id) ?? []))]))
    return ids.map((id) => byId.get(id)).filter((b): b is Stored<Broadcast> => b !== undefined)
  }
}
