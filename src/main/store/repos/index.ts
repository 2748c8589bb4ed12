/**
 * The repositories: the only door to stored data (docs/architecture.md "Data layer"). Services ask
 * them for records (frozen, read without copies) and hand them new ones; nothing else touches the
 * documents. Each repository owns one kind of record:
 *
 * | repository | records | document |
 * | --- | --- | --- |
 * | `account` | the local account and its API token | `chatapp` |
 * | `appSettings` | app-wide settings (SMTP) | `chatapp` |
 * | `instances` | instances and their settings | `chatapp` |
 * | `intents` | intents | `chatapp` |
 * | `surveySteps` | survey steps | `chatapp` |
 * | `attachments` | attachment records (the bytes live in `attachments/`) | `chatapp` |
 * | `surveyRuns` | survey runs and their answers | `runtime` |
 * | `botActivity` | what the bot's actions did, newest kept per instance | `runtime` |
 * | `botState` | opaque state of bot components, by name | `runtime` |
 * | `chatPauses` | chats whose bot is paused for a person (hand-off) | `runtime` |
 * | `chatStates` | the desk's read mark and resolve of each conversation (inbox) | `runtime` |
 * | `quickReplies` | the desk's saved snippets | `chatapp` |
 * | `contacts` | contacts (by hand, imported or collected from conversations) | `chatapp` |
 * | `contactGroups` | contact groups | `chatapp` |
 * | `schedules` | scheduled messages | `chatapp` |
 * | `labels` | labels (name, colour) of contacts and conversations | `chatapp` |
 * | `broadcasts` | broadcasts and where each stands | `runtime` |
 * | `outreachSends` | outreach messages the send governor counts (the last 48 hours) | `runtime` |
 * | `messages` | the message log, one JSON Lines file per instance | `messages/` |
 */
import type { Draft } from 'immer'
import type { Attachment, BotActivity, Broadcast, ChatPause, ChatState, Contact, ContactGroup, Instance, Intent, Label, OutreachSend, QuickReply, ScheduledMessage, Survey, SurveyRun } from '../../../shared/schemas/records'
import type { JournaledDocument } from '../journaled-document'
import type { MessageLog } from '../message-log'
import { Collection, type Stored } from './collection'

export type { Stored } from './collection'

export interface Account {
  _id: string
  api_token: string
  createdAt: string
}

export interface SmtpSettings {
  host: string
  port: number
  secure: boolean
  user?: string
  pass?: string
  from: string
}

export interface AppSettings {
  smtp: SmtpSettings | null
}

/** The configuration document (`chatapp.json` + `chatapp.journal`). */
export interface ConfigData {
  version: 1
  account: Account | null
  instances: Instance[]
  intents: Intent[]
  surveys: Survey[]
  attachments: Attachment[]
  appSettings: AppSettings
  quickReplies: QuickReply[]
  contacts: Contact[]
  contactGroups: ContactGroup[]
  schedules: ScheduledMessage[]
  labels: Label[]
}

/** The runtime document (`runtime.json` + `runtime.journal`): state that changes with traffic. */
export interface RuntimeData {
  version: 1
  surveyRuns: SurveyRun[]
  botActivity: BotActivity[]
  bot: Record<string, unknown>
  /** Chats whose bot is paused for a person (hand-off). */
  chatPauses: ChatPause[]
  /** The desk's read mark and resolve of each conversation. */
  chatStates: ChatState[]
  broadcasts: Broadcast[]
  outreachSends: OutreachSend[]
}

export class InstanceRepo extends Collection<Instance, ConfigData> {
  /** `session_id` → instance, for the list it was built from (lists are replaced, never changed, on a write). */
  private sessionIndex: { list: readonly Stored<Instance>[]; byId: Map<string, Stored<Instance>> } | null = null

  /**
   * The instance whose `session_id` is `sessionId`, through an index rebuilt only when the instances
   * change: every instance-scoped request asks, and a scan cost grew with the number of instances.
   * The session id names the instance; the secret is the access token (compare it in constant time).
   */
  bySession(sessionId: string): Stored<Instance> | undefined {
    const list = this.all()
    if (this.sessionIndex?.list !== list) this.sessionIndex = { list, byId: new Map(list.map((i) => [i.session_id, i])) }
    return this.sessionIndex.byId.get(sessionId)
  }

