/**
 * The database's one typed schema (Kysely): every table the repositories read and write, as the
 * latest migration (./migrations) leaves it. Column names are snake_case; the repositories map rows
 * to the records of src/shared/schemas and back, so nothing above them sees a row.
 *
 * Conventions, chosen to run unchanged on SQLite and PostgreSQL:
 * - booleans are integers 0/1 ({@link Flag});
 * - nested structures are JSON text ({@link JsonText}), read and written by the repositories only;
 * - every instant is epoch milliseconds (migration 11; docs/storage.md "Times"): the repositories
 *   turn those a record shows as ISO 8601 text into it and back (../db/times.ts). Text stays only
 *   what is no instant: `schedules.start_at` (a wall-clock time in the instance's zone) and
 *   `assistant_usage.day` (a calendar day).
 */
import type { Generated } from 'kysely'

/** 0 or 1. */
export type Flag = number
/** JSON text of the named shape (the repositories parse and stringify it). */
export type JsonText<_T = unknown> = string

/** The message log: every inbound and outbound message, uncapped (docs/design.md §7). */
export interface MessagesTable {
  /** Insertion order; the search index's rowid and the tie-break of equal times. */
  seq: Generated<number>
  instance_id: string
  /** The WhatsApp message id: the API's `id` and cursor; unique per instance. */
  id: string
  chat_id: string
  from_me: Flag
  push_name: string | null
  type: string
  text: string
  /** Epoch ms. */
  timestamp: number
  status: string
  error_code: string | null
  source: string
  sender_id: string | null
  sender_pn: string | null
  sender_lid: string | null
  /** media, location, options and the bot's decision (LoggedMessage's nested parts). */
  details: JsonText | null
}

/**
 * One row per chat of an instance, kept in step with its messages in the same transaction: what the
 * inbox lists without reading the log (docs/design.md §20 "Inbox rows"), plus the desk's read mark and resolve.
 */
export interface ConversationsTable {
  instance_id: string
  chat_id: string
  /** The customer's latest push name. */
  name: string | null
  /** Digits of the customer's number when known; null for groups. */
  phone: string | null
  /** seq and time (epoch ms) of the newest message. */
  last_seq: number
  last_at: number
  /** Epoch ms of the newest customer message and of the newest reply a person wrote (desk, phone). */
  last_customer_at: number
  last_person_at: number
  /** Customer messages newer than both the read mark and the last person's reply. */
  unread: number
  /** Epoch ms up to which the desk has read the chat (0: none). */
  read_until: number
  /** Epoch ms of the resolve; null: open. */
  resolved_at: number | null
  message_count: number
  /** The staff id the conversation is assigned to (migration 2), or null. */
  assigned_to: string | null
  /** Epoch ms of the assignment. */
  assigned_at: number | null
  /** The customer's WhatsApp username (no "@"), when they write by LID with one (migration 7). */
  username: string | null
}

/** Chats whose bot is paused for a person (hand-off). */
export interface ChatPausesTable {
  instance_id: string
  chat_id: string
  since: number
  until: number | null
  reason: string
  by: string
  /** Who took the chat over: SentBy as JSON (migration 2), null for the bot's own or older pauses. */
  taken_by: JsonText | null
}

export interface IntentsTable {
  id: string
  instance_id: string
  client_id: string
  title: string
  keyword: string
  reply: string
  action: JsonText | null
  created_at: number
  updated_at: number
  v: number
}

export interface SurveyStepsTable {
  id: string
  instance_id: string
  client_id: string
  title: string
  keyword: string
  reply: string
  sort_id: number
  action: JsonText | null
  closing_msg: string | null
  created_at: number
  updated_at: number
  v: number
}

export interface SurveyRunsTable {
  id: string
  instance_id: string
  survey_title: string
  chat_id: string
  contact_id: string | null
  push_name: string | null
  status: string
  current_step_id: string | null
  answers: JsonText
  started_at: number
  updated_at: number
  completed_at: number | null
  handled: Flag | null
}

export interface AttachmentsTable {
  id: string
  instance_id: string
  client_id: string
  filename: string
  mimetype: string
  size: number
  sha256: string
  created_at: number
}

export interface QuickRepliesTable {
  id: string
  shortcut: string
  text: string
  created_at: number
  updated_at: number
}

export interface LabelsTable {
  id: string
  name: string
  color: string
  created_at: number
  updated_at: number
}

export interface ContactGroupsTable {
  id: string
  instance_id: string
  client_id: string
  title: string
  is_default: Flag
  created_at: number
  updated_at: number
  v: number
}

