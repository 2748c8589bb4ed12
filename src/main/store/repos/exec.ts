/**
 * How a repository reaches the database: `db` for reads and `write` for changes. Outside a unit of
 * work `write` is the group commit (../db/write-queue.ts) and `db` the shared connection; inside one
 * ({@link Repositories.transaction}) both are that transaction, so a change spanning several
 * repositories commits whole or not at all, and its reads see its own writes. One exception: the lease
 * statements of ./lease-repo.ts commit on their own through `db` (why: that module's doc).
 */
import type { Kysely } from 'kysely'
import type { Database } from '../db/schema'

export interface Exec {
  readonly db: Kysely<Database>
  write<T>(work: (trx: Kysely<Database>) => Promise<T>): Promise<T>
}

/** The Exec of a unit of work: every read and write on `trx`. */
export function inTransaction(trx: Kysely<Database>): Exec {
  return { db: trx, write: (work) => work(trx) }
}

/** JSON text of a value for a JSON column. */
export function toJson(value: unknown): string {
  return JSON.stringify(value)
}

/** The value of a JSON column (written by {@link toJson}). */
export function fromJson<T>(text: string): T {
  return JSON.parse(text) as T
}

/** Boolean ↔ the 0/1 of a flag column. */
export const flag = (b: boolean): number => (b ? 1 : 0)
export const isSet = (f: number | null | undefined): boolean => f === 1
