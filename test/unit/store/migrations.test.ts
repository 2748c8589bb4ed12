/**
 * Migrations (src/main/store/db/migrations): a database of every earlier version opens at the latest
 * one with its data whole, the way a desk upgrades from any release. Each version has rows written as
 * that version stored them (SEEDS); a new migration adds its version's seed here and the test covers
 * the upgrade from every version before it. A migration runs in one transaction: a failing one leaves
 * the database at the version before. Each on a real SQLite file and on a real PostgreSQL server.
 */
import { copyFile, mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Kysely, sql } from 'kysely'
import { Migrator } from 'kysely/migration'
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { openDatabaseAt, type DatabaseLocation } from '../../../src/main/store/db/database'
import { MIGRATIONS } from '../../../src/main/store/db/migrations'
import { openSqliteFile } from '../../../src/main/store/db/sqlite-thread/sqlite-file'
import { postgresDialect } from '../../../src/main/store/db/postgres-dialect'
import { matchingMessages } from '../../../src/main/store/db/search-sql'
import { chunkSeqsMatching } from '../../../src/main/store/db/knowledge-search-sql'
import type { Database } from '../../../src/main/store/db/schema'
import { dataRepositories } from '../../../src/main/store/repos/data-repositories'
import { subjectHash } from '../../../src/main/store/repos/customer-data-repo'
import { BACKENDS, createTestDatabase, dropTestDatabase, type Backend } from '../../helpers/postgres'

const NAMES = Object.keys(MIGRATIONS)

