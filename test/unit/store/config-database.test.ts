/**
 * The configuration document in database mode (src/main/store/config/database-document.ts, docs/design.md §22):
 * one row of `config_document` shared by every worker on the database, written optimistically (a
 * write that lost a race re-reads and re-applies its recipe). Two stores on two connections of the
 * same database stand for two workers. On a real PostgreSQL server (where database mode applies) and
 * on a real SQLite file through the same Kysely code.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { sql } from 'kysely'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { ConfigStore, type ConfigData } from '../../../src/main/store/config/config-store'
import { DataFileError, DurableJsonFile } from '../../../src/main/store/config/durable-json-file'
import { checkConfig } from '../../../src/main/store/config/config-check'
import { openDatabase, openPostgresDatabase, type DatabaseHandle } from '../../../src/main/store/db/database'
import { defaultSettings } from '../../../src/main/services/instances/instance-registry'
import { AccountService } from '../../../src/main/services/account-service'
import { AccountRepo } from '../../../src/main/store/repos/config-repos'
import { systemClock } from '../../../src/main/clock'
import type { Instance } from '../../../src/shared/schemas/records'
import { BACKENDS, createMigratedTestDatabase, dropTestDatabase, type Backend } from '../../helpers/postgres'

let dir: string
let pgUrl: string | undefined
let opened: Array<{ close(): Promise<void> }> = []
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'chatapp-config-db-'))
})
afterEach(async () => {
  // Stores before their databases (a store's close waits for its writes).
  for (const o of opened.reverse()) await o.close()
  opened = []
  await rm(dir, { recursive: true, force: true })
  if (pgUrl) await dropTestDatabase(pgUrl)
  pgUrl = undefined
})

/** A new connection (a pool on PostgreSQL) to the test's one database: one worker's. */
async function connect(backend: Backend): Promise<DatabaseHandle> {
  let db: DatabaseHandle
  if (backend === 'sqlite') db = await openDatabase(join(dir, 'shared.db'))
  else {
    pgUrl ??= await createMigratedTestDatabase()
    db = await openPostgresDatabase(pgUrl, { poolSize: 3 })
  }
  opened.push(db)
  return db
}

/** A worker's configuration store on its own connection; closed after the test. */
async function worker(backend: Backend, seedFile?: string, log?: (m: string) => void): Promise<{ db: DatabaseHandle; config: ConfigStore }> {
  const db = await connect(backend)
  const config = await ConfigStore.openInDatabase(db, { ...(seedFile ? { seedFile } : {}), ...(log ? { log } : {}) })
  opened.push(config)
  return { db, config }
}

function instance(id: string): Instance {
  return { _id: id, user_id: 'acc', session_id: `sess-${id}`, settings: defaultSettings('sandbox'), createdAt: '2026-11-27T00:00:00.000Z', updatedAt: '2026-11-27T00:00:00.000Z', __v: 0 }
}

const account = { _id: 'acc', api_token: 'token-of-the-desk', createdAt: '2026-11-27T00:00:00.000Z' }

async function storedRow(db: DatabaseHandle): Promise<{ body: string; version: number }> {
  return db.db.selectFrom('config_document').select(['body', 'version']).where('id', '=', 'config').executeTakeFirstOrThrow()
}

/** The document as stored: `config_document`'s body with the rows of `config_instances` in their order (migration 10). */
async function storedDocument(db: DatabaseHandle): Promise<ConfigData> {
  const rows = await db.db.selectFrom('config_instances').select('body').orderBy('position').execute()
  return { ...(JSON.parse((await storedRow(db)).body) as ConfigData), instances: rows.map((r) => JSON.parse(r.body) as Instance) }
}

