/**
 * The database file (src/main/store/db): migrations on open, group commit (many writes, one
 * transaction each batch, each write isolated), a full disk (SQLite's own SQLITE_FULL), a damaged or
 * newer file refused untouched. What both databases share runs on a real SQLite file and a real
 * PostgreSQL server; WAL, full disk, damaged files and the online backup are SQLite's.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { DatabaseSync } from 'node:sqlite'
import { Kysely, sql } from 'kysely'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { NewerDatabaseError, openDatabase, openPostgresDatabase, type DatabaseHandle } from '../../../src/main/store/db/database'
import { CorruptDatabaseError, StorageFullError } from '../../../src/main/store/db/errors'
import { MIGRATIONS } from '../../../src/main/store/db/migrations'
import { BACKENDS, createTestDatabase, dropTestDatabase, type Backend } from '../../helpers/postgres'

let dir: string
let db: DatabaseHandle | undefined
let pgUrl: string | undefined
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'chatapp-db-'))
})
afterEach(async () => {
  await db?.close()
  db = undefined
  await rm(dir, { recursive: true, force: true })
  if (pgUrl) await dropTestDatabase(pgUrl)
  pgUrl = undefined
})

/** The test's database on `backend`: the file a.db, or one fresh database of the run's PostgreSQL server (the same one when opened again). */
async function open(backend: Backend): Promise<DatabaseHandle> {
  if (backend === 'sqlite') return openDatabase(join(dir, 'a.db'))
  pgUrl ??= await createTestDatabase()
  return openPostgresDatabase(pgUrl)
}

const row = (id: string, text = 'hello') => ({
  id,
  instance_id: 'i1',
  chat_id: '15550001111@s.whatsapp.net',
  from_me: 0,
  push_name: null,
  type: 'text',
  text,
  timestamp: 1,
  status: 'RECEIVED',
  error_code: null,
  source: 'inbound',
  sender_id: null,
  sender_pn: null,
  sender_lid: null,
  details: null
})

it('creates a new file at the latest version, with WAL, full sync and foreign keys', async () => {
  db = await openDatabase(join(dir, 'a.db'))
  expect(await db.version()).toBe(Object.keys(MIGRATIONS).length)
  const raw = new DatabaseSync(join(dir, 'a.db'), { readOnly: true })
  expect(raw.prepare('PRAGMA journal_mode').get()).toEqual({ journal_mode: 'wal' })
  raw.close()
  // Per connection: read through the app's own.
  const { rows } = await sql<{ synchronous: number; foreign_keys: number }>`SELECT (SELECT synchronous FROM pragma_synchronous) AS synchronous, (SELECT foreign_keys FROM pragma_foreign_keys) AS foreign_keys`.execute(db.db)
  expect(rows[0]).toEqual({ synchronous: 2, foreign_keys: 1 })
})


it('a full disk rejects every write of the batch with StorageFullError; nothing of it is stored; writes go on once there is room', async () => {
  db = await openDatabase(join(dir, 'a.db'))
  await db.write((trx) => trx.insertInto('messages').values(row('before')).execute())
  await db.limitGrowth(0)
  const big = 'x'.repeat(5000)
  const results = await Promise.allSettled(Array.from({ length: 20 }, (_, i) => db!.write((trx) => trx.insertInto('messages').values(row(`full${i}`, big)).execute())))
  expect(results.every((r) => r.status === 'rejected' && r.reason instanceof StorageFullError)).toBe(true)
  expect(((results[0] as PromiseRejectedResult).reason as Error).message).toMatch(/disk holding .*a\.db is full: nothing was saved/)
  await db.limitGrowth(null)
  await db.write((trx) => trx.insertInto('messages').values(row('after', big)).execute())
  expect((await db.db.selectFrom('messages').select('id').orderBy('seq').execute()).map((r) => r.id)).toEqual(['before', 'after'])
})

