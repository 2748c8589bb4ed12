/**
 * The two databases the data layer runs on (docs/storage.md, "PostgreSQL"), and the few places
 * where they differ, kept here so migrations and repositories name a difference instead of spelling
 * it out:
 *
 * - column types: epoch-ms and counter columns are `integer` on SQLite (64-bit there) and `bigint`
 *   on PostgreSQL (its `integer` is 32-bit: an epoch-ms time overflows it); text is compared byte by
 *   byte on both (SQLite's BINARY; `COLLATE "C"` on PostgreSQL), so ORDER BY, `lower()` and
 *   case-insensitive LIKE (ASCII only, as SQLite's) give the same rows; blobs are `bytea`;
 * - keys numbered by the database: AUTOINCREMENT ↔ an identity column;
 * - what a query may say about indexes and matching (./search-sql.ts).
 */
import { PostgresAdapter, sql, type ColumnDefinitionBuilder, type CreateTableBuilder, type DialectAdapter } from 'kysely'

/** A column's type as `addColumn` takes it (Kysely does not export the name). */
type DataTypeExpression = Parameters<CreateTableBuilder<string, never>['addColumn']>[1]

export type DialectName = 'sqlite' | 'postgres'

/** A Kysely instance or transaction of any schema: all {@link dialectOf} needs. */
export interface AnyDb {
  getExecutor(): { readonly adapter: DialectAdapter }
}

/** Which database `db` talks to (by its Kysely adapter). */
export function dialectOf(db: AnyDb): DialectName {
  return db.getExecutor().adapter instanceof PostgresAdapter ? 'postgres' : 'sqlite'
}

/** Column types and the numbered key of a migration, per dialect (see the module doc). */
export interface ColumnTypes {
  readonly dialect: DialectName
  /** Integers: flags, counters, epoch ms (64-bit on both). */
  readonly int: DataTypeExpression
  /** Text compared byte by byte. */
  readonly text: DataTypeExpression
  /** Bytes. */
  readonly blob: DataTypeExpression
  /** A primary key numbered by the database in insertion order (use with `int`). */
  autoKey(c: ColumnDefinitionBuilder): ColumnDefinitionBuilder
}

/** The column types of `db`'s dialect; on SQLite exactly the types migration 1 always used. */
export function columnTypes(db: AnyDb): ColumnTypes {
  if (dialectOf(db) === 'sqlite') {
    return { dialect: 'sqlite', int: 'integer', text: 'text', blob: 'blob', autoKey: (c) => c.primaryKey().autoIncrement() }
  }
  return {
    dialect: 'postgres',
    int: 'bigint',
    text: sql`text collate "C"`,
    blob: 'bytea',
    // BY DEFAULT (not ALWAYS): a restore or an import may carry its rows' numbers.
    autoKey: (c) => c.primaryKey().generatedByDefaultAsIdentity()
  }
}
