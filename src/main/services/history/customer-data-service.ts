/**
 * One customer's data (docs/design.md §20), for a shop that must answer a person's
 * request about their data: export it (JSON, or the messages as CSV for a spreadsheet), and erase it
 * everywhere — on one instance or on every instance the caller may reach (the same number writes to
 * several of the shop's numbers), saying which — messages (their chats and what they wrote in groups), downloaded media, survey answers,
 * the contact record, the inbox row, pauses, outreach counts, queued webhooks that carry it, the
 * assistant's answers to them and the bot's activity in their chats. The
 * erasure is recorded (who, when, how many records), never the erased content: the number is kept only
 * as a hash, so "was this number erased?" can still be answered. A customer who hides the number
 * behind a WhatsApp username is named by their LID or "@username" instead (docs/baileys.md "Usernames").
 */
import { Readable } from 'node:stream'
import { stringify } from 'csv-stringify'
import type { Clock } from '../../clock'
import type { CoreEventBus } from '../../events'
import { newObjectId } from '../../ids'
import type { Logger } from '../../logger'
import type { Repositories } from '../../store/repos'
import type { Instance, LoggedMessage } from '../../../shared/schemas/records'
import type { CustomerExportT, ErasureResultT } from '../../../shared/operations/results'
import { contactKeyOf, contactNumber } from '../contacts/contact-number'
import { usernameOf } from '../../channel/usernames'
import { AppError, invalid, notFound } from '../../errors'
import type { MediaFiles } from '../messages/media-files'

export interface CustomerDataDeps {
  repos: Pick<Repositories, 'customerData'>
  media: MediaFiles
  events: CoreEventBus
  clock: Clock
  logger: Logger
}

/**
 * Who an export or erasure names, as the API takes it: a number (any format, or its phone-number
 * JID), a LID (`…@lid`), or a WhatsApp username (`@name`) of a customer who hides the number
 * (docs/baileys.md "Usernames"). 400 naming `number` for anything else.
 */
type CustomerRef = { kind: 'number'; key: string } | { kind: 'lid'; lid: string } | { kind: 'username'; username: string }

function customerRef(value: string): CustomerRef {
  const v = value.trim()
  const jid = /^(\d+)(?::\d+)?@s\.whatsapp\.net$/.exec(v)
  if (jid) return { kind: 'number', key: jid[1]! }
  if (v.endsWith('@lid')) {
    const lid = contactKeyOf(v)
    if (lid) return { kind: 'lid', lid }
  }
  if (v.startsWith('@')) {
    const username = usernameOf(v)
    if (username) return { kind: 'username', username }
  }
  try {
    return { kind: 'number', key: contactNumber(v) }
  } catch {
    throw invalid('number', 'must be the customer’s phone number with its country code (or their …@s.whatsapp.net JID), their LID (…@lid) or their WhatsApp username (@name)')
  }
}

/** Whom an export or erasure is about: the key each covered instance keeps them under (digits or a LID), and the username asked for. */
interface Customer {
  /** The first instance's key (the answer's `number`). */
  key: string
  username?: string
  /** Per instance id: the key it keeps them under; absent when it holds no chat of the username. */
  keys: Map<string, string>
}

/** What an instance holds of a customer it has no chat of. */
const NOTHING = { contact: null, messages: [], surveyRuns: [], assistantReplies: [] } as const

/** An instance an export or erasure covers, as its answer names it. */
type Covered = Pick<Instance, '_id'> & { settings: Pick<Instance['settings'], 'bot_name' | 'bot_number'> }

/** The instance as the answers name it: id, name and number. */
function named(inst: Covered): { instance_id: string; name: string; bot_number: string | null } {
  return { instance_id: inst._id, name: inst.settings.bot_name, bot_number: inst.settings.bot_number ?? null }
}