/** Rows a database of each version holds (by the version's number of migrations), and a check that they survived. */
const SEEDS: Record<number, { write(db: Kysely<any>): Promise<void>; check(db: Kysely<any>): Promise<void> }> = {
  0: { write: async () => {}, check: async () => {} },
  1: {
    async write(db) {
      await sql`INSERT INTO messages (instance_id, id, chat_id, from_me, push_name, type, text, timestamp, status, source) VALUES ('i1', 'M1', '15550001111@s.whatsapp.net', 0, 'Ann', 'text', 'Olá, uma calabresa', 1700000000000, 'RECEIVED', 'inbound')`.execute(db)
      await sql`INSERT INTO intents (id, instance_id, client_id, title, keyword, reply, action, created_at, updated_at, v) VALUES ('t1', 'i1', 'c', 'Hi', 'hi', 'Hello', NULL, '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z', 0)`.execute(db)
    },
    async check(db) {
      // Found by the search index of either database (FTS5's on SQLite, pg_trgm's on PostgreSQL).
      const rows = await matchingMessages(db as Kysely<Database>, { instanceId: 'i1', q: 'labres', beforeSeq: Number.MAX_SAFE_INTEGER, limit: 10 })
      expect(rows.map((r) => r.id)).toEqual(['M1'])
      expect(await db.selectFrom('intents').select(['title', 'created_at']).execute()).toEqual([{ title: 'Hi', created_at: Date.parse('2026-01-01T00:00:00.000Z') }])
    }
  },
  2: {
    async write(db) {
      await sql`INSERT INTO staff (id, name, login, role, instance_ids, password_hash, failed_logins, locked_until, created_at, updated_at) VALUES ('s1', 'Bea', 'bea', 'agent', '["i1"]', NULL, 0, NULL, '2026-11-01T00:00:00.000Z', '2026-11-01T00:00:00.000Z')`.execute(db)
      await sql`INSERT INTO api_keys (id, name, key_hash, scopes, instance_ids, created_at) VALUES ('k1', 'script', 'ab', '["messages:send"]', NULL, '2026-11-01T00:00:00.000Z')`.execute(db)
      await sql`UPDATE conversations SET assigned_to = 's1', assigned_at = 1700000000000`.execute(db)
    },
    async check(db) {
      expect(await db.selectFrom('staff').select(['login', 'instance_ids']).execute()).toEqual([{ login: 'bea', instance_ids: '["i1"]' }])
      expect((await db.selectFrom('api_keys').select('scopes').execute()).map((r) => r.scopes)).toEqual(['["messages:send"]'])
    }
  },
  3: {
    async write(db) {
      await sql`INSERT INTO workers (id, url, started_at, last_seen_at, max_instances) VALUES ('w1', 'http://10.0.0.1:3000', 1700000000000, 1700000005000, NULL)`.execute(db)
      await sql`INSERT INTO instance_leases (instance_id, owner, fencing_token, expires_at, acquired_at) VALUES ('i1', 'w1', 7, 1700000035000, 1700000000000)`.execute(db)
    },
    async check(db) {
      expect(await db.selectFrom('workers').selectAll().execute()).toEqual([{ id: 'w1', url: 'http://10.0.0.1:3000', started_at: 1700000000000, last_seen_at: 1700000005000, max_instances: null }])
      expect(await db.selectFrom('instance_leases').selectAll().execute()).toEqual([{ instance_id: 'i1', owner: 'w1', fencing_token: 7, expires_at: 1700000035000, acquired_at: 1700000000000 }])
    }
  },
  4: {
    async write(db) {
      await sql`INSERT INTO config_document (id, body, version, updated_at) VALUES ('config', '{"version":1,"account":null,"appSettings":{"smtp":null},"instances":[]}', 7, 1700000000000)`.execute(db)
    },
    async check(db) {
      expect(await db.selectFrom('config_document').select(['id', 'version', 'updated_at']).execute()).toEqual([{ id: 'config', version: 7, updated_at: 1700000000000 }])
    }
  },
  5: {
    async write(db) {
      await sql`INSERT INTO idempotency_keys (key, caller, route, request_hash, status, body, created_at) VALUES ('k1', 'owner', 'messages.sendText i1', 'ab', 200, '{"status":true}', 1700000000000)`.execute(db)
      await sql`INSERT INTO idempotency_keys (key, caller, route, request_hash, status, body, created_at) VALUES ('k2', 'key:x', 'messages.sendText i1', 'cd', NULL, NULL, 1700000000001)`.execute(db)
    },
    async check(db) {
      expect(await db.selectFrom('idempotency_keys').select(['key', 'caller', 'route', 'request_hash', 'status', 'body', 'created_at']).where('key', 'in', ['k1', 'k2']).orderBy('key').execute()).toEqual([
        { key: 'k1', caller: 'owner', route: 'messages.sendText i1', request_hash: 'ab', status: 200, body: '{"status":true}', created_at: 1700000000000 },
        { key: 'k2', caller: 'key:x', route: 'messages.sendText i1', request_hash: 'cd', status: null, body: null, created_at: 1700000000001 }
      ])
    }
  },
  6: {
    async write(db) {
      await sql`INSERT INTO idempotency_keys (key, caller, route, request_hash, status, body, created_at, taken_by, fencing_token) VALUES ('k3', 'owner', 'messages.sendText i2', 'ef', NULL, NULL, 1700000000002, 'w1', 4)`.execute(db)
    },
    async check(db) {
      expect(await db.selectFrom('idempotency_keys').select(['key', 'taken_by', 'fencing_token']).where('key', '=', 'k3').execute()).toEqual([{ key: 'k3', taken_by: 'w1', fencing_token: 4 }])
    }
  },
  7: {
    async write(db) {
      // A message deleted for everyone: the update that clears its text takes it out of the index.
      await sql`INSERT INTO messages (instance_id, id, chat_id, from_me, push_name, type, text, timestamp, status, source) VALUES ('i1', 'M7', '220000000000001@lid', 0, 'Lu', 'text', 'Quero apagar esta mensagem', 1700000000007, 'RECEIVED', 'inbound')`.execute(db)
      await sql`UPDATE messages SET text = '', details = '{"deleted":{"at":1700000000008,"by":"customer"}}' WHERE id = 'M7'`.execute(db)
      await sql`UPDATE conversations SET username = 'lu.bakes' WHERE chat_id = '220000000000001@lid'`.execute(db)
    },
    async check(db) {
      expect(await matchingMessages(db as Kysely<Database>, { instanceId: 'i1', q: 'apagar', beforeSeq: Number.MAX_SAFE_INTEGER, limit: 10 })).toEqual([])
      expect(await db.selectFrom('messages').select(['text', 'details']).where('id', '=', 'M7').execute()).toEqual([{ text: '', details: '{"deleted":{"at":1700000000008,"by":"customer"}}' }])
    }
  },
  8: {
    async write(db) {
      await sql`INSERT INTO erasing (erasure_id, instance_id, jid, up_to_seq) VALUES ('e1', 'i9', '15559998888@s.whatsapp.net', 12)`.execute(db)
    },
    async check(db) {
      expect(await db.selectFrom('erasing').selectAll().execute()).toEqual([{ erasure_id: 'e1', instance_id: 'i9', jid: '15559998888@s.whatsapp.net', up_to_seq: 12 }])
    }
  },
  9: {
    async write(db) {
      await sql`INSERT INTO knowledge (id, instance_id, title, source, file_name, chunk_count, created_at, updated_at, excerpt, content) VALUES ('k1', 'i1', 'Horário', 'manual', NULL, 1, '2026-11-27T00:00:00.000Z', '2026-11-27T00:00:00.000Z', 'Aos domingos', 'Aos domingos abrimos às 11:00.')`.execute(db)
      await sql`INSERT INTO knowledge_chunks (instance_id, knowledge_id, position, title, body) VALUES ('i1', 'k1', 0, 'Horário', 'Aos domingos abrimos às 11:00.')`.execute(db)
      await sql`INSERT INTO assistant_settings (instance_id, settings, api_key, updated_at) VALUES ('i1', '{"enabled":true}', 'sk-1', '2026-11-27T00:00:00.000Z')`.execute(db)
      await sql`INSERT INTO assistant_usage (instance_id, day, prompt_tokens, completion_tokens, replies, handoffs, fallbacks, asks) VALUES ('i1', '2026-11-27', 10, 2, 1, 0, 0, 0)`.execute(db)
    },
    async check(db) {
      // Found by the chunks' search index of either database (FTS5's on SQLite, pg_trgm's on PostgreSQL).
      const seqs = chunkSeqsMatching(db as Kysely<Database>, 'i1', 'DOMINGO horario')!
      expect(await db.selectFrom('knowledge_chunks').select('knowledge_id').where('seq', 'in', seqs).execute()).toEqual([{ knowledge_id: 'k1' }])
      expect(await db.selectFrom('assistant_settings').select(['settings', 'api_key']).execute()).toEqual([{ settings: '{"enabled":true}', api_key: 'sk-1' }])
      expect(await db.selectFrom('assistant_usage').select(['day', 'prompt_tokens']).execute()).toEqual([{ day: '2026-11-27', prompt_tokens: 10 }])
    }
  },
  10: {
    async write(db) {
      await sql`INSERT INTO config_instances (id, position, body, stamp, updated_at) VALUES ('i10', 0, '{"_id":"i10"}', 3, 1700000000010)`.execute(db)
    },
    async check(db) {
      expect(await db.selectFrom('config_instances').selectAll().where('id', '=', 'i10').execute()).toEqual([{ id: 'i10', position: 0, body: '{"_id":"i10"}', stamp: 3, updated_at: 1700000000010 }])
    }
  },
  11: {
    async write(db) {
      // Instants are epoch ms from version 11 on.
      await sql`INSERT INTO quick_replies (id, shortcut, text, created_at, updated_at) VALUES ('q11', '/hi', 'Hello', 1767225600123, 1767225600456)`.execute(db)
    },
    async check(db) {
      expect(await db.selectFrom('quick_replies').select(['created_at', 'updated_at']).where('id', '=', 'q11').execute()).toEqual([{ created_at: 1767225600123, updated_at: 1767225600456 }])
    }
  },
  12: {
    async write(db) {
      // From version 12 on SQLite refuses a NULL time where the text refused it (a trigger): nothing new to store.
      await sql`INSERT INTO labels (id, name, color, created_at, updated_at) VALUES ('L12', 'vip12', 'teal', 1767225600012, 1767225600012)`.execute(db)
    },
    async check(db) {
      expect(await db.selectFrom('labels').select(['name', 'created_at']).where('id', '=', 'L12').execute()).toEqual([{ name: 'vip12', created_at: 1767225600012 }])
    }
  }
}

