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
import { AttachmentRepo, IntentRepo, SurveyStepRepo, attachmentRows, intentRows, surveyStepRows } from './bot-records'
import { BotActivityRepo, ReplyMarkRepo } from './bot-memory-repos'
import { BroadcastRepo } from './broadcast-repo'
import { ChannelAuthRepo } from './channel-auth-repo'
import { LeaseRepo } from './lease-repo'
import { IdempotencyRepo } from './idempotency-repo'
import { WaMessageRepo } from './wa-message-repo'
import { WebhookDeliveryRepo } from './webhook-delivery-repo'
import { ChatPauseRepo } from './chat-pause-repo'
import { AccountRepo, AppSettingsRepo, InstanceRepo } from './config-repos'
import { ContactGroupRepo, ContactRepo, contactGroupRows } from './contact-repos'
import { ConversationRepo } from './conversation-repo'
import { CustomerDataRepo } from './customer-data-repo'
import { LabelRepo, QuickReplyRepo, labelRows, quickReplyRows } from './desk-records'
import { inTransaction, type Exec } from './exec'
import { MessageRepo } from './message-repo'
import { OutreachSendRepo, ScheduleRepo, scheduleRows } from './outreach-repos'
import { SurveyRunRepo } from './survey-run-repo'
import { ApiKeyRepo, AuditRepo, InviteRepo, SessionRepo, StaffRepo } from './people-repos'
import { KnowledgeRepo } from './knowledge-repo'
import { AssistantRepo } from './assistant-repo'

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
export type { ClusterView, Fence, Lease, LeaseRepo, WorkerInfo, WorkerLoad } from './lease-repo'
export type { ChunkInput, EmbeddingState, KnowledgeListRow, KnowledgeRepo, StoredChunk } from './knowledge-repo'
export type { AssistantRepo, KeyChange, UsageDelta } from './assistant-repo'

/** The repositories of the database (one set per unit of work). */
export interface DataRepositories {
  messages: MessageRepo
  conversations: ConversationRepo
  chatPauses: ChatPauseRepo
  intents: IntentRepo
  surveySteps: SurveyStepRepo
  surveyRuns: SurveyRunRepo
  attachments: AttachmentRepo
  quickReplies: QuickReplyRepo
  labels: LabelRepo
  contacts: ContactRepo
  contactGroups: ContactGroupRepo
  broadcasts: BroadcastRepo
  outreachSends: OutreachSendRepo
  schedules: ScheduleRepo
  botActivity: BotActivityRepo
  replyMarks: ReplyMarkRepo
  customerData: CustomerDataRepo
  /** The channel's credentials and Signal keys (the real channel; the sandbox's pairing). */
  channelAuth: ChannelAuthRepo
  /** Messages the real channel keeps for retries and media downloads. */
  waMessages: WaMessageRepo
  /** Webhook deliveries: the outbox and what became of each. */
  webhookDeliveries: WebhookDeliveryRepo
  /** Workers sharing the database and their leases on instances (issue 26). */
  leases: LeaseRepo
  /** The first answers of sends made with an Idempotency-Key (issue 26). */
  idempotency: IdempotencyRepo
  /** Staff accounts, their invites and web sessions (issue 27). */
  staff: StaffRepo
  invites: InviteRepo
  sessions: SessionRepo
  /** Scoped API keys for scripts. */
  apiKeys: ApiKeyRepo
  /** Logins, failed logins, key use and settings changes. */
  audit: AuditRepo
  /** The shop's knowledge: entries, their chunks and search (docs/assistant.md). */
  knowledge: KnowledgeRepo
  /** The assistant's settings and key, its answers and its use per day. */
  assistant: AssistantRepo
}

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

function dataRepositories(x: Exec): DataRepositories {
  const contacts = new ContactRepo(x)
  return {
    messages: new MessageRepo(x),
    conversations: new ConversationRepo(x),
    chatPauses: new ChatPauseRepo(x),
    intents: new IntentRepo(x, 'intents', intentRows),
    surveySteps: new SurveyStepRepo(x, 'survey_steps', surveyStepRows),
    surveyRuns: new SurveyRunRepo(x),
    attachments: new AttachmentRepo(x, 'attachments', attachmentRows),
    quickReplies: new QuickReplyRepo(x, 'quick_replies', quickReplyRows),
    labels: new LabelRepo(x, 'labels', labelRows),
    contacts,
    contactGroups: new ContactGroupRepo(x, 'contact_groups', contactGroupRows),
    broadcasts: new BroadcastRepo(x),
    outreachSends: new OutreachSendRepo(x),
    schedules: new ScheduleRepo(x, 'schedules', scheduleRows),
    botActivity: new BotActivityRepo(x),
    replyMarks: new ReplyMarkRepo(x),
    customerData: new CustomerDataRepo(x, contacts),
    channelAuth: new ChannelAuthRepo(x),
    waMessages: new WaMessageRepo(x),
    webhookDeliveries: new WebhookDeliveryRepo(x),
    leases: new LeaseRepo(x),
    idempotency: new IdempotencyRepo(x),
    staff: new StaffRepo(x),
    invites: new InviteRepo(x),
    sessions: new SessionRepo(x),
    apiKeys: new ApiKeyRepo(x),
    audit: new AuditRepo(x),
    knowledge: new KnowledgeRepo(x),
    assistant: new AssistantRepo(x)
  }
}

/** The repositories over the configuration document and the database. */
export function makeRepositories(config: ConfigStore, database: Pick<DatabaseHandle, 'db' | 'write'>): Repositories {
  const shared: Exec = { db: database.db, write: (work) => database.write((trx) => work(trx)) }
  return {
    account: new AccountRepo(config),
    appSettings: new AppSettingsRepo(config),
    instances: new InstanceRepo(config),
    ...dataRepositories(shared),
    transaction: (work) => database.write((trx) => work(dataRepositories(inTransaction(trx as Kysely<Database>))))
  }
}
