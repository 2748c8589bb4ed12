/**
 * A lowdb adapter for the configuration document in database mode (`CHATAPP_DATABASE_URL`;
 * docs/storage.md "The configuration document"): every worker on the database shares the account,
 * its token, the app's settings and the instances. The account and the app's settings are the row
 * `config_document.id = 'config'` (migration 4; its `instances` is empty); each instance is a row of
 * `config_instances` (migration 10), so a change of one instance's settings writes that row only.
 *
 * Versions: `config_document.version` is raised by every write of either table, taken as the
 * write's first statement (`UPDATE … SET version = version + 1 … RETURNING version`): that locks the
 * row until the write commits, so the configuration's writes commit one after another in version
 * order. Each instance row is stamped with the version that wrote it; a worker holding version v reads
 * only the rows stamped after v (and the list of ids, for the ones removed).
 *
 * A change ({@link DatabaseDocument.change}) is the held document with the change made. When the
 * version taken is not the held one + 1, another worker wrote meanwhile: the same transaction, under
 * the lock, reads what changed and makes the change again on that newer document. So a change never
 * fails because others were made at once, however many workers write (docs/storage.md "In database
 * mode" has the measurement that chose this over the whole document with optimistic retries). Every
 * write goes through the database's group commit (../db/write-queue.ts), so it resolves once
 * committed; on PostgreSQL the same transaction sends `NOTIFY chatapp_config, '<version>'`, delivered
 * to the other workers at its commit (./config-store.ts `subscribe`).
 *
 * Reading: no `config_document` row is null (lowdb keeps the document it holds; the next write
 * inserts the row and every instance's); a row that does not parse or fails the document's checks
 * (./config-check.ts, the same as for the file) is a {@link DataFileError} naming the table (and the
 * instance), and is never overwritten.
 */
import { sql, type Kysely } from 'kysely'
import type { Adapter } from 'lowdb'
import type { DatabaseHandle } from '../db/database'
import { dialectOf } from '../db/dialect'
import type { Database } from '../db/schema'
import type { Instance } from '../../../shared/schemas/records'
import { checkConfig, checkInstance } from './config-check'
import type { ConfigData } from './config-data'
import { DataFileError } from './durable-json-file'

/** The `id` of the document's row. */
export const CONFIG_ROW = 'config'
/** The PostgreSQL channel told the version of each committed write (NOTIFY/LISTEN). */
export const CONFIG_CHANNEL = 'chatapp_config'

/** What the adapter needs of the database (../db/database.ts). */
export type DocumentDatabase = Pick<DatabaseHandle, 'db' | 'write' | 'file'>

/**
 * Another worker made the first write of an empty database since this one saw it empty: nothing was
 * written. Thrown by {@link DatabaseDocument.write} only (the first start takes the other's document).
 */
export class ConfigConflictError extends Error {
  constructor(
    readonly where: string,
    readonly expected: number | null
  ) {
    super(`The configuration document in ${where} was changed by another worker meanwhile (expected version ${expected ?? 'none'}); nothing was written.`)
    this.name = 'ConfigConflictError'
  }
}

/** A document as read, with the version of `config_document` it was read at. */
interface Loaded {
  data: ConfigData
  version: number
}

export class DatabaseDocument implements Adapter<ConfigData> {
  /** The version of `config_document` as last read or written here; null while no row was seen. */
  version: number | null = null
  /** The document as last read or written here (what {@link version} names): a read fetches only what changed since. */
  private held: ConfigData | null = null

  constructor(
    private readonly database: DocumentDatabase,
    /** Epoch ms for `updated_at`. */
    private readonly now: () => number = Date.now
  ) {}

  /** Names the document in messages: the database (its URL without password, or its file) and the table. */
  get where(): string {
    return `${this.database.file} (table config_document)`
  }

  /** The document as stored, or null when there is no `config_document` row. Throws DataFileError for a row that fails the checks. */
  async read(): Promise<ConfigData | null> {
    const loaded = await load(this.database.db, this.database.file, this.held, this.version)
    // Gone (deleted by hand): the next write inserts it again rather than failing on a version.
    this.version = loaded?.version ?? null
    this.held = loaded?.data ?? null
    return loaded?.data ?? null
  }

  /**
   * lowdb's whole-document write. On an empty database (the first start): inserts the document and
   * its instances as version 1, or throws {@link ConfigConflictError} when another worker's first
   * write came before (nothing written). Otherwise stores `data` as {@link change} does (over
   * whatever another worker wrote meanwhile). Resolves once committed.
   */
  async write(data: ConfigData): Promise<void> {
    if (this.version !== null) {
      await this.change(data, () => data)
      return
    }
    const updatedAt = this.now()
    await this.database.write(async (trx) => {
      if (!(await insertDocument(trx, data, updatedAt))) throw new ConfigConflictError(this.where, null)
      await notify(trx, 1)
    })
    this.version = 1
    this.held = data
  }