export interface ContactsTable {
  /** The search index's rowid. */
  seq: Generated<number>
  id: string
  instance_id: string
  client_id: string
  name: string
  /** Digits only, unique per instance. */
  number: string
  group_id: string | null
  channel: string
  notes: string
  opted_out: Flag
  last_seen_at: number | null
  created_at: number
  updated_at: number
  v: number
}

/** A contact's labels, in the order the contact lists them. */
export interface ContactLabelsTable {
  contact_id: string
  position: number
  label: string
}

export interface BroadcastsTable {
  id: string
  instance_id: string
  client_id: string
  send_type: string
  to: string
  message: JsonText
  status: string
  status_reason: string | null
  /** `{number, started_at}` of the recipient being sent to, or null. */
  current: JsonText | null
  schedule_id: string | null
  created_at: number
  updated_at: number
  v: number
}

/** Each recipient of a broadcast and where it stands. */
export interface BroadcastRecipientsTable {
  broadcast_id: string
  /** Order of the recipient list. */
  position: number
  number: string
  name: string | null
  contact_id: string | null
  state: 'pending' | 'current' | 'sent' | 'failed' | 'skipped'
  message_id: string | null
  reason: string | null
  /** Epoch ms of the send or failure. */
  at: number | null
  /** Order in which recipients left `pending` (the record's sent/failed lists keep it). */
  done_seq: number | null
}

/** Outreach messages the send governor counts (quotas, cooldown). */
export interface OutreachSendsTable {
  id: string
  instance_id: string
  to: string
  /** Epoch ms. */
  at: number
}

export interface SchedulesTable {
  id: string
  instance_id: string
  client_id: string
  title: string
  target: JsonText
  message: JsonText
  repeat: string
  start_at: string
  days: JsonText
  active: Flag
  next_run_at: number | null
  runs: JsonText
  created_at: number
  updated_at: number
  v: number
}

/** What the bot's actions did ("why no reply"), newest kept per instance. */
export interface BotActivityTable {
  seq: Generated<number>
  instance_id: string
  at: number
  chat_id: string
  message_id: string
  matched: string
  actions: JsonText
  /** An assistant answer's details (AssistantOutcome), or null (migration 9). */
  assistant: JsonText | null
}

/** When the bot last sent a rate-limited message (default, away) to a chat. */
export interface BotReplyMarksTable {
  kind: string
  instance_id: string
  chat_id: string
  /** Epoch ms. */
  at: number
}

/**
 * Webhook deliveries (docs/design.md §11): the outbox and what became of each
 * (../repos/webhook-delivery-repo.ts). Indexes: (instance_id, status, seq) for an instance's list of
 * one status and the bounds; (status, seq) for the pending ones a start resumes; (instance_id, seq)
 * for an instance's list of every status, newest first.
 */
export interface WebhookDeliveriesTable {
  /** Insertion order: the queue's and the list's order. */
  seq: Generated<number>
  id: string
  instance_id: string
  event: string
  url: string
  payload: JsonText
  status: string
  attempts: number
  last_error: string | null
  last_status: number | null
  next_attempt_at: number | null
  created_at: number
  delivered_at: number | null
}

/** The channel's credentials of each instance (Baileys creds, or the sandbox's pairing). */
export interface AuthCredsTable {
  instance_id: string
  /** JSON text (Baileys' BufferJSON for the real channel). */
  creds: string
  updated_at: number
}

/** Baileys' Signal key store: one row per key. */
export interface AuthKeysTable {
  instance_id: string
  type: string
  id: string
  /** JSON text (BufferJSON). */
  value: string
}

/** Messages the real channel keeps for retries and media downloads (proto bytes). */
export interface WaMessagesTable {
  instance_id: string
  id: string
  /** Epoch ms when kept. */
  at: number
  own: Flag
  message: Uint8Array
}

/** Erasures of a customer's data (docs/design.md §20 "A customer's data"): who and when, never what. */
export interface ErasuresTable {
  id: string
  instance_id: string
  /** sha256 of the customer's number (answers "was this number erased?" without keeping it). */
  subject_hash: string
  by: string
  at: number
  /** How many records went, per kind. */
  counts: JsonText
}

/**
 * What a running erasure covers (migration 8): one row per JID of the customer (their number's JID
 * and LIDs); messages of the instance up to `up_to_seq` whose chat or sender is one of them are
 * hidden from every read until their slices are deleted; rows go when the erasure ends.
 */
export interface ErasingTable {
  erasure_id: string
  instance_id: string
  jid: string
  up_to_seq: number
}

/** Progress of the one-time import of a journal-file data dir (resumable). */
export interface LegacyImportTable {
  step: string
  done_at: number
}

