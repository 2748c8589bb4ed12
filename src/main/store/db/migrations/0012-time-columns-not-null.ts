/**
 * Migration 12: the SQLite time columns that migration 11 rebuilt refuse NULL again, as they did as
 * text (docs/storage.md "Times"). SQLite cannot add NOT NULL to an existing column without rebuilding
 * the table (see ./0011-times-as-ms.ts for why that is not done), so each such column gets two
 * triggers, before an INSERT and before an UPDATE of it, that abort a NULL with SQLite's own message
 * (`NOT NULL constraint failed: <table>.<column>`, SQLITE_CONSTRAINT): the database, not only the
 * repositories, keeps the rule. PostgreSQL kept its NOT NULL through migration 11: nothing to do there.
 * No row holds NULL there (migration 11 never wrote one), so nothing is checked or changed.
 */
import { sql, type Kysely } from 'kysely'
import { dialectOf } from '../dialect'

/** The time columns that were NOT NULL at version 10 (the tables of migrations 1, 2 and 9), by table. */
export const NOT_NULL_TIMES: Readonly<Record<string, readonly string[]>> = {
  chat_pauses: ['since'],
  intents: ['created_at', 'updated_at'],
  survey_steps: ['created_at', 'updated_at'],
  survey_runs: ['started_at', 'updated_at'],
  attachments: ['created_at'],
  quick_replies: ['created_at', 'updated_at'],
  labels: ['created_at', 'updated_at'],
  contact_groups: ['created_at', 'updated_at'],
  contacts: ['created_at', 'updated_at'],
  broadcasts: ['created_at', 'updated_at'],
  schedules: ['created_at', 'updated_at'],
  bot_activity: ['at'],
  webhook_deliveries: ['created_at'],
  auth_creds: ['updated_at'],
  erasures: ['at'],
  legacy_import: ['done_at'],
  staff: ['created_at', 'updated_at'],
  api_keys: ['created_at'],
  assistant_settings: ['updated_at'],
  knowledge: ['created_at', 'updated_at']
}

export async function up(db: Kysely<unknown>): Promise<void> {
  if (dialectOf(db) !== 'sqlite') return
  for (const [table, columns] of Object.entries(NOT_NULL_TIMES)) {
    for (const column of columns) {
      const refuse = `SELECT RAISE(ABORT, 'NOT NULL constraint failed: ${table}.${column}');`
      await sql.raw(`CREATE TRIGGER ${table}_${column}_not_null_insert BEFORE INSERT ON ${table} WHEN NEW.${column} IS NULL BEGIN ${refuse} END`).execute(db)
      await sql.raw(`CREATE TRIGGER ${table}_${column}_not_null_update BEFORE UPDATE OF ${column} ON ${table} WHEN NEW.${column} IS NULL BEGIN ${refuse} END`).execute(db)
    }
  }
}
