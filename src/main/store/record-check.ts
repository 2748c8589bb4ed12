/**
 * Checks the records read from disk against their schemas (src/shared/schemas/records.ts), so a
 * damaged or hand-edited data file stops the start with a message naming the record and the field,
 * instead of failing somewhere later. Unknown extra fields are allowed (older or newer versions).
 */
import type { TSchema } from 'typebox'
import { makeAjv } from '../validation'
import { Attachment, BotActivity, Broadcast, ChatPause, ChatState, Contact, ContactGroup, Instance, Intent, Label, OutreachSend, QuickReply, ScheduledMessage, Survey, SurveyRun } from '../../shared/schemas/records'

const ajv = makeAjv(false)

/** A checker of one collection: throws `<collection>[i] (_id …): <field> <problem>` on the first bad record. */
function collectionCheck(name: string, schema: TSchema): (records: unknown) => void {
  const validate = ajv.compile(schema)
  return (records) => {
    if (!Array.isArray(records)) throw new Error(`${name} must be a list`)
    for (const [i, r] of records.entries()) {
      if (validate(r)) continue
      const e = validate.errors?.[0]
      const where = e?.instancePath ? e.instancePath.slice(1).replace(/\//g, '.') : '(record)'
      const id = r && typeof r === 'object' && '_id' in r ? ` (_id ${String((r as { _id: unknown })._id)})` : ''
      throw new Error(`${name}[${i}]${id}: ${where} ${e?.message ?? 'is invalid'}`)
    }
  }
}

const checks = {
  instances: collectionCheck('instances', Instance),
  intents: collectionCheck('intents', Intent),
  surveys: collectionCheck('surveys', Survey),
  attachments: collectionCheck('attachments', Attachment),
  surveyRuns: collectionCheck('surveyRuns', SurveyRun),
  botActivity: collectionCheck('botActivity', BotActivity),
  chatPauses: collectionCheck('chatPauses', ChatPause),
  chatStates: collectionCheck('chatStates', ChatState),
  quickReplies: collectionCheck('quickReplies', QuickReply),
  contacts: collectionCheck('contacts', Contact),
  contactGroups: collectionCheck('contactGroups', ContactGroup),
  schedules: collectionCheck('schedules', ScheduledMessage),
  labels: collectionCheck('labels', Label),
  broadcasts: collectionCheck('broadcasts', Broadcast),
  outreachSends: collectionCheck('outreachSends', OutreachSend)
}

/** Checks the collections of the configuration document. */
export function checkConfig(data: { instances: unknown; intents: unknown; surveys: unknown; attachments: unknown; quickReplies: unknown; contacts: unknown; contactGroups: unknown; schedules: unknown; labels: unknown }): void {
  checks.instances(data.instances)
  checks.intents(data.intents)
  checks.surveys(data.surveys)
  checks.attachments(data.attachments)
  checks.quickReplies(data.quickReplies)
  checks.contacts(data.contacts)
  checks.contactGroups(data.contactGroups)
  checks.schedules(data.schedules)
  checks.labels(data.labels)
}

/** Checks the collections of the runtime document. */
export function checkRuntime(data: { surveyRuns: unknown; botActivity: unknown; chatPauses: unknown; chatStates: unknown; broadcasts: unknown; outreachSends: unknown }): void {
  checks.surveyRuns(data.surveyRuns)
  checks.botActivity(data.botActivity)
  checks.chatPauses(data.chatPauses)
  checks.chatStates(data.chatStates)
  checks.broadcasts(data.broadcasts)
  checks.outreachSends(data.outreachSends)
}
