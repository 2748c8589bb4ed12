/**
 * One customer's data (issue 25 §2, docs/design.md §14), for a shop that must answer a person's
 * request about their data: export it (JSON, or the messages as CSV for a spreadsheet), and erase it
 * everywhere — messages (their chats and what they wrote in groups), downloaded media, survey answers,
 * the contact record, the inbox row, pauses, outreach counts, queued webhooks that carry it. The
 * erasure is recorded (who, when, how many records), never the erased content: the number is kept only
 * as a hash, so "was this number erased?" can still be answered.
 */
import { Readable } from 'node:stream'
import { stringify } from 'csv-stringify'
import type { Clock } from '../../clock'
import type { CoreEventBus } from '../../events'
import { newObjectId } from '../../ids'
import type { Logger } from '../../logger'
import type { Repositories } from '../../store/repos'
import type { Instance } from '../../../shared/schemas/records'
import type { CustomerExportT, ErasureResultT } from '../../../shared/operations/results'
import { contactNumber } from '../contacts/contact-number'
import { AppError, invalid } from '../errors'
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
  /** Erasures under way (each resolves when its last slice is deleted). */
  private readonly running = new Set<Promise<unknown>>()
  private closing = false

  constructor(private readonly deps: CustomerDataDeps) {}

  /** Stops the erasures under way after their slice in flight (the next start finishes them); resolves once they stopped. */
  async close(): Promise<void> {
    this.closing = true
    await Promise.allSettled([...this.running])
  }

  private track<T>(p: Promise<T>): Promise<T> {
    this.running.add(p)
    void p.finally(() => this.running.delete(p)).catch(() => {})
    return p
  }

  /**
   * Finishes, in the background, the erasures a crash or a shutdown cut short: their customers stay
   * hidden meanwhile (docs/storage.md "Erasing a customer"). Failures are logged; the next start tries again.
   */
  resumeErasures(): void {
    const resumed = this.deps.repos.customerData.resumeErasures({
      onDeleted: async (instanceId, ids) => void (await this.deps.media.remove(instanceId, ids)),
      stop: () => this.closing
    })
    this.track(resumed).then(
      (done) => {
        for (const e of done) this.deps.logger.info({ instanceId: e.instanceId, erasureId: e.erasureId, counts: e.counts }, 'an erasure cut short was finished')
        if (done.length > 0) this.deps.events.emit('changed', { instanceId: done[0]!.instanceId, what: 'contacts' })
      },
      (err: unknown) => this.deps.logger.error({ err }, 'an erasure cut short could not be finished; the next start tries again')
    )
  }

  /** Everything kept of the customer `number` by an instance, whole in memory (the desk's download). 400 for a value that is not a number. */
  async export(inst: Pick<Instance, '_id'>, number: string): Promise<CustomerExportT> {
    const digits = customerNumber(number)
    const data = await this.deps.repos.customerData.exportCustomer(inst._id, digits)
    return { number: digits, exported_at: new Date(this.deps.clock.now()).toISOString(), contact: data.contact, messages: data.messages, survey_runs: data.surveyRuns }
  }

  /**
   * The same export as JSON text (the shape of {@link export}), written as the messages are read, a
   * page at a time when the reader asks for more: flat memory whatever the customer's history
   * (docs/storage.md "Heavy jobs in slices"). 400 for a value that is not a number.
   */
  async exportJson(inst: Pick<Instance, '_id'>, number: string): Promise<Readable> {
    const digits = customerNumber(number)
    const records = await this.deps.repos.customerData.exportRecords(inst._id, digits)
    const head = { number: digits, exported_at: new Date(this.deps.clock.now()).toISOString(), contact: records.contact, survey_runs: records.surveyRuns }
    const pages = this.deps.repos.customerData.exportMessages(inst._id, digits)
    return Readable.from(
      (async function* () {
        // The head's object without its closing brace, then the messages array.
        yield JSON.stringify(head).slice(0, -1) + ',"messages":['
        let first = true
        for await (const page of pages) {
          if (page.length === 0) continue
          yield (first ? '' : ',') + page.map((m) => JSON.stringify(m)).join(',')
          first = false
        }
        yield ']}'
      })(),
      { objectMode: false }
    )
  }

  /** The export's messages as CSV (one row per message, oldest first) with a file name, whole in memory (the desk's download). */
  async exportCsv(inst: Pick<Instance, '_id'>, number: string): Promise<{ fileName: string; csv: string }> {
    const { fileName, stream } = await this.exportCsvStream(inst, number)
    let csv = ''
    for await (const chunk of stream) csv += String(chunk)
    return { fileName, csv }
  }

  /** The export's messages as CSV, written as they are read (see {@link exportJson}), with a file name. */
  async exportCsvStream(inst: Pick<Instance, '_id'>, number: string): Promise<{ fileName: string; stream: Readable }> {
    const digits = customerNumber(number)
    const pages = this.deps.repos.customerData.exportMessages(inst._id, digits)
    const rows = Readable.from(
      (async function* () {
        yield ['time', 'chat', 'direction', 'source', 'name', 'type', 'text', 'status']
        for await (const page of pages) {
          for (const m of page) yield [new Date(m.timestamp).toISOString(), m.chatId, m.fromMe ? 'out' : 'in', m.source, m.pushName ?? '', m.type, m.text, m.status]
        }
      })()
    )
    // Customers write the texts: cells a spreadsheet would run as a formula get a leading ' (OWASP "CSV Injection").
    const csv = stringify({ escape_formulas: true })
    rows.on('error', (err) => csv.destroy(err))
    return { fileName: `customer-${digits}-messages.csv`, stream: rows.pipe(csv) }
  }

  /**
   * Erases the customer `number` from an instance (see the module doc); `by` names who asked (the
   * desk, a script). Answers what went. 400 for a value that is not a number.
   */
  async erase(inst: Pick<Instance, '_id'>, number: string, by: string): Promise<ErasureResultT> {
    const digits = customerNumber(number)
    const at = new Date(this.deps.clock.now()).toISOString()
    let mediaFiles = 0
    // Each slice's media files go with its messages.
    const { counts } = await this.track(
      this.deps.repos.customerData.eraseCustomer(inst._id, digits, by, at, newObjectId(), {
        onDeleted: async (ids) => void (mediaFiles += await this.deps.media.remove(inst._id, ids)),
        stop: () => this.closing
      })
    )
    // Stopped by a shutdown: the customer stays hidden and the next start finishes the erasure.
    if (!counts) throw new AppError('SERVICE_UNAVAILABLE', 'The app is stopping: the erasure has begun (nothing of the customer is shown any more) and finishes at the next start.')
    this.deps.logger.info({ instanceId: inst._id, by, counts, media_files: mediaFiles }, 'a customer’s data was erased')
    this.deps.events.emit('changed', { instanceId: inst._id, what: 'contacts' })
    return { number: digits, erased_at: at, deleted: { ...counts, media_files: mediaFiles } }
  }
}