  /**
   * Stores `next`, the held document with a change made, and answers the document stored. When
   * another worker wrote since the held version, the transaction reads what changed (under the lock
   * of `config_document`) and stores `reapply(<that newer document>)` instead (the same change made
   * to it; `reapplied` says so): nothing of the other's is lost. Only what differs from the document
   * it is made on is written: `config_document`'s body when the account or the app's settings
   * changed, an instance's row when it changed, was added or removed. When the `config_document` row
   * is gone (deleted by hand) it is written again, with every instance. Resolves once committed.
   * Throws DataFileError for a newer row that fails the checks (nothing written), or the database's
   * error (a full disk: StorageFullError).
   */
  async change(next: ConfigData, reapply: (current: ConfigData) => ConfigData): Promise<{ data: ConfigData; reapplied: boolean }> {
    const held = this.held
    const heldVersion = this.version
    const updatedAt = this.now()
    const outcome = await this.database.write(async (trx) => {
      // The lock that orders the configuration's writes, taken first (docs in the module's head).
      // It answers the row as it is now too, and on PostgreSQL queues the NOTIFY of the new version:
      // sent at the commit, dropped if this write is rolled back (its savepoint included).
      const postgres = dialectOf(trx) === 'postgres'
      const taken = await trx
        .updateTable('config_document')
        .set((eb) => ({ version: eb('version', '+', 1), updated_at: updatedAt }))
        .where('id', '=', CONFIG_ROW)
        .returning(['version', 'body'])
        .$if(postgres, (q) => q.returning(sql<string>`pg_notify(${CONFIG_CHANNEL}, version::text)`.as('notified')))
        .executeTakeFirst()
      if (!taken) {
        if (!(await insertDocument(trx, next, updatedAt))) throw new ConfigConflictError(this.where, heldVersion)
        await notify(trx, 1)
        return { data: next, version: 1, reapplied: false }
      }
      const version = Number(taken.version)
      let base = held
      let target = next
      let reapplied = false
      if (base === null || heldVersion === null || version !== heldVersion + 1) {
        // Another worker wrote since the held version: make the change on what it wrote.
        base = (await load(trx, this.database.file, held, heldVersion, taken))!.data
        target = reapply(base)
        reapplied = true
      }
      await writeDifference(trx, base, target, version, updatedAt)
      return { data: target, version, reapplied }
    })
    this.version = outcome.version
    this.held = outcome.data
    return { data: outcome.data, reapplied: outcome.reapplied }
  }
}

/** Tells the other workers (PostgreSQL) of `version` at the commit, and only if it commits (https://www.postgresql.org/docs/current/sql-notify.html). */
async function notify(trx: Kysely<Database>, version: number): Promise<void> {
  if (dialectOf(trx) === 'postgres') await sql`SELECT pg_notify(${CONFIG_CHANNEL}, ${String(version)})`.execute(trx)
}

/** `config_document`'s body: the document without its instances (they are rows of their own). */
function documentBody(data: ConfigData): string {
  // Indented as config.json is: a person reading the row with psql sees the same shape.
  return JSON.stringify({ ...data, instances: [] }, null, 2)
}

function instanceBody(instance: Instance): string {
  return JSON.stringify(instance, null, 2)
}

/**
 * Writes `data` into a database without a `config_document` row, as version 1 (the instances' rows
 * replace any left there); answers false, writing nothing, when the row exists (another worker's
 * first write came first). Used by the first start and by `npm run db:copy` (../copy/copy.ts).
 */
export async function insertDocument(trx: Kysely<Database>, data: ConfigData, updatedAt: number): Promise<boolean> {
  const r = await trx
    .insertInto('config_document')
    .values({ id: CONFIG_ROW, body: documentBody(data), version: 1, updated_at: updatedAt })
    .onConflict((oc) => oc.column('id').doNothing())
    .executeTakeFirst()
  if ((r.numInsertedOrUpdatedRows ?? 0n) === 0n) return false
  await trx.deleteFrom('config_instances').execute()
  for (const [position, instance] of data.instances.entries()) {
    await trx.insertInto('config_instances').values({ id: instance._id, position, body: instanceBody(instance), stamp: 1, updated_at: updatedAt }).execute()
  }
  return true
}

/**
 * Writes what `target` changes of `base` (the document as stored at the version before `stamp`):
 * the document's body if its own part changed, each instance row changed or added (stamped), the
 * rows of the instances removed. The instances keep their order: new ones go after the others; a
 * target that reorders them rewrites every row's position.
 */
