/**
 * The one-time import of a data dir written by release 0.1 (docs/storage.md "Importing a data dir of
 * release 0.1"): at the first start of this release on such a dir, everything 0.1 held goes into the new layout —
 * the account (same API token), app settings and instances (same session ids and access tokens)
 * into `config.json`; every record, every message (conversations rebuilt, the desk's read marks and
 * resolves carried over), the webhook deliveries, the bot's memory and each instance's channel
 * credentials (a linked phone stays linked) into `chatapp.db`. Then the old files move to
 * `migrated-<YYYY-MM-DD>/`.
 *
 * Resumable and idempotent: the import is a list of steps, each committed in one transaction with
 * its row in `legacy_import` (step, done_at); a start finds the steps done and goes on from there,
 * so a kill -9 at any point is finished by the next start with nothing doubled (the configuration
 * is written before its step is recorded and writing it again changes nothing; records are upserted
 * by id; a message id is unique per instance). Message logs and deliveries go in batches, so no
 * transaction holds a whole log. The files move only once the step `imported` committed, and the
 * step `moved` is recorded after the move; a crash during the move is finished by the next start.
 *
 * Reading follows 0.1's rules (./journaled-document-reader.ts, ./message-log-reader.ts,
 * ./outbox-reader.ts, ./auth-reader.ts). Every file but the message logs is read before anything is
 * written: an unreadable one stops the start with a DataFileError naming it, and the old files stay.
 * Unreadable message-log lines are skipped and reported, as 0.1 did.
 *
 * `auth_creds`, `auth_keys`, `wa_messages` and `webhook_deliveries` are written with Kysely
 * following ../db/schema.ts: their repositories are being written apart (branches s25-auth,
 * s25-webhooks).
 */
import { access, readdir } from 'node:fs/promises'
import { constants } from 'node:fs'
import { join } from 'node:path'
import type { Logger } from '../../logger'
import type { Contact, LoggedMessage } from '../../../shared/schemas/records'
import type { WebhookDelivery } from '../../../shared/schemas/webhooks'
import type { ConfigStore } from '../config/config-store'
import { DataFileError } from '../config/durable-json-file'
import type { DatabaseHandle, Tx } from '../db/database'
import { makeRepositories, type DataRepositories } from '../repos'
import { countUnread } from '../repos/conversation-index'
import { readAuthDir, type LegacyAuthState } from './auth-reader'
import { readLegacyConfig, readLegacyRuntime, windowEntries, type LegacyConfigData, type LegacyRuntimeData } from './legacy-documents'
import { hasLegacyData, legacyEntries, migratedDirName, moveLegacyEntries } from './legacy-files'
import { indexMessageLog } from './message-log-reader'
import { readWebhookOutbox } from './outbox-reader'
import { msToTime, timeToMs, timeToMsOrNull } from '../db/times'

/** A step of the import, as the test seam sees it. */
export interface LegacyImportEvent {
  step: string
  /**
   * `written`: the step's changes are made but not committed (inside its transaction; for `config`,
   * config.json is written and the step not yet recorded); `committed`: recorded; `moved`: one old
   * entry renamed into the migrated folder (`step` is its name).
   */
  phase: 'written' | 'committed' | 'moved'
}

export interface LegacyImportOptions {
  /** Message-log entries (and deliveries) per transaction; default 2,000. */
  batchSize?: number
  /** Test seam: told of each step (see {@link LegacyImportEvent}); the import waits for it. */
  onProgress?: (event: LegacyImportEvent) => void | Promise<void>
  /** The clock of `done_at` (default: now). */
  now?: () => Date
}

export interface LegacyImportReport {
  /**
   * `imported`: the import ran (or finished one cut short) and the old files moved; `moved`: only
   * the move was left; `none`: no 0.1 data here; `ignored`: 0.1 files appeared after an import had
   * finished (left where they are).
   */
  outcome: 'imported' | 'moved' | 'none' | 'ignored'
  /** Where the old files went. */
  migratedDir: string | null
  /** Records written by this run, by kind. */
  counts: Record<string, number>
  /** What was skipped or is amiss, and why (each also logged as a warning). */
  warnings: string[]
}

