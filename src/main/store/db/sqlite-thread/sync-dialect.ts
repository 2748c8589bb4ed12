/**
 * Kysely on Node's built-in SQLite (`node:sqlite`, Node ≥ 22.13 and Electron ≥ 35: no native module
 * to rebuild per Electron version and platform), for code that runs INSIDE a SQLite thread (./host.ts:
 * the repositories the thread serves). Kysely's own SqliteDialect drives any database with
 * better-sqlite3's statement interface (`reader`, `all/run/iterate(params[])`); this module is the
 * small adapter from `DatabaseSync` to that interface. Why ours and not a package: docs/storage.md
 * ("The query layer"). Never imported by main-thread code (the lint rule of eslint.config.js).
 *
 * What the adapter adds:
 * - prepared statements are cached by SQL text (bounded), as better-sqlite3 users do by hand: Kysely
 *   prepares every query it runs, and compiling the same SQL again cost more than running it;
 * - booleans are bound as 0/1 and `undefined` as NULL (node:sqlite refuses both);
 * - SQLite's errors become the storage errors of ./errors (a full disk, a corrupt file), whatever
 *   query met them.
 *
 * The adapter also tells Kysely that SQLite has transactional DDL (Kysely's SqliteAdapter says it
 * has not), so its Migrator runs each migration batch in one transaction: a crash mid-migration leaves
 * the previous version whole.
 */
import { SqliteAdapter, SqliteDialect, type DatabaseConnection, type DialectAdapter, type SqliteDatabase, type SqliteStatement } from 'kysely'
import type { DatabaseSync, SQLInputValue, StatementSync } from 'node:sqlite'
import { storageError } from '../errors'

/** Prepared statements kept per database (distinct SQL texts; IN lists of other lengths are other texts). */
const STATEMENT_CACHE_SIZE = 500

class Statement implements SqliteStatement {
  readonly reader: boolean

  constructor(
    private readonly stmt: StatementSync,
    private readonly file: string
  ) {
    this.reader = stmt.columns().length > 0
  }

  all(parameters: readonly unknown[]): unknown[] {
    try {
      return this.stmt.all(...bind(parameters))
    } catch (err) {
      throw storageError(err, this.file)
    }
  }

  run(parameters: readonly unknown[]): { changes: number | bigint; lastInsertRowid: number | bigint } {
    try {
      return this.stmt.run(...bind(parameters))
    } catch (err) {
      throw storageError(err, this.file)
    }
  }

  iterate(parameters: readonly unknown[]): IterableIterator<unknown> {
    try {
      return this.stmt.iterate(...bind(parameters)) as IterableIterator<unknown>
    } catch (err) {
      throw storageError(err, this.file)
    }
  }
}

function bind(parameters: readonly unknown[]): SQLInputValue[] {
  return parameters.map((p) => (p === undefined ? null : typeof p === 'boolean' ? (p ? 1 : 0) : (p as SQLInputValue)))
}

/** `DatabaseSync` as Kysely's SqliteDialect expects it, with a bounded statement cache. */
class NodeSqliteDatabase implements SqliteDatabase {
  private readonly statements = new Map<string, Statement>()

  constructor(
    private readonly db: DatabaseSync,
    private readonly file: string
  ) {}

  prepare(sql: string): SqliteStatement {
    const cached = this.statements.get(sql)
    if (cached) {
      // Most recently used last: the Map's order is the eviction order.
      this.statements.delete(sql)
      this.statements.set(sql, cached)
      return cached
    }
    let stmt: Statement
    try {
      stmt = new Statement(this.db.prepare(sql), this.file)
    } catch (err) {
      throw storageError(err, this.file)
    }
    this.statements.set(sql, stmt)
    if (this.statements.size > STATEMENT_CACHE_SIZE) this.statements.delete(this.statements.keys().next().value!)
    return stmt
  }

  close(): void {
    // The owner of the DatabaseSync closes it (it also runs backups and pragmas on it).
    this.statements.clear()
  }
}

class TransactionalSqliteAdapter extends SqliteAdapter {
  override get supportsTransactionalDdl(): boolean {
    return true
  }
}

/** Kysely's SQLite dialect over `db` (opened and closed by the caller); `file` names it in errors. */
export class NodeSqliteDialect extends SqliteDialect {
  constructor(db: DatabaseSync, file: string, onCreateConnection?: (connection: DatabaseConnection) => Promise<void>) {
    super({ database: new NodeSqliteDatabase(db, file), onCreateConnection })
  }

  override createAdapter(): DialectAdapter {
    return new TransactionalSqliteAdapter()
  }
}
