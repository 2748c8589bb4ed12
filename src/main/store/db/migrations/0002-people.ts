/**
 * Migration 2: the people at the desk (issue 27, docs/design.md §14 "People"): staff accounts, their
 * one-time invites and web sessions, scoped API keys, the audit log, who a conversation is assigned
 * to, and a conversation's timeline of those changes.
 *
 * Secrets are never stored: invites, sessions and keys keep the sha256 of their token (high-entropy
 * random values, so a plain digest is enough); passwords keep an scrypt hash with its parameters.
 */
import type { Kysely } from 'kysely'

// Migrations see the database as it was at their time, not as schema.ts describes it today.
export async function up(db: Kysely<unknown>): Promise<void> {
  const s = db.schema

  await s
    .createTable('staff')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('login', 'text', (c) => c.notNull().unique())
    .addColumn('role', 'text', (c) => c.notNull())
    .addColumn('instance_ids', 'text')
    .addColumn('password_hash', 'text')
    .addColumn('failed_logins', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('locked_until', 'integer')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute()

  await s
    .createTable('staff_invites')
    .addColumn('code_hash', 'text', (c) => c.primaryKey())
    .addColumn('staff_id', 'text', (c) => c.notNull().references('staff.id').onDelete('cascade'))
    .addColumn('expires_at', 'integer', (c) => c.notNull())
    .execute()
  await s.createIndex('staff_invites_staff').on('staff_invites').column('staff_id').execute()

  await s
    .createTable('auth_sessions')
    .addColumn('token_hash', 'text', (c) => c.primaryKey())
    .addColumn('staff_id', 'text', (c) => c.notNull().references('staff.id').onDelete('cascade'))
    .addColumn('csrf_token', 'text', (c) => c.notNull())
    .addColumn('created_at', 'integer', (c) => c.notNull())
    .addColumn('expires_at', 'integer', (c) => c.notNull())
    .addColumn('ip', 'text')
    .execute()
  await s.createIndex('auth_sessions_staff').on('auth_sessions').column('staff_id').execute()

  await s
    .createTable('api_keys')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('key_hash', 'text', (c) => c.notNull())
    .addColumn('scopes', 'text', (c) => c.notNull())
    .addColumn('instance_ids', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('last_used_at', 'text')
    .addColumn('last_used_ip', 'text')
    .addColumn('revoked_at', 'text')
    .execute()

  await s
    .createTable('audit_log')
    .addColumn('seq', 'integer', (c) => c.primaryKey().autoIncrement())
    .addColumn('at', 'integer', (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('actor', 'text', (c) => c.notNull())
    .addColumn('ip', 'text')
    .addColumn('detail', 'text')
    .execute()
  await s.createIndex('audit_log_at').on('audit_log').column('at').execute()

  await s.alterTable('conversations').addColumn('assigned_to', 'text').execute()
  await s.alterTable('conversations').addColumn('assigned_at', 'integer').execute()
  await s.createIndex('conversations_assigned').on('conversations').columns(['assigned_to', 'last_at']).execute()

  // Who took a conversation over (the hand-off names the person).
  await s.alterTable('chat_pauses').addColumn('taken_by', 'text').execute()

  // A conversation's timeline of desk events (assignment changes): who, when, to whom.
  await s
    .createTable('conversation_events')
    .addColumn('seq', 'integer', (c) => c.primaryKey().autoIncrement())
    .addColumn('instance_id', 'text', (c) => c.notNull())
    .addColumn('chat_id', 'text', (c) => c.notNull())
    .addColumn('at', 'integer', (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('actor', 'text', (c) => c.notNull())
    .addColumn('detail', 'text')
    .execute()
  await s.createIndex('conversation_events_chat').on('conversation_events').columns(['instance_id', 'chat_id', 'seq']).execute()
}