/** What the import needs of the storage (../storage.ts). */
export interface ImportTarget {
  config: ConfigStore
  database: Pick<DatabaseHandle, 'db' | 'write'>
}

const IMPORTED = 'imported'
const MOVED = 'moved'
const DEFAULT_BATCH = 2000

/**
 * Imports the 0.1 data in `dataDir` into `storage`, or finishes an import cut short, then moves the
 * old files to `migrated-<date>/`; does nothing when there is no 0.1 data or its import is done.
 * Throws {@link DataFileError} naming an unreadable old file (nothing more is written; the files
 * stay), and the storage's own errors (a full disk) as they come; the next start resumes.
 */
export async function importLegacyDataDir(dataDir: string, storage: ImportTarget, logger: Logger, options: LegacyImportOptions = {}): Promise<LegacyImportReport> {
  const run = new ImportRun(dataDir, storage, logger, options)
  return run.go()
}

class ImportRun {
  private readonly db: ImportTarget['database']
  private readonly batch: number
  private readonly now: () => Date
  private readonly report: LegacyImportReport = { outcome: 'none', migratedDir: null, counts: {}, warnings: [] }
  private done = new Map<string, string>()

  constructor(
    private readonly dataDir: string,
    private readonly storage: ImportTarget,
    private readonly logger: Logger,
    private readonly options: LegacyImportOptions
  ) {
    this.db = storage.database
    this.batch = Math.max(1, options.batchSize ?? DEFAULT_BATCH)
    this.now = options.now ?? (() => new Date())
  }

  async go(): Promise<LegacyImportReport> {
    this.done = await this.doneSteps()
    const present = await hasLegacyData(this.dataDir)
    if (this.done.has(MOVED)) {
      if (present) {
        this.report.outcome = 'ignored'
        this.logger.warn({ dataDir: this.dataDir, importedAt: this.done.get(IMPORTED) }, 'files of release 0.1 found in a data dir that imported its 0.1 data already: left as they are, not imported again')
      }
      return this.report
    }
    if (!this.done.has(IMPORTED)) {
      if (!present) {
        if (this.done.size > 0) this.logger.error({ dataDir: this.dataDir, stepsDone: [...this.done.keys()] }, 'an import of release 0.1 data was cut short and its files are gone: this data dir holds only the part imported (docs/storage.md, "To import again from scratch")')
        return this.report
      }
      await this.importAll()
      this.report.outcome = 'imported'
    } else {
      this.report.outcome = 'moved'
    }
    await this.move()
    return this.report
  }

  /** Reads everything but the message logs first (an unreadable file stops before anything is written), then runs the steps not done yet. */
  private async importAll(): Promise<void> {
    const resumed = this.done.size > 0
    this.logger.info({ dataDir: this.dataDir, resumed, stepsDone: this.done.size }, resumed ? 'resuming the import of the release 0.1 data dir' : 'importing the release 0.1 data dir')
    const started = performance.now()
    const config = (await readLegacyConfig(this.dataDir)).data
    const runtime = (await readLegacyRuntime(this.dataDir)).data
    const deliveries = await readWebhookOutbox(join(this.dataDir, 'webhook-outbox.jsonl'))
    const instances = new Set(config.instances.map((i) => i._id))
    const auth = await this.readSessions(instances)
    const logs = await this.messageLogs(instances)
    await this.checkAttachments(config)

    await this.importConfig(config)
    await this.step('records', (r, trx) => this.importRecords(r, trx, config, runtime))
    for (const [instanceId, file] of logs) await this.importMessages(instanceId, file)
    await this.step('chat-states', (_r, trx) => this.importChatStates(trx, runtime))
    // Loaded before the transactions: a write does no other I/O while it holds the database.
    const { replacer } = auth.size > 0 ? (await import('baileys')).BufferJSON : { replacer: undefined }
    for (const [instanceId, state] of auth) await this.step(`auth/${instanceId}`, (_r, trx) => this.importAuth(trx, instanceId, config, state, replacer))
    await this.importDeliveries(deliveries)
    await this.step(IMPORTED, async () => {})
    this.logger.info({ ms: Math.round(performance.now() - started), counts: this.report.counts, warnings: this.report.warnings.length }, 'release 0.1 data imported')
  }