it('refuses a file that is not a database, names it, and leaves it as it was', async () => {
  const file = join(dir, 'a.db')
  await writeFile(file, 'these are not the pages you are looking for '.repeat(200))
  const before = await readFile(file)
  const err = await openDatabase(file).catch((e: unknown) => e)
  expect(err).toBeInstanceOf(CorruptDatabaseError)
  expect((err as Error).message).toContain(file)
  expect((await readFile(file)).equals(before)).toBe(true)
})

it('refuses a database written by a newer version', async () => {
  const file = join(dir, 'a.db')
  db = await openDatabase(file)
  await db.close()
  db = undefined
  const raw = new DatabaseSync(file)
  raw.prepare("INSERT INTO kysely_migration (name, timestamp) VALUES ('9999-from-the-future', '2030-01-01')").run()
  raw.close()
  const err = await openDatabase(file).catch((e: unknown) => e)
  expect(err).toBeInstanceOf(NewerDatabaseError)
  expect((err as Error).message).toMatch(/newer version of Chatapp Desk .*9999-from-the-future/)
})

it('an online backup is a whole database while writes go on', async () => {
  db = await openDatabase(join(dir, 'a.db'))
  const writing = Promise.all(Array.from({ length: 200 }, (_, i) => db!.write((trx) => trx.insertInto('messages').values(row(`m${i}`)).execute())))
  await db.backupTo(join(dir, 'copy.db'))
  await writing
  const copy = new DatabaseSync(join(dir, 'copy.db'), { readOnly: true })
  expect(copy.prepare('PRAGMA integrity_check').get()).toEqual({ integrity_check: 'ok' })
  const ids = (copy.prepare('SELECT id FROM messages ORDER BY seq').all() as Array<{ id: string }>).map((r) => r.id)
  copy.close()
  // The copy is the database as of one commit: the writes up to it, in their order, none half.
  expect(ids).toEqual(Array.from({ length: ids.length }, (_, i) => `m${i}`))
  expect((await db.db.selectFrom('messages').select('id').execute()).length).toBe(200)
})