describe.each(BACKENDS)('on %s', (backend) => {
  it('an empty database starts from the defaults, written at once as version 1', async () => {
    const { db, config } = await worker(backend)
    expect(config.data).toEqual({ version: 1, account: null, appSettings: { smtp: null }, instances: [] })
    const row = await storedRow(db)
    expect(row.version).toBe(1)
    expect(JSON.parse(row.body)).toEqual(config.data)
    expect(await storedDocument(db)).toEqual(config.data)
  })

  it("one worker's write is read by another after refresh(); until then the other reads its own copy", async () => {
    const a = await worker(backend)
    const b = await worker(backend)
    await a.config.update((d) => void (d.account = account))
    expect(b.config.data.account).toBeNull()
    const refreshed = await b.config.refresh()
    expect(refreshed.account).toEqual(account)
    expect(b.config.data.account).toEqual(account)
    expect((await storedRow(a.db)).version).toBe(2)
  })

  it('two workers changing different instances at once: both changes survive (the later write re-reads and re-applies)', async () => {
    const a = await worker(backend)
    await a.config.update((d) => void d.instances.push(instance('i1'), instance('i2')))
    const b = await worker(backend)
    // Both hold version 2: whichever commits second finds the version gone and retries.
    await Promise.all([
      a.config.update((d) => void (d.instances.find((i) => i._id === 'i1')!.settings.bot_name = 'Ana')),
      b.config.update((d) => void (d.instances.find((i) => i._id === 'i2')!.settings.bot_name = 'Bia'))
    ])
    const third = await worker(backend)
    for (const data of [third.config.data, await a.config.refresh(), await b.config.refresh()]) {
      expect(data.instances.map((i) => [i._id, i.settings.bot_name])).toEqual([
        ['i1', 'Ana'],
        ['i2', 'Bia']
      ])
    }
    expect((await storedRow(a.db)).version).toBe(4)
  })

  it('a write that meets a newer document re-applies its recipe to it, once, and keeps the other change', async () => {
    const a = await worker(backend)
    const b = await worker(backend)
    await a.config.update((d) => void (d.appSettings.backup = { daily: false, keep: 3 }))
    let runs = 0
    const result = await b.config.update((d) => {
      runs++
      d.instances.push(instance('i9'))
    })
    expect(runs).toBe(2)
    expect(result.appSettings.backup).toEqual({ daily: false, keep: 3 })
    expect(b.config.data.instances.map((i) => i._id)).toEqual(['i9'])
    const stored = await storedDocument(b.db)
    expect(stored.appSettings.backup).toEqual({ daily: false, keep: 3 })
    expect(stored.instances.map((i) => i._id)).toEqual(['i9'])
  })

  it('two workers making the account at once keep one: the second re-applies "create unless there is one" and takes the first one\'s', async () => {
    const a = await worker(backend)
    const b = await worker(backend)
    const services = [new AccountService(new AccountRepo(a.config), systemClock), new AccountService(new AccountRepo(b.config), systemClock)]
    await Promise.all(services.map((s) => s.ensure()))
    expect(services[0]!.token()).toBe(services[1]!.token())
    expect(services.filter((s) => s.generatedNow)).toHaveLength(1)
    expect((await storedDocument(a.db)).account!.api_token).toBe(services[0]!.token())
  })

  it("the first start copies the data dir's config.json into the database once, leaves the file as it is, and says so", async () => {
    const file = join(dir, 'config.json')
    const text = JSON.stringify({ version: 1, account, appSettings: { smtp: null }, instances: [instance('i1')] }, null, 2) + '\n'
    await writeFile(file, text)
    const logged: string[] = []
    const a = await worker(backend, file, (m) => logged.push(m))
    expect(a.config.data.account).toEqual(account)
    expect(a.config.data.instances.map((i) => i._id)).toEqual(['i1'])
    expect(logged).toHaveLength(1)
    expect(logged[0]).toMatch(/configuration now lives in the database/)
    expect(await readFile(file, 'utf8')).toBe(text)
    // A change goes to the database only; another worker's own config.json is not copied over it.
    await a.config.update((d) => void d.instances.push(instance('i2')))
    expect(await readFile(file, 'utf8')).toBe(text)
    const other = join(dir, 'other-config.json')
    await writeFile(other, JSON.stringify({ version: 1, account: null, appSettings: { smtp: null }, instances: [] }))
    const b = await worker(backend, other, (m) => logged.push(m))
    expect(b.config.data.instances.map((i) => i._id)).toEqual(['i1', 'i2'])
    expect(b.config.data.account).toEqual(account)
    expect(logged).toHaveLength(1)
  })

  it('an unreadable config.json stops the first start as it does without a database, and nothing is written', async () => {
    const file = join(dir, 'config.json')
    await writeFile(file, '{ "version": 1, "acc')
    const db = await connect(backend)
    await expect(ConfigStore.openInDatabase(db, { seedFile: file })).rejects.toThrow(DataFileError)
    expect(await db.db.selectFrom('config_document').selectAll().execute()).toEqual([])
  })

  it('a damaged row is refused with the error a damaged config.json gives, and is left as it is', async () => {
    const { db } = await worker(backend)
    // A row that parses but fails the document's checks, and one that does not parse.
    for (const body of [JSON.stringify({ version: 1, account: { _id: 'acc' }, appSettings: { smtp: null }, instances: [] }), '{ "version": 1, "acc']) {
      await sql`UPDATE config_document SET body = ${body} WHERE id = 'config'`.execute(db.db)
      const file = join(dir, 'bad.json')
      await writeFile(file, body)
      const fromFile = await new DurableJsonFile(file, checkConfig).read().catch((e: unknown) => e)
      const fromRow = await ConfigStore.openInDatabase(db).catch((e: unknown) => e)
      expect(fromFile).toBeInstanceOf(DataFileError)
      expect(fromRow).toBeInstanceOf(DataFileError)
      expect(((fromRow as DataFileError).cause as Error).message).toBe(((fromFile as DataFileError).cause as Error).message)
      expect((fromRow as DataFileError).message).toMatch(/config_document.*unreadable.*left untouched/)
      expect((await storedRow(db)).body).toBe(body)
    }
  })

  it("a damaged instance row is refused naming the table and the instance, and is left as it is; so are instances put back into the document's row", async () => {
    const { db, config } = await worker(backend)
    await config.update((d) => void d.instances.push(instance('i1')))
    await sql`UPDATE config_instances SET body = '{"_id": "i1"}' WHERE id = 'i1'`.execute(db.db)
    const fromRow = await ConfigStore.openInDatabase(db).catch((e: unknown) => e)
    expect(fromRow).toBeInstanceOf(DataFileError)
    expect((fromRow as DataFileError).message).toMatch(/table config_instances, id i1\) is unreadable \(the instance \(_id i1\): \(record\) must have required property 'createdAt'\)/)
    expect(await db.db.selectFrom('config_instances').select('body').execute()).toEqual([{ body: '{"_id": "i1"}' }])

    await sql`DELETE FROM config_instances`.execute(db.db)
    const body = JSON.stringify({ version: 1, account: null, appSettings: { smtp: null }, instances: [instance('i2')] })
    await sql`UPDATE config_document SET body = ${body} WHERE id = 'config'`.execute(db.db)
    const fromDocument = await ConfigStore.openInDatabase(db).catch((e: unknown) => e)
    expect(fromDocument).toBeInstanceOf(DataFileError)
    expect((fromDocument as DataFileError).message).toMatch(/config_document.*instances are kept in the table config_instances/)
  })

  it('refresh() refuses a damaged row and keeps the document it had', async () => {
    const a = await worker(backend)
    await a.config.update((d) => void (d.account = account))
    await sql`UPDATE config_document SET body = '[]', version = version + 1 WHERE id = 'config'`.execute(a.db.db)
    await expect(a.config.refresh()).rejects.toThrow(DataFileError)
    expect(a.config.data.account).toEqual(account)
  })

  it('a row deleted by hand is written again, whole, by the next change', async () => {
    const a = await worker(backend)
    await a.config.update((d) => void (d.account = account))
    await sql`DELETE FROM config_document`.execute(a.db.db)
    await a.config.update((d) => void d.instances.push(instance('i1')))
    expect((await storedRow(a.db)).version).toBe(1)
    expect(await storedDocument(a.db)).toMatchObject({ account, instances: [{ _id: 'i1' }] })
  })

  it('a worker holding a later version than a row written again from 1 reads it whole', async () => {
    const a = await worker(backend)
    await a.config.update((d) => void d.instances.push(instance('i1')))
    await a.config.update((d) => void (d.account = account))
    const b = await worker(backend)
    await sql`DELETE FROM config_document`.execute(a.db.db)
    await a.config.update((d) => void (d.instances[0]!.settings.bot_name = 'Ana'))
    expect((await storedRow(a.db)).version).toBe(1)
    expect((await b.config.refresh()).instances.map((i) => i.settings.bot_name)).toEqual(['Ana'])
  })

  it('three workers changing 200 instances at once lose no change: every one resolves and is stored', async () => {
    const [a, b, c] = [await worker(backend), await worker(backend), await worker(backend)]
    const ids = Array.from({ length: 200 }, (_, i) => `i${i}`)
    await a.config.update((d) => void d.instances.push(...ids.map(instance)))
    await Promise.all([b.config.refresh(), c.config.refresh()])
    // Each worker changes its own third of the instances, one change after another, all three at
    // once: every change is acknowledged and the last one of each instance is what is stored.
    const rounds = 40
    const results = await Promise.allSettled(
      [a, b, c].map(async (w, n) => {
        for (let k = 0; k < rounds; k++) {
          const id = ids[(k * 3 + n) % ids.length]!
          await w.config.update((d) => void (d.instances.find((i) => i._id === id)!.settings.bot_name = `w${n} ${k}`))
        }
      })
    )
    expect(results.filter((r) => r.status === 'rejected').map((r) => String((r as PromiseRejectedResult).reason))).toEqual([])
    const stored = (await storedDocument(a.db)).instances
    const expected = new Map<string, string>()
    for (let n = 0; n < 3; n++) for (let k = 0; k < rounds; k++) expected.set(ids[(k * 3 + n) % ids.length]!, `w${n} ${k}`)
    expect(stored.filter((i) => expected.has(i._id)).map((i) => [i._id, i.settings.bot_name])).toEqual([...expected].sort((x, y) => ids.indexOf(x[0]) - ids.indexOf(y[0])))
    expect(stored).toHaveLength(200)
  })

  it('a write after close is refused and the row is left as it was', async () => {
    const a = await worker(backend)
    await a.config.update((d) => void (d.account = account))
    await a.config.close()
    const before = await storedRow(a.db)
    await expect(a.config.update((d) => void (d.account = null))).rejects.toThrow(/closed/)
    expect(await storedRow(a.db)).toEqual(before)
  })
})