  /** Moves the old files once the import committed; records `moved`. */
  private async move(): Promise<void> {
    const doneAt = (await this.doneSteps()).get(IMPORTED)!
    const folder = migratedDirName(doneAt)
    const target = await moveLegacyEntries(this.dataDir, folder, (name) => this.options.onProgress?.({ step: name, phase: 'moved' }))
    await this.db.write((trx) => this.markDone(trx, MOVED))
    this.report.migratedDir = target
    this.logger.info({ folder: target }, 'the files of release 0.1 were moved aside (keep them until the imported data is checked, then delete them)')
  }

  // --- steps -------------------------------------------------------------------------------------

  /** Runs `work` and records `name` in one transaction, unless `name` is done. */
  private async step(name: string, work: (repos: DataRepositories, trx: Tx) => Promise<void>): Promise<void> {
    if (this.done.has(name)) return
    await this.db.write(async (trx) => {
      await work(this.reposIn(trx), trx)
      await this.markDone(trx, name)
      await this.options.onProgress?.({ step: name, phase: 'written' })
    })
    if (!this.done.has(name)) this.done.set(name, '')
    await this.options.onProgress?.({ step: name, phase: 'committed' })
  }

  /**
   * The account (same API token), app settings and instances (same session ids and access tokens)
   * into config.json, then the step. Written again after a crash between the two, it is the same.
   */
  private async importConfig(c: LegacyConfigData): Promise<void> {
    if (this.done.has('config')) return
    await this.storage.config.update((d) => {
      if (c.account) d.account = c.account
      d.appSettings = { ...d.appSettings, ...c.appSettings }
      for (const inst of c.instances) {
        const i = d.instances.findIndex((x) => x._id === inst._id)
        if (i >= 0) d.instances[i] = inst
        else d.instances.push(inst)
      }
    })
    this.count('instances', c.instances.length)
    await this.options.onProgress?.({ step: 'config', phase: 'written' })
    await this.db.write((trx) => this.markDone(trx, 'config'))
    this.done.set('config', '')
    await this.options.onProgress?.({ step: 'config', phase: 'committed' })
  }

  /** Every record of both documents but the chat states (they need the conversations). */
  private async importRecords(r: DataRepositories, trx: Tx, c: LegacyConfigData, rt: LegacyRuntimeData): Promise<void> {
    await r.labels.putMany(c.labels)
    await r.quickReplies.putMany(c.quickReplies)
    await r.intents.putMany(c.intents)
    await r.surveySteps.putMany(c.surveys)
    await r.attachments.putMany(c.attachments)
    await r.contactGroups.putMany(c.contactGroups)
    await r.contacts.putMany(this.uniqueContacts(c.contacts))
    await r.schedules.putMany(c.schedules)
    for (const run of rt.surveyRuns) await r.surveyRuns.put(run)
    for (const p of rt.chatPauses) await r.chatPauses.put(p)
    for (const b of rt.broadcasts) if (!(await r.broadcasts.find(b._id))) await r.broadcasts.put(b)
    for (const s of rt.outreachSends) await r.outreachSends.add(s, 0)
    const activity = new Map<string, number>()
    for (const a of rt.botActivity) activity.set(a.instance_id, (activity.get(a.instance_id) ?? 0) + 1)
    for (const a of rt.botActivity) await r.botActivity.add(a, activity.get(a.instance_id)!)
    const marks = await this.importReplyMarks(trx, rt)
    for (const [kind, n] of Object.entries({
      labels: c.labels.length,
      quickReplies: c.quickReplies.length,
      intents: c.intents.length,
      surveySteps: c.surveys.length,
      attachments: c.attachments.length,
      contactGroups: c.contactGroups.length,
      contacts: c.contacts.length,
      schedules: c.schedules.length,
      surveyRuns: rt.surveyRuns.length,
      chatPauses: rt.chatPauses.length,
      broadcasts: rt.broadcasts.length,
      outreachSends: rt.outreachSends.length,
      botActivity: rt.botActivity.length,
      replyMarks: marks
    }))
      this.count(kind, n)
  }

