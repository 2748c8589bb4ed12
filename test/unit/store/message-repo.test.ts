/**
 * The message log in the database (docs/design.md §20 "History"): every message kept, keyset pages that reach all of a
 * chat's history even with many messages per second, search (accents, parts of words, scripts without
 * spaces, short terms, snippets), conversations kept in step (unread, read mark, re-keyed chats),
 * retention and a customer's erasure. On a real SQLite file and on a real PostgreSQL server (the
 * same tests, the same results).
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { LoggedMessage } from '../../../src/shared/schemas/records'
import type { Repositories } from '../../../src/main/store/repos'
import { tempStorage, type TempStorage } from '../../helpers/temp-storage'
import { BACKENDS } from '../../helpers/postgres'


const CHAT = '15550001111@s.whatsapp.net'
let n = 0
function msg(fields: Partial<LoggedMessage> = {}): LoggedMessage {
  n++
  return { id: `ID${n}`, chatId: CHAT, fromMe: false, pushName: 'Ann', type: 'text', text: `message ${n}`, timestamp: 1_700_000_000_000, status: 'RECEIVED', source: 'inbound', ...fields }
}

describe.each(BACKENDS)('on %s', (backend) => {
  let t: TempStorage
  let repos: Repositories
  beforeEach(async () => {
    t = await tempStorage(backend)
    repos = t.storage.repos
  })
  afterEach(async () => {
    await t.close()
  })

  describe('reading a long history', () => {
    it('keeps every message and pages back through all of them by cursor, whatever the timestamps', async () => {
      // 1,500 messages within 15 seconds: whole-second times, 100 per second.
      const all = Array.from({ length: 1500 }, (_, i) => msg({ timestamp: 1_700_000_000_000 + Math.floor(i / 100) * 1000 }))
      await repos.messages.appendMany('i1', all)
      const seen: string[] = []
      let before: { id: string } | undefined
      for (;;) {
        const page = await repos.messages.list('i1', { chatId: CHAT, limit: 100, ...(before ? { before } : {}) })
        if (page.length === 0) break
        seen.unshift(...page.map((m) => m.id))
        before = { id: page[0]!.id }
      }
      expect(seen).toEqual(all.map((m) => m.id))
    })

    it('pages forward after a cursor, and a page is stable while messages arrive', async () => {
      const first = Array.from({ length: 10 }, () => msg())
      await repos.messages.appendMany('i1', first)
      const after = await repos.messages.list('i1', { after: { id: first[3]!.id }, limit: 3 })
      expect(after.map((m) => m.id)).toEqual(first.slice(4, 7).map((m) => m.id))
      const page = await repos.messages.list('i1', { before: { id: first[5]!.id }, limit: 3 })
      await repos.messages.appendMany('i1', [msg(), msg()])
      expect((await repos.messages.list('i1', { before: { id: first[5]!.id }, limit: 3 })).map((m) => m.id)).toEqual(page.map((m) => m.id))
    })

    it('a time cursor (epoch ms) still works for older scripts; an unknown id is refused', async () => {
      await repos.messages.appendMany('i1', [msg({ timestamp: 1000 }), msg({ timestamp: 2000 }), msg({ timestamp: 3000 })])
      expect((await repos.messages.list('i1', { before: { time: 3000 } })).map((m) => m.timestamp)).toEqual([1000, 2000])
      await expect(repos.messages.list('i1', { before: { id: 'nope' } })).rejects.toThrow(/No message has the id nope/)
    })
  })

  describe('search', () => {
    beforeEach(async () => {
      await repos.messages.appendMany('i1', [
        msg({ text: 'Quero uma pizza de calabresa', pushName: 'Olá Ana' }),
        msg({ text: 'Olá, vocês abrem domingo?' }),
        msg({ text: '我想订一个披萨' }),
        msg({ text: 'ok' }),
        msg({ text: 'Crème brûlée for two' }),
        msg({ text: 'calabresa again', chatId: '15550002222@s.whatsapp.net', pushName: 'Bob' })
      ])
      await repos.messages.append('i2', msg({ text: 'calabresa elsewhere' }))
    })

    const texts = async (q: string, chatId?: string) => (await repos.messages.search('i1', { q, ...(chatId ? { chatId } : {}) })).map((h) => h.text)

    it('finds parts of words, any case and accents, newest first, in this instance only', async () => {
      expect(await texts('labres')).toEqual(['calabresa again', 'Quero uma pizza de calabresa'])
      expect(await texts('CALABRESA', CHAT)).toEqual(['Quero uma pizza de calabresa'])
      expect(await texts('ola')).toEqual(['Olá, vocês abrem domingo?', 'Quero uma pizza de calabresa'])
      expect(await texts('creme brulee')).toEqual(['Crème brûlée for two'])
    })

    it('finds text in scripts without spaces, two-character terms included', async () => {
      expect(await texts('披萨')).toEqual(['我想订一个披萨'])
      expect(await texts('想订一')).toEqual(['我想订一个披萨'])
      expect(await texts('ok')).toEqual(['ok'])
    })

    it('finds the sender by name and by number', async () => {
      expect(await texts('bob')).toEqual(['calabresa again'])
      expect(await texts('5550002222')).toEqual(['calabresa again'])
    })

    it('gives a snippet with the matches marked, and pages back by cursor', async () => {
      const [hit] = await repos.messages.search('i1', { q: 'domingo', limit: 1 })
      expect(hit!.snippet).toBe('Olá, vocês abrem domingo?')
      expect(hit!.snippet.slice(...hit!.highlights[0]!)).toBe('domingo')
      const first = await repos.messages.search('i1', { q: 'calabresa', limit: 1 })
      const next = await repos.messages.search('i1', { q: 'calabresa', limit: 1, before: first[0]!.id })
      expect([...first, ...next].map((h) => h.text)).toEqual(['calabresa again', 'Quero uma pizza de calabresa'])
    })
  })

  describe('changes to a message', () => {
    it('an edit is found by its new words only; a deletion takes the text out of search and keeps the record', async () => {
      const order = msg({ text: 'two margheritas please', pushName: 'Ann' })
      await repos.messages.append('i1', order)
      await repos.messages.update('i1', order.id, { text: 'three diavolas please', edited: { at: 1, history: [{ text: order.text, at: order.timestamp }] } })
      expect((await repos.messages.search('i1', { q: 'diavolas' })).map((m) => m.id)).toEqual([order.id])
      expect(await repos.messages.search('i1', { q: 'margheritas' })).toEqual([])
      // Short terms go through the scan, long ones through the index: both must miss the deleted words.
      await repos.messages.update('i1', order.id, { text: '', edited: undefined, deleted: { at: 2, by: 'customer' } })
      expect(await repos.messages.search('i1', { q: 'diavolas' })).toEqual([])
      expect(await repos.messages.search('i1', { q: 'diavolas', chatId: CHAT })).toEqual([])
      expect(await repos.messages.search('i1', { q: 'di' })).toEqual([])
      const kept = await repos.messages.find('i1', order.id)
      expect(kept).toMatchObject({ text: '', deleted: { at: 2, by: 'customer' } })
      expect(kept!.edited).toBeUndefined()
      expect(JSON.stringify(kept)).not.toContain('margheritas')
      // The sender is still found (who wrote stays on record, not what).
      expect((await repos.messages.search('i1', { q: 'Ann' })).map((m) => m.id)).toEqual([order.id])
    })

    it('reactions and a poll tally are kept with the message and survive a restart', async () => {
      const poll = msg({ type: 'poll', text: 'Friday?', fromMe: true, source: 'phone', poll: { selectable: 0, options: [{ name: 'Yes', votes: 1 }], voters: [{ by: CHAT, options: ['Yes'], at: 5 }] } })
      await repos.messages.append('i1', poll)
      await repos.messages.update('i1', poll.id, { reactions: [{ by: CHAT, fromMe: false, emoji: '👍', at: 6 }] })
      await t.reopen()
      expect(await t.storage.repos.messages.find('i1', poll.id)).toMatchObject({ poll: { options: [{ name: 'Yes', votes: 1 }] }, reactions: [{ emoji: '👍' }] })
    })

    it('a conversation keeps the customer’s username', async () => {
      const lid = '220000000000001@lid'
      await repos.messages.append('i1', msg({ chatId: lid, senderId: lid, username: 'lu.bakes' }))
      const [c] = await repos.conversations.list(['i1'], {}, 10, Date.now())
      expect(c).toMatchObject({ chatId: lid, username: 'lu.bakes', phone: null })
    })
  })

  describe('conversations', () => {
    it('count unread customer messages until read or answered by a person; the last message and name follow', async () => {
      const inbound = (t: number, text: string) => msg({ timestamp: t, text })
      await repos.messages.append('i1', inbound(1000, 'hi'))
      await repos.messages.append('i1', inbound(2000, 'anyone?'))
      await repos.messages.append('i1', msg({ timestamp: 2500, fromMe: true, source: 'bot', pushName: null, text: 'We will reply soon' }))
      let [c] = await repos.conversations.list(['i1'], {}, 10, Date.now())
      expect(c).toMatchObject({ chatId: CHAT, name: 'Ann', phone: '15550001111', unread: 2, unanswered: false, last: { text: 'We will reply soon' } })
      await repos.messages.append('i1', msg({ timestamp: 3000, fromMe: true, source: 'desk', pushName: null, text: 'Hello Ann' }))
      ;[c] = await repos.conversations.list(['i1'], {}, 10, Date.now())
      expect(c!.unread).toBe(0)
      await repos.messages.append('i1', inbound(4000, 'thanks'))
      ;[c] = await repos.conversations.list(['i1'], { unanswered: true }, 10, Date.now())
      expect(c).toMatchObject({ unread: 1, unanswered: true })
      const newlyRead = await repos.conversations.markRead('i1', CHAT)
      expect(newlyRead!.map((m) => m.text)).toEqual(['hi', 'anyone?', 'thanks'])
      ;[c] = await repos.conversations.list(['i1'], {}, 10, Date.now())
      expect(c!.unread).toBe(0)
    })

    it('the phone’s history is stored once by id and never counts as unread; a live message after it does', async () => {
      const live = msg({ timestamp: 5000, text: 'live' })
      await repos.messages.append('i1', live)
      const history = [msg({ timestamp: 1000, text: 'old question' }), msg({ timestamp: 2000, fromMe: true, source: 'phone', pushName: null, text: 'old answer' }), live]
      expect(await repos.messages.appendMany('i1', history, { history: true })).toBe(2)
      expect(await repos.messages.appendMany('i1', history, { history: true })).toBe(0)
      let c = await repos.conversations.get('i1', CHAT, Date.now())
      expect(c).toMatchObject({ unread: 1, last: { text: 'live' } })
      // A chat the history alone brings is not unread either.
      const other = '15550002222@s.whatsapp.net'
      expect(await repos.messages.appendMany('i1', [msg({ chatId: other, timestamp: 1000 }), msg({ chatId: other, timestamp: 2000 })], { history: true })).toBe(2)
      expect(await repos.conversations.get('i1', other, Date.now())).toMatchObject({ unread: 0 })
      await repos.messages.append('i1', msg({ chatId: other, timestamp: 3000 }))
      expect(await repos.conversations.get('i1', other, Date.now())).toMatchObject({ unread: 1 })
      expect((await repos.messages.list('i1', { chatId: CHAT })).map((m) => m.text)).toEqual(['old question', 'old answer', 'live'])
      c = await repos.conversations.get('i1', CHAT, Date.now())
      expect(c!.unread).toBe(1)
    })

    it('the oldest message WhatsApp has of a chat: failed and pending sends, placeholders skipped', async () => {
      await repos.messages.appendMany('i1', [
        msg({ id: 'FAILED', timestamp: 1000, fromMe: true, source: 'api', status: 'ERROR' }),
        msg({ id: 'WAITING', timestamp: 1500, type: 'undecryptable', status: 'UNDECRYPTABLE' }),
        msg({ id: 'FIRST', timestamp: 2000 }),
        msg({ id: 'SECOND', timestamp: 3000 })
      ])
      expect((await repos.messages.oldestDelivered('i1', CHAT))?.id).toBe('FIRST')
      expect(await repos.messages.oldestDelivered('i1', 'nobody@s.whatsapp.net')).toBeUndefined()
    })

    it('a LID chat filed under its number keeps one conversation with both histories', async () => {
      const lid = '123456789@lid'
      await repos.messages.append('i1', msg({ chatId: lid, senderId: lid, timestamp: 1000, text: 'from the lid' }))
      await repos.messages.append('i1', msg({ timestamp: 2000, text: 'from the number' }))
      expect(await repos.messages.rekeyChat('i1', lid, CHAT)).toBe(1)
      const list = await repos.conversations.list(['i1'], {}, 10, Date.now())
      expect(list.map((c) => c.chatId)).toEqual([CHAT])
      expect(list[0]!.unread).toBe(2)
      const moved = await repos.messages.list('i1', { chatId: CHAT })
      expect(moved.map((m) => [m.text, m.senderPn, m.senderLid])).toEqual([
        ['from the lid', CHAT, lid],
        ['from the number', undefined, undefined]
      ])
    })
  })

  describe('retention and erasure', () => {
    it('deletes messages older than a time; conversations follow, empty ones go', async () => {
      await repos.messages.appendMany('i1', [msg({ timestamp: 1000 }), msg({ timestamp: 2000 }), msg({ timestamp: 5000, chatId: '15550003333@s.whatsapp.net' })])
      await repos.messages.append('i1', msg({ timestamp: 1000, chatId: '15550004444@s.whatsapp.net' }))
      expect(await repos.customerData.deleteMessagesBefore('i1', 1500)).toHaveLength(2)
      const list = await repos.conversations.list(['i1'], {}, 10, Date.now())
      expect(list.map((c) => c.chatId).sort()).toEqual([CHAT, '15550003333@s.whatsapp.net'])
    })

    it('erases one customer everywhere (messages, chats, runs, contact) and remembers only that it happened', async () => {
      await repos.messages.appendMany('i1', [msg(), msg(), msg({ chatId: '15550009999@s.whatsapp.net', pushName: 'Other' })])
      const group = '120363000000000001@g.us'
      await repos.messages.append('i1', msg({ chatId: group, senderId: CHAT, senderPn: CHAT, text: 'in the group' }))
      await repos.messages.append('i1', msg({ chatId: group, senderId: '15550009999@s.whatsapp.net', text: 'someone else in the group' }))
      const now = new Date().toISOString()
      await repos.contacts.put({ _id: 'c1', name: 'Ann', number: '15550001111', client_id: 'u', instance_id: 'i1', group_id: null, channel: 'whatsapp', labels: ['vip'], notes: '', opted_out: false, last_seen_at: null, createdAt: now, updatedAt: now, __v: 0 })
      await repos.surveyRuns.put({ _id: 'r1', instance_id: 'i1', survey_title: 'S', chatId: CHAT, pushName: 'Ann', status: 'completed', current_step_id: null, answers: [{ step_id: 's', question: 'q', answer: 'a', at: now }], startedAt: now, updatedAt: now, completedAt: now })
      const exported = await repos.customerData.exportCustomer('i1', '15550001111')
      expect(exported.messages.map((m) => m.text)).toHaveLength(3)
      expect(exported.contact?.labels).toEqual(['vip'])
      expect(exported.surveyRuns).toHaveLength(1)
      const { counts } = await repos.customerData.eraseCustomer('i1', '15550001111', 'owner', now, 'e1')
      expect(counts).toMatchObject({ messages: 3, contacts: 1, survey_runs: 1, conversations: 1 })
      expect(await repos.messages.search('i1', { q: 'message' })).toHaveLength(1)
      expect((await repos.messages.list('i1', { chatId: group })).map((m) => m.text)).toEqual(['someone else in the group'])
      expect(await repos.contacts.byNumber('i1', '15550001111')).toBeUndefined()
      expect(await repos.customerData.erasedAt('i1', '15550001111')).toBe(now)
      // Nothing of the number is kept in the record of the erasure.
      const rows = await t.storage.database.db.selectFrom('erasures').selectAll().execute()
      expect(JSON.stringify(rows)).not.toContain('15550001111')
    })
  })

  it('survives a restart: the messages, their order and the conversations', async () => {
    await repos.messages.appendMany('i1', [msg({ text: 'one' }), msg({ text: 'two' })])
    const again = await t.reopen()
    expect((await again.repos.messages.list('i1')).map((m) => m.text)).toEqual(['one', 'two'])
    expect((await again.repos.conversations.list(['i1'], {}, 10, Date.now()))[0]!.unread).toBe(2)
  })
})
