/**
 * Migration 9: the assistant (docs/assistant.md; docs/design.md §23 "Records").
 *
 * - `assistant_settings`: one row per instance that set its assistant up: the settings as JSON and
 *   the endpoint's key in a column of its own, which no read of the settings selects by accident
 *   (the repository reads it only for the model call);
 * - `knowledge`: the shop's knowledge entries (the content last, its start in `excerpt` for lists);
 *   `knowledge_chunks`: the passages each is cut into,
 *   found by the same search machinery as the message history (migration 1): on SQLite an FTS5
 *   trigram table kept by triggers (`knowledge_fts`, contentless, diacritics folded), on PostgreSQL a
 *   `pg_trgm` GIN index over the folded words (`chatapp_knowledge_words`); with an embedding model,
 *   each chunk's vector (little-endian float32) and the model that made it; `knowledge_revisions`:
 *   per instance, how many chunks and a counter bumped by every change (caches check it);
 * - `assistant_replies`: each answer (or fallback) the assistant gave a chat: the hourly cap per chat
 *   counts them, a customer's export and erasure include them;
 * - `assistant_usage`: tokens and answers per instance and local day (no customer data: an erasure
 *   leaves the day's totals);
 * - `bot_activity.assistant`: an activity entry's answer details (model, tokens, ms, sources).
 */
import { sql, type Kysely } from 'kysely'
import { columnTypes } from '../dialect'