  /** The contacts, one per number of an instance (the database's rule): a repeat is skipped and logged whole. */
  private uniqueContacts(contacts: readonly Contact[]): Contact[] {
    const seen = new Set<string>()
    return contacts.filter((c) => {
      const key = `${c.instance_id}\u0000${c.number}`
      if (!seen.has(key)) return seen.add(key)
      this.warn(`contact ${c._id}: the number ${c.number} belongs to an earlier contact of the instance`, { contact: c })
      return false
    })
  }

  /** The default and away message windows into `bot_reply_marks` (the later send of a chat wins). */
  private async importReplyMarks(trx: Tx, rt: LegacyRuntimeData): Promise<number> {
    let n = 0
    for (const [kind, saved] of [['default', rt.bot.defaultMessageWindow], ['away', rt.bot.awayMessageWindow]] as const) {
      for (const [instanceId, chatId, at] of windowEntries(saved)) {
        await trx
          .insertInto('bot_reply_marks')
          .values({ kind, instance_id: instanceId, chat_id: chatId, at })
          .onConflict((oc) => oc.columns(['kind', 'instance_id', 'chat_id']).doUpdateSet((eb) => ({ at: eb.case().when('bot_reply_marks.at', '<', at).then(at).else(eb.ref('bot_reply_marks.at')).end() })))
          .execute()
        n++
      }
    }
    return n
  }

  /**
   * One instance's message log, streamed in batches: each batch's messages and their conversations
   * (the message repository's own rules) commit with the step `messages/<id>/<entries done>`, then
   * `messages/<id>` marks the log done. A resumed import skips the entries done.
   */
  private async importMessages(instanceId: string, file: string): Promise<void> {
    const whole = `messages/${instanceId}`
    if (this.done.has(whole)) return
    let from = 0
    for (const step of this.done.keys()) if (step.startsWith(whole + '/')) from = Math.max(from, Number(step.slice(whole.length + 1)))
    const index = await indexMessageLog(file)
    let seen = 0
    let batch: LoggedMessage[] = []
    const flush = async (): Promise<void> => {
      const slice = batch
      batch = []
      await this.step(`${whole}/${seen}`, async (r) => this.count('messages', await r.messages.appendMany(instanceId, slice)))
    }
    for await (const entry of index.entries({ latestOnly: true })) {
      if (++seen <= from) continue
      batch.push(entry)
      if (batch.length === this.batch) await flush()
    }
    if (batch.length > 0) await flush()
    await this.step(whole, async () => {})
    if (index.skipped.length > 0) this.warn(`${file}: ${index.skipped.length} unreadable line(s) skipped`, { file, lines: [...index.skipped].sort((a, b) => a.line - b.line) })
    if (index.repeated > 0) this.warn(`${file}: ${index.repeated} entr${index.repeated === 1 ? 'y' : 'ies'} logged again later with the same id: the later one kept`, { file })
  }

