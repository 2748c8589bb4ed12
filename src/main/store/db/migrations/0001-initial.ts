/**
 * Migration 1: every table of the first database version (../schema.ts describes them), its indexes,
 * and the message search index. On SQLite exactly as released; on PostgreSQL the same tables with
 * the types of ../dialect.ts and the search of {@link postgresSearch}.
 *
 * Search (docs/design.md §20): an FTS5 table with the trigram tokenizer over each message's text and
 * the sender's name and number, diacritics folded (`remove_diacritics 1`): any run of 3+ characters is
 * found inside words and in scripts written without spaces (Signal-Desktop's word-prefix index fails
 * its Chinese and Japanese users, #5180). Contentless (`content=''`, the text is already in
 * `messages`) with `contentless_delete=1` (SQLite ≥ 3.43), kept in step by triggers so no write can
 * forget it. Contacts get the same over name, number and notes.
 */
import { sql, type Kysely } from 'kysely'
import { columnTypes } from '../dialect'

// Migrations see the database as it was at their time, not as schema.ts describes it today.
export async function up(db: Kysely<unknown>): Promise<void> {
  const s = db.schema
  const t = columnTypes(db)

  await s
    .createTable('messages')
    .addColumn('seq', t.int, (c) => t.autoKey(c))
    .addColumn('instance_id', t.text, (c) => c.notNull())
    .addColumn('id', t.text, (c) => c.notNull())
    .addColumn('chat_id', t.text, (c) => c.notNull())
    .addColumn('from_me', t.int, (c) => c.notNull())
    .addColumn('push_name', t.text)
    .addColumn('type', t.text, (c) => c.notNull())
    .addColumn('text', t.text, (c) => c.notNull())
    .addColumn('timestamp', t.int, (c) => c.notNull())
    .addColumn('status', t.text, (c) => c.notNull())
    .addColumn('error_code', t.text)
    .addColumn('source', t.text, (c) => c.notNull())
    .addColumn('sender_id', t.text)
    .addColumn('sender_pn', t.text)
    .addColumn('sender_lid', t.text)
    .addColumn('details', t.text)
    .addUniqueConstraint('messages_instance_id_id', ['instance_id', 'id'])
    .execute()
  // A chat's page (keyset on time, then insertion order) and an instance's log by time.
  await s.createIndex('messages_chat_time').on('messages').columns(['instance_id', 'chat_id', 'timestamp', 'seq']).execute()
  await s.createIndex('messages_instance_time').on('messages').columns(['instance_id', 'timestamp', 'seq']).execute()
  // Newest first by arrival: a search that reads an instance's messages (terms too short for the
  // trigram index) pages on it without sorting the whole instance per page.
  await s.createIndex('messages_instance_seq').on('messages').columns(['instance_id', 'seq']).execute()

  await s
    .createTable('conversations')
    .addColumn('instance_id', t.text, (c) => c.notNull())
    .addColumn('chat_id', t.text, (c) => c.notNull())
    .addColumn('name', t.text)
    .addColumn('phone', t.text)
    .addColumn('last_seq', t.int, (c) => c.notNull())
    .addColumn('last_at', t.int, (c) => c.notNull())
    .addColumn('last_customer_at', t.int, (c) => c.notNull().defaultTo(0))
    .addColumn('last_person_at', t.int, (c) => c.notNull().defaultTo(0))
    .addColumn('unread', t.int, (c) => c.notNull().defaultTo(0))
    .addColumn('read_until', t.int, (c) => c.notNull().defaultTo(0))
    .addColumn('resolved_at', t.int)
    .addColumn('message_count', t.int, (c) => c.notNull().defaultTo(0))
    .addPrimaryKeyConstraint('conversations_pk', ['instance_id', 'chat_id'])
    .execute()
  await s.createIndex('conversations_recent').on('conversations').columns(['last_at', 'last_seq']).execute()
  await s.createIndex('conversations_instance_recent').on('conversations').columns(['instance_id', 'last_at', 'last_seq']).execute()
  // The message log's total (`/message-log`) sums the counts of an instance's chats from the index alone.
  await s.createIndex('conversations_instance_count').on('conversations').columns(['instance_id', 'message_count']).execute()

  await s
    .createTable('chat_pauses')
    .addColumn('instance_id', t.text, (c) => c.notNull())
    .addColumn('chat_id', t.text, (c) => c.notNull())
    .addColumn('since', t.text, (c) => c.notNull())
    .addColumn('until', t.text)
    .addColumn('reason', t.text, (c) => c.notNull())
    .addColumn('by', t.text, (c) => c.notNull())
    .addPrimaryKeyConstraint('chat_pauses_pk', ['instance_id', 'chat_id'])
    .execute()

  await s
    .createTable('intents')
    .addColumn('id', t.text, (c) => c.primaryKey())
    .addColumn('instance_id', t.text, (c) => c.notNull())
    .addColumn('client_id', t.text, (c) => c.notNull())
    .addColumn('title', t.text, (c) => c.notNull())
    .addColumn('keyword', t.text, (c) => c.notNull())
    .addColumn('reply', t.text, (c) => c.notNull())
    .addColumn('action', t.text)
    .addColumn('created_at', t.text, (c) => c.notNull())
    .addColumn('updated_at', t.text, (c) => c.notNull())
    .addColumn('v', t.int, (c) => c.notNull())
    .execute()
  await s.createIndex('intents_instance').on('intents').columns(['instance_id', 'created_at']).execute()

  await s
    .createTable('survey_steps')
    .addColumn('id', t.text, (c) => c.primaryKey())
    .addColumn('instance_id', t.text, (c) => c.notNull())
    .addColumn('client_id', t.text, (c) => c.notNull())
    .addColumn('title', t.text, (c) => c.notNull())
    .addColumn('keyword', t.text, (c) => c.notNull())
    .addColumn('reply', t.text, (c) => c.notNull())
    .addColumn('sort_id', t.int, (c) => c.notNull())
    .addColumn('action', t.text)
    .addColumn('closing_msg', t.text)
    .addColumn('created_at', t.text, (c) => c.notNull())
    .addColumn('updated_at', t.text, (c) => c.notNull())
    .addColumn('v', t.int, (c) => c.notNull())
    .execute()
  await s.createIndex('survey_steps_instance_title').on('survey_steps').columns(['instance_id', 'title', 'sort_id']).execute()

  await s
    .createTable('survey_runs')
    .addColumn('id', t.text, (c) => c.primaryKey())
    .addColumn('instance_id', t.text, (c) => c.notNull())
    .addColumn('survey_title', t.text, (c) => c.notNull())
    .addColumn('chat_id', t.text, (c) => c.notNull())
    .addColumn('contact_id', t.text)
    .addColumn('push_name', t.text)
    .addColumn('status', t.text, (c) => c.notNull())
    .addColumn('current_step_id', t.text)
    .addColumn('answers', t.text, (c) => c.notNull())
    .addColumn('started_at', t.text, (c) => c.notNull())
    .addColumn('updated_at', t.text, (c) => c.notNull())
    .addColumn('completed_at', t.text)
    .addColumn('handled', t.int)
    .execute()
  await s.createIndex('survey_runs_survey').on('survey_runs').columns(['instance_id', 'survey_title', 'started_at']).execute()
  await s.createIndex('survey_runs_chat').on('survey_runs').columns(['instance_id', 'chat_id']).execute()
  await s.createIndex('survey_runs_status').on('survey_runs').columns(['status', 'updated_at']).execute()

  await s
    .createTable('attachments')
    .addColumn('id', t.text, (c) => c.primaryKey())
    .addColumn('instance_id', t.text, (c) => c.notNull())
    .addColumn('client_id', t.text, (c) => c.notNull())
    .addColumn('filename', t.text, (c) => c.notNull())
    .addColumn('mimetype', t.text, (c) => c.notNull())
    .addColumn('size', t.int, (c) => c.notNull())
    .addColumn('sha256', t.text, (c) => c.notNull())
    .addColumn('created_at', t.text, (c) => c.notNull())
    .execute()
  await s.createIndex('attachments_instance').on('attachments').columns(['instance_id', 'created_at']).execute()

  await s
    .createTable('quick_replies')
    .addColumn('id', t.text, (c) => c.primaryKey())
    .addColumn('shortcut', t.text, (c) => c.notNull().unique())
    .addColumn('text', t.text, (c) => c.notNull())
    .addColumn('created_at', t.text, (c) => c.notNull())
    .addColumn('updated_at', t.text, (c) => c.notNull())
    .execute()

  await s
    .createTable('labels')
    .addColumn('id', t.text, (c) => c.primaryKey())
    .addColumn('name', t.text, (c) => c.notNull())
    .addColumn('color', t.text, (c) => c.notNull())
    .addColumn('created_at', t.text, (c) => c.notNull())
    .addColumn('updated_at', t.text, (c) => c.notNull())
    .execute()

  await s
    .createTable('contact_groups')
    .addColumn('id', t.text, (c) => c.primaryKey())
    .addColumn('instance_id', t.text, (c) => c.notNull())
    .addColumn('client_id', t.text, (c) => c.notNull())
    .addColumn('title', t.text, (c) => c.notNull())
    .addColumn('is_default', t.int, (c) => c.notNull())
    .addColumn('created_at', t.text, (c) => c.notNull())
    .addColumn('updated_at', t.text, (c) => c.notNull())
    .addColumn('v', t.int, (c) => c.notNull())
    .execute()
  await s.createIndex('contact_groups_instance').on('contact_groups').columns(['instance_id', 'created_at']).execute()

  await s
    .createTable('contacts')
    // An integer key of its own: the search index's rowid (a table's implicit rowid may change on VACUUM).
    .addColumn('seq', t.int, (c) => t.autoKey(c))
    .addColumn('id', t.text, (c) => c.notNull().unique())
    .addColumn('instance_id', t.text, (c) => c.notNull())
    .addColumn('client_id', t.text, (c) => c.notNull())
    .addColumn('name', t.text, (c) => c.notNull())
    .addColumn('number', t.text, (c) => c.notNull())
    .addColumn('group_id', t.text)
    .addColumn('channel', t.text, (c) => c.notNull())
    .addColumn('notes', t.text, (c) => c.notNull())
    .addColumn('opted_out', t.int, (c) => c.notNull())
    .addColumn('last_seen_at', t.text)
    .addColumn('created_at', t.text, (c) => c.notNull())
    .addColumn('updated_at', t.text, (c) => c.notNull())
    .addColumn('v', t.int, (c) => c.notNull())
    .addUniqueConstraint('contacts_instance_number', ['instance_id', 'number'])
    .execute()
  await s.createIndex('contacts_instance_created').on('contacts').columns(['instance_id', 'created_at']).execute()
  await s.createIndex('contacts_group').on('contacts').columns(['group_id']).execute()

  await s
    .createTable('contact_labels')
    .addColumn('contact_id', t.text, (c) => c.notNull().references('contacts.id').onDelete('cascade'))
    .addColumn('position', t.int, (c) => c.notNull())
    .addColumn('label', t.text, (c) => c.notNull())
    .addPrimaryKeyConstraint('contact_labels_pk', ['contact_id', 'position'])
    .execute()
  await s.createIndex('contact_labels_label').on('contact_labels').columns(['label']).execute()

  await s
    .createTable('broadcasts')
    .addColumn('id', t.text, (c) => c.primaryKey())
    .addColumn('instance_id', t.text, (c) => c.notNull())
    .addColumn('client_id', t.text, (c) => c.notNull())
    .addColumn('send_type', t.text, (c) => c.notNull())
    .addColumn('to', t.text, (c) => c.notNull())
    .addColumn('message', t.text, (c) => c.notNull())
    .addColumn('status', t.text, (c) => c.notNull())
    .addColumn('status_reason', t.text)
    .addColumn('current', t.text)
    .addColumn('schedule_id', t.text)
    .addColumn('created_at', t.text, (c) => c.notNull())
    .addColumn('updated_at', t.text, (c) => c.notNull())
    .addColumn('v', t.int, (c) => c.notNull())
    .execute()
  await s.createIndex('broadcasts_instance').on('broadcasts').columns(['instance_id', 'created_at']).execute()
  await s.createIndex('broadcasts_status').on('broadcasts').columns(['status']).execute()

  await s
    .createTable('broadcast_recipients')
    .addColumn('broadcast_id', t.text, (c) => c.notNull().references('broadcasts.id').onDelete('cascade'))
    .addColumn('position', t.int, (c) => c.notNull())
    .addColumn('number', t.text, (c) => c.notNull())
    .addColumn('name', t.text)
    .addColumn('contact_id', t.text)
    .addColumn('state', t.text, (c) => c.notNull())
    .addColumn('message_id', t.text)
    .addColumn('reason', t.text)
    .addColumn('at', t.text)
    .addColumn('done_seq', t.int)
    .addPrimaryKeyConstraint('broadcast_recipients_pk', ['broadcast_id', 'position'])
    .execute()
  await s.createIndex('broadcast_recipients_state').on('broadcast_recipients').columns(['broadcast_id', 'state', 'position']).execute()

  await s
    .createTable('outreach_sends')
    .addColumn('id', t.text, (c) => c.primaryKey())
    .addColumn('instance_id', t.text, (c) => c.notNull())
    .addColumn('to', t.text, (c) => c.notNull())
    .addColumn('at', t.int, (c) => c.notNull())
    .execute()
  await s.createIndex('outreach_sends_instance_at').on('outreach_sends').columns(['instance_id', 'at']).execute()

  await s
    .createTable('schedules')
    .addColumn('id', t.text, (c) => c.primaryKey())
    .addColumn('instance_id', t.text, (c) => c.notNull())
    .addColumn('client_id', t.text, (c) => c.notNull())
    .addColumn('title', t.text, (c) => c.notNull())
    .addColumn('target', t.text, (c) => c.notNull())
    .addColumn('message', t.text, (c) => c.notNull())
    .addColumn('repeat', t.text, (c) => c.notNull())
    .addColumn('start_at', t.text, (c) => c.notNull())
    .addColumn('days', t.text, (c) => c.notNull())
    .addColumn('active', t.int, (c) => c.notNull())
    .addColumn('next_run_at', t.text)
    .addColumn('runs', t.text, (c) => c.notNull())
    .addColumn('created_at', t.text, (c) => c.notNull())
    .addColumn('updated_at', t.text, (c) => c.notNull())
    .addColumn('v', t.int, (c) => c.notNull())
    .execute()
  await s.createIndex('schedules_instance').on('schedules').columns(['instance_id', 'created_at']).execute()
  await s.createIndex('schedules_due').on('schedules').columns(['active', 'next_run_at']).execute()

  await s
    .createTable('bot_activity')
    .addColumn('seq', t.int, (c) => t.autoKey(c))
    .addColumn('instance_id', t.text, (c) => c.notNull())
    .addColumn('at', t.text, (c) => c.notNull())
    .addColumn('chat_id', t.text, (c) => c.notNull())
    .addColumn('message_id', t.text, (c) => c.notNull())
    .addColumn('matched', t.text, (c) => c.notNull())
    .addColumn('actions', t.text, (c) => c.notNull())
    .execute()
  await s.createIndex('bot_activity_instance').on('bot_activity').columns(['instance_id', 'seq']).execute()

  await s
    .createTable('bot_reply_marks')
    .addColumn('kind', t.text, (c) => c.notNull())
    .addColumn('instance_id', t.text, (c) => c.notNull())
    .addColumn('chat_id', t.text, (c) => c.notNull())
    .addColumn('at', t.int, (c) => c.notNull())
    .addPrimaryKeyConstraint('bot_reply_marks_pk', ['kind', 'instance_id', 'chat_id'])
    .execute()
  await s.createIndex('bot_reply_marks_at').on('bot_reply_marks').columns(['at']).execute()

  await s
    .createTable('webhook_deliveries')
    .addColumn('seq', t.int, (c) => t.autoKey(c))
    .addColumn('id', t.text, (c) => c.notNull().unique())
    .addColumn('instance_id', t.text, (c) => c.notNull())
    .addColumn('event', t.text, (c) => c.notNull())
    .addColumn('url', t.text, (c) => c.notNull())
    .addColumn('payload', t.text, (c) => c.notNull())
    .addColumn('status', t.text, (c) => c.notNull())
    .addColumn('attempts', t.int, (c) => c.notNull())
    .addColumn('last_error', t.text)
    .addColumn('last_status', t.int)
    .addColumn('next_attempt_at', t.text)
    .addColumn('created_at', t.text, (c) => c.notNull())
    .addColumn('delivered_at', t.text)
    .execute()
  await s.createIndex('webhook_deliveries_instance_status').on('webhook_deliveries').columns(['instance_id', 'status', 'seq']).execute()
  await s.createIndex('webhook_deliveries_pending').on('webhook_deliveries').columns(['status', 'seq']).execute()
  // --- webhooks (s25-webhooks): the deliveries API lists an instance's deliveries of every status
  // newest first; without this index that sorts all its rows, and a receiver down for a day leaves
  // tens of thousands pending. Status changes do not touch it (only inserts and deletes).
  await s.createIndex('webhook_deliveries_instance').on('webhook_deliveries').columns(['instance_id', 'seq']).execute()
  // --- end webhooks

  await s
    .createTable('auth_creds')
    .addColumn('instance_id', t.text, (c) => c.primaryKey())
    .addColumn('creds', t.text, (c) => c.notNull())
    .addColumn('updated_at', t.text, (c) => c.notNull())
    .execute()

  await s
    .createTable('auth_keys')
    .addColumn('instance_id', t.text, (c) => c.notNull())
    .addColumn('type', t.text, (c) => c.notNull())
    .addColumn('id', t.text, (c) => c.notNull())
    .addColumn('value', t.text, (c) => c.notNull())
    .addPrimaryKeyConstraint('auth_keys_pk', ['instance_id', 'type', 'id'])
    .execute()

  await s
    .createTable('wa_messages')
    .addColumn('instance_id', t.text, (c) => c.notNull())
    .addColumn('id', t.text, (c) => c.notNull())
    .addColumn('at', t.int, (c) => c.notNull())
    .addColumn('own', t.int, (c) => c.notNull())
    .addColumn('message', t.blob, (c) => c.notNull())
    .addPrimaryKeyConstraint('wa_messages_pk', ['instance_id', 'id'])
    .execute()
  await s.createIndex('wa_messages_at').on('wa_messages').columns(['instance_id', 'at']).execute()

  await s
    .createTable('erasures')
    .addColumn('id', t.text, (c) => c.primaryKey())
    .addColumn('instance_id', t.text, (c) => c.notNull())
    .addColumn('subject_hash', t.text, (c) => c.notNull())
    .addColumn('by', t.text, (c) => c.notNull())
    .addColumn('at', t.text, (c) => c.notNull())
    .addColumn('counts', t.text, (c) => c.notNull())
    .execute()

  await s
    .createTable('legacy_import')
    .addColumn('step', t.text, (c) => c.primaryKey())
    .addColumn('done_at', t.text, (c) => c.notNull())
    .execute()

  if (t.dialect === 'postgres') {
    await postgresSearch(db)
    return
  }

  // The search indexes (SQLite; see the module doc).
  await sql`CREATE VIRTUAL TABLE messages_fts USING fts5(body, who, content='', contentless_delete=1, tokenize='trigram remove_diacritics 1')`.execute(db)
  await sql`CREATE TRIGGER messages_fts_insert AFTER INSERT ON messages BEGIN
    INSERT INTO messages_fts(rowid, body, who) VALUES (new.seq, new.text, coalesce(new.push_name, '') || ' ' || substr(new.chat_id, 1, instr(new.chat_id || '@', '@') - 1));
  END`.execute(db)
  await sql`CREATE TRIGGER messages_fts_delete AFTER DELETE ON messages BEGIN
    DELETE FROM messages_fts WHERE rowid = old.seq;
  END`.execute(db)
  await sql`CREATE TRIGGER messages_fts_update AFTER UPDATE OF text, push_name, chat_id ON messages BEGIN
    DELETE FROM messages_fts WHERE rowid = old.seq;
    INSERT INTO messages_fts(rowid, body, who) VALUES (new.seq, new.text, coalesce(new.push_name, '') || ' ' || substr(new.chat_id, 1, instr(new.chat_id || '@', '@') - 1));
  END`.execute(db)

  await sql`CREATE VIRTUAL TABLE contacts_fts USING fts5(name, number, notes, content='', contentless_delete=1, tokenize='trigram remove_diacritics 1')`.execute(db)
  await sql`CREATE TRIGGER contacts_fts_insert AFTER INSERT ON contacts BEGIN
    INSERT INTO contacts_fts(rowid, name, number, notes) VALUES (new.seq, new.name, new.number, new.notes);
  END`.execute(db)
  await sql`CREATE TRIGGER contacts_fts_delete AFTER DELETE ON contacts BEGIN
    DELETE FROM contacts_fts WHERE rowid = old.seq;
  END`.execute(db)
  await sql`CREATE TRIGGER contacts_fts_update AFTER UPDATE OF name, number, notes ON contacts BEGIN
    DELETE FROM contacts_fts WHERE rowid = old.seq;
    INSERT INTO contacts_fts(rowid, name, number, notes) VALUES (new.seq, new.name, new.number, new.notes);
  END`.execute(db)
}