// Migrations see the database as it was at their time, not as schema.ts describes it today.
export async function up(db: Kysely<unknown>): Promise<void> {
  const s = db.schema
  const t = columnTypes(db)

  await s
    .createTable('assistant_settings')
    .addColumn('instance_id', t.text, (c) => c.primaryKey())
    .addColumn('settings', t.text, (c) => c.notNull())
    .addColumn('api_key', t.text)
    .addColumn('updated_at', t.text, (c) => c.notNull())
    .execute()

  await s
    .createTable('knowledge')
    .addColumn('id', t.text, (c) => c.primaryKey())
    .addColumn('instance_id', t.text, (c) => c.notNull())
    .addColumn('title', t.text, (c) => c.notNull())
    .addColumn('source', t.text, (c) => c.notNull())
    .addColumn('file_name', t.text)
    .addColumn('chunk_count', t.int, (c) => c.notNull())
    .addColumn('created_at', t.text, (c) => c.notNull())
    .addColumn('updated_at', t.text, (c) => c.notNull())
    // The list reads this, never the content: a column after a large text costs reading through it.
    .addColumn('excerpt', t.text, (c) => c.notNull())
    .addColumn('content', t.text, (c) => c.notNull())
    .execute()
  await s.createIndex('knowledge_instance_updated').on('knowledge').columns(['instance_id', 'updated_at']).execute()

  await s
    .createTable('knowledge_chunks')
    .addColumn('seq', t.int, (c) => t.autoKey(c))
    .addColumn('instance_id', t.text, (c) => c.notNull())
    .addColumn('knowledge_id', t.text, (c) => c.notNull().references('knowledge.id').onDelete('cascade'))
    .addColumn('position', t.int, (c) => c.notNull())
    .addColumn('title', t.text, (c) => c.notNull())
    .addColumn('body', t.text, (c) => c.notNull())
    .addColumn('embedding_model', t.text)
    // Last: a read that does not name it never loads the vector's pages.
    .addColumn('embedding', t.blob)
    .execute()
  await s.createIndex('knowledge_chunks_instance').on('knowledge_chunks').columns(['instance_id', 'seq']).execute()
  // Where each instance's chunks stand (written with them): caches of search results check it with one read.
  await s
    .createTable('knowledge_revisions')
    .addColumn('instance_id', t.text, (c) => c.primaryKey())
    .addColumn('chunks', t.int, (c) => c.notNull())
    .addColumn('revision', t.int, (c) => c.notNull())
    .execute()
  await s.createIndex('knowledge_chunks_entry').on('knowledge_chunks').columns(['knowledge_id', 'position']).execute()

  await s
    .createTable('assistant_replies')
    .addColumn('seq', t.int, (c) => t.autoKey(c))
    .addColumn('instance_id', t.text, (c) => c.notNull())
    .addColumn('chat_id', t.text, (c) => c.notNull())
    .addColumn('at', t.int, (c) => c.notNull())
    .addColumn('message_ids', t.text, (c) => c.notNull())
    .addColumn('question', t.text, (c) => c.notNull())
    .addColumn('reply', t.text, (c) => c.notNull())
    .addColumn('outcome', t.text, (c) => c.notNull())
    .addColumn('model', t.text, (c) => c.notNull())
    .addColumn('prompt_tokens', t.int, (c) => c.notNull())
    .addColumn('completion_tokens', t.int, (c) => c.notNull())
    .addColumn('ms', t.int, (c) => c.notNull())
    .addColumn('sources', t.text, (c) => c.notNull())
    .addColumn('error', t.text)
    .addColumn('fallback', t.text)
    .addColumn('handoff_reason', t.text)
    .execute()
  await s.createIndex('assistant_replies_chat').on('assistant_replies').columns(['instance_id', 'chat_id', 'at']).execute()

  await s
    .createTable('assistant_usage')
    .addColumn('instance_id', t.text, (c) => c.notNull())
    .addColumn('day', t.text, (c) => c.notNull())
    .addColumn('prompt_tokens', t.int, (c) => c.notNull())
    .addColumn('completion_tokens', t.int, (c) => c.notNull())
    .addColumn('replies', t.int, (c) => c.notNull())
    .addColumn('handoffs', t.int, (c) => c.notNull())
    .addColumn('fallbacks', t.int, (c) => c.notNull())
    .addColumn('asks', t.int, (c) => c.notNull())
    .addPrimaryKeyConstraint('assistant_usage_pk', ['instance_id', 'day'])
    .execute()

  await s.alterTable('bot_activity').addColumn('assistant', t.text).execute()

  if (t.dialect === 'postgres') {
    await postgresSearch(db)
    return
  }
  // The chunks' search index (SQLite), as migration 1's messages_fts: trigram, contentless, kept by triggers.
  await sql`CREATE VIRTUAL TABLE knowledge_fts USING fts5(title, body, content='', contentless_delete=1, tokenize='trigram remove_diacritics 1')`.execute(db)
  // Merge the index's segments sooner than FTS5's default (4): a question costs one query per term,
  // and each query reads every segment. Measured at 10,000 passages: about a third less per term.
  await sql`INSERT INTO knowledge_fts(knowledge_fts, rank) VALUES('automerge', 2)`.execute(db)
  await sql`CREATE TRIGGER knowledge_fts_insert AFTER INSERT ON knowledge_chunks BEGIN
    INSERT INTO knowledge_fts(rowid, title, body) VALUES (new.seq, new.title, new.body);
  END`.execute(db)
  await sql`CREATE TRIGGER knowledge_fts_delete AFTER DELETE ON knowledge_chunks BEGIN
    DELETE FROM knowledge_fts WHERE rowid = old.seq;
  END`.execute(db)
  await sql`CREATE TRIGGER knowledge_fts_update AFTER UPDATE OF title, body ON knowledge_chunks BEGIN
    DELETE FROM knowledge_fts WHERE rowid = old.seq;
    INSERT INTO knowledge_fts(rowid, title, body) VALUES (new.seq, new.title, new.body);
  END`.execute(db)
}

/**
 * PostgreSQL: the chunks' folded words behind a `pg_trgm` GIN index, as migration 1 does for contacts
 * (an expression index: a knowledge base is thousands of chunks, not millions of messages). Uses
 * migration 1's `chatapp_fold`, qualified by schema.
 */
async function postgresSearch(db: Kysely<unknown>): Promise<void> {
  const { rows } = await sql<{ own: string; trgm: string }>`SELECT current_schema() AS own,
    (SELECT n.nspname FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace WHERE e.extname = 'pg_trgm') AS trgm`.execute(db)
  const q = (name: string): string => `"${name.replace(/"/g, '""')}"`
  const own = q(rows[0]!.own)
  await sql
    .raw(
      `CREATE FUNCTION ${own}.chatapp_knowledge_words(title text, body text) RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE
      AS $$ SELECT ${own}.chatapp_fold(coalesce(title, '') || ' ' || coalesce(body, '')) $$`
    )
    .execute(db)
  const trgmOps = sql.raw(`${q(rows[0]!.trgm)}.gin_trgm_ops`)
  await db.schema.createIndex('knowledge_chunks_search').on('knowledge_chunks').using('gin').expression(sql`chatapp_knowledge_words(title, body) ${trgmOps}`).execute()
}