describe('on postgres: LISTEN/NOTIFY', () => {
  it("a subscribed worker reads another's committed write without asking", async () => {
    const a = await worker('postgres')
    const b = await worker('postgres')
    const seen: Array<Error | null> = []
    let waiting: { until: (data: Readonly<ConfigData>) => boolean; resolve: () => void } | null = null
    await b.config.subscribe((err, data) => {
      seen.push(err)
      if (waiting?.until(data)) waiting.resolve()
    })
    const refreshedWith = (until: (data: Readonly<ConfigData>) => boolean) => new Promise<void>((resolve) => (waiting = { until, resolve }))

    const first = refreshedWith((d) => d.account !== null)
    await a.config.update((d) => void (d.account = account))
    await first
    expect(b.config.data.account).toEqual(account)

    // B's own write is notified to B too; then A, refreshed, adds another instance, which B reads.
    await b.config.update((d) => void d.instances.push(instance('i1')))
    await a.config.refresh()
    const second = refreshedWith((d) => d.instances.length === 2)
    await a.config.update((d) => void d.instances.push(instance('i2')))
    await second
    expect(b.config.data.instances.map((i) => i._id)).toEqual(['i1', 'i2'])
    expect(seen.every((e) => e === null)).toBe(true)
    // Closing stops listening: the held connection goes back, so the pool can end (else this hangs).
    await b.config.close()
    await b.db.close()
  })

  it('a listening connection that breaks is opened again, and the writes made meanwhile are read', async () => {
    const a = await worker('postgres')
    const b = await worker('postgres')
    await b.config.subscribe(() => {}, { min: 20, max: 100 })
    // The server ends the listening backend (a restart, a network cut); A writes before B listens again.
    const ended = await a.db.db.executeQuery<{ ended: boolean }>(
      sql`SELECT pg_terminate_backend(pid) AS ended FROM pg_stat_activity WHERE datname = current_database() AND query = 'LISTEN chatapp_config'`.compile(a.db.db)
    )
    expect(ended.rows).toEqual([{ ended: true }])
    await a.config.update((d) => void (d.account = account))
    await expect.poll(() => b.config.data.account).toEqual(account)
    // Listening again: a later write arrives by notification, without a refresh asked.
    await a.config.update((d) => void d.instances.push(instance('i1')))
    await expect.poll(() => b.config.data.instances.map((i) => i._id)).toEqual(['i1'])
  })
})