let dir: string
let pgUrl: string | undefined
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'chatapp-migrations-'))
})
afterEach(async () => {
  await rm(dir, { recursive: true, force: true })
  if (pgUrl) await dropTestDatabase(pgUrl)
  pgUrl = undefined
})

it('every migration has a seed of its version (a new migration adds one)', () => {
  expect(Object.keys(SEEDS).map(Number).sort((a, b) => a - b)).toEqual(Array.from({ length: NAMES.length + 1 }, (_, i) => i))
})

it('on SQLite, migration 1 still makes the schema it was released with (its dialect branches change nothing there)', async () => {
  const empty = await emptyDatabase('sqlite', 'v1-schema')
  const { error } = await new Migrator({ db: empty.db, provider: { getMigrations: async () => ({ ...MIGRATIONS }) } }).migrateTo(NAMES[0]!)
  expect(error).toBeUndefined()
  const rows = await sql<{ type: string; name: string; tbl_name: string; sql: string | null }>`SELECT type, name, tbl_name, sql FROM sqlite_master WHERE name NOT LIKE 'kysely_%' ORDER BY type, name`.execute(empty.db)
  await empty.close()
  // The schema as released, dumped the same way from migration 1 before it learned PostgreSQL.
  const released = await readFile(new URL('../../fixtures/sqlite-schema-v1.txt', import.meta.url), 'utf8')
  expect(rows.rows.map((r) => `${r.type} ${r.name} ON ${r.tbl_name}\n${r.sql ?? ''}`).join('\n\n') + '\n').toBe(released)
})

/**
 * An empty database on `backend` with a bare Kysely on it (no migrations run), and where the app
 * opens it; with `template` (one of {@link buildVersions}), a copy of that database instead.
 */
async function emptyDatabase(backend: Backend, name: string, template?: string): Promise<{ db: Kysely<any>; location: DatabaseLocation; tables(): Promise<string[]>; close(): Promise<void> }> {
  if (backend === 'sqlite') {
    const file = join(dir, `${name}.db`)
    if (template) await copyFile(template, file)
    const opened = await openSqliteFile<any>(file, { readOnly: false })
    const db = opened.db
    return {
      db,
      location: { file },
      tables: async () => (await sql<{ name: string }>`SELECT name FROM sqlite_schema WHERE type = 'table'`.execute(db)).rows.map((t) => t.name),
      close: () => opened.close()
    }
  }
  pgUrl = await createTestDatabase(template)
  const db = new Kysely<any>({ dialect: postgresDialect(pgUrl, name).dialect })
  return {
    db,
    location: { url: pgUrl },
    tables: async () => (await db.selectFrom('pg_tables').select('tablename').where('schemaname', '=', sql<string>`current_schema()`).execute()).map((t: { tablename: string }) => t.tablename),
    close: () => db.destroy()
  }
}

/** The chains of {@link buildVersions}: built at once, before the file's first test, and removed after its last. */
const chains: Array<{ build(): Promise<void>; remove(): Promise<void> }> = []
beforeAll(async () => {
  const built = await Promise.allSettled(chains.map((c) => c.build()))
  const failed = built.find((b) => b.status === 'rejected')
  if (failed) throw failed.reason
})
afterAll(async () => {
  for (const c of chains) await c.remove()
})

