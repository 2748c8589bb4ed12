/**
 * Prepared statements (store/db/prepared.ts) on a real SQLite file and a real PostgreSQL database:
 * built and compiled once per dialect, each run with its own values, constants of the statement
 * kept, in a transaction as outside one; a build that uses a value in JavaScript is refused before
 * anything runs.
 */
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Kysely } from 'kysely'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { openDatabase, openPostgresDatabase, type DatabaseHandle } from '../../../src/main/store/db/database'
import { prepared, PreparedStatementError } from '../../../src/main/store/db/prepared'
import type { Database } from '../../../src/main/store/db/schema'
import { BACKENDS, createTestDatabase, dropTestDatabase } from '../../helpers/postgres'

describe.each(BACKENDS)('on %s', (backend) => {
  let dir: string
  let handle: DatabaseHandle
  let pgUrl: string | undefined
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'chatapp-prepared-'))
    if (backend === 'sqlite') handle = await openDatabase(join(dir, 'a.db'))
    else handle = await openPostgresDatabase((pgUrl = await createTestDatabase()))
  })
  afterEach(async () => {
    await handle.close()
    await rm(dir, { recursive: true, force: true })
    if (pgUrl) await dropTestDatabase(pgUrl)
    pgUrl = undefined
  })

  it('builds once, and runs each time with its own values and its constants', async () => {
    let builds = 0
    const add = prepared((db: Kysely<Database>, v: { id: string; text: string; at: number }) => {
      builds++
      return db
        .insertInto('messages')
        .values({ instance_id: 'i1', id: v.id, chat_id: '15550001111@s.whatsapp.net', from_me: 1, push_name: null, type: 'text', text: v.text, timestamp: v.at, status: 'PENDING', error_code: null, source: 'api', sender_id: null, sender_pn: null, sender_lid: null, details: null })
        .onConflict((oc) => oc.columns(['instance_id', 'id']).doNothing())
        .returning(['seq', 'id'])
    })
    const textOf = prepared((db: Kysely<Database>, v: { id: string }) => db.selectFrom('messages').select(['text', 'timestamp', 'source']).where('instance_id', '=', 'i1').where('id', '=', v.id))
    const first = await add(handle.db, { id: 'A', text: 'first', at: 1 })
    const trx = await handle.db.startTransaction().execute()
    const second = await add(trx, { id: 'B', text: 'second', at: 2 })
    await trx.commit().execute()
    expect(await add(handle.db, { id: 'A', text: 'again', at: 3 })).toEqual([])
    expect(builds).toBe(1)
    expect(first).toEqual([{ seq: expect.any(Number), id: 'A' }])
    expect(second[0]!.seq).toBeGreaterThan(first[0]!.seq)
    expect(await textOf(handle.db, { id: 'A' })).toEqual([{ text: 'first', timestamp: 1, source: 'api' }])
    expect(await textOf(handle.db, { id: 'B' })).toEqual([{ text: 'second', timestamp: 2, source: 'api' }])
    expect(await textOf(handle.db, { id: 'C' })).toEqual([])
  })

  it('refuses a build that uses a value in JavaScript, before running anything', async () => {
    const bad = prepared((db: Kysely<Database>, v: { id: string }) => db.deleteFrom('messages').where('id', '=', `${v.id}-x`))
    await expect(bad(handle.db, { id: 'A' })).rejects.toBeInstanceOf(PreparedStatementError)
  })
})
