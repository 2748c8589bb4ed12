/**
 * A customer's erasure in slices (docs/storage.md "Heavy jobs in slices"): the customer is hidden
 * from every read the moment the erasure starts, their messages then go a slice at a time between
 * other writes (never one long transaction), what arrives meanwhile is kept, an erasure cut short is
 * finished at the next start, and an export is read in pages. On a real SQLite file and on a real
 * PostgreSQL server.
 */
import { describe, expect, it } from 'vitest'
import type { LoggedMessage } from '../../../src/shared/schemas/records'
import type { Repositories } from '../../../src/main/store/repos'
import { tempStorageEach, type TempStorage } from '../../helpers/temp-storage'
import { BACKENDS } from '../../helpers/postgres'

const ANN = '15550001111@s.whatsapp.net'
const ANN_LID = '987654321@lid'
const BOB = '15550002222@s.whatsapp.net'
const GROUP = '120363000000000001@g.us'
let n = 0
function msg(fields: Partial<LoggedMessage> = {}): LoggedMessage {
  n++
  return { id: `E${n}`, chatId: ANN, fromMe: false, pushName: 'Ann', type: 'text', text: `order ${n}`, timestamp: 1_700_000_000_000 + n, status: 'RECEIVED', source: 'inbound', ...fields }
}

/** Ann's 1:1 chat (`count` messages, half of them replies), her words in a group under her number and her LID, and Bob's chat. */
async function seed(repos: Repositories, count: number): Promise<void> {
  const ann = Array.from({ length: count }, (_, i) => (i % 2 ? msg({ fromMe: true, source: 'api', pushName: undefined }) : msg({ senderPn: ANN, senderLid: ANN_LID })))
  for (let i = 0; i < ann.length; i += 500) await repos.messages.appendMany('i1', ann.slice(i, i + 500))
  await repos.messages.appendMany('i1', [
    msg({ chatId: GROUP, senderId: ANN_LID, text: 'order in the group, as her LID' }),
    msg({ chatId: GROUP, senderId: ANN, senderPn: ANN, text: 'order in the group, as her number' }),
    msg({ chatId: GROUP, senderId: BOB, senderPn: BOB, pushName: 'Bob', text: 'order of Bob in the group' }),
    msg({ chatId: BOB, pushName: 'Bob', text: 'order of Bob' })
  ])
  const now = new Date().toISOString()
  await repos.contacts.put({ _id: 'c1', name: 'Ann', number: '15550001111', client_id: 'u', instance_id: 'i1', group_id: null, channel: 'whatsapp', labels: [], notes: '', opted_out: false, last_seen_at: null, createdAt: now, updatedAt: now, __v: 0 })
}

/** Everything of Ann any read of the log shows. */
async function annSeen(repos: Repositories): Promise<string[]> {
  const texts = new Set<string>()
  for (const m of await repos.messages.list('i1', { chatId: ANN, limit: 1000 })) texts.add(`list:${m.id}`)
  for (const m of await repos.messages.list('i1', { chatId: GROUP, limit: 1000 })) if (m.senderId !== BOB) texts.add(`group:${m.text}`)
  for (const m of await repos.messages.search('i1', { q: 'order', limit: 1000 })) if (m.chatId === ANN || (m.chatId === GROUP && m.senderId !== BOB)) texts.add(`search:${m.id}`)
  for (const { message: m } of (await repos.messages.logPage(['i1'], 1, 1000)).items) if (m.chatId === ANN) texts.add(`log:${m.id}`)
  if (await repos.messages.find('i1', 'E1')) texts.add('find:E1')
  for (const c of await repos.conversations.list(['i1'], {}, 100, Date.now())) if (c.chatId === ANN) texts.add('conversation')
  return [...texts]
}