  /** The desk's read marks and resolves onto the conversations, unread counted again from them (the chat's own rule). */
  private async importChatStates(trx: Tx, rt: LegacyRuntimeData): Promise<void> {
    let n = 0
    for (const s of rt.chatStates) {
      const c = await trx.selectFrom('conversations').select(['last_person_at']).where('instance_id', '=', s.instance_id).where('chat_id', '=', s.chatId).executeTakeFirst()
      // 0.1 showed no conversation for a chat without messages; its state has nothing to mark.
      if (!c) continue
      const unread = await countUnread(trx, s.instance_id, s.chatId, Math.max(s.read_until, c.last_person_at))
      await trx.updateTable('conversations').set({ read_until: s.read_until, resolved_at: s.resolved_at, unread }).where('instance_id', '=', s.instance_id).where('chat_id', '=', s.chatId).execute()
      n++
    }
    this.count('chatStates', n)
  }

  /** An instance's channel credentials: creds (Baileys, or the sandbox's pairing), every Signal key, the kept messages. */
  private async importAuth(trx: Tx, instanceId: string, config: LegacyConfigData, state: LegacyAuthState, replacer: ((key: string, value: unknown) => unknown) | undefined): Promise<void> {
    // BufferJSON, as 0.1 wrote these files and as the new store reads them.
    const json = (v: unknown): string => JSON.stringify(v, replacer)
    const channel = config.instances.find((i) => i._id === instanceId)?.settings.channel
    const creds = channel === 'sandbox' ? state.sandbox : (state.creds ?? state.sandbox)
    const updatedAt = this.now().getTime()
    if (creds) {
      const text = json(creds)
      await trx
        .insertInto('auth_creds')
        .values({ instance_id: instanceId, creds: text, updated_at: updatedAt })
        .onConflict((oc) => oc.column('instance_id').doUpdateSet({ creds: text, updated_at: updatedAt }))
        .execute()
      this.count('authCreds', 1)
    }
    // The key store as 0.1 held it, whole: what the database had of it before is replaced.
    await trx.deleteFrom('auth_keys').where('instance_id', '=', instanceId).execute()
    const rows = [...state.keys].flatMap(([type, bucket]) => [...bucket].map(([id, value]) => ({ instance_id: instanceId, type, id, value: json(value) })))
    for (let i = 0; i < rows.length; i += 500) await trx.insertInto('auth_keys').values(rows.slice(i, i + 500)).execute()
    this.count('authKeys', rows.length)
    for (const m of state.waMessages) {
      const row = { instance_id: instanceId, id: m.id, at: m.at, own: m.own ? 1 : 0, message: m.message }
      await trx
        .insertInto('wa_messages')
        .values(row)
        .onConflict((oc) => oc.columns(['instance_id', 'id']).doUpdateSet({ at: row.at, own: row.own, message: row.message }))
        .execute()
    }
    this.count('waMessages', state.waMessages.length)
  }

  /** The webhook deliveries with their statuses, in batches, upserted by id (creation order kept). */
  private async importDeliveries(deliveries: readonly WebhookDelivery[]): Promise<void> {
    const whole = 'webhook-deliveries'
    if (this.done.has(whole)) return
    let from = 0
    for (const step of this.done.keys()) if (step.startsWith(whole + '/')) from = Math.max(from, Number(step.slice(whole.length + 1)))
    if (deliveries.length === 0) return this.step(whole, async () => {})
    for (let start = from; start < deliveries.length; start += this.batch) {
      const end = Math.min(deliveries.length, start + this.batch)
      await this.step(`${whole}/${end}`, async (_r, trx) => {
        for (const d of deliveries.slice(start, end)) {
          const row = {
            id: d.id,
            instance_id: d.instance_id,
            event: d.event,
            url: d.url,
            payload: JSON.stringify(d.payload),
            status: d.status,
            attempts: d.attempts,
            last_error: d.last_error ?? null,
            last_status: d.last_status ?? null,
            next_attempt_at: timeToMsOrNull(d.next_attempt_at ?? null),
            created_at: timeToMs(d.created_at),
            delivered_at: timeToMsOrNull(d.delivered_at ?? null)
          }
          const { id: _id, ...rest } = row
          await trx.insertInto('webhook_deliveries').values(row).onConflict((oc) => oc.column('id').doUpdateSet(rest)).execute()
        }
        this.count('webhookDeliveries', end - start)
        if (end === deliveries.length) await this.markDone(trx, whole)
      })
    }
    this.done.set(whole, '')
  }

