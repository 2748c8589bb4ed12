/**
 * What `npm run db:copy` copies (./copy.ts): every table of the typed schema (../db/schema.ts) with
 * its primary key, in an order where a row's foreign key is copied before it (contacts before
 * contact_labels, broadcasts before broadcast_recipients, staff before invites and sessions).
 *
 * Typed as a record over the schema's tables, so a table added to schema.ts without a line here fails
 * the typecheck instead of being left out of copies.
 *
 * Not here on purpose: the search indexes (SQLite's `messages_fts`/`contacts_fts`/`knowledge_fts`,
 * PostgreSQL's `messages_words`), derived from the rows by the migrations' triggers as the rows arrive, and
 * Kysely's own `kysely_migration` tables (the target runs the migrations itself). `config_document`
 * and `config_instances` are listed but copied as the configuration document, not as rows (./copy.ts).
 */
import type { Database } from '../db/schema'

/** The primary key of each table, in copy order (the columns of a composite key in the key's order). */
const KEYS: { readonly [T in keyof Database]: readonly (keyof Database[T] & string)[] } = {
  messages: ['seq'],
  conversations: ['instance_id', 'chat_id'],
  chat_pauses: ['instance_id', 'chat_id'],
  intents: ['id'],
  survey_steps: ['id'],
  survey_runs: ['id'],
  attachments: ['id'],
  quick_replies: ['id'],
  labels: ['id'],
  contact_groups: ['id'],
  contacts: ['seq'],
  contact_labels: ['contact_id', 'position'],
  broadcasts: ['id'],
  broadcast_recipients: ['broadcast_id', 'position'],
  outreach_sends: ['id'],
  schedules: ['id'],
  bot_activity: ['seq'],
  bot_reply_marks: ['kind', 'instance_id', 'chat_id'],
  webhook_deliveries: ['seq'],
  auth_creds: ['instance_id'],
  auth_keys: ['instance_id', 'type', 'id'],
  wa_messages: ['instance_id', 'id'],
  erasures: ['id'],
  erasing: ['erasure_id', 'jid'],
  legacy_import: ['step'],
  staff: ['id'],
  staff_invites: ['code_hash'],
  auth_sessions: ['token_hash'],
  api_keys: ['id'],
  audit_log: ['seq'],
  conversation_events: ['seq'],
  workers: ['id'],
  instance_leases: ['instance_id'],
  config_document: ['id'],
  config_instances: ['id'],
  assistant_settings: ['instance_id'],
  knowledge: ['id'],
  knowledge_chunks: ['seq'],
  knowledge_revisions: ['instance_id'],
  assistant_replies: ['seq'],
  assistant_usage: ['instance_id', 'day'],
  idempotency_keys: ['key', 'caller', 'route']
}

export type TableName = keyof Database

/** One table to copy: its name and primary key columns. */
export interface CopiedTable {
  readonly name: TableName
  readonly key: readonly string[]
  /** Numbered by the database (`seq`: AUTOINCREMENT on SQLite, an identity column on PostgreSQL). */
  readonly numbered: boolean
}

/** The tables of the configuration document in database mode (../config/database-document.ts), copied as the document. */
export const CONFIG_TABLES: readonly TableName[] = ['config_document', 'config_instances']

/** Every table copied as rows, in copy order (the configuration's aside: they are the configuration document). */
export const COPIED_TABLES: readonly CopiedTable[] = (Object.keys(KEYS) as TableName[])
  .filter((name) => !CONFIG_TABLES.includes(name))
  // A table keyed by `seq` alone is numbered by the database: its counter must end past the copied numbers.
  .map((name) => ({ name, key: KEYS[name], numbered: KEYS[name].join() === 'seq' }))