/**
 * The database as each version from 0 to `upTo` left it (index: the version), built once by one chain
 * of migrations — the same Migrator, one version at a time — each version kept aside (SQLite: an
 * online backup of the file; PostgreSQL: a database copied from it, CREATE DATABASE … TEMPLATE), so a
 * case starts from a copy of one instead of replaying the versions before it. `seeded`: each
 * version's rows (SEEDS) written at that version, as it stored them (a later migration may change how
 * a column holds them). The answer fills in before the file's first test (the chains are built side
 * by side: {@link chains}).
 */
function buildVersions(backend: Backend, upTo: number, seeded: boolean): string[] {
  const versions: string[] = []
  let chainDir: string | undefined
  const step = async (db: Kysely<any>, v: number): Promise<void> => {
    const { error } = await new Migrator({ db, provider: { getMigrations: async () => ({ ...MIGRATIONS }) } }).migrateTo(NAMES[v - 1]!)
    expect(error).toBeUndefined()
    if (seeded) await SEEDS[v]!.write(db)
  }
  const build = async (): Promise<void> => {
    if (backend === 'sqlite') {
      chainDir = await mkdtemp(join(tmpdir(), 'chatapp-migrations-chain-'))
      const chain = await openSqliteFile<any>(join(chainDir, 'chain.db'), { readOnly: false })
      try {
        for (let v = 0; v <= upTo; v++) {
          if (v > 0) await step(chain.db, v)
          versions.push(join(chainDir, `v${v}.db`))
          await chain.backupTo(versions[v]!)
        }
      } finally {
        await chain.close()
      }
      return
    }
    versions.push(await createTestDatabase())
    for (let v = 1; v <= upTo; v++) {
      const url = await createTestDatabase(versions[v - 1])
      versions.push(url)
      const db = new Kysely<any>({ dialect: postgresDialect(url, `chain v${v}`).dialect })
      try {
        await step(db, v)
      } finally {
        await db.destroy()
      }
    }
  }
  const remove = async (): Promise<void> => {
    if (chainDir) await rm(chainDir, { recursive: true, force: true })
    if (backend === 'postgres') for (const url of versions) await dropTestDatabase(url)
  }
  chains.push({ build, remove })
  return versions
}

describe.each(BACKENDS)('on %s', (backend) => {
  const versions = buildVersions(backend, NAMES.length, true)

  /** A copy of the database of version `from` (see {@link buildVersions}), where the app opens it. */
  async function copyOfVersion(from: number): Promise<DatabaseLocation> {
    if (backend === 'sqlite') {
      const file = join(dir, `v${from}.db`)
      await copyFile(versions[from]!, file)
      return { file }
    }
    pgUrl = await createTestDatabase(versions[from])
    return { url: pgUrl }
  }

  for (let from = 0; from <= NAMES.length; from++) {
    it(`upgrades a database of version ${from} to ${NAMES.length}, its data whole`, async () => {
      const db = await openDatabaseAt(await copyOfVersion(from))
      try {
        expect(await db.version()).toBe(NAMES.length)
        for (let v = 0; v <= from; v++) await SEEDS[v]!.check(db.db)
      } finally {
        await db.close()
      }
    })
  }

  it("migration 10 moves the configuration's instances out of the document's row into a row each, in their order, stamped with its version", async () => {
    const old = await emptyDatabase(backend, 'config-instances')
    const { error } = await new Migrator({ db: old.db, provider: { getMigrations: async () => ({ ...MIGRATIONS }) } }).migrateTo('0009-assistant')
    expect(error).toBeUndefined()
    const instances = [{ _id: 'b', session_id: 's-b' }, { _id: 'a', session_id: 's-a' }]
    const body = { version: 1, account: { _id: 'acc', api_token: 't', createdAt: '2026-11-27T00:00:00.000Z' }, appSettings: { smtp: null }, instances }
    await sql`INSERT INTO config_document (id, body, version, updated_at) VALUES ('config', ${JSON.stringify(body)}, 12, 1700000000000)`.execute(old.db)
    await old.close()

    const db = await openDatabaseAt(old.location)
    try {
      const rows = await db.db.selectFrom('config_instances').selectAll().orderBy('position').execute()
      expect(rows.map((r) => ({ ...r, body: JSON.parse(r.body) }))).toEqual([
        { id: 'b', position: 0, body: instances[0], stamp: 12, updated_at: 1700000000000 },
        { id: 'a', position: 1, body: instances[1], stamp: 12, updated_at: 1700000000000 }
      ])
      const doc = await db.db.selectFrom('config_document').select(['body', 'version']).executeTakeFirstOrThrow()
      expect({ body: JSON.parse(doc.body), version: doc.version }).toEqual({ body: { ...body, instances: [] }, version: 12 })
    } finally {
      await db.close()
    }
  })

  it('a migration that fails leaves the database at the version before, untouched', async () => {
    const empty = await emptyDatabase(backend, 'fail')
    const broken = {
      ...MIGRATIONS,
      '9999-broken': {
        async up(k: Kysely<any>) {
          await k.schema.createTable('half_made').addColumn('x', 'integer').execute()
          throw new Error('the migration fails halfway')
        }
      }
    }
    const { error } = await new Migrator({ db: empty.db, provider: { getMigrations: async () => broken } }).migrateToLatest()
    expect(String(error)).toMatch(/fails halfway/)
    const tables = await empty.tables()
    // The whole batch ran in one transaction: neither the broken one's table nor the first migration's stayed.
    expect(tables).not.toContain('half_made')
    expect(tables).not.toContain('messages')
    await empty.close()
  })
})