describe.each(BACKENDS)('on %s', (backend) => {
  it('gathers concurrent writes into few transactions; each resolves after its commit, a failing one alone', async () => {
    db = await open(backend)
    const writes = Array.from({ length: 300 }, (_, i) =>
      db!.write(async (trx) => {
        await trx.insertInto('messages').values(row(`m${i}`)).execute()
        // One write in the batch breaks a constraint: rolled back alone.
        if (i === 150) await trx.insertInto('messages').values(row('m0')).execute()
        return i
      })
    )
    const results = await Promise.allSettled(writes)
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(299)
    expect((results[150] as PromiseRejectedResult).reason).toBeInstanceOf(Error)
    const ids = (await db.db.selectFrom('messages').select('id').execute()).map((r) => r.id)
    expect(ids).toHaveLength(299)
    expect(ids).not.toContain('m150')
    // Asked for in one turn of the event loop: one transaction, not 300 fsyncs (the batch ran
    // again with savepoints once m150 threw).
    expect(db.commitStats()).toEqual({ commits: 1, writes: 299, replays: 1 })
  })

  it('a batch in which nothing throws commits without savepoints; one that throws first or last rejects alone', async () => {
    db = await open(backend)
    const batch = (ids: string[], failing: number) =>
      Promise.allSettled(
        ids.map((id, i) =>
          db!.write(async (trx) => {
            await trx.insertInto('messages').values(row(id, `text of ${id}`)).execute()
            if (i === failing) await trx.insertInto('messages').values(row(id)).execute()
            return id
          })
        )
      )
    const clean = await batch(['a', 'b', 'c'], -1)
    expect(clean.map((r) => r.status)).toEqual(['fulfilled', 'fulfilled', 'fulfilled'])
    expect(db.commitStats()).toEqual({ commits: 1, writes: 3, replays: 0 })
    const first = await batch(['d', 'e', 'f'], 0)
    const last = await batch(['g', 'h', 'i'], 2)
    expect(first.map((r) => r.status)).toEqual(['rejected', 'fulfilled', 'fulfilled'])
    expect(last.map((r) => r.status)).toEqual(['fulfilled', 'fulfilled', 'rejected'])
    expect(db.commitStats()).toEqual({ commits: 3, writes: 7, replays: 2 })
    // Each stored once; the rolled-back ones left nothing behind, in the search index either.
    const stored = await db.db.selectFrom('messages').select(['id', 'seq']).orderBy('seq').execute()
    expect(stored.map((r) => r.id)).toEqual(['a', 'b', 'c', 'e', 'f', 'g', 'h'])
    if (backend === 'sqlite') {
      const { rows } = await sql<{ rowid: number }>`SELECT rowid FROM messages_fts WHERE messages_fts MATCH 'text' ORDER BY rowid`.execute(db.db)
      expect(rows.map((r) => r.rowid)).toEqual(stored.map((r) => r.seq))
    }
    const alone = await db.write(async () => {
      throw new Error('nothing to do')
    }).catch((err: unknown) => err)
    expect(alone).toEqual(new Error('nothing to do'))
    expect(db.commitStats()).toEqual({ commits: 3, writes: 7, replays: 2 })
  })

  it('close waits for a write queued just before it, and refuses later ones', async () => {
    db = await open(backend)
    const queued = db.write((trx) => trx.insertInto('messages').values(row('last')).execute())
    await db.close()
    await queued
    await expect(db.write(async () => undefined)).rejects.toThrow(/closed/)
    db = await open(backend)
    expect((await db.db.selectFrom('messages').select('id').execute()).map((r) => r.id)).toEqual(['last'])
  })

  it('refuses a database written by a newer version', async () => {
    db = await open(backend)
    await (db.db as unknown as Kysely<{ kysely_migration: { name: string; timestamp: string } }>).insertInto('kysely_migration').values({ name: '9999-from-the-future', timestamp: '2030-01-01' }).execute()
    await db.close()
    db = undefined
    const err = await open(backend).catch((e: unknown) => e)
    expect(err).toBeInstanceOf(NewerDatabaseError)
    expect((err as Error).message).toMatch(/newer version of Chatapp Desk .*9999-from-the-future/)
  })

  it('reads epoch ms, counts and sums as numbers, blobs as bytes, and takes booleans as 0/1', async () => {
    db = await open(backend)
    const ms = 1_764_200_000_123
    await db.write((trx) => trx.insertInto('messages').values({ ...row('m1'), timestamp: ms }).execute())
    await db.write((trx) => trx.insertInto('wa_messages').values({ instance_id: 'i1', id: 'w1', at: ms, own: true as unknown as number, message: new Uint8Array([0, 1, 254, 255]) }).execute())
    expect(await db.db.selectFrom('messages').select(['seq', 'timestamp']).executeTakeFirstOrThrow()).toEqual({ seq: 1, timestamp: ms })
    const { n, total } = await db.db
      .selectFrom('messages')
      .select((eb) => [eb.fn.countAll<number>().as('n'), eb.fn.sum<number>('timestamp').as('total')])
      .executeTakeFirstOrThrow()
    expect({ n, total }).toEqual({ n: 1, total: ms })
    const w = await db.db.selectFrom('wa_messages').select(['own', 'message']).executeTakeFirstOrThrow()
    expect(w.own).toBe(1)
    expect(Object.getPrototypeOf(w.message)).toBe(Uint8Array.prototype)
    expect([...w.message]).toEqual([0, 1, 254, 255])
  })
})