describe.each(BACKENDS)('on %s', (backend) => {
  let t: TempStorage
  let repos: Repositories
  tempStorageEach(backend, (fresh) => {
    t = fresh
    repos = fresh.storage.repos
  })

  it('hides the customer at once, deletes in many small writes while other writes go on, and keeps what arrives meanwhile', async () => {
    await seed(repos, 1200)
    expect((await annSeen(repos)).length).toBeGreaterThan(1000)
    const commitsBefore = t.storage.database.commitStats().commits
    let release!: () => void
    const held = new Promise<void>((r) => (release = r))
    let slices = 0
    let seenMidway: string[] = []
    const erasure = repos.customerData.eraseCustomer('i1', '15550001111', 'owner', new Date().toISOString(), 'x1', {
      onDeleted: async () => {
        if (++slices === 1) await held
      }
    })
    // After the first slice: the erasure has begun; what is left of Ann is hidden, other chats are not.
    await expect.poll(() => slices, { timeout: 10_000 }).toBe(1)
    seenMidway = await annSeen(repos)
    expect(seenMidway).toEqual([])
    expect((await repos.messages.list('i1', { chatId: BOB })).map((m) => m.text)).toEqual(['order of Bob'])
    // Writes go on meanwhile: a message of Bob, and a new one from Ann after the erasure began (kept).
    await repos.messages.append('i1', msg({ chatId: BOB, pushName: 'Bob', text: 'order of Bob, later' }))
    await repos.messages.append('i1', msg({ id: 'ANN-LATER', text: 'a new order from Ann' }))
    release()
    const { counts } = await erasure
    expect(counts).toMatchObject({ messages: 1202, contacts: 1, conversations: 1 })
    // Many slices, each its own commit: never one long transaction.
    expect(slices).toBeGreaterThan(3)
    expect(t.storage.database.commitStats().commits - commitsBefore).toBeGreaterThan(slices)
    expect((await repos.messages.list('i1', { chatId: ANN })).map((m) => m.id)).toEqual(['ANN-LATER'])
    expect((await repos.messages.list('i1', { chatId: GROUP })).map((m) => m.text)).toEqual(['order of Bob in the group'])
    expect((await repos.messages.list('i1', { chatId: BOB })).map((m) => m.text)).toEqual(['order of Bob', 'order of Bob, later'])
    // The inbox counts what is left: Ann's chat holds her new message only, the group Bob's.
    const convs = await t.storage.database.db.selectFrom('conversations').select(['chat_id', 'message_count']).execute()
    expect(Object.fromEntries(convs.map((c) => [c.chat_id, c.message_count]))).toEqual({ [ANN]: 1, [GROUP]: 1, [BOB]: 2 })
    expect(await t.storage.database.db.selectFrom('erasing').selectAll().execute()).toEqual([])
  })

  it('an erasure stopped half-way keeps the customer hidden and is finished at the next start', async () => {
    await seed(repos, 600)
    let slices = 0
    const { counts } = await repos.customerData.eraseCustomer('i1', '15550001111', 'owner', new Date().toISOString(), 'x2', {
      onDeleted: async () => void slices++,
      stop: () => slices >= 1
    })
    expect(counts).toBeNull()
    expect(await annSeen(repos)).toEqual([])
    const left = await t.storage.database.db.selectFrom('messages').select('id').where('chat_id', '=', ANN).execute()
    expect(left.length).toBeGreaterThan(0)
    const again = await t.reopen()
    expect(await annSeen(again.repos)).toEqual([])
    const resumed = await again.repos.customerData.resumeErasures()
    expect(resumed).toEqual([{ erasureId: 'x2', instanceId: 'i1', counts: expect.objectContaining({ contacts: 1 }) as unknown }])
    expect(await again.database.db.selectFrom('messages').select('id').where('chat_id', '=', ANN).execute()).toEqual([])
    expect((await again.repos.messages.list('i1', { chatId: GROUP })).map((m) => m.text)).toEqual(['order of Bob in the group'])
    expect(await again.database.db.selectFrom('erasing').selectAll().execute()).toEqual([])
    expect(await again.repos.customerData.resumeErasures()).toEqual([])
  })

  it('exports in pages, oldest first: the chat, her words in groups (as her number and her LID), not Bob\'s', async () => {
    await seed(repos, 1100)
    const pages: number[] = []
    const texts: string[] = []
    for await (const page of repos.customerData.exportMessages('i1', '15550001111')) {
      pages.push(page.length)
      texts.push(...page.map((m) => m.text))
    }
    expect(texts).toHaveLength(1102)
    expect(pages.length).toBeGreaterThan(1)
    expect(Math.max(...pages)).toBeLessThanOrEqual(500)
    expect(texts.slice(-2)).toEqual(['order in the group, as her LID', 'order in the group, as her number'])
    expect(texts.some((x) => x.includes('Bob'))).toBe(false)
  })
})
