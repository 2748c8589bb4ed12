/**
 * Migration 2: the people at the desk (docs/design.md §21): staff accounts, their
 * one-time invites and web sessions, scoped API keys, the audit log, who a conversation is assigned
 * to, and a conversation's timeline of those changes.
 *
 * Secrets are never stored: invites, sessions and keys keep the sha256 of their token (high-entropy
 * random values, so a plain digest is enough); passwords keep an scrypt hash with its parameters.
 */
import type { Kysely } from 'kysely'
import { columnTypes } from '../dialect'

// Migrations see the database as it was at their time, not as schema.ts describes it today.
export async function up(db: Kysely<unknown>): Promise<void> {
  const s = db.schema
  const t = columnTypes(db)

  await s
    .createTable('staff')
    .addColumn('id', t.text, (c) => c.primaryKey())
    .addColumn('name', t.text, (c) => c.notNull())
    .addColumn('login', t.text, (c) => c.notNull().unique())
    .addColumn('role', t.text, (c) => c.notNull())
    .addColumn('instance_ids', t.text)
    .addColumn('password_hash', t.text)
    .addColumn('failed_logins', t.int, (c) => c.notNull().defaultTo(0))
    .addColumn('locked_until', t.int)
    .addColumn('created_at', t.text, (c) => c.notNull())
    .addColumn('updated_at', t.text, (c) => c.notNull())
    .execute()

  await s
    .createTable('staff_invites')
    .addColumn('code_hash', t.text, (c) => c.primaryKey())
    .addColumn('staff_id', t.text, (c) => c.notNull().references('staff.id').onDelete('cascade'))
    .addColumn('expires_at', t.int, (c) => c.notNull())
    .execute()
  await s.createIndex('staff_invites_staff').on('staff_invites').column('staff_id').execute()

  await s
    .createTable('auth_sessions')
    .addColumn('token_hash', t.text, (c) => c.primaryKey())
    .addColumn('staff_id', t.text, (c) => c.notNull().references('staff.id').onDelete('cascade'))
    .addColumn('csrf_token', t.text, (c) => c.notNull())
    .addColumn('created_at', t.int, (c) => c.notNull())
    .addColumn('expires_at', t.int, (c) => c.notNull())
    .addColumn('ip', t.text)
    .execute()
  await s.createIndex('auth_sessions_staff').on('auth_sessions').column('staff_id').execute()

  await s
    .createTable('api_keys')
    .addColumn('id', t.text, (c) => c.primaryKey())
    .addColumn('name', t.text, (c) => c.notNull())
    .addColumn('key_hash', t.text, (c) => c.notNull())
    .addColumn('scopes', t.text, (c) => c.notNull())
    .addColumn('instance_ids', t.text)
    .addColumn('created_at', t.text, (c) => c.notNull())
    .addColumn('last_used_at', t.text)
    .addColumn('last_used_ip', t.text)
    .addColumn('revoked_at', t.text)
    .execute()

  await s
    .createTable('audit_log')
    .addColumn('seq', t.int, (c) => t.autoKey(c))
    .addColumn('at', t.int, (c) => c.notNull())
    .addColumn('kind', t.text, (c) => c.notNull())
    .addColumn('actor', t.text, (c) => c.notNull())
    .addColumn('ip', t.text)
    .addColumn('detail', t.text)
    .execute()
  await s.createIndex('audit_log_at').on('audit_log').column('at').execute()

  await s.alterTable('conversations').addColumn('assigned_to', t.text).execute()
  await s.alterTable('conversations').addColumn('assigned_at', t.int).execute()
  await s.createIndex('conversations_assigned').on('conversations').columns(['assigned_to', 'last_at']).execute()

  // Who took a conversation over (the hand-off names the person).
  await s.alterTable('chat_pauses').addColumn('taken_by', t.text).execute()

  // A conversation's timeline of desk events (assignment changes): who, when, to whom.
  await s
    .createTable('conversation_events')
    .addColumn('seq', t.int, (c) => t.autoKey(c))
    .addColumn('instance_id', t.text, (c) => c.notNull())
    .addColumn('chat_id', t.text, (c) => c.notNull())
    .addColumn('at', t.int, (c) => c.notNull())
    .addColumn('kind', t.text, (c) => c.notNull())
    .addColumn('actor', t.text, (c) => c.notNull())
    .addColumn('detail', t.text)
    .execute()
  await s.createIndex('conversation_events_chat').on('conversation_events').columns(['instance_id', 'chat_id', 'seq']).execute()
}
