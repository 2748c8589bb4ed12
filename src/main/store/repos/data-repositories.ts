/**
 * The repositories of the database, built over one way to reach it (an Exec): the shared group
 * commit, a transaction, or — inside a SQLite thread — that thread's own connection
 * (../db/sqlite-thread/host.ts). Kept apart from ./index.ts, which adds the configuration's
 * repositories, so a SQLite thread builds these without loading the configuration store.
 */
import { AttachmentRepo, IntentRepo, SurveyStepRepo, attachmentRows, intentRows, surveyStepRows } from './bot-records'
import { BotActivityRepo, ReplyMarkRepo } from './bot-memory-repos'
import { BroadcastRepo } from './broadcast-repo'
import { ChannelAuthRepo } from './channel-auth-repo'
import { LeaseRepo } from './lease-repo'
import { IdempotencyRepo } from './idempotency-repo'
import { WaMessageRepo } from './wa-message-repo'
import { WebhookDeliveryRepo } from './webhook-delivery-repo'
import { ChatPauseRepo } from './chat-pause-repo'
import { ContactGroupRepo, ContactRepo, contactGroupRows } from './contact-repos'
import { ConversationRepo } from './conversation-repo'
import { CustomerDataRepo } from './customer-data-repo'
import { LabelRepo, QuickReplyRepo, labelRows, quickReplyRows } from './desk-records'
import type { Exec } from './exec'
import { MessageRepo } from './message-repo'
import { OutreachSendRepo, ScheduleRepo, scheduleRows } from './outreach-repos'
import { SurveyRunRepo } from './survey-run-repo'
import { ApiKeyRepo, AuditRepo, InviteRepo, SessionRepo, StaffRepo } from './people-repos'
import { KnowledgeRepo } from './knowledge-repo'
import { AssistantRepo } from './assistant-repo'

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
  /** Workers sharing the database and their leases on instances (docs/design.md §22). */
  leases: LeaseRepo
  /** The first answers of sends made with an Idempotency-Key (docs/design.md §22). */
  idempotency: IdempotencyRepo
  /** Staff accounts, their invites and web sessions (docs/design.md §21). */
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


/** The repositories of the database over `x`. */
export function dataRepositories(x: Exec): DataRepositories {
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