async function writeDifference(trx: Kysely<Database>, base: ConfigData, target: ConfigData, stamp: number, updatedAt: number): Promise<void> {
  if (target.account !== base.account || target.appSettings !== base.appSettings || target.version !== base.version) {
    await trx.updateTable('config_document').set({ body: documentBody(target) }).where('id', '=', CONFIG_ROW).execute()
  }
  if (target.instances === base.instances) return
  const before = new Map(base.instances.map((i) => [i._id, i]))
  const after = new Set(target.instances.map((i) => i._id))
  const removed = base.instances.filter((i) => !after.has(i._id)).map((i) => i._id)
  if (removed.length > 0) await trx.deleteFrom('config_instances').where('id', 'in', removed).execute()
  const kept = target.instances.filter((i) => before.has(i._id)).map((i) => i._id)
  const keptBefore = base.instances.filter((i) => after.has(i._id)).map((i) => i._id)
  const inOrder = kept.every((id, k) => id === keptBefore[k] && target.instances[k]!._id === id)
  const upsert = (instance: Instance, position: number) =>
    trx
      .insertInto('config_instances')
      .values({ id: instance._id, position, body: instanceBody(instance), stamp, updated_at: updatedAt })
      .onConflict((oc) => oc.column('id').doUpdateSet({ position, body: instanceBody(instance), stamp, updated_at: updatedAt }))
      .execute()
  if (!inOrder) {
    for (const [position, instance] of target.instances.entries()) await upsert(instance, position)
    return
  }
  let next: number | null = null
  for (const instance of target.instances) {
    const was = before.get(instance._id)
    if (was === instance) continue
    if (was) {
      await trx.updateTable('config_instances').set({ body: instanceBody(instance), stamp, updated_at: updatedAt }).where('id', '=', instance._id).execute()
      continue
    }
    if (next === null) {
      const last = await trx.selectFrom('config_instances').select((eb) => eb.fn.max('position').as('last')).executeTakeFirst()
      next = last?.last === null || last?.last === undefined ? 0 : Number(last.last) + 1
    }
    await upsert(instance, next++)
  }
}

/**
 * The document as stored, or null without a `config_document` row (`doc`: that row, when the caller
 * has it already). With `held` (the document at `heldVersion`), the instance rows are read in one
 * query that brings the bodies of the rows stamped after it only; the others are `held`'s. Throws
 * DataFileError naming the table (and the instance) for a row that fails the checks.
 */
async function load(db: Kysely<Database>, file: string, held: ConfigData | null, heldVersion: number | null, doc?: { body: string; version: number }): Promise<Loaded | null> {
  doc ??= await db.selectFrom('config_document').select(['body', 'version']).where('id', '=', CONFIG_ROW).executeTakeFirst()
  if (!doc) return null
  const version = Number(doc.version)
  if (held && heldVersion === version) return { data: held, version }
  let own: ConfigData
  try {
    const body = JSON.parse(doc.body) as Partial<ConfigData> | null
    // Instances put back into this row by hand would otherwise be dropped without a word.
    if (Array.isArray(body?.instances) && body.instances.length > 0) throw new Error('instances are kept in the table config_instances (a row each), not in this row')
    own = checkConfig(body && typeof body === 'object' ? { ...body, instances: [] } : body)
  } catch (err) {
    throw new DataFileError(`${file} (table config_document)`, err)
  }
  const parse = (row: { id: string; body: string }): Instance => {
    try {
      return checkInstance(JSON.parse(row.body), 'the instance')
    } catch (err) {
      throw new DataFileError(`${file} (table config_instances, id ${row.id})`, err)
    }
  }
  // A version lower than the held one: the row was deleted by hand and written again from 1, so the
  // stamps say nothing about what changed since.
  if (!held || heldVersion === null || version < heldVersion) {
    const rows = await db.selectFrom('config_instances').select(['id', 'body']).orderBy('position').orderBy('id').execute()
    return { data: { ...own, instances: rows.map(parse) }, version }
  }
  // Rows written after the document row was read are newer still: holding them early is harmless,
  // the next read reads them again.
  const rows = await db
    .selectFrom('config_instances')
    .select((eb) => ['id', eb.case().when('stamp', '>', heldVersion).then(eb.ref('body')).else(null).end().as('body')])
    .orderBy('position')
    .orderBy('id')
    .execute()
  const heldById = new Map(held.instances.map((i) => [i._id, i]))
  // A row added since, but stamped before (an instance put back by hand): read it whole.
  const missing = rows.filter((r) => r.body === null && !heldById.has(r.id)).map((r) => r.id)
  const fetched = new Map<string, string>()
  if (missing.length > 0) for (const r of await db.selectFrom('config_instances').select(['id', 'body']).where('id', 'in', missing).execute()) fetched.set(r.id, r.body)
  const instances = rows.flatMap((r) => {
    const body = r.body ?? fetched.get(r.id)
    if (body !== undefined) return [parse({ id: r.id, body })]
    const kept = heldById.get(r.id)
    return kept ? [kept] : []
  })
  return { data: { ...own, instances }, version }
}
