/**
 * One customer's data (issue 25 §2, docs/design.md §14), for a shop that must answer a person's
 * request about their data: export it (JSON, or the messages as CSV for a spreadsheet), and erase it
 * everywhere — messages (their chats and what they wrote in groups), downloaded media, survey answers,
 * the contact record, the inbox row, pauses, outreach counts, queued webhooks that carry it, the
 * assistant's answers to them and the bot's activity in their chats. The
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

export class CustomerDataService {
  constructor(private readonly deps: CustomerDataDeps) {}

  /** Everything kept of the customer `number` by an instance. 400 for a value that is not a number. */
  async export(inst: Pick<Instance, '_id'>, number: string): Promise<CustomerExportT> {
    const digits = customerNumber(number)
    const data = await this.deps.repos.customerData.exportCustomer(inst._id, digits)
    return {
      number: digits,
      exported_at: new Date(this.deps.clock.now()).toISOString(),
      contact: data.contact,
      messages: data.messages,
      survey_runs: data.surveyRuns,
      assistant_replies: data.assistantReplies
    }
  }

  /** The export's messages as CSV (one row per message, oldest first) with a file name. */
  async exportCsv(inst: Pick<Instance, '_id'>, number: string): Promise<{ fileName: string; csv: string }> {
    const data = await this.export(inst, number)
    const rows = data.messages.map((m) => [new Date(m.timestamp).toISOString(), m.chatId, m.fromMe ? 'out' : 'in', m.source, m.pushName ?? '', m.type, m.text, m.status])
    // Customers write the texts: cells a spreadsheet would run as a formula get a leading ' (OWASP "CSV Injection").
    const csv = stringify([['time', 'chat', 'direction', 'source', 'name', 'type', 'text', 'status'], ...rows], { escape_formulas: true })
    return { fileName: `customer-${data.number}-messages.csv`, csv }
  }

  /**
   * Erases the customer `number` from an instance (see the module doc); `by` names who asked (the
   * desk, a script). Answers what went. 400 for a value that is not a number.
   */
  async erase(inst: Pick<Instance, '_id'>, number: string, by: string): Promise<ErasureResultT> {
    const digits = customerNumber(number)
    const at = new Date(this.deps.clock.now()).toISOString()
    const { counts, messageIds } = await this.deps.repos.customerData.eraseCustomer(inst._id, digits, by, at, newObjectId())
    const mediaFiles = await this.deps.media.remove(inst._id, messageIds)
    this.deps.logger.info({ instanceId: inst._id, by, counts, media_files: mediaFiles }, 'a customer’s data was erased')
    this.deps.events.emit('changed', { instanceId: inst._id, what: 'contacts' })
    return { number: digits, erased_at: at, deleted: { ...counts, media_files: mediaFiles } }
  }
}
