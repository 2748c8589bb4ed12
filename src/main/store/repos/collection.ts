/**
 * A collection of records (by `_id`) in a {@link JournaledDocument}: the one door through which
 * services read and change them. Records come out frozen (read without copies, never changed in
 * place); changes go in as new records — `update` hands a draft to a recipe (immer) and stores what it
 * produced. Every change resolves once on disk, and a failed write leaves the collection as it was.
 */
import { produce, type Draft } from 'immer'
import { indexOfId, type DocOp, type JournaledDocument } from '../journaled-document'

export type Stored<T> = Readonly<T>

export class Collection<T extends { _id: string }, D extends object = object> {
  constructor(
    protected readonly doc: JournaledDocument<D>,
    protected readonly path: string
  ) {}

  /** Every record, in insertion order. */
  all(): readonly Stored<T>[] {
    return ((this.doc.data as Record<string, unknown>)[this.path] as T[] | undefined) ?? []
  }

  find(id: string): Stored<T> | undefined {
    const list = this.all()
    const i = indexOfId(list, id)
    return i >= 0 ? list[i] : undefined
  }

  where(pred: (r: Stored<T>) => boolean): Stored<T>[] {
    return this.all().filter(pred)
  }

  /** Stores a new record (or replaces the one with its `_id`). */
  async put(record: T): Promise<Stored<T>> {
    await this.doc.apply([this.putOp(record)])
    // The document stores this very object (frozen by the write).
    return record
  }

  /** Stores several new records in one write (an import). */
  async putMany(records: readonly T[]): Promise<void> {
    await this.doc.apply(records.map((r) => this.putOp(r)))
  }

  /**
   * Changes a record through `recipe` (a draft to mutate, immer); answers the new record, or undefined
   * when there is none with that id. Nothing is written when the recipe changes nothing.
   */
  async update(id: string, recipe: (draft: Draft<T>) => void): Promise<Stored<T> | undefined> {
    const current = this.find(id)
    if (!current) return undefined
    const next = produce(current as T, recipe)
    if (next === current) return current
    await this.doc.apply([this.putOp(next)])
    return next
  }

  async remove(id: string): Promise<boolean> {
    if (!this.find(id)) return false
    await this.doc.apply([{ op: 'remove', path: this.path, id }])
    return true
  }

  /** Removes every record `pred` picks, in one write; answers how many. */
  async removeWhere(pred: (r: Stored<T>) => boolean): Promise<number> {
    const ids = this.where(pred).map((r) => r._id)
    await this.doc.apply(ids.map((id) => ({ op: 'remove', path: this.path, id })))
    return ids.length
  }

  /** The op that stores `record` (for writes that change several collections together). */
  putOp(record: T): DocOp {
    return { op: 'put', path: this.path, value: record }
  }
}