  // --- reading -----------------------------------------------------------------------------------

  /** The auth dirs of the known instances, read whole (an unreadable creds or key file stops the import). */
  private async readSessions(instances: ReadonlySet<string>): Promise<Map<string, LegacyAuthState>> {
    const out = new Map<string, LegacyAuthState>()
    const dir = join(this.dataDir, 'sessions')
    for (const id of await this.listDir(dir)) {
      if (!instances.has(id)) {
        this.warn(`${join(dir, id)}: no instance ${id} in the configuration; not imported`, { dir: join(dir, id) })
        continue
      }
      if (this.done.has(`auth/${id}`)) continue
      const state = await readAuthDir(join(dir, id))
      for (const s of state.skipped) this.warn(s, { dir: join(dir, id) })
      out.set(id, state)
    }
    return out
  }

  /** The message logs of the known instances (checked readable now; read when imported). */
  private async messageLogs(instances: ReadonlySet<string>): Promise<Map<string, string>> {
    const out = new Map<string, string>()
    const dir = join(this.dataDir, 'messages')
    for (const name of await this.listDir(dir)) {
      // `<id>.rejected.jsonl` holds the lines 0.1 set aside: they were never part of the log.
      if (!name.endsWith('.jsonl') || name.endsWith('.rejected.jsonl')) continue
      const id = name.slice(0, -'.jsonl'.length)
      const file = join(dir, name)
      if (!instances.has(id)) {
        this.warn(`${file}: no instance ${id} in the configuration; not imported`, { file })
        continue
      }
      try {
        await access(file, constants.R_OK)
      } catch (err) {
        throw new DataFileError(file, err)
      }
      out.set(id, file)
    }
    return out
  }

  /** An attachment record whose bytes are not in `attachments/` is imported as 0.1 had it, and reported. */
  private async checkAttachments(config: LegacyConfigData): Promise<void> {
    for (const a of config.attachments) {
      const file = join(this.dataDir, 'attachments', a._id)
      await access(file, constants.R_OK).catch(() => this.warn(`attachment ${a._id} (${a.filename}): its file ${file} is missing or unreadable; the record is imported as 0.1 had it`, { file }))
    }
  }

  private async listDir(dir: string): Promise<string[]> {
    try {
      return (await readdir(dir)).sort()
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return []
      throw new DataFileError(dir, err)
    }
  }

  // --- bookkeeping -------------------------------------------------------------------------------

  private async doneSteps(): Promise<Map<string, string>> {
    const rows = await this.db.db.selectFrom('legacy_import').selectAll().execute()
    return new Map(rows.map((r) => [r.step, msToTime(r.done_at)]))
  }

  private async markDone(trx: Tx, step: string): Promise<void> {
    await trx.insertInto('legacy_import').values({ step, done_at: this.now().getTime() }).onConflict((oc) => oc.column('step').doNothing()).execute()
  }

  private reposIn(trx: Tx): DataRepositories {
    return makeRepositories(this.storage.config, { db: trx, write: (work) => work(trx) })
  }

  private count(kind: string, n: number): void {
    this.report.counts[kind] = (this.report.counts[kind] ?? 0) + n
  }

  private warn(what: string, details: Record<string, unknown>): void {
    this.report.warnings.push(what)
    this.logger.warn(details, `release 0.1 import: ${what}`)
  }
}

export { hasLegacyData, legacyEntries }
