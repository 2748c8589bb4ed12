/**
 * A lowdb adapter for the configuration document in database mode (`CHATAPP_DATABASE_URL`;
 * docs/storage.md "The configuration document"): the document is the one row `config_document.id =
 * 'config'` (migration 4) instead of the data dir's `config.json`, so every worker on the database
 * shares the account, its token, the app's settings and the instances.
 *
 * A change ({@link DatabaseDocument.change}) is written over the version last read or written here
 * (`UPDATE … SET body, version = version + 1 WHERE version = <that version>`). When another worker
 * wrote meanwhile, the same transaction locks the row (`SELECT … FOR UPDATE` on PostgreSQL; SQLite's
 * write lock), reads the newer document and applies the change to it there: a change never fails
 * because another worker's came first, however many write at once (docs/storage.md "In database
 * mode" has the measurement that chose this over optimistic retries). Every write goes through the
 * database's group commit (../db/write-queue.ts), so it resolves once committed; on PostgreSQL the
 * same transaction sends `NOTIFY chatapp_config, '<version>'`, delivered to the other workers at its
 * commit (./config-store.ts `subscribe`).
 *
 * Reading: no row is null (lowdb keeps the document it holds; the next write inserts the row); a row
 * whose body does not parse or fails the document's checks (./config-check.ts, the same as for the
 * file) is a {@link DataFileError} naming the table, and is never overwritten.
 */
import { sql } from 'kysely'
import type { Adapter } from 'lowdb'
import type { DatabaseHandle } from '../db/database'
import { dialectOf } from '../db/dialect'
import { checkConfig } from './config-check'
import type { ConfigData } from './config-data'
import { DataFileError } from './durable-json-file'

/** The `id` of the document's row. */
export const CONFIG_ROW = 'config'
/** The PostgreSQL channel told the version of each committed write (NOTIFY/LISTEN). */
export const CONFIG_CHANNEL = 'chatapp_config'

/** What the adapter needs of the database (../db/database.ts). */
export type DocumentDatabase = Pick<DatabaseHandle, 'db' | 'write' | 'file'>

/**
 * Another worker wrote the document since this one read it (version `expected` is gone): nothing was
 * written. Thrown by {@link DatabaseDocument.write} (lowdb's whole-document write: the first one of an
 * empty table, which another worker's may beat), never by {@link DatabaseDocument.change}.
 */
export class ConfigConflictError extends Error {
  constructor(
    readonly where: string,
    readonly expected: number | null
  ) {
    super(`The configuration document in ${where} was changed by another worker meanwhile (expected version ${expected ?? 'none'}); nothing was written.`)
    this.name = 'ConfigConflictError'
  }
}

export class DatabaseDocument implements Adapter<ConfigData> {
  /** The row's version as last read or written here; null while no row was seen. */
  version: number | null = null

  constructor(
    private readonly database: DocumentDatabase,
    /** Epoch ms for `updated_at`. */
    private readonly now: () => number = Date.now
  ) {}

  /** Names the document in messages: the database (its URL without password, or its file) and the table. */
  get where(): string {
    return `${this.database.file} (table config_document)`
  }

  /** The document as stored, or null when there is no row. Throws DataFileError for a row that fails the checks. */
  async read(): Promise<ConfigData | null> {
    const row = await this.database.db.selectFrom('config_document').select(['body', 'version']).where('id', '=', CONFIG_ROW).executeTakeFirst()
    if (!row) {
      // Gone (deleted by hand): the next write inserts it again rather than failing on a version.
      this.version = null
      return null
    }
    let data: ConfigData
    try {
      data = checkConfig(JSON.parse(row.body))
    } catch (err) {
      throw new DataFileError(this.where, err)
    }
    this.version = row.version
    return data
  }