/**
 * Migration 11 (docs/storage.md "Times"): the instants earlier versions kept as ISO text become epoch
 * ms, and every one reads back through the repositories as the same instant, to the millisecond. The
 * forms a value may have been written in: what every release wrote, and what a client or an older
 * import may have left (no milliseconds, an offset, a space, no zone, a finer fraction, before 1970).
 */
const FORMS: ReadonlyArray<readonly [written: string, reads: string]> = [
  ['2026-03-04T05:06:07.089Z', '2026-03-04T05:06:07.089Z'],
  ['2026-03-04T05:06:07Z', '2026-03-04T05:06:07.000Z'],
  ['2026-03-04T07:06:07.089+02:00', '2026-03-04T05:06:07.089Z'],
  ['2026-03-03T23:36:07.089-0530', '2026-03-04T05:06:07.089Z'],
  ['2026-03-04 05:06:07.089', '2026-03-04T05:06:07.089Z'],
  ['2026-03-04T05:06:07.0891234Z', '2026-03-04T05:06:07.089Z'],
  ['1969-12-31T23:59:59.999Z', '1969-12-31T23:59:59.999Z'],
  ['2027-12-31T23:59:59.999Z', '2027-12-31T23:59:59.999Z']
]

/** A time written in one of {@link FORMS}, and the ISO text it must read back as. */
interface Time {
  written: string
  reads: string
}

/** Rows of every table with a text instant at `version`, each time in the next of {@link FORMS}; answers what each column must hold after. */
async function writeTimes(db: Kysely<any>, version: number): Promise<Map<string, Array<string | null>>> {
  let k = 0
  const at = (): Time => {
    const [written, reads] = FORMS[k++ % FORMS.length]!
    return { written, reads }
  }
  const expected = new Map<string, Array<string | null>>()
  const put = async (table: string, row: Record<string, unknown>): Promise<void> => {
    const values: Record<string, unknown> = {}
    for (const [column, v] of Object.entries(row)) {
      const time = v !== null && typeof v === 'object' ? (v as Time) : undefined
      values[column] = time ? time.written : v
      if (time || (v === null && /(^|_)at$|^until$/.test(column))) {
        const key = `${table}.${column}`
        expected.set(key, [...(expected.get(key) ?? []), time ? time.reads : null])
      }
    }
    await db.insertInto(table).values(values).execute()
  }
  await put('chat_pauses', { instance_id: 'i1', chat_id: 'A', since: at(), until: at(), reason: 'handoff', by: 'owner' })
  await put('chat_pauses', { instance_id: 'i1', chat_id: 'B', since: at(), until: null, reason: 'handoff', by: 'owner' })
  await put('intents', { id: 'in1', instance_id: 'i1', client_id: 'c', title: 'Hi', keyword: 'hi', reply: 'Hello', action: null, created_at: at(), updated_at: at(), v: 0 })
  await put('survey_steps', { id: 'st1', instance_id: 'i1', client_id: 'c', title: 'S', keyword: 'go', reply: 'Q1', sort_id: 1, action: null, closing_msg: null, created_at: at(), updated_at: at(), v: 0 })
  const run = { instance_id: 'i1', survey_title: 'S', chat_id: 'A', contact_id: null, push_name: null, current_step_id: null, answers: '[]', handled: null }
  await put('survey_runs', { ...run, id: 'r1', status: 'completed', started_at: at(), updated_at: at(), completed_at: at() })
  await put('survey_runs', { ...run, id: 'r2', status: 'in_progress', started_at: at(), updated_at: at(), completed_at: null })
  await put('attachments', { id: 'a1', instance_id: 'i1', client_id: 'c', filename: 'f.txt', mimetype: 'text/plain', size: 1, sha256: 'ab', created_at: at() })
  await put('quick_replies', { id: 'q1', shortcut: '/hi', text: 'Hello', created_at: at(), updated_at: at() })
  // As text these sort by their digits (L2 first); as instants L1 is the older (03:00Z).
  await put('labels', { id: 'L1', name: 'vip', color: '#f00', created_at: { written: '2026-01-02T05:00:00.000+02:00', reads: '2026-01-02T03:00:00.000Z' }, updated_at: at() })
  await put('labels', { id: 'L2', name: 'new', color: '#0f0', created_at: { written: '2026-01-02T04:00:00.000Z', reads: '2026-01-02T04:00:00.000Z' }, updated_at: at() })
  await put('contact_groups', { id: 'g1', instance_id: 'i1', client_id: 'c', title: 'G', is_default: 0, created_at: at(), updated_at: at(), v: 0 })
  const contact = { instance_id: 'i1', client_id: 'c', group_id: null, channel: 'whatsapp', notes: '', opted_out: 0, v: 0 }
  await put('contacts', { ...contact, id: 'c1', name: 'Ann', number: '15550001111', last_seen_at: at(), created_at: at(), updated_at: at() })
  await put('contacts', { ...contact, id: 'c2', name: 'Bo', number: '15550002222', last_seen_at: null, created_at: at(), updated_at: at() })
  await put('broadcasts', { id: 'b1', instance_id: 'i1', client_id: 'c', send_type: 'numbers', to: 'x', message: '{"type":"text","text":"Hi"}', status: 'running', status_reason: null, current: null, schedule_id: null, created_at: at(), updated_at: at(), v: 0 })
  const recipient = { broadcast_id: 'b1', name: null, contact_id: null, message_id: null, reason: null }
  await put('broadcast_recipients', { ...recipient, position: 0, number: '1', state: 'sent', message_id: 'm1', at: at(), done_seq: 0 })
  await put('broadcast_recipients', { ...recipient, position: 1, number: '2', state: 'failed', reason: 'no', at: at(), done_seq: 1 })
  await put('broadcast_recipients', { ...recipient, position: 2, number: '3', state: 'pending', at: null, done_seq: null })
  // A blank time (the record's "" for none): NULL, read back as "".
  await put('broadcast_recipients', { ...recipient, position: 3, number: '4', state: 'sent', message_id: 'm4', at: { written: '', reads: null }, done_seq: 2 })
  const schedule = { instance_id: 'i1', client_id: 'c', title: 'T', target: '{"type":"chat","id":"A"}', message: '{"type":"text","text":"Hi"}', repeat: 'daily', start_at: '2026-03-04T10:00', days: '[]', runs: '[]', v: 0 }
  await put('schedules', { ...schedule, id: 's1', active: 1, next_run_at: at(), created_at: at(), updated_at: at() })
  await put('schedules', { ...schedule, id: 's2', active: 0, next_run_at: null, created_at: at(), updated_at: at() })
  await put('bot_activity', { instance_id: 'i1', at: at(), chat_id: 'A', message_id: 'm1', matched: 'none', actions: '[]' })
  const delivery = { instance_id: 'i1', event: 'onMessage', url: 'https://hooks.example/in', payload: '{}', last_error: null, last_status: null }
  await put('webhook_deliveries', { ...delivery, id: 'd1', status: 'delivered', attempts: 1, next_attempt_at: null, created_at: at(), delivered_at: at() })
  await put('webhook_deliveries', { ...delivery, id: 'd2', status: 'pending', attempts: 0, next_attempt_at: at(), created_at: at(), delivered_at: null })
  await put('auth_creds', { instance_id: 'i1', creds: '{}', updated_at: at() })
  await put('erasures', { id: 'e1', instance_id: 'i1', subject_hash: subjectHash('15559998888'), by: 'owner', at: at(), counts: '{}' })
  await put('legacy_import', { step: 'imported', done_at: at() })
  if (version >= 2) {
    await put('staff', { id: 'p1', name: 'Bea', login: 'bea', role: 'agent', instance_ids: null, password_hash: null, failed_logins: 0, locked_until: null, created_at: at(), updated_at: at() })
    await put('api_keys', { id: 'k1', name: 'script', key_hash: 'ab', scopes: '[]', instance_ids: null, created_at: at(), last_used_at: at(), last_used_ip: null, revoked_at: at() })
    await put('api_keys', { id: 'k2', name: 'other', key_hash: 'cd', scopes: '[]', instance_ids: null, created_at: at(), last_used_at: null, last_used_ip: null, revoked_at: null })
  }
  if (version >= 9) {
    await put('assistant_settings', { instance_id: 'i1', settings: '{}', api_key: null, updated_at: at() })
    await put('knowledge', { id: 'kn1', instance_id: 'i1', title: 'T', source: 'manual', file_name: null, chunk_count: 0, created_at: at(), updated_at: at(), excerpt: 'x', content: 'x' })
  }
  return expected
}

