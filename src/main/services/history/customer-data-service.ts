/**
 * One customer's data (issue 25 §2, docs/design.md §14), for a shop that must answer a person's
 * request about their data: export it (JSON, or the messages as CSV for a spreadsheet), and erase it
 * everywhere — on one instance or on every instance the caller may reach (the same number writes to
 * several of the shop's numbers), saying which — messages (their chats and what they wrote in groups), downloaded media, survey answers,
 * the contact record, the inbox row, pauses, outreach counts, queued webhooks that carry it. The
 * erasure is recorded (who, when, how many records), never the erased content: the number is kept only
 * as a hash, so "was this number erased?" can still be answered.
 */
import { stringify } from 'csv-stringify/sync'
import type { Clock } from '../../clock'
import type { CoreEventBus } from '../../events'
import { newObjectId } from '../../ids'
import type { Logger } from '../../logger'
import type { Repositories } from '../../store/repos'
import type { Instance } from '../../../shared/schemas/records'
import type { CustomerExportT, ErasureResultT } from '../../../shared/operations/results'
import { contactNumber } from '../contacts/contact-number'
import { invalid } from '../errors'
import type { MediaFiles } from '../messages/media-files'

export interface CustomerDataDeps {
  repos: Pick<Repositories, 'customerData'>
  media: MediaFiles
  events: CoreEventBus
  clock: Clock
  logger: Logger
}

/** The digits of a customer's number as the API takes it (a number in any format, or a phone-number JID). */
function customerNumber(value: string): string {
  const jid = /^(\d+)(?::\d+)?@s\.whatsapp\.net$/.exec(value.trim())
  if (jid) return jid[1]!
  try {
    return contactNumber(value)
  } catch {
    throw invalid('number', 'must be the customer’s phone number with its country code (or their …@s.whatsapp.net JID)')
  }
}

/** An instance an export or erasure covers, as its answer names it. */
type Covered = Pick<Instance, '_id'> & { settings: Pick<Instance['settings'], 'bot_name' | 'bot_number'> }

/** The instance as the answers name it: id, name and number. */
function named(inst: Covered): { instance_id: string; name: string; bot_number: string | null } {
  return { instance_id: inst._id, name: inst.settings.bot_name, bot_number: inst.settings.bot_number ?? null }
}

export class CustomerDataService {
  constructor(private readonly deps: CustomerDataDeps) {}

  /**
   * Everything kept of the customer `number` by the instances `insts` (one, or every instance the
   * caller may reach): their contact records, their messages (oldest first, each with its
   * `instance_id`) and survey answers, and which instances were searched with what each holds. 400 for
   * a value that is not a number.
   */
  async export(insts: readonly Covered[], number: string): Promise<CustomerExportT> {
    const digits = customerNumber(number)
    const covered: CustomerExportT['instances'] = []
    const contacts: NonNullable<CustomerExportT['contacts']> = []
    const messages: CustomerExportT['messages'] = []
    const surveyRuns: CustomerExportT['survey_runs'] = []
    // One instance at a time through the repository (each read its own, as the single export does).
    for (const inst of insts) {
      const data = await this.deps.repos.customerData.exportCustomer(inst._id, digits)
      covered.push({ ...named(inst), contact: data.contact !== null, messages: data.messages.length, survey_runs: data.surveyRuns.length })
      if (data.contact) contacts.push(data.contact)
      for (const m of data.messages) messages.push({ ...m, instance_id: inst._id })
      surveyRuns.push(...data.surveyRuns)
    }
    if (insts.length > 1) messages.sort((a, b) => a.timestamp - b.timestamp)
    return { number: digits, exported_at: new Date(this.deps.clock.now()).toISOString(), instances: covered, contact: contacts[0] ?? null, contacts, messages, survey_runs: surveyRuns }
  }

  /** The export's messages as CSV (one row per message, oldest first, with its instance when several) with a file name. */
  async exportCsv(insts: readonly Covered[], number: string): Promise<{ fileName: string; csv: string }> {
    const data = await this.export(insts, number)
    const several = insts.length > 1
    const names = new Map(insts.map((i) => [i._id, i.settings.bot_number ? `${i.settings.bot_name} (+${i.settings.bot_number})` : i.settings.bot_name]))
    const rows = data.messages.map((m) => [
      ...(several ? [names.get(m.instance_id ?? '') ?? m.instance_id ?? ''] : []),
      new Date(m.timestamp).toISOString(),
      m.chatId,
      m.fromMe ? 'out' : 'in',
      m.source,
      m.pushName ?? '',
      m.type,
      m.text,
      m.status
    ])
    // Customers write the texts: cells a spreadsheet would run as a formula get a leading ' (OWASP "CSV Injection").
    const csv = stringify([[...(several ? ['instance'] : []), 'time', 'chat', 'direction', 'source', 'name', 'type', 'text', 'status'], ...rows], { escape_formulas: true })
    return { fileName: `customer-${data.number}-messages.csv`, csv }
  }

  /**
   * Erases the customer `number` from each of `insts` (see the module doc), one instance after the
   * other, each in its own transaction; `by` names who asked (the desk, a script). Answers what went,
   * in total and per instance. 400 for a value that is not a number.
   */
  async erase(insts: readonly Covered[], number: string, by: string): Promise<ErasureResultT> {
    const digits = customerNumber(number)
    const at = new Date(this.deps.clock.now()).toISOString()
    const deleted: ErasureResultT['deleted'] = { messages: 0, conversations: 0, survey_runs: 0, contacts: 0, webhook_deliveries: 0, broadcast_recipients: 0, media_files: 0 }
    const instances: NonNullable<ErasureResultT['instances']> = []
    for (const inst of insts) {
      const { counts, messageIds } = await this.deps.repos.customerData.eraseCustomer(inst._id, digits, by, at, newObjectId())
      const mediaFiles = await this.deps.media.remove(inst._id, messageIds)
      const mine = { ...counts, media_files: mediaFiles }
      for (const k of Object.keys(deleted) as Array<keyof typeof deleted>) deleted[k] += mine[k]
      instances.push({ ...named(inst), deleted: mine })
      this.deps.logger.info({ instanceId: inst._id, by, counts, media_files: mediaFiles }, 'a customer’s data was erased')
      this.deps.events.emit('changed', { instanceId: inst._id, what: 'contacts' })
    }
    return { number: digits, erased_at: at, deleted, instances }
  }
}