/** A customer's messages of `insts`, oldest first across them (each instance's pages merged as they are read), each with its instance. */
async function* mergedMessages(pages: ReadonlyArray<{ instanceId: string; pages: AsyncGenerator<LoggedMessage[]> }>): AsyncGenerator<LoggedMessage & { instance_id: string }> {
  const heads = pages.map((p) => ({ ...p, page: [] as LoggedMessage[], at: 0, done: false }))
  const fill = async (h: (typeof heads)[number]): Promise<void> => {
    while (!h.done && h.at >= h.page.length) {
      const next = await h.pages.next()
      if (next.done) h.done = true
      else {
        h.page = next.value
        h.at = 0
      }
    }
  }
  for (const h of heads) await fill(h)
  for (;;) {
    let best: (typeof heads)[number] | undefined
    for (const h of heads) if (!h.done && (!best || h.page[h.at]!.timestamp < best.page[best.at]!.timestamp)) best = h
    if (!best) return
    yield { ...best.page[best.at++]!, instance_id: best.instanceId }
    await fill(best)
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

  /**
   * The customer `value` names ({@link customerRef}) on each of `insts`: a number is its digits
   * everywhere; a LID is the number its chat is filed under when WhatsApp told it, else the LID; a
   * username is the chat that carries it on each instance (an instance with none is searched for
   * nothing). 404 when no instance has a chat with the username.
   */
  private async customer(insts: readonly Covered[], value: string): Promise<Customer> {
    const ref = customerRef(value)
    const keys = new Map<string, string>()
    for (const inst of insts) {
      if (ref.kind === 'number') keys.set(inst._id, ref.key)
      else {
        const lid = ref.kind === 'lid' ? ref.lid : await this.deps.repos.customerData.chatOfUsername(inst._id, ref.username)
        if (lid) keys.set(inst._id, lid.endsWith('@lid') ? await this.deps.repos.customerData.customerKey(inst._id, lid) : (contactKeyOf(lid) ?? lid))
      }
    }
    if (ref.kind === 'username' && keys.size === 0) throw notFound(`A chat of @${ref.username}`)
    const key = keys.values().next().value ?? (ref.kind === 'number' ? ref.key : ref.kind === 'lid' ? ref.lid : `@${ref.username}`)
    return { key, keys, ...(ref.kind === 'username' ? { username: ref.username } : {}) }
  }

  /** The answer's name of the customer: the key, and the username when asked by it. */
  private static named(c: Customer): { number: string; username?: string } {
    return { number: c.key, ...(c.username ? { username: c.username } : {}) }
  }

  /**
   * Everything kept of the customer `number` by the instances `insts` (one, or every instance the
   * caller may reach), whole in memory (the desk's download): their contact records, their messages
   * (oldest first, each with its `instance_id`) and survey answers, and which instances were searched
   * with what each holds. `number` is a number, a LID or "@username" ({@link customer}): 400 for
   * anything else, 404 for a username no chat has.
   */
  async export(insts: readonly Covered[], number: string): Promise<CustomerExportT> {
    const who = await this.customer(insts, number)
    const covered: CustomerExportT['instances'] = []
    const contacts: NonNullable<CustomerExportT['contacts']> = []
    const messages: CustomerExportT['messages'] = []
    const surveyRuns: CustomerExportT['survey_runs'] = []
    const assistantReplies: CustomerExportT['assistant_replies'] = []
    // One instance at a time through the repository (each read its own, as the single export does).
    for (const inst of insts) {
      const key = who.keys.get(inst._id)
      const data = key ? await this.deps.repos.customerData.exportCustomer(inst._id, key) : NOTHING
      covered.push({ ...named(inst), contact: data.contact !== null, messages: data.messages.length, survey_runs: data.surveyRuns.length })
      if (data.contact) contacts.push(data.contact)
      for (const m of data.messages) messages.push({ ...m, instance_id: inst._id })
      surveyRuns.push(...data.surveyRuns)
      assistantReplies.push(...data.assistantReplies)
    }
    if (insts.length > 1) messages.sort((a, b) => a.timestamp - b.timestamp)
    return { ...CustomerDataService.named(who), exported_at: new Date(this.deps.clock.now()).toISOString(), instances: covered, contact: contacts[0] ?? null, contacts, messages, survey_runs: surveyRuns, assistant_replies: assistantReplies }
  }

  /**
   * The same export as JSON text (the shape of {@link export}), written as the messages are read, a
   * page at a time when the reader asks for more: flat memory whatever the customer's history
   * (docs/storage.md "Heavy jobs in slices"). `instances`, with each one's count, comes after the
   * messages it counts. 400 / 404 as {@link export}.
   */
  async exportJson(insts: readonly Covered[], number: string): Promise<Readable> {
    const who = await this.customer(insts, number)
    const contacts: NonNullable<CustomerExportT['contacts']> = []
    const surveyRuns: CustomerExportT['survey_runs'] = []
    const assistantReplies: CustomerExportT['assistant_replies'] = []
    const covered = new Map<string, CustomerExportT['instances'][number]>()
    for (const inst of insts) {
      const key = who.keys.get(inst._id)
      const records = key ? await this.deps.repos.customerData.exportRecords(inst._id, key) : NOTHING
      if (records.contact) contacts.push(records.contact)
      surveyRuns.push(...records.surveyRuns)
      assistantReplies.push(...records.assistantReplies)
      covered.set(inst._id, { ...named(inst), contact: records.contact !== null, messages: 0, survey_runs: records.surveyRuns.length })
    }
    const head = { ...CustomerDataService.named(who), exported_at: new Date(this.deps.clock.now()).toISOString(), contact: contacts[0] ?? null, contacts, survey_runs: surveyRuns, assistant_replies: assistantReplies }
    const messages = mergedMessages(this.messagePages(insts, who))
    return Readable.from(
      (async function* () {
        // The head's object without its closing brace, then the messages array, then what each instance held.
        yield JSON.stringify(head).slice(0, -1) + ',"messages":['
        let first = true
        let batch: string[] = []
        for await (const m of messages) {
          covered.get(m.instance_id)!.messages++
          batch.push(JSON.stringify(m))
          if (batch.length === 500) {
            yield (first ? '' : ',') + batch.join(',')
            first = false
            batch = []
          }
        }
        if (batch.length > 0) yield (first ? '' : ',') + batch.join(',')
        yield '],"instances":' + JSON.stringify([...covered.values()]) + '}'
      })(),
      { objectMode: false }
    )
  }

  /** The export's messages as CSV (one row per message, oldest first, with its instance when several) with a file name, whole in memory (the desk's download). */
  async exportCsv(insts: readonly Covered[], number: string): Promise<{ fileName: string; csv: string }> {
    const { fileName, stream } = await this.exportCsvStream(insts, number)
    let csv = ''
    for await (const chunk of stream) csv += String(chunk)
    return { fileName, csv }
  }

  /** The export's messages as CSV, written as they are read (see {@link exportJson}), with a file name. */
  async exportCsvStream(insts: readonly Covered[], number: string): Promise<{ fileName: string; stream: Readable }> {
    const who = await this.customer(insts, number)
    const several = insts.length > 1
    const names = new Map(insts.map((i) => [i._id, i.settings.bot_number ? `${i.settings.bot_name} (+${i.settings.bot_number})` : i.settings.bot_name]))
    const messages = mergedMessages(this.messagePages(insts, who))
    const rows = Readable.from(
      (async function* () {
        yield [...(several ? ['instance'] : []), 'time', 'chat', 'direction', 'source', 'name', 'type', 'text', 'status']
        for await (const m of messages) {
          yield [...(several ? [names.get(m.instance_id) ?? m.instance_id] : []), new Date(m.timestamp).toISOString(), m.chatId, m.fromMe ? 'out' : 'in', m.source, m.pushName ?? '', m.type, m.text, m.status]
        }
      })()
    )
    // Customers write the texts: cells a spreadsheet would run as a formula get a leading ' (OWASP "CSV Injection").
    const csv = stringify({ escape_formulas: true })
    rows.on('error', (err) => csv.destroy(err))
    return { fileName: `customer-${who.username ?? who.key.replace(/@lid$/, '')}-messages.csv`, stream: rows.pipe(csv) }
  }

  /** Each covered instance's pages of the customer's messages (those that hold a chat of theirs). */
  private messagePages(insts: readonly Covered[], who: Customer): Array<{ instanceId: string; pages: AsyncGenerator<LoggedMessage[]> }> {
    return insts.flatMap((i) => {
      const key = who.keys.get(i._id)
      return key ? [{ instanceId: i._id, pages: this.deps.repos.customerData.exportMessages(i._id, key) }] : []
    })
  }

  /**
   * Erases the customer `number` from each of `insts` (see the module doc), one instance after the
   * other, each in slices (the customer hidden from the first); `by` names who asked (the desk, a
   * script). Answers what went, in total and per instance. 400 / 404 as {@link export}; 503 when the
   * app stops meanwhile (what began finishes at the next start).
   */
  async erase(insts: readonly Covered[], number: string, by: string): Promise<ErasureResultT> {
    const who = await this.customer(insts, number)
    const at = new Date(this.deps.clock.now()).toISOString()
    const deleted: ErasureResultT['deleted'] = { messages: 0, conversations: 0, survey_runs: 0, contacts: 0, webhook_deliveries: 0, broadcast_recipients: 0, assistant_replies: 0, media_files: 0 }
    const instances: NonNullable<ErasureResultT['instances']> = []
    for (const inst of insts) {
      const key = who.keys.get(inst._id)
      // An instance with no chat of the username holds nothing of theirs.
      if (!key) {
        instances.push({ ...named(inst), deleted: { messages: 0, conversations: 0, survey_runs: 0, contacts: 0, webhook_deliveries: 0, broadcast_recipients: 0, assistant_replies: 0, media_files: 0 } })
        continue
      }
      let mediaFiles = 0
      // Each slice's media files go with its messages.
      const { counts } = await this.track(
        this.deps.repos.customerData.eraseCustomer(inst._id, key, by, at, newObjectId(), {
          onDeleted: async (ids) => void (mediaFiles += await this.deps.media.remove(inst._id, ids)),
          stop: () => this.closing
        })
      )
      // Stopped by a shutdown: the customer stays hidden and the next start finishes the erasure.
      if (!counts) throw new AppError('SERVICE_UNAVAILABLE', 'The app is stopping: the erasure has begun (nothing of the customer is shown any more) and finishes at the next start.')
      const mine = { ...counts, media_files: mediaFiles }
      for (const k of Object.keys(deleted) as Array<keyof typeof deleted>) deleted[k] += mine[k]
      instances.push({ ...named(inst), deleted: mine })
      this.deps.logger.info({ instanceId: inst._id, by, counts, media_files: mediaFiles }, 'a customer’s data was erased')
      this.deps.events.emit('changed', { instanceId: inst._id, what: 'contacts' })
    }
    return { ...CustomerDataService.named(who), erased_at: at, deleted, instances }
  }
}