  /**
   * Deletes the instance and every record it owns (intents, survey steps, attachments, contacts and
   * contact groups) in one write.
   * Answers whether it existed.
   */
  async removeWithRecords(id: string): Promise<boolean> {
    if (!this.find(id)) return false
    const d = this.doc.data
    await this.doc.apply([
      { op: 'remove', path: 'instances', id },
      ...d.intents.filter((r) => r.instance_id === id).map((r) => ({ op: 'remove' as const, path: 'intents', id: r._id })),
      ...d.surveys.filter((r) => r.instance_id === id).map((r) => ({ op: 'remove' as const, path: 'surveys', id: r._id })),
      ...d.attachments.filter((r) => r.instance_id === id).map((r) => ({ op: 'remove' as const, path: 'attachments', id: r._id })),
      ...d.contacts.filter((r) => r.instance_id === id).map((r) => ({ op: 'remove' as const, path: 'contacts', id: r._id })),
      ...d.contactGroups.filter((r) => r.instance_id === id).map((r) => ({ op: 'remove' as const, path: 'contactGroups', id: r._id })),
      ...d.schedules.filter((r) => r.instance_id === id).map((r) => ({ op: 'remove' as const, path: 'schedules', id: r._id }))
    ])
    return true
  }
}

/** Records owned by one instance (`instance_id`). */
export class InstanceOwned<T extends { _id: string; instance_id: string }, D extends object = ConfigData> extends Collection<T, D> {
  ofInstance(instanceId: string): Stored<T>[] {
    return this.where((r) => r.instance_id === instanceId)
  }

  /** The record `id` if it belongs to `instanceId`. */
  owned(instanceId: string, id: string): Stored<T> | undefined {
    const r = this.find(id)
    return r && r.instance_id === instanceId ? r : undefined
  }
}

export class IntentRepo extends InstanceOwned<Intent> {}
export class AttachmentRepo extends InstanceOwned<Attachment> {}

export class SurveyStepRepo extends InstanceOwned<Survey> {
  /** The steps of the survey `title` of an instance, by `sort_id` then creation. */
  stepsOf(instanceId: string, title: string): Stored<Survey>[] {
    return this.where((s) => s.instance_id === instanceId && s.title === title).sort((a, b) => a.sort_id - b.sort_id || a.createdAt.localeCompare(b.createdAt))
  }

  /** Gives `steps` the sort ids 1…n in one write (only those whose position changes). */
  async reorder(steps: readonly Stored<Survey>[], now: string): Promise<void> {
    await this.doc.apply(
      steps.flatMap((s, i) => (s.sort_id === i + 1 ? [] : [this.putOp({ ...s, sort_id: i + 1, updatedAt: now, __v: s.__v + 1 })]))
    )
  }
}

export class SurveyRunRepo extends Collection<SurveyRun, RuntimeData> {}
export class ChatPauseRepo extends Collection<ChatPause, RuntimeData> {}
export class ChatStateRepo extends Collection<ChatState, RuntimeData> {}
export class ContactRepo extends InstanceOwned<Contact> {
  /** The contact with `number` (digits) of an instance. */
  byNumber(instanceId: string, number: string): Stored<Contact> | undefined {
    return this.all().find((c) => c.instance_id === instanceId && c.number === number)
  }
}
export class ContactGroupRepo extends InstanceOwned<ContactGroup> {}
export class ScheduleRepo extends InstanceOwned<ScheduledMessage> {}
export class LabelRepo extends Collection<Label, ConfigData> {
  byName(name: string): Stored<Label> | undefined {
    const n = name.toLowerCase()
    return this.all().find((l) => l.name.toLowerCase() === n)
  }

  /**
   * Renames or deletes (`to` null) label `from` on every contact and stores `label` (or removes it
   * with `removeId`), in one write.
   */
  async relabel(contacts: readonly Stored<Contact>[], from: string, to: string | null, change: { put: Label } | { removeId: string }): Promise<void> {
    const ops = contacts
      .filter((c) => c.labels.includes(from))
      .map((c) => ({ op: 'put' as const, path: 'contacts', value: { ...c, labels: to === null ? c.labels.filter((l) => l !== from) : c.labels.map((l) => (l === from ? to : l)) } }))
    await this.doc.apply([...ops, 'put' in change ? this.putOp(change.put) : { op: 'remove' as const, path: this.path, id: change.removeId }])
  }
}
export class BroadcastRepo extends InstanceOwned<Broadcast, RuntimeData> {}
export class OutreachSendRepo extends Collection<OutreachSend, RuntimeData> {
  /** Counts a send and forgets those older than `keepAfter` (epoch ms), in one write. */
  async add(send: OutreachSend, keepAfter: number): Promise<void> {
    const old = this.where((s) => s.at < keepAfter).map((s) => ({ op: 'remove' as const, path: this.path, id: s._id }))
    await this.doc.apply([...old, this.putOp(send)])
  }
}
export class QuickReplyRepo extends Collection<QuickReply, ConfigData> {
  byShortcut(shortcut: string): Stored<QuickReply> | undefined {
    return this.all().find((q) => q.shortcut === shortcut)
  }
}