  /**
   * Writes `data` over the version last seen; resolves once committed. Throws
   * {@link ConfigConflictError} when another worker wrote first (nothing written), or the database's
   * error (a full disk: StorageFullError).
   */
  async write(data: ConfigData): Promise<void> {
    // Indented as config.json is: a person reading the row with psql sees the same document.
    const body = JSON.stringify(data, null, 2)
    const expected = this.version
    const updatedAt = this.now()
    this.version = await this.database.write(async (trx) => {
      let written: bigint
      if (expected === null) {
        const r = await trx
          .insertInto('config_document')
          .values({ id: CONFIG_ROW, body, version: 1, updated_at: updatedAt })
          .onConflict((oc) => oc.column('id').doNothing())
          .executeTakeFirst()
        written = r.numInsertedOrUpdatedRows ?? 0n
      } else {
        const r = await trx.updateTable('config_document').set({ body, version: expected + 1, updated_at: updatedAt }).where('id', '=', CONFIG_ROW).where('version', '=', expected).executeTakeFirst()
        written = r.numUpdatedRows
      }
      if (written === 0n) throw new ConfigConflictError(this.where, expected)
      const version = (expected ?? 0) + 1
      // Delivered at the commit, and only if it commits (https://www.postgresql.org/docs/current/sql-notify.html).
      if (dialectOf(trx) === 'postgres') await sql`SELECT pg_notify(${CONFIG_CHANNEL}, ${String(version)})`.execute(trx)
      return version
    })
  }

  /**
   * Stores `next`, the held document with a change made, and answers the document stored. When the
   * row is no longer the version held here (another worker wrote) or is gone, the transaction locks
   * the row, reads it and stores `reapply(<the newer document>)` instead (the same change made to it;
   * when that changes nothing, nothing is written and the newer document is answered). Resolves once
   * committed. Throws DataFileError for a newer row that fails the checks (nothing written), or the
   * database's error (a full disk: StorageFullError).
   */
  async change(next: ConfigData, reapply: (current: ConfigData) => ConfigData): Promise<{ data: ConfigData; reapplied: boolean }> {
    const expected = this.version
    const updatedAt = this.now()
    const outcome = await this.database.write(async (trx) => {
      const postgres = dialectOf(trx) === 'postgres'
      const notify = async (version: number) => {
        // Delivered at the commit, and only if it commits (https://www.postgresql.org/docs/current/sql-notify.html).
        if (postgres) await sql`SELECT pg_notify(${CONFIG_CHANNEL}, ${String(version)})`.execute(trx)
      }
      if (expected !== null) {
        const r = await trx
          .updateTable('config_document')
          .set({ body: JSON.stringify(next, null, 2), version: expected + 1, updated_at: updatedAt })
          .where('id', '=', CONFIG_ROW)
          .where('version', '=', expected)
          .executeTakeFirst()
        if (r.numUpdatedRows === 1n) {
          await notify(expected + 1)
          return { data: next, version: expected + 1, reapplied: false }
        }
      }
      // Another worker's write came first. Its lock is held until this transaction ends, so no third
      // write slips in between this read and this write. (SQLite: the batch holds the database's
      // write lock from its first write; the UPDATE above took it if nothing before it had.)
      const lockedRow = () => {
        const read = trx.selectFrom('config_document').select(['body', 'version']).where('id', '=', CONFIG_ROW)
        return (postgres ? read.forUpdate() : read).executeTakeFirst()
      }
      let row = await lockedRow()
      if (!row) {
        const body = JSON.stringify(next, null, 2)
        const r = await trx.insertInto('config_document').values({ id: CONFIG_ROW, body, version: 1, updated_at: updatedAt }).onConflict((oc) => oc.column('id').doNothing()).executeTakeFirst()
        if ((r.numInsertedOrUpdatedRows ?? 0n) === 1n) {
          await notify(1)
          return { data: next, version: 1, reapplied: false }
        }
        // Another worker's first write of the empty table committed meanwhile (the insert waited for
        // it): this statement's snapshot sees it.
        row = await lockedRow()
        if (!row) throw new ConfigConflictError(this.where, null)
      }
      let current: ConfigData
      try {
        current = checkConfig(JSON.parse(row.body))
      } catch (err) {
        throw new DataFileError(this.where, err)
      }
      const changed = reapply(current)
      if (changed === current) return { data: current, version: row.version, reapplied: true }
      const version = row.version + 1
      await trx.updateTable('config_document').set({ body: JSON.stringify(changed, null, 2), version, updated_at: updatedAt }).where('id', '=', CONFIG_ROW).executeTakeFirst()
      await notify(version)
      return { data: changed, version, reapplied: true }
    })
    this.version = outcome.version
    return { data: outcome.data, reapplied: outcome.reapplied }
  }
}
