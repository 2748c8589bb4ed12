/**
 * The common part of the repositories of whole records kept one per row (intents, survey steps,
 * attachments, quick replies, labels, contact groups, schedules): find by id, store (insert or
 * replace), change through an immer recipe, remove. A record maps to its row and back through the
 * table's {@link RowMap}; records come out frozen, so a caller cannot change them in place.
 *
 * A change by recipe reads, applies and writes in one transaction, so two changes of one record never
 * lose each other's fields.
 */
import { produce, type Draft } from 'immer'
import type { Kysely } from 'kysely'
import type { Database } from '../db/schema'
import type { Exec } from './exec'
import type { RowMap } from './row-map'

export type Stored<T> = Readonly<T>

/** The tables of {@link RecordTable}: a text `id` key. */
type RecordTableName = 'intents' | 'survey_steps' | 'attachments' | 'quick_replies' | 'labels' | 'contact_groups' | 'schedules'

/** The tables of {@link InstanceRecordTable}: also an `instance_id` and a `created_at`. */
type InstanceTableName = Exclude<RecordTableName, 'quick_replies' | 'labels'>

export class RecordTable<T extends { _id: string }, N extends RecordTableName> {
  constructor(
    protected readonly x: Exec,
    protected readonly table: N,
    protected readonly map: RowMap<T, Database[N]>
  ) {}

  /**
   * The table as one of all record tables: Kysely types a query on the union of their names by the
   * columns they share (`id`), which it cannot do on the type parameter `N`.
   */
  protected get anyTable(): RecordTableName {
    return this.table
  }

  /** The record of a row of this table (read through {@link anyTable}, so typed as any record table's). */
  protected toRecord(row: Database[RecordTableName]): Stored<T> {
    return Object.freeze(this.map.fromRow(row as Database[N]))
  }

  async find(id: string): Promise<Stored<T> | undefined> {
    return this.findIn(this.x.db, id)
  }

  protected async findIn(db: Kysely<Database>, id: string): Promise<Stored<T> | undefined> {
    const row = await db.selectFrom(this.anyTable).selectAll().where('id', '=', id).executeTakeFirst()
    return row ? this.toRecord(row) : undefined
  }

  /** Stores a new record, or replaces the one with its `_id`. */
  async put(record: T): Promise<Stored<T>> {
    await this.x.write((trx) => this.putIn(trx, record))
    return Object.freeze(record)
  }

  /** Stores several records in one transaction (an import). */
  async putMany(records: readonly T[]): Promise<void> {
    if (records.length === 0) return
    await this.x.write(async (trx) => {
      for (const r of records) await this.putIn(trx, r)
    })
  }

  protected async putIn(db: Kysely<Database>, record: T): Promise<void> {
    const row = this.map.toRow(record)
    const { id: _id, ...rest } = row
    await db
      .insertInto(this.anyTable)
      .values(row)
      .onConflict((oc) => oc.column('id').doUpdateSet(rest))
      .execute()
  }

  /**
   * Changes a record through `recipe` (a draft to mutate); answers the new record, or undefined when
   * there is none with that id. Nothing is written when the recipe changes nothing.
   */
  async update(id: string, recipe: (draft: Draft<T>) => void): Promise<Stored<T> | undefined> {
    return this.x.write(async (trx) => {
      const current = await this.findIn(trx, id)
      if (!current) return undefined
      const next = produce(current as T, recipe)
      if (next === current) return current
      await this.putIn(trx, next)
      return Object.freeze(next)
    })
  }

  /** Removes a record; answers whether it existed. */
  async remove(id: string): Promise<boolean> {
    return this.x.write(async (trx) => {
      const res = await trx.deleteFrom(this.anyTable).where('id', '=', id).executeTakeFirst()
      return Number(res.numDeletedRows) > 0
    })
  }
}

/** Records owned by one instance (`instance_id`), listed in creation order. */
export class InstanceRecordTable<T extends { _id: string; instance_id: string }, N extends InstanceTableName> extends RecordTable<T, N> {
  /** The instance's records, oldest first. */
  async ofInstance(instanceId: string): Promise<Stored<T>[]> {
    const table: InstanceTableName = this.table
    const rows = await this.x.db.selectFrom(table).selectAll().where('instance_id', '=', instanceId).orderBy('created_at').orderBy('id').execute()
    return rows.map((r) => this.toRecord(r))
  }

  /** The record `id` if it belongs to `instanceId`. */
  async owned(instanceId: string, id: string): Promise<Stored<T> | undefined> {
    const r = await this.find(id)
    return r && r.instance_id === instanceId ? r : undefined
  }
}
