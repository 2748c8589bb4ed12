/**
 * The database file (src/main/store/db): migrations on open, group commit (many writes, one
 * transaction each batch, each write isolated), a full disk (SQLite's own SQLITE_FULL), a damaged or
 * newer file refused untouched.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { DatabaseSync } from 'node:sqlite'
import { afterEach, beforeEach, expect, it } from 'vitest'
import { NewerDatabaseError, openDatabase, type DatabaseHandle } from '../../../src/main/store/db/database'
import { CorruptDatabaseError, StorageFullError } from '../../../src/main/store/db/errors'
import { MIGRATIONS } from '../../../src/main/store/db/migrations'

let dir: string
let db: DatabaseHandle | undefined
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'chatapp-db-'))
})
afterEach(async () => {
  await db?.close()
  db = undefined
  await rm(dir, { recursive: true, force: true })
})

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
  const { rows } = await (await import('kysely')).sql<{ synchronous: number; foreign_keys: number }>`SELECT (SELECT synchronous FROM pragma_synchronous) AS synchronous, (SELECT foreign_keys FROM pragma_foreign_keys) AS foreign_keys`.execute(db.db)
  expect(rows[0]).toEqual({ synchronous: 2, foreign_keys: 1 })
})

it('gathers concurrent writes into few transactions; each resolves after its commit, a failing one alone', async () => {
  db = await openDatabase(join(dir, 'a.db'))
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
  // Asked for in one turn of the event loop: one transaction, not 300 fsyncs.
  expect(db.commitStats()).toEqual({ commits: 1, writes: 300 })
})

it('a full disk rejects every write of the batch with StorageFullError; nothing of it is stored; writes go on once there is room', async () => {
  db = await openDatabase(join(dir, 'a.db'))
  await db.write((trx) => trx.insertInto('messages').values(row('before')).execute())
  db.limitGrowth(0)
  const big = 'x'.repeat(5000)
  const results = await Promise.allSettled(Array.from({ length: 20 }, (_, i) => db!.write((trx) => trx.insertInto('messages').values(row(`full${i}`, big)).execute())))
  expect(results.every((r) => r.status === 'rejected' && r.reason instanceof StorageFullError)).toBe(true)
  expect(((results[0] as PromiseRejectedResult).reason as Error).message).toMatch(/disk holding .*a\.db is full: nothing was saved/)
  db.limitGrowth(null)
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

it('close waits for a write queued just before it, and refuses later ones', async () => {
  db = await openDatabase(join(dir, 'a.db'))
  const queued = db.write((trx) => trx.insertInto('messages').values(row('last')).execute())
  await db.close()
  await queued
  await expect(db.write(async () => undefined)).rejects.toThrow(/closed/)
  db = await openDatabase(join(dir, 'a.db'))
  expect((await db.db.selectFrom('messages').select('id').execute()).map((r) => r.id)).toEqual(['last'])
})
