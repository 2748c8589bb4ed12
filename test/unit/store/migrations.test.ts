/**
 * Migrations (src/main/store/db/migrations): a database of every earlier version opens at the latest
 * one with its data whole, the way a desk upgrades from any release. Each version has rows written as
 * that version stored them (SEEDS); a new migration adds its version's seed here and the test covers
 * the upgrade from every version before it. A migration runs in one transaction: a failing one leaves
 * the database at the version before. Each on a real SQLite file and on a real PostgreSQL server.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Kysely, sql } from 'kysely'
import { Migrator } from 'kysely/migration'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { openDatabaseAt, type DatabaseLocation } from '../../../src/main/store/db/database'
import { MIGRATIONS } from '../../../src/main/store/db/migrations'
import { openSqliteFile } from '../../../src/main/store/db/sqlite-thread/sqlite-file'
import { postgresDialect } from '../../../src/main/store/db/postgres-dialect'
import { matchingMessages } from '../../../src/main/store/db/search-sql'
import { chunkSeqsMatching } from '../../../src/main/store/db/knowledge-search-sql'
import type { Database } from '../../../src/main/store/db/schema'
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
      expect((await db.selectFrom('intents').select('title').execute()).map((r) => r.title)).toEqual(['Hi'])
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

/** An empty database on `backend` with a bare Kysely on it (no migrations run), and where the app opens it. */
async function emptyDatabase(backend: Backend, name: string): Promise<{ db: Kysely<any>; location: DatabaseLocation; tables(): Promise<string[]>; close(): Promise<void> }> {
  if (backend === 'sqlite') {
    const file = join(dir, `${name}.db`)
    const opened = await openSqliteFile<any>(file, { readOnly: false })
    const db = opened.db
    return {
      db,
      location: { file },
      tables: async () => (await sql<{ name: string }>`SELECT name FROM sqlite_schema WHERE type = 'table'`.execute(db)).rows.map((t) => t.name),
      close: () => opened.close()
    }
  }
  pgUrl = await createTestDatabase()
  const db = new Kysely<any>({ dialect: postgresDialect(pgUrl, name).dialect })
  return {
    db,
    location: { url: pgUrl },
    tables: async () => (await db.selectFrom('pg_tables').select('tablename').where('schemaname', '=', sql<string>`current_schema()`).execute()).map((t: { tablename: string }) => t.tablename),
    close: () => db.destroy()
  }
}

describe.each(BACKENDS)('on %s', (backend) => {
  for (let from = 0; from <= NAMES.length; from++) {
    it(`upgrades a database of version ${from} to ${NAMES.length}, its data whole`, async () => {
      // The database as that version left it: migrated up to it by the same Migrator, seeded as it stored data.
      const old = await emptyDatabase(backend, `v${from}`)
      if (from > 0) {
        const { error } = await new Migrator({ db: old.db, provider: { getMigrations: async () => ({ ...MIGRATIONS }) } }).migrateTo(NAMES[from - 1]!)
        expect(error).toBeUndefined()
      }
      for (let v = 1; v <= from; v++) await SEEDS[v]!.write(old.db)
      await old.close()

      const db = await openDatabaseAt(old.location)
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
