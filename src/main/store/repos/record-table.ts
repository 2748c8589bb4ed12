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

export type Stored<T> = Readonly<T>

/** A record ↔ its row. */
export interface RowMap<T, R> {
  toRow(record: T): R
  fromRow(row: R): T
}

/** The tables of {@link RecordTable}: a text `id` key. */
type RecordTableName = 'intents' | 'survey_steps' | 'attachments' | 'quick_replies' | 'labels' | 'contact_groups' | 'schedules'

/** The database seen as untyped tables: the base class works on any of them by name. */
type Loose = Kysely<Record<string, Record<string, unknown>>>

export class RecordTable<T extends { _id: string }, N extends RecordTableName> {
  constructor(
    protected readonly x: Exec,
    protected readonly table: N,
    protected readonly map: RowMap<T, Database[N]>
  ) {}

  protected loose(db: Kysely<Database>): Loose {
    return db as unknown as Loose
  }

  protected toRecord(row: unknown): Stored<T> {
    return Object.freeze(this.map.fromRow(row as Database[N]))
  }

  async find(id: string): Promise<Stored<T> | undefined> {
    return this.findIn(this.x.db, id)
  }

  protected async findIn(db: Kysely<Database>, id: string): Promise<Stored<T> | undefined> {
    const row = await this.loose(db).selectFrom(this.table).selectAll().where('id', '=', id).executeTakeFirst()
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
    const row = this.map.toRow(record) as unknown as Record<string, unknown>
    const { id: _id, ...rest } = row
    await this.loose(db)
      .insertInto(this.table)
      .values(row)
      .onConflict((oc) => oc.column('id').doUpdateSet(rest as never))
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
      const res = await this.loose(trx).deleteFrom(this.table as string).where('id', '=', id).executeTakeFirst()
      return Number(res.numDeletedRows) > 0
    })
  }
}

/** Records owned by one instance (`instance_id`), listed in creation order. */
export class InstanceRecordTable<T extends { _id: string; instance_id: string }, N extends Exclude<RecordTableName, 'quick_replies' | 'labels'>> extends RecordTable<T, N> {
  /** The instance's records, oldest first. */
  async ofInstance(instanceId: string): Promise<Stored<T>[]> {
    const rows = await this.loose(this.x.db).selectFrom(this.table).selectAll().where('instance_id', '=', instanceId).orderBy('created_at').orderBy('id').execute()
    return rows.map((r) => this.toRecord(r))
  }

  /** The record `id` if it belongs to `instanceId`. */
  async owned(instanceId: string, id: string): Promise<Stored<T> | undefined> {
    const r = await this.find(id)
    return r && r.instance_id === instanceId ? r : undefined
  }
}