/** The time columns' text of `version` (every column named `…_at`, `at`, `since` or `until` and typed text), as `table.column`. */
async function textTimeColumns(db: Kysely<any>, backend: Backend): Promise<string[]> {
  const columns =
    backend === 'postgres'
      ? (await sql<{ t: string; c: string; type: string }>`SELECT table_name AS t, column_name AS c, data_type AS type FROM information_schema.columns WHERE table_schema = current_schema()`.execute(db)).rows
      : (await sql<{ t: string; c: string; type: string }>`SELECT m.name AS t, p.name AS c, p.type AS type FROM sqlite_schema m JOIN pragma_table_info(m.name) p WHERE m.type = 'table'`.execute(db)).rows
  return columns
    .filter((r) => /(^|_)at$|^since$|^until$/.test(r.c) && /text/i.test(r.type))
    .map((r) => `${r.t}.${r.c}`)
    .sort()
}

/** The time columns (as {@link textTimeColumns} finds them, `table.column`) declared NOT NULL. */
async function notNullTimeColumns(db: Kysely<any>, backend: Backend): Promise<string[]> {
  const columns =
    backend === 'postgres'
      ? (await sql<{ t: string; c: string; nullable: string }>`SELECT table_name AS t, column_name AS c, is_nullable AS nullable FROM information_schema.columns WHERE table_schema = current_schema()`.execute(db)).rows.map((r) => ({ ...r, notnull: r.nullable === 'NO' }))
      : (await sql<{ t: string; c: string; notnull: number }>`SELECT m.name AS t, p.name AS c, p."notnull" AS "notnull" FROM sqlite_schema m JOIN pragma_table_info(m.name) p WHERE m.type = 'table'`.execute(db)).rows.map((r) => ({ ...r, notnull: r.notnull === 1 }))
  return columns
    .filter((r) => r.notnull && /(^|_)at$|^since$|^until$/.test(r.c))
    .map((r) => `${r.t}.${r.c}`)
    .sort()
}

