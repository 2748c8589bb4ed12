/**
 * Migration 1: every table of the first database version (./schema.ts describes them), its indexes,
 * and the message search index.
 *
 * Search (docs/design.md §14): an FTS5 table with the trigram tokenizer over each message's text and
 * the sender's name and number, diacritics folded (`remove_diacritics 1`): any run of 3+ characters is
 * found inside words and in scripts written without spaces (Signal-Desktop's word-prefix index fails
 * its Chinese and Japanese users, #5180). Contentless (`content=''`, the text is already in
 * `messages`) with `contentless_delete=1` (SQLite ≥ 3.43), kept in step by triggers so no write can
 * forget it. Contacts get the same over name, number and notes.
 */
import { sql, type Kysely } from 'kysely'

// Migrations see the database as it was at their time, not as schema.ts describes it today.
export async function up(db: Kysely<unknown>): Promise<void> {
  const s = db.schema

  await s
    .createTable('messages')
    .addColumn('seq', 'integer', (c) => c.primaryKey().autoIncrement())
    .addColumn('instance_id', 'text', (c) => c.notNull())
    .addColumn('id', 'text', (c) => c.notNull())
    .addColumn('chat_id', 'text', (c) => c.notNull())
    .addColumn('from_me', 'integer', (c) => c.notNull())
    .addColumn('push_name', 'text')
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('text', 'text', (c) => c.notNull())
    .addColumn('timestamp', 'integer', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('error_code', 'text')
    .addColumn('source', 'text', (c) => c.notNull())
    .addColumn('sender_id', 'text')
    .addColumn('sender_pn', 'text')
    .addColumn('sender_lid', 'text')
    .addColumn('details', 'text')
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
    .addColumn('instance_id', 'text', (c) => c.notNull())
    .addColumn('chat_id', 'text', (c) => c.notNull())
    .addColumn('name', 'text')
    .addColumn('phone', 'text')
    .addColumn('last_seq', 'integer', (c) => c.notNull())
    .addColumn('last_at', 'integer', (c) => c.notNull())
    .addColumn('last_customer_at', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('last_person_at', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('unread', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('read_until', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('resolved_at', 'integer')
    .addColumn('message_count', 'integer', (c) => c.notNull().defaultTo(0))
    .addPrimaryKeyConstraint('conversations_pk', ['instance_id', 'chat_id'])
    .execute()
  await s.createIndex('conversations_recent').on('conversations').columns(['last_at', 'last_seq']).execute()
  await s.createIndex('conversations_instance_recent').on('conversations').columns(['instance_id', 'last_at', 'last_seq']).execute()
  // The message log's total (`/message-log`) sums the counts of an instance's chats from the index alone.
  await s.createIndex('conversations_instance_count').on('conversations').columns(['instance_id', 'message_count']).execute()

  await s
    .createTable('chat_pauses')
    .addColumn('instance_id', 'text', (c) => c.notNull())
    .addColumn('chat_id', 'text', (c) => c.notNull())
    .addColumn('since', 'text', (c) => c.notNull())
    .addColumn('until', 'text')
    .addColumn('reason', 'text', (c) => c.notNull())
    .addColumn('by', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('chat_pauses_pk', ['instance_id', 'chat_id'])
    .execute()

  await s
    .createTable('intents')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('instance_id', 'text', (c) => c.notNull())
    .addColumn('client_id', 'text', (c) => c.notNull())
    .addColumn('title', 'text', (c) => c.notNull())
    .addColumn('keyword', 'text', (c) => c.notNull())
    .addColumn('reply', 'text', (c) => c.notNull())
    .addColumn('action', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addColumn('v', 'integer', (c) => c.notNull())
    .execute()
  await s.createIndex('intents_instance').on('intents').columns(['instance_id', 'created_at']).execute()

  await s
    .createTable('survey_steps')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('instance_id', 'text', (c) => c.notNull())
    .addColumn('client_id', 'text', (c) => c.notNull())
    .addColumn('title', 'text', (c) => c.notNull())
    .addColumn('keyword', 'text', (c) => c.notNull())
    .addColumn('reply', 'text', (c) => c.notNull())
    .addColumn('sort_id', 'integer', (c) => c.notNull())
    .addColumn('action', 'text')
    .addColumn('closing_msg', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addColumn('v', 'integer', (c) => c.notNull())
    .execute()
  await s.createIndex('survey_steps_instance_title').on('survey_steps').columns(['instance_id', 'title', 'sort_id']).execute()

  await s
    .createTable('survey_runs')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('instance_id', 'text', (c) => c.notNull())
    .addColumn('survey_title', 'text', (c) => c.notNull())
    .addColumn('chat_id', 'text', (c) => c.notNull())
    .addColumn('contact_id', 'text')
    .addColumn('push_name', 'text')
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('current_step_id', 'text')
    .addColumn('answers', 'text', (c) => c.notNull())
    .addColumn('started_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addColumn('completed_at', 'text')
    .addColumn('handled', 'integer')
    .execute()
  await s.createIndex('survey_runs_survey').on('survey_runs').columns(['instance_id', 'survey_title', 'started_at']).execute()
  await s.createIndex('survey_runs_chat').on('survey_runs').columns(['instance_id', 'chat_id']).execute()
  await s.createIndex('survey_runs_status').on('survey_runs').columns(['status', 'updated_at']).execute()

  await s
    .createTable('attachments')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('instance_id', 'text', (c) => c.notNull())
    .addColumn('client_id', 'text', (c) => c.notNull())
    .addColumn('filename', 'text', (c) => c.notNull())
    .addColumn('mimetype', 'text', (c) => c.notNull())
    .addColumn('size', 'integer', (c) => c.notNull())
    .addColumn('sha256', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute()
  await s.createIndex('attachments_instance').on('attachments').columns(['instance_id', 'created_at']).execute()

  await s
    .createTable('quick_replies')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('shortcut', 'text', (c) => c.notNull().unique())
    .addColumn('text', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute()

  await s
    .createTable('labels')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('color', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute()

  await s
    .createTable('contact_groups')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('instance_id', 'text', (c) => c.notNull())
    .addColumn('client_id', 'text', (c) => c.notNull())
    .addColumn('title', 'text', (c) => c.notNull())
    .addColumn('is_default', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addColumn('v', 'integer', (c) => c.notNull())
    .execute()
  await s.createIndex('contact_groups_instance').on('contact_groups').columns(['instance_id', 'created_at']).execute()

  await s
    .createTable('contacts')
    // An integer key of its own: the search index's rowid (a table's implicit rowid may change on VACUUM).
    .addColumn('seq', 'integer', (c) => c.primaryKey().autoIncrement())
    .addColumn('id', 'text', (c) => c.notNull().unique())
    .addColumn('instance_id', 'text', (c) => c.notNull())
    .addColumn('client_id', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('number', 'text', (c) => c.notNull())
    .addColumn('group_id', 'text')
    .addColumn('channel', 'text', (c) => c.notNull())
    .addColumn('notes', 'text', (c) => c.notNull())
    .addColumn('opted_out', 'integer', (c) => c.notNull())
    .addColumn('last_seen_at', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addColumn('v', 'integer', (c) => c.notNull())
    .addUniqueConstraint('contacts_instance_number', ['instance_id', 'number'])
    .execute()
  await s.createIndex('contacts_instance_created').on('contacts').columns(['instance_id', 'created_at']).execute()
  await s.createIndex('contacts_group').on('contacts').columns(['group_id']).execute()

  await s
    .createTable('contact_labels')
    .addColumn('contact_id', 'text', (c) => c.notNull().references('contacts.id').onDelete('cascade'))
    .addColumn('position', 'integer', (c) => c.notNull())
    .addColumn('label', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('contact_labels_pk', ['contact_id', 'position'])
    .execute()
  await s.createIndex('contact_labels_label').on('contact_labels').columns(['label']).execute()

  await s
    .createTable('broadcasts')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('instance_id', 'text', (c) => c.notNull())
    .addColumn('client_id', 'text', (c) => c.notNull())
    .addColumn('send_type', 'text', (c) => c.notNull())
    .addColumn('to', 'text', (c) => c.notNull())
    .addColumn('message', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('status_reason', 'text')
    .addColumn('current', 'text')
    .addColumn('schedule_id', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addColumn('v', 'integer', (c) => c.notNull())
    .execute()
  await s.createIndex('broadcasts_instance').on('broadcasts').columns(['instance_id', 'created_at']).execute()
  await s.createIndex('broadcasts_status').on('broadcasts').columns(['status']).execute()

  await s
    .createTable('broadcast_recipients')
    .addColumn('broadcast_id', 'text', (c) => c.notNull().references('broadcasts.id').onDelete('cascade'))
    .addColumn('position', 'integer', (c) => c.notNull())
    .addColumn('number', 'text', (c) => c.notNull())
    .addColumn('name', 'text')
    .addColumn('contact_id', 'text')
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('message_id', 'text')
    .addColumn('reason', 'text')
    .addColumn('at', 'text')
    .addColumn('done_seq', 'integer')
    .addPrimaryKeyConstraint('broadcast_recipients_pk', ['broadcast_id', 'position'])
    .execute()
  await s.createIndex('broadcast_recipients_state').on('broadcast_recipients').columns(['broadcast_id', 'state', 'position']).execute()

  await s
    .createTable('outreach_sends')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('instance_id', 'text', (c) => c.notNull())
    .addColumn('to', 'text', (c) => c.notNull())
    .addColumn('at', 'integer', (c) => c.notNull())
    .execute()
  await s.createIndex('outreach_sends_instance_at').on('outreach_sends').columns(['instance_id', 'at']).execute()

  await s
    .createTable('schedules')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('instance_id', 'text', (c) => c.notNull())
    .addColumn('client_id', 'text', (c) => c.notNull())
    .addColumn('title', 'text', (c) => c.notNull())
    .addColumn('target', 'text', (c) => c.notNull())
    .addColumn('message', 'text', (c) => c.notNull())
    .addColumn('repeat', 'text', (c) => c.notNull())
    .addColumn('start_at', 'text', (c) => c.notNull())
    .addColumn('days', 'text', (c) => c.notNull())
    .addColumn('active', 'integer', (c) => c.notNull())
    .addColumn('next_run_at', 'text')
    .addColumn('runs', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addColumn('v', 'integer', (c) => c.notNull())
    .execute()
  await s.createIndex('schedules_instance').on('schedules').columns(['instance_id', 'created_at']).execute()
  await s.createIndex('schedules_due').on('schedules').columns(['active', 'next_run_at']).execute()

  await s
    .createTable('bot_activity')
    .addColumn('seq', 'integer', (c) => c.primaryKey().autoIncrement())
    .addColumn('instance_id', 'text', (c) => c.notNull())
    .addColumn('at', 'text', (c) => c.notNull())
    .addColumn('chat_id', 'text', (c) => c.notNull())
    .addColumn('message_id', 'text', (c) => c.notNull())
    .addColumn('matched', 'text', (c) => c.notNull())
    .addColumn('actions', 'text', (c) => c.notNull())
    .execute()
  await s.createIndex('bot_activity_instance').on('bot_activity').columns(['instance_id', 'seq']).execute()

  await s
    .createTable('bot_reply_marks')
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('instance_id', 'text', (c) => c.notNull())
    .addColumn('chat_id', 'text', (c) => c.notNull())
    .addColumn('at', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('bot_reply_marks_pk', ['kind', 'instance_id', 'chat_id'])
    .execute()
  await s.createIndex('bot_reply_marks_at').on('bot_reply_marks').columns(['at']).execute()

  await s
    .createTable('webhook_deliveries')
    .addColumn('seq', 'integer', (c) => c.primaryKey().autoIncrement())
    .addColumn('id', 'text', (c) => c.notNull().unique())
    .addColumn('instance_id', 'text', (c) => c.notNull())
    .addColumn('event', 'text', (c) => c.notNull())
    .addColumn('url', 'text', (c) => c.notNull())
    .addColumn('payload', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull())
    .addColumn('last_error', 'text')
    .addColumn('last_status', 'integer')
    .addColumn('next_attempt_at', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('delivered_at', 'text')
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
    .addColumn('instance_id', 'text', (c) => c.primaryKey())
    .addColumn('creds', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute()

  await s
    .createTable('auth_keys')
    .addColumn('instance_id', 'text', (c) => c.notNull())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('id', 'text', (c) => c.notNull())
    .addColumn('value', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('auth_keys_pk', ['instance_id', 'type', 'id'])
    .execute()

  await s
    .createTable('wa_messages')
    .addColumn('instance_id', 'text', (c) => c.notNull())
    .addColumn('id', 'text', (c) => c.notNull())
    .addColumn('at', 'integer', (c) => c.notNull())
    .addColumn('own', 'integer', (c) => c.notNull())
    .addColumn('message', 'blob', (c) => c.notNull())
    .addPrimaryKeyConstraint('wa_messages_pk', ['instance_id', 'id'])
    .execute()
  await s.createIndex('wa_messages_at').on('wa_messages').columns(['instance_id', 'at']).execute()

  await s
    .createTable('erasures')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('instance_id', 'text', (c) => c.notNull())
    .addColumn('subject_hash', 'text', (c) => c.notNull())
    .addColumn('by', 'text', (c) => c.notNull())
    .addColumn('at', 'text', (c) => c.notNull())
    .addColumn('counts', 'text', (c) => c.notNull())
    .execute()

  await s
    .createTable('legacy_import')
    .addColumn('step', 'text', (c) => c.primaryKey())
    .addColumn('done_at', 'text', (c) => c.notNull())
    .execute()

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

export async function down(): Promise<void> {
  // The first version has nothing to go back to; a restore brings an earlier state back.
  throw new Error('Migration 1 cannot be undone.')
}