/**
 * PostgreSQL's search (docs/storage.md, "PostgreSQL"): the same text as SQLite's FTS5 tables, folded
 * the same way (no accents, lower case), behind `pg_trgm` GIN indexes, so `LIKE '%term%'` on it finds
 * any run of 3+ characters inside words (../search-sql.ts writes those queries). The folding is a
 * function of ours declared IMMUTABLE (an index needs that; `unaccent` itself is STABLE because its
 * dictionary could change), its calls qualified by schema so it never depends on the search_path.
 * Needs the `pg_trgm` and `unaccent` extensions (trusted: a database owner may create them).
 *
 * Messages keep their folded words in a table of their own (`messages_words`, one row per message,
 * kept by triggers as SQLite's FTS table is, and deleted with the message), not in an expression
 * index: folding costs 1.6 µs a row, ten times a LIKE on stored text, and a search evaluates it on
 * every candidate the index hands back or every message it walks (800 ms at 300,000 messages for
 * two words that rarely meet; 60 ms on stored words). Contacts, far fewer, use an expression index.
 */
async function postgresSearch(db: Kysely<unknown>): Promise<void> {
  await sql`CREATE EXTENSION IF NOT EXISTS pg_trgm`.execute(db)
  await sql`CREATE EXTENSION IF NOT EXISTS unaccent`.execute(db)
  const { rows } = await sql<{ own: string; unaccent: string; trgm: string }>`SELECT current_schema() AS own,
    (SELECT n.nspname FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace WHERE e.extname = 'unaccent') AS unaccent,
    (SELECT n.nspname FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace WHERE e.extname = 'pg_trgm') AS trgm`.execute(db)
  const q = (name: string): string => `"${name.replace(/"/g, '""')}"`
  const own = q(rows[0]!.own)
  const unaccent = q(rows[0]!.unaccent)
  // Lower case by the database's own rules ("default"): the columns compare byte by byte (C), whose
  // lower() folds ASCII only, while search folds every script as FTS5 does.
  await sql
    .raw(
      `CREATE FUNCTION ${own}.chatapp_fold(t text) RETURNS text LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
      AS $$ SELECT lower(${unaccent}.unaccent('${unaccent}.unaccent'::regdictionary, t) COLLATE "default") $$`
    )
    .execute(db)
  // The words of a message (its text, the sender's name and number) and of a contact, as FTS5 indexes them.
  await sql
    .raw(
      `CREATE FUNCTION ${own}.chatapp_message_words(body text, push_name text, chat_id text) RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE
      AS $$ SELECT ${own}.chatapp_fold(coalesce(body, '') || ' ' || coalesce(push_name, '') || ' ' || split_part(chat_id, '@', 1)) $$`
    )
    .execute(db)
  await sql
    .raw(
      `CREATE FUNCTION ${own}.chatapp_contact_words(name text, number text, notes text) RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE
      AS $$ SELECT ${own}.chatapp_fold(coalesce(name, '') || ' ' || coalesce(number, '') || ' ' || coalesce(notes, '')) $$`
    )
    .execute(db)
  const trgmOps = sql.raw(`${q(rows[0]!.trgm)}.gin_trgm_ops`)
  await db.schema
    .createTable('messages_words')
    .addColumn('seq', 'bigint', (c) => c.primaryKey().references('messages.seq').onDelete('cascade'))
    .addColumn('words', 'text', (c) => c.notNull())
    .execute()
  await sql
    .raw(
      `CREATE FUNCTION ${own}.chatapp_messages_words_sync() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        INSERT INTO ${own}.messages_words (seq, words) VALUES (NEW.seq, ${own}.chatapp_message_words(NEW.text, NEW.push_name, NEW.chat_id))
          ON CONFLICT (seq) DO UPDATE SET words = EXCLUDED.words;
        RETURN NULL;
      END $$`
    )
    .execute(db)
  await sql`CREATE TRIGGER messages_words_insert AFTER INSERT ON messages FOR EACH ROW EXECUTE FUNCTION chatapp_messages_words_sync()`.execute(db)
  await sql`CREATE TRIGGER messages_words_update AFTER UPDATE OF text, push_name, chat_id ON messages FOR EACH ROW EXECUTE FUNCTION chatapp_messages_words_sync()`.execute(db)
  await db.schema.createIndex('messages_search').on('messages_words').using('gin').expression(sql`words ${trgmOps}`).execute()
  await db.schema.createIndex('contacts_search').on('contacts').using('gin').expression(sql`chatapp_contact_words(name, number, notes) ${trgmOps}`).execute()
}

export async function down(): Promise<void> {
  // The first version has nothing to go back to; a restore brings an earlier state back.
  throw new Error('Migration 1 cannot be undone.')
}
