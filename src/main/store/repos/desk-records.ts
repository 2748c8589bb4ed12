/** The desk's account-wide records: quick replies and labels. */
import type { Label, QuickReply } from '../../../shared/schemas/records'
import type { LabelsTable, QuickRepliesTable } from '../db/schema'
import { RecordTable, type Stored } from './record-table'
import { rowMap } from './row-map'

export const quickReplyRows = rowMap<QuickReply, QuickRepliesTable>({ _id: 'as is', shortcut: 'as is', text: 'as is', createdAt: 'time', updatedAt: 'time' })

export const labelRows = rowMap<Label, LabelsTable>({ _id: 'as is', name: 'as is', color: 'as is', createdAt: 'time', updatedAt: 'time' })

export class QuickReplyRepo extends RecordTable<QuickReply, 'quick_replies'> {
  /** Every quick reply, by shortcut. */
  async all(): Promise<Stored<QuickReply>[]> {
    const rows = await this.x.db.selectFrom('quick_replies').selectAll().orderBy('shortcut').execute()
    return rows.map((r) => this.toRecord(r))
  }

  async byShortcut(shortcut: string): Promise<Stored<QuickReply> | undefined> {
    const row = await this.x.db.selectFrom('quick_replies').selectAll().where('shortcut', '=', shortcut).executeTakeFirst()
    return row ? this.toRecord(row) : undefined
  }
}

export class LabelRepo extends RecordTable<Label, 'labels'> {
  /** Every label, oldest first. */
  async all(): Promise<Stored<Label>[]> {
    const rows = await this.x.db.selectFrom('labels').selectAll().orderBy('created_at').orderBy('id').execute()
    return rows.map((r) => this.toRecord(r))
  }

  async count(): Promise<number> {
    const { n } = await this.x.db.selectFrom('labels').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()
    return Number(n)
  }

  /** The label called `name` (any case). */
  async byName(name: string): Promise<Stored<Label> | undefined> {
    const n = name.toLowerCase()
    return (await this.all()).find((l) => l.name.toLowerCase() === n)
  }

  /**
   * Renames label `from` to `to` on every contact (or takes it off them, `to` null) and stores the
   * label (or removes `removeId`), in one transaction.
   */
  async relabel(from: string, to: string | null, change: { put: Label } | { removeId: string }): Promise<void> {
    await this.x.write(async (trx) => {
      if (to === null) await trx.deleteFrom('contact_labels').where('label', '=', from).execute()
      else await trx.updateTable('contact_labels').set({ label: to }).where('label', '=', from).execute()
      if ('put' in change) await this.putIn(trx, change.put)
      else await trx.deleteFrom('labels').where('id', '=', change.removeId).execute()
    })
  }
}
