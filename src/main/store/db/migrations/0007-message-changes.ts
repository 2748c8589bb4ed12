/**
 * Migration 7: what customers do to messages, and usernames (docs/baileys.md "Edits, deletions,
 * reactions and polls", "Usernames"). An edit's earlier texts, a deletion's record, reactions and a
 * poll's votes live in a message's details (JSON); the text column keeps the current text, so the
 * search index (migration 1's triggers, on SQLite FTS5 and PostgreSQL's `messages_words`) follows an
 * edit and forgets a deleted message's words with the same update that clears it. What needs a column:
 * a conversation's `username`, the WhatsApp username of a customer who writes by LID (shown as
 * "@name" in the inbox and searched with the name). Null in rows of earlier releases.
 */
import type { Kysely } from 'kysely'
import { columnTypes } from '../dialect'

// Migrations see the database as it was at their time, not as schema.ts describes it today.
export async function up(db: Kysely<unknown>): Promise<void> {
  const t = columnTypes(db)
  await db.schema.alterTable('conversations').addColumn('username', t.text).execute()
}