describe.each(BACKENDS)('times on %s', (backend) => {
  const TO_MS = NAMES.indexOf('0011-times-as-ms')
  const versions = buildVersions(backend, TO_MS, false)

  it('a time that refused NULL as text refuses it as epoch ms too, on insert and on update', async () => {
    const old = await emptyDatabase(backend, 'not-null', versions[TO_MS])
    await writeTimes(old.db, TO_MS)
    const wereText = new Set(await textTimeColumns(old.db, backend))
    const refusedNull = (await notNullTimeColumns(old.db, backend)).filter((c) => wereText.has(c) && c !== 'schedules.start_at')
    await old.close()
    expect(refusedNull.length).toBeGreaterThan(30)
    const h = await openDatabaseAt(old.location)
    try {
      for (const key of refusedNull) {
        const [table, column] = key.split('.') as [string, string]
        // Every table has a row (writeTimes): setting the time to NULL is refused, the row unchanged.
        const before = (await sql<{ n: number }>`SELECT count(*) AS n FROM ${sql.table(table)} WHERE ${sql.ref(column)} IS NOT NULL`.execute(h.db)).rows[0]!.n
        expect(Number(before), key).toBeGreaterThan(0)
        await expect(sql`UPDATE ${sql.table(table)} SET ${sql.ref(column)} = NULL`.execute(h.db), key).rejects.toThrow(backend === 'sqlite' ? `NOT NULL constraint failed: ${key}` : `null value in column "${column}"`)
        const after = (await sql<{ n: number }>`SELECT count(*) AS n FROM ${sql.table(table)} WHERE ${sql.ref(column)} IS NOT NULL`.execute(h.db)).rows[0]!.n
        expect(Number(after), key).toBe(Number(before))
        // A new row without it (its table's other times given) is refused by this column's rule
        // (SQLite: the triggers run before the other columns' checks).
        if (backend === 'sqlite') {
          const others = refusedNull.filter((k) => k.startsWith(`${table}.`) && k !== key).map((k) => k.split('.')[1]!)
          const cols = sql.join([column, ...others].map((c) => sql.ref(c)))
          const values = sql.join([null, ...others.map(() => 1)])
          await expect(sql`INSERT INTO ${sql.table(table)} (${cols}) VALUES (${values})`.execute(h.db), key).rejects.toThrow(`NOT NULL constraint failed: ${key}`)
        }
      }
    } finally {
      await h.close()
    }
  })
  for (let from = 1; from <= TO_MS; from++) {
    it(`a database of version ${from} keeps every time, to the millisecond, read back the same through the repositories`, async () => {
      const old = await emptyDatabase(backend, `t${from}`, versions[from])
      const expected = await writeTimes(old.db, from)
      const wereText = await textTimeColumns(old.db, backend)
      await old.close()
      // Every instant held as text at this version is written above (schedules.start_at is a wall-clock time, kept as text).
      expect([...expected.keys()].sort()).toEqual(wereText.filter((c) => c !== 'schedules.start_at'))

      const h = await openDatabaseAt(old.location)
      try {
        expect(await h.version()).toBe(NAMES.length)
        expect(await textTimeColumns(h.db, backend)).toEqual(['schedules.start_at'])
        // Each column holds the instants as integers, NULLs as NULL.
        for (const [key, values] of expected) {
          const [table, column] = key.split('.') as [string, string]
          const held = (await sql<{ v: number | null }>`SELECT ${sql.ref(column)} AS v FROM ${sql.table(table)}`.execute(h.db)).rows.map((r) => r.v)
          expect(held.sort(byValue), key).toEqual(values.map((v) => (v === null ? null : Date.parse(v))).sort(byValue))
        }

        const repos = dataRepositories({ db: h.db, write: (work) => h.write(work) })
        const only = (key: string, i = 0): string | null => expected.get(key)![i]!
        expect(await repos.chatPauses.find('i1', 'A')).toMatchObject({ since: only('chat_pauses.since'), until: only('chat_pauses.until') })
        expect(await repos.chatPauses.find('i1', 'B')).toMatchObject({ since: only('chat_pauses.since', 1), until: null })
        expect(await repos.intents.find('in1')).toMatchObject({ createdAt: only('intents.created_at'), updatedAt: only('intents.updated_at') })
        expect(await repos.surveySteps.find('st1')).toMatchObject({ createdAt: only('survey_steps.created_at'), updatedAt: only('survey_steps.updated_at') })
        expect(await repos.surveyRuns.find('r1')).toMatchObject({ startedAt: only('survey_runs.started_at'), updatedAt: only('survey_runs.updated_at'), completedAt: only('survey_runs.completed_at') })
        expect(await repos.surveyRuns.find('r2')).toMatchObject({ startedAt: only('survey_runs.started_at', 1), updatedAt: only('survey_runs.updated_at', 1), completedAt: null })
        expect(await repos.attachments.find('a1')).toMatchObject({ createdAt: only('attachments.created_at') })
        expect(await repos.quickReplies.find('q1')).toMatchObject({ createdAt: only('quick_replies.created_at'), updatedAt: only('quick_replies.updated_at') })
        // Oldest first by instant, no longer by text.
        expect((await repos.labels.all()).map((l) => [l._id, l.createdAt])).toEqual([
          ['L1', '2026-01-02T03:00:00.000Z'],
          ['L2', '2026-01-02T04:00:00.000Z']
        ])
        expect(await repos.contactGroups.find('g1')).toMatchObject({ createdAt: only('contact_groups.created_at'), updatedAt: only('contact_groups.updated_at') })
        expect(await repos.contacts.find('c1')).toMatchObject({ last_seen_at: only('contacts.last_seen_at'), createdAt: only('contacts.created_at'), updatedAt: only('contacts.updated_at') })
        expect(await repos.contacts.find('c2')).toMatchObject({ last_seen_at: null, createdAt: only('contacts.created_at', 1) })
        const b = await repos.broadcasts.find('b1')
        expect(b).toMatchObject({ createdAt: only('broadcasts.created_at'), updatedAt: only('broadcasts.updated_at') })
        expect(b!.sent).toEqual([
          { number: '1', message_id: 'm1', at: only('broadcast_recipients.at') },
          { number: '4', message_id: 'm4', at: '' }
        ])
        expect(b!.failed).toEqual([{ number: '2', reason: 'no', at: only('broadcast_recipients.at', 1) }])
        expect(await repos.schedules.find('s1')).toMatchObject({ start_at: '2026-03-04T10:00', next_run_at: only('schedules.next_run_at'), createdAt: only('schedules.created_at'), updatedAt: only('schedules.updated_at') })
        expect(await repos.schedules.soonest()).toBe(only('schedules.next_run_at'))
        expect((await repos.schedules.due(only('schedules.next_run_at')!)).map((s) => s._id)).toEqual(['s1'])
        expect(await repos.schedules.due(new Date(Date.parse(only('schedules.next_run_at')!) - 1).toISOString())).toEqual([])
        expect((await repos.botActivity.ofInstance('i1', 10)).map((a) => a.at)).toEqual([only('bot_activity.at')])
        expect(await repos.webhookDeliveries.find('d1')).toMatchObject({ next_attempt_at: null, created_at: only('webhook_deliveries.created_at'), delivered_at: only('webhook_deliveries.delivered_at') })
        expect(await repos.webhookDeliveries.find('d2')).toMatchObject({ next_attempt_at: only('webhook_deliveries.next_attempt_at', 1), created_at: only('webhook_deliveries.created_at', 1), delivered_at: null })
        expect(await repos.customerData.erasedAt('i1', '15559998888')).toBe(only('erasures.at'))
        // A pause is in force until its end, to the millisecond.
        const until = Date.parse(only('chat_pauses.until')!)
        expect((await repos.chatPauses.inForce('i1', new Date(until - 1).toISOString())).map((p) => p.chatId).sort()).toEqual(['A', 'B'])
        expect((await repos.chatPauses.inForce('i1', new Date(until).toISOString())).map((p) => p.chatId)).toEqual(['B'])
        if (from >= 2) {
          expect(await repos.staff.find('p1')).toMatchObject({ createdAt: only('staff.created_at'), updatedAt: only('staff.updated_at') })
          expect((await repos.apiKeys.findWithHash('k1'))!.key).toMatchObject({ createdAt: only('api_keys.created_at'), lastUsedAt: only('api_keys.last_used_at'), revokedAt: only('api_keys.revoked_at') })
          expect((await repos.apiKeys.findWithHash('k2'))!.key).toMatchObject({ createdAt: only('api_keys.created_at', 1), lastUsedAt: null, revokedAt: null })
        }
        if (from >= 9) expect(await repos.knowledge.owned('i1', 'kn1')).toMatchObject({ createdAt: only('knowledge.created_at'), updatedAt: only('knowledge.updated_at') })
      } finally {
        await h.close()
      }
    })
  }

  it('a time that names no instant stops the migration, naming it; the database stays at the version before, the value kept', async () => {
    const old = await emptyDatabase(backend, 'no-time', versions[TO_MS])
    await sql`INSERT INTO intents (id, instance_id, client_id, title, keyword, reply, action, created_at, updated_at, v) VALUES ('in1', 'i1', 'c', 'Hi', 'hi', 'Hello', NULL, 'soon', '2026-01-01T00:00:00.000Z', 0)`.execute(old.db)
    await old.close()
    await expect(openDatabaseAt(old.location)).rejects.toThrow(/intents\.created_at holds "soon"/)
    const again = 'file' in old.location ? await openSqliteFile<any>(old.location.file, { readOnly: true }) : bareKysely(old.location.url)
    try {
      expect((await again.db.selectFrom('kysely_migration').select('name').execute()).length).toBe(TO_MS)
      expect(await again.db.selectFrom('intents').select(['created_at', 'updated_at']).execute()).toEqual([{ created_at: 'soon', updated_at: '2026-01-01T00:00:00.000Z' }])
    } finally {
      await again.close()
    }
  })
})

/** A Kysely on the PostgreSQL database at `url`, no migrations run. */
function bareKysely(url: string): { db: Kysely<any>; close(): Promise<void> } {
  const db = new Kysely<any>({ dialect: postgresDialect(url, 'bare').dialect })
  return { db, close: () => db.destroy() }
}

/** Nulls first, then numbers ascending. */
function byValue(a: number | null, b: number | null): number {
  return a === null ? (b === null ? 0 : -1) : b === null ? 1 : a - b
}
