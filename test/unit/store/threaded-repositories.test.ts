/**
 * The repositories on SQLite as the main thread sees them (src/main/store/db/sqlite-thread/
 * threaded-repositories.ts): writes reach the writer thread in the order they were made, whichever
 * method makes them and however fresh the process, and reads run in the reader threads. A real
 * SQLite file, real threads.
 */
import { afterEach, beforeEach, expect, it } from 'vitest'
import type { LoggedMessage } from '../../../src/shared/schemas/records'
import { READ_CALLS } from '../../../src/main/store/db/sqlite-thread/read-calls'
import { tempStorage, type TempStorage } from '../../helpers/temp-storage'

const ANN = '15550001111@s.whatsapp.net'
const msg = (id: string): LoggedMessage => ({ id, chatId: ANN, fromMe: false, pushName: 'Ann', type: 'text', text: id, timestamp: 1_700_000_000_000, status: 'RECEIVED', source: 'inbound' })

let t: TempStorage
beforeEach(async () => {
  t = await tempStorage('sqlite')
})
afterEach(() => t.close())

it('the first write of a fresh start keeps its place before writes made after it by other methods', async () => {
  const { messages } = t.storage.repos
  // appendMany has run once; append never has. A write that went to a reader first (to learn it
  // writes) reached the writer a round trip late: after the appendMany made behind it.
  await messages.appendMany('i1', [msg('warm-up')])
  const first = messages.append('i1', msg('first'))
  const second = messages.appendMany('i1', [msg('second')])
  await Promise.all([first, second])
  const rows = await t.storage.database.db.selectFrom('messages').select(['id', 'seq']).where('id', 'in', ['first', 'second']).orderBy('seq').execute()
  expect(rows.map((r) => r.id)).toEqual(['first', 'second'])
  // The conversation's last message is the last one made.
  expect((await t.storage.repos.conversations.get('i1', ANN, Date.now()))?.last).toMatchObject({ id: 'second' })
})

it('a read-only method runs in a reader thread and sees what an awaited write committed', async () => {
  const { messages } = t.storage.repos
  expect(READ_CALLS.messages).toContain('list')
  const readers = t.storage.database.threads!.readers
  await messages.append('i1', msg('seen'))
  const before = readers.map((r) => r.load)
  const listed = messages.list('i1', { chatId: ANN })
  // The request is in flight on a reader the moment the call is made.
  expect(readers.map((r) => r.load).reduce((a, b) => a + b) - before.reduce((a, b) => a + b)).toBe(1)
  expect((await listed).map((m) => m.id)).toEqual(['seen'])
})

it('the assistant’s reads of a turn run in reader threads, not behind the writer’s queue', async () => {
  const { assistant, knowledge } = t.storage.repos
  const readers = t.storage.database.threads!.readers
  const writer = t.storage.database.threads!.writer
  const load = () => readers.map((r) => r.load).reduce((a, b) => a + b)
  const before = { readers: load(), writer: writer.load }
  const reads = [assistant.settings('i1'), assistant.key('i1'), assistant.tokensOn('i1', '2026-11-28'), assistant.callBudget('i1', '2026-11-28'), assistant.repliesSince('i1', ANN, 0), knowledge.revision('i1'), knowledge.candidates('i1', ['bread'], 10), knowledge.termHits('i1', ['bread'], 10), knowledge.chunks('i1', [1])]
  expect(load() - before.readers).toBe(reads.length)
  expect(writer.load).toBe(before.writer)
  expect(await Promise.all(reads)).toEqual([null, null, 0, { tokens: 0, key: null }, 0, { chunks: 0, revision: expect.any(Number) }, [], { chunks: 0, revision: expect.any(Number), hits: [] }, []])
})