export class AccountRepo {
  constructor(private readonly doc: JournaledDocument<ConfigData>) {}

  get(): Stored<Account> | null {
    return this.doc.data.account
  }

  async set(account: Account): Promise<void> {
    await this.doc.apply([{ op: 'set', path: ['account'], value: account }])
  }
}

export class AppSettingsRepo {
  constructor(private readonly doc: JournaledDocument<ConfigData>) {}

  smtp(): Stored<SmtpSettings> | null {
    return this.doc.data.appSettings.smtp
  }

  async setSmtp(smtp: SmtpSettings | null): Promise<void> {
    await this.doc.apply([{ op: 'set', path: ['appSettings', 'smtp'], value: smtp }])
  }
}

export class BotActivityRepo {
  constructor(private readonly doc: JournaledDocument<RuntimeData>) {}

  /** The entries of an instance, oldest first. */
  ofInstance(instanceId: string): readonly Stored<BotActivity>[] {
    return this.doc.data.botActivity.filter((a) => a.instance_id === instanceId)
  }

  /** Adds an entry; only the newest `keep` of its instance stay. */
  async add(entry: BotActivity, keep: number): Promise<void> {
    await this.doc.apply([{ op: 'append', path: 'botActivity', value: entry, keep, by: 'instance_id' }])
  }

  async removeInstance(instanceId: string): Promise<void> {
    if (!this.doc.data.botActivity.some((a) => a.instance_id === instanceId)) return
    await this.doc.apply([{ op: 'set', path: ['botActivity'], value: this.doc.data.botActivity.filter((a) => a.instance_id !== instanceId) }])
  }
}

export class BotStateRepo {
  constructor(private readonly doc: JournaledDocument<RuntimeData>) {}

  get<T>(component: string): T | undefined {
    return this.doc.data.bot[component] as T | undefined
  }

  async set(component: string, value: unknown): Promise<void> {
    await this.doc.apply([{ op: 'set', path: ['bot', component], value }])
  }
}

export interface Repositories {
  account: AccountRepo
  appSettings: AppSettingsRepo
  instances: InstanceRepo
  intents: IntentRepo
  surveySteps: SurveyStepRepo
  attachments: AttachmentRepo
  surveyRuns: SurveyRunRepo
  chatPauses: ChatPauseRepo
  chatStates: ChatStateRepo
  quickReplies: QuickReplyRepo
  contacts: ContactRepo
  contactGroups: ContactGroupRepo
  schedules: ScheduleRepo
  labels: LabelRepo
  broadcasts: BroadcastRepo
  outreachSends: OutreachSendRepo
  botActivity: BotActivityRepo
  botState: BotStateRepo
  messages: MessageLog
}

/** The repositories over the two documents and the message log. */
export function makeRepositories(config: JournaledDocument<ConfigData>, runtime: JournaledDocument<RuntimeData>, messages: MessageLog): Repositories {
  return {
    account: new AccountRepo(config),
    appSettings: new AppSettingsRepo(config),
    instances: new InstanceRepo(config, 'instances'),
    intents: new IntentRepo(config, 'intents'),
    surveySteps: new SurveyStepRepo(config, 'surveys'),
    attachments: new AttachmentRepo(config, 'attachments'),
    surveyRuns: new SurveyRunRepo(runtime, 'surveyRuns'),
    chatPauses: new ChatPauseRepo(runtime, 'chatPauses'),
    chatStates: new ChatStateRepo(runtime, 'chatStates'),
    quickReplies: new QuickReplyRepo(config, 'quickReplies'),
    contacts: new ContactRepo(config, 'contacts'),
    contactGroups: new ContactGroupRepo(config, 'contactGroups'),
    schedules: new ScheduleRepo(config, 'schedules'),
    labels: new LabelRepo(config, 'labels'),
    broadcasts: new BroadcastRepo(runtime, 'broadcasts'),
    outreachSends: new OutreachSendRepo(runtime, 'outreachSends'),
    botActivity: new BotActivityRepo(runtime),
    botState: new BotStateRepo(runtime),
    messages
  }
}

export type { Draft }
