/**
 * The repositories: the only door to stored data (docs/architecture.md "The data layer"). Services
 * ask them for records (frozen) and hand them new ones; nothing else reads or writes the database or
 * the configuration document, and no service sees SQL.
 *
 * | repository | records | where |
 * | --- | --- | --- |
 * | `account`, `appSettings`, `instances` | the account and its token, app settings, instances and their settings | `config.json` (sync reads) |
 * | `messages` | the message log, uncapped, with search | `messages` (+ `messages_fts`) |
 * | `conversations` | the inbox's chats: last message, unread, read mark, resolve | `conversations` |
 * | `chatPauses` | chats whose bot is paused for a person (hand-off) | `chat_pauses` |
 * | `intents`, `surveySteps`, `surveyRuns`, `attachments` | the bot's records; survey answers | their tables |
 * | `quickReplies`, `labels` | the desk's account-wide records | their tables |
 * | `contacts`, `contactGroups` | contacts (labels in `contact_labels`) and groups | their tables (+ `contacts_fts`) |
 * | `broadcasts`, `outreachSends`, `schedules` | outreach | their tables (+ `broadcast_recipients`) |
 * | `botActivity`, `replyMarks` | the bot's activity log; its default/away message marks | their tables |
 * | `customerData` | an instance's or a customer's data across tables: delete, export, erase, retention | every table |
 * | `webhookDeliveries` | the webhook outbox and what became of each delivery | `webhook_deliveries` |
 * | `channelAuth`, `waMessages` | channel credentials and Signal keys (writes optionally fenced by a lease's token); the real channel's kept messages | `auth_creds`, `auth_keys`, `wa_messages` |
 * | `leases` | workers sharing the database and their leases on instances (fencing tokens) | `workers`, `instance_leases` |
 * | `idempotency` | the first answers of sends made with an `Idempotency-Key` | `idempotency_keys` |
 * | `staff`, `invites`, `sessions`, `apiKeys`, `audit` | the people at the desk, their invites and web sessions; scoped API keys; the audit log | `staff`, `staff_invites`, `auth_sessions`, `api_keys`, `audit_log` |
 * | `knowledge`, `assistant` | the shop's knowledge and its chunks (search, embeddings); the assistant's settings and key, answers, usage | `knowledge`, `knowledge_chunks` (+ `knowledge_fts`), `assistant_settings`, `assistant_replies`, `assistant_usage` |
 *
 * {@link Repositories.transaction} runs a change of several repositories as one.
 */
import type { Kysely } from 'kysely'
import type { ConfigStore } from '../config/config-store'
import type { DatabaseHandle } from '../db/database'
import type { Database } from '../db/schema'
import { AccountRepo, AppSettingsRepo, InstanceRepo } from './config-repos'
import { dataRepositories, type DataRepositories } from './data-repositories'
import { inTransaction, type Exec } from './exec'
import { threadedRepositories } from '../db/sqlite-thread/threaded-repositories'

export type { Stored } from './record-table'
export type { Draft } from 'immer'
export type { AccountRepo, AppSettingsRepo, InstanceRepo } from './config-repos'
export type { Account, AppSettings, BackupSettings, SmtpSettings, WaWebVersionRecord } from '../config/config-store'
export { UnknownCursorError, type Cursor, type MessageHit, type MessageQuery, type SearchQuery } from './message-repo'
export type { ConversationFilter } from './conversation-repo'
export type { ContactFilter } from './contact-repos'
export type { CustomerData, ErasureCounts } from './customer-data-repo'
export type { ReplyMarkKind } from './bot-memory-repos'
export type { ApiKeyRecord, AuditEntry, SessionRecord, StaffMember, StaffRole } from './people-repos'
export type { DataRepositories } from './data-repositories'
export type { ClusterView, Fence, Lease, LeaseRepo, WorkerInfo, WorkerLoad } from './lease-repo'
export type { ChunkInput, EmbeddingState, KnowledgeListRow, KnowledgeRepo, StoredChunk, TermHits } from './knowledge-repo'
export type { AssistantRepo, KeyChange, UsageDelta } from './assistant-repo'

export interface Repositories extends DataRepositories {
  account: AccountRepo
  appSettings: AppSettingsRepo
  instances: InstanceRepo
  /**
   * Runs `work` with repositories bound to one transaction: its changes commit together (in the next
   * group commit) or not at all. Inside `work` use only the repositories it is given.
   */
  transaction<T>(work: (repos: DataRepositories) => Promise<T>): Promise<T>
}

/**
 * The repositories over the configuration document and the database. On SQLite, a call whose
 * arguments are data runs whole in a SQLite thread (a reader, or the writer for a change: one round
 * trip, ../db/sqlite-thread/threaded-repositories.ts); one that takes a function (an immer recipe, a
 * decision) and `transaction` run here, statement by statement, on the same threads.
 */
export function makeRepositories(config: ConfigStore, database: Pick<DatabaseHandle, 'db' | 'write' | 'threads'>): Repositories {
  const shared: Exec = { db: database.db, write: (work) => database.write((trx) => work(trx)) }
  const local = dataRepositories(shared)
  return {
    account: new AccountRepo(config),
    appSettings: new AppSettingsRepo(config),
    instances: new InstanceRepo(config),
    ...(database.threads ? threadedRepositories(local, database.threads) : local),
    transaction: (work) => database.write((trx) => work(dataRepositories(inTransaction(trx as Kysely<Database>))))
  }
}