describe('on postgres only', () => {
  it('searches through the pg_trgm indexes the migration made (the planner can use them), words kept by triggers', async () => {
    db = await open('postgres')
    const { rows } = await sql<{ indexdef: string }>`SELECT indexdef FROM pg_indexes WHERE indexname IN ('messages_search', 'contacts_search') ORDER BY indexname`.execute(db.db)
    expect(rows.map((r) => r.indexdef)).toEqual([expect.stringMatching(/ON public\.contacts USING gin \(chatapp_contact_words\(name, number, notes\) .*gin_trgm_ops\)/), expect.stringMatching(/ON public\.messages_words USING gin \(words .*gin_trgm_ops\)/)])
    // Told to avoid sequential scans, the planner reaches the rows by the index (it can serve the query).
    const plan = await db.db.connection().execute(async (c) => {
      await sql`SET enable_seqscan = off`.execute(c)
      return sql<{ 'QUERY PLAN': string }>`EXPLAIN SELECT seq FROM messages_words WHERE words LIKE '%' || chatapp_fold(${'labres'}) || '%'`.execute(c)
    })
    expect(plan.rows.map((r) => r['QUERY PLAN']).join('\n')).toMatch(/Bitmap Index Scan on messages_search/)
    // Folded as the search terms are: case and accents gone.
    const { rows: folded } = await sql<{ f: string }>`SELECT chatapp_fold(${'Crème BRÛLÉE Ωμέγα'}) AS f`.execute(db.db)
    expect(folded[0]!.f).toBe('creme brulee ωμεγα')
    // The words follow the message: inserted, changed, deleted with it.
    const words = async () => (await sql<{ words: string }>`SELECT words FROM messages_words ORDER BY seq`.execute(db!.db)).rows.map((r) => r.words)
    await db.write((trx) => trx.insertInto('messages').values({ ...row('m1', 'Olá Mundo'), push_name: 'Zoë' }).execute())
    expect(await words()).toEqual(['ola mundo zoe 15550001111'])
    await db.write((trx) => trx.updateTable('messages').set({ text: 'Adeus' }).execute())
    expect(await words()).toEqual(['adeus zoe 15550001111'])
    await db.write((trx) => trx.updateTable('messages').set({ status: 'READ' }).execute())
    await db.write((trx) => trx.deleteFrom('messages').execute())
    expect(await words()).toEqual([])
  })

  it('connections the server cuts (a restart, an admin) are replaced: the app goes on with the next write', async () => {
    db = await open('postgres')
    // Several idle connections in the pool.
    await Promise.all(Array.from({ length: 4 }, (_, i) => db!.db.selectFrom('messages').select('seq').where('id', '=', `x${i}`).execute()))
    const name = new URL(pgUrl!).pathname.slice(1)
    const admin = await openPostgresDatabase(pgUrl!)
    try {
      const { rows } = await sql<{ cut: boolean }>`SELECT pg_terminate_backend(pid) AS cut FROM pg_stat_activity WHERE datname = ${name} AND pid <> pg_backend_pid()`.execute(admin.db)
      expect(rows.length).toBeGreaterThanOrEqual(4)
    } finally {
      await admin.close()
    }
    // A write may meet a connection cut before the pool noticed: it fails alone and that connection
    // is thrown away, so within as many writes as the pool had connections one goes through.
    let attempts = 0
    for (;;) {
      attempts++
      const ok = await db.write((trx) => trx.insertInto('messages').values(row(`m${attempts}`)).execute()).then(
        () => true,
        (err: unknown) => {
          // The server's "terminating connection" message, or the socket's reset when it came first.
          expect(String(err)).toMatch(/terminat|not queryable|closed|ECONNRESET/i)
          return false
        }
      )
      if (ok) break
      expect(attempts).toBeLessThan(11)
    }
    expect((await db.db.selectFrom('messages').select('id').execute()).map((r) => r.id)).toEqual([`m${attempts}`])
    // And the process is still here: no connection's error went unheard (vitest fails a run on one).
  })

  it('a server it cannot reach is named in the error, its password left out', async () => {
    const err = await openPostgresDatabase('postgres://someone:s3cret@127.0.0.1:1/nothing').catch((e: unknown) => e)
    expect(err).toBeInstanceOf(Error)
    expect((err as Error).message).toMatch(/Could not connect to the database postgres:\/\/someone:\*\*\*@127\.0\.0\.1:1\/nothing/)
    expect((err as Error).message).not.toContain('s3cret')
  })
})