/** A person at the desk (docs/design.md §21): a manager or an agent; the owner is the account itself. */
export interface StaffTable {
  id: string
  name: string
  /** Lower-cased; unique. */
  login: string
  role: 'manager' | 'agent'
  /** The instances the person works on; null: every instance. */
  instance_ids: JsonText<string[]> | null
  /** `scrypt$N$r$p$salt$hash` (base64url), null until the invite is accepted. */
  password_hash: string | null
  /** Failed logins in a row (reset by a good one). */
  failed_logins: number
  /** Epoch ms until which logins are refused after repeated failures. */
  locked_until: number | null
  created_at: number
  updated_at: number
}

/** One-time invites: the sha256 of the code in the invite link, until it expires (epoch ms). */
export interface StaffInvitesTable {
  code_hash: string
  staff_id: string
  expires_at: number
}

/** Web sessions of staff: the sha256 of the session token; epoch ms times. */
export interface AuthSessionsTable {
  token_hash: string
  staff_id: string
  /** The token a cookie-authenticated write must echo in `X-CSRF-Token`. */
  csrf_token: string
  created_at: number
  expires_at: number
  ip: string | null
}

/** Scoped API keys for scripts; the key itself is shown once and only its sha256 kept. */
export interface ApiKeysTable {
  id: string
  name: string
  key_hash: string
  scopes: JsonText<string[]>
  /** The instances the key may act on; null: every instance. */
  instance_ids: JsonText<string[]> | null
  created_at: number
  last_used_at: number | null
  last_used_ip: string | null
  revoked_at: number | null
}

/** What people did (logins, failed logins, key use, settings changes); epoch ms; never secrets. */
export interface AuditLogTable {
  seq: Generated<number>
  at: number
  kind: string
  /** Who: `owner`, `staff:<id>`, `key:<id>`, or the login tried. */
  actor: string
  ip: string | null
  detail: JsonText | null
}

/** A conversation's timeline of desk events (an assignment change); epoch ms. */
export interface ConversationEventsTable {
  seq: Generated<number>
  instance_id: string
  chat_id: string
  at: number
  /** `assigned` (detail: `{to: {id, name} | null}`). */
  kind: string
  /** Who did it: `{kind, id?, name}` of SentBy, as JSON. */
  actor: JsonText
  detail: JsonText | null
}

/**
 * A worker: one `npm run serve` process sharing the database with others (migration 3, docs/design.md §22).
 * Upserted by its heartbeat; deleted when it stops (its leases released).
 */
export interface WorkersTable {
  /** `CHATAPP_WORKER_ID` (default host:port). */
  id: string
  /** Where the other workers reach it (`CHATAPP_WORKER_URL`). */
  url: string
  /** Epoch ms of the process's start, and of its latest heartbeat. */
  started_at: number
  last_seen_at: number
  /** The most instances it may own at once; null: no limit. */
  max_instances: number | null
}

/**
 * Who owns an instance's socket (migration 3): the lease, held until `expires_at` unless renewed,
 * and the fencing token its owner's credential writes carry (docs/storage.md "Leases and fencing
 * tokens"). The row stays when the lease expires or is released: the token only grows.
 */
export interface InstanceLeasesTable {
  instance_id: string
  /** The worker id holding (or last holding) the lease. */
  owner: string
  /** 1 at the first claim, +1 at every claim after an expiry or a release; never reused. */
  fencing_token: number
  /** Epoch ms: the lease holds while `now < expires_at`. */
  expires_at: number
  /** Epoch ms of the claim that gave the current token. */
  acquired_at: number
}

/**
 * The configuration document in database mode (migration 4; ../config/database-document.ts): one
 * row, `id = 'config'`: the account and the app's settings (its `instances` is empty since migration
 * 10: they are rows of {@link ConfigInstancesTable}).
 */
export interface ConfigDocumentTable {
  id: string
  /** The document (ConfigData) as JSON text. */
  body: JsonText
  /**
   * Raised by one on every write of the configuration, this row's or an instance's (under this row's
   * lock, so versions commit in order): the version a worker holds.
   */
  version: number
  /** Epoch ms of the last write. */
  updated_at: number
}

/** An instance of the configuration in database mode (migration 10; ../config/database-document.ts). */
export interface ConfigInstancesTable {
  /** The instance's `_id`. */
  id: string
  /** Its place in the list of instances (creation order). */
  position: number
  /** The instance record as JSON text. */
  body: JsonText
  /** The `config_document.version` of the write that last wrote it. */
  stamp: number
  /** Epoch ms of that write. */
  updated_at: number
}

/**
 * The first answer of a send made with an `Idempotency-Key` (migration 5; repos/idempotency-repo.ts),
 * by (key, caller, route).
 */
export interface IdempotencyKeysTable {
  key: string
  /** Who sent it: `owner`, `staff:<id>` or `key:<id>`. */
  caller: string
  /** The operation and the instance, e.g. `messages.sendText <instance id>`. */
  route: string
  /** sha256 of the request's input: a retry must send the same. */
  request_hash: string
  /** null while the first request runs. */
  status: number | null
  /** The answer's JSON text; null while the first request runs. */
  body: string | null
  /** Epoch ms. */
  created_at: number
  /** Who runs it: the worker id (database mode) or the process's run id (one process); null before migration 6. */
  taken_by: string | null
  /** The taker's lease token on the instance (database mode); null otherwise. */
  fencing_token: number | null
}

/** The assistant of an instance (migration 9): its settings (JSON) and the endpoint's key, kept apart. */
export interface AssistantSettingsTable {
  instance_id: string
  /** AssistantSettings (src/shared/schemas/assistant.ts). */
  settings: JsonText
  /** Write-only: read for the model call only, never answered. */
  api_key: string | null
  updated_at: number
}

/** The shop's knowledge entries (docs/assistant.md). */
export interface KnowledgeTable {
  id: string
  instance_id: string
  title: string
  source: 'manual' | 'file'
  file_name: string | null
  chunk_count: number
  created_at: number
  updated_at: number
  /** The content's first characters: what a list shows (it never reads `content`). */
  excerpt: string
  content: string
}

/** The passages a knowledge entry is cut into: what search finds (FTS5 `knowledge_fts` / pg_trgm). */
export interface KnowledgeChunksTable {
  seq: Generated<number>
  instance_id: string
  knowledge_id: string
  position: number
  /** The entry's title, searched with the passage. */
  title: string
  body: string
  /** The embedding model that made `embedding`, or null. */
  embedding_model: string | null
  /** Little-endian float32 vector. */
  embedding: Uint8Array | null
}

/** Per instance, where its knowledge chunks stand: a cache of search results is valid while this is. */
export interface KnowledgeRevisionsTable {
  instance_id: string
  chunks: number
  /** Bumped by every change of the instance's chunks. */
  revision: number
}

/** Each answer or fallback the assistant gave a chat (the hourly cap; a customer's export and erasure). */
export interface AssistantRepliesTable {
  seq: Generated<number>
  instance_id: string
  chat_id: string
  /** Epoch ms. */
  at: number
  message_ids: JsonText<string[]>
  question: string
  reply: string
  outcome: string
  model: string
  prompt_tokens: number
  completion_tokens: number
  ms: number
  sources: JsonText
  error: string | null
  fallback: string | null
  handoff_reason: string | null
}

/** The assistant's tokens and answers per instance and local day. */
export interface AssistantUsageTable {
  instance_id: string
  /** YYYY-MM-DD in bot_timezone. */
  day: string
  prompt_tokens: number
  completion_tokens: number
  replies: number
  handoffs: number
  fallbacks: number
  asks: number
}

/** The one typed schema of the database. */
export interface Database {
  messages: MessagesTable
  conversations: ConversationsTable
  chat_pauses: ChatPausesTable
  intents: IntentsTable
  survey_steps: SurveyStepsTable
  survey_runs: SurveyRunsTable
  attachments: AttachmentsTable
  quick_replies: QuickRepliesTable
  labels: LabelsTable
  contact_groups: ContactGroupsTable
  contacts: ContactsTable
  contact_labels: ContactLabelsTable
  broadcasts: BroadcastsTable
  broadcast_recipients: BroadcastRecipientsTable
  outreach_sends: OutreachSendsTable
  schedules: SchedulesTable
  bot_activity: BotActivityTable
  bot_reply_marks: BotReplyMarksTable
  webhook_deliveries: WebhookDeliveriesTable
  auth_creds: AuthCredsTable
  auth_keys: AuthKeysTable
  wa_messages: WaMessagesTable
  erasures: ErasuresTable
  erasing: ErasingTable
  legacy_import: LegacyImportTable
  staff: StaffTable
  staff_invites: StaffInvitesTable
  auth_sessions: AuthSessionsTable
  api_keys: ApiKeysTable
  audit_log: AuditLogTable
  conversation_events: ConversationEventsTable
  workers: WorkersTable
  instance_leases: InstanceLeasesTable
  config_document: ConfigDocumentTable
  config_instances: ConfigInstancesTable
  idempotency_keys: IdempotencyKeysTable
  assistant_settings: AssistantSettingsTable
  knowledge: KnowledgeTable
  knowledge_chunks: KnowledgeChunksTable
  knowledge_revisions: KnowledgeRevisionsTable
  assistant_replies: AssistantRepliesTable
  assistant_usage: AssistantUsageTable
}
