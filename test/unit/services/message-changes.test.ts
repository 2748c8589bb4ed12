/**
 * What a change does to a log entry (services/messages/message-changes.ts changePatch, pure): only
 * the author edits or deletes, in the message's own chat; a deletion clears the content and keeps the
 * record; one reaction per person; a voter's latest choice counts, for the poll's own options only.
 */
import { describe, expect, it } from 'vitest'
import type { MessageChange } from '../../../src/main/channel/types'
import { changePatch, tallyVote } from '../../../src/main/services/messages/message-changes'
import type { LoggedMessage, PollTally } from '../../../src/shared/schemas/records'

const ANA = '15551234567@s.whatsapp.net'
const BO = '15559876543@s.whatsapp.net'
const GROUP = '120363000000000001@g.us'

const entry = (fields: Partial<LoggedMessage> = {}): LoggedMessage => ({
  id: 'M1', chatId: ANA, fromMe: false, pushName: 'Ana', type: 'text', text: '2 pizzas', timestamp: 1_000, status: 'RECEIVED', source: 'inbound', senderId: ANA, ...fields
})
const base = { id: 'M1', changeId: 'C1', chatId: ANA, senderId: ANA, fromMe: false, timestamp: 5, offline: false }
const change = (c: Partial<MessageChange> & Pick<MessageChange, 'kind'>): MessageChange => ({ ...base, ...c }) as MessageChange

describe('edits and deletions', () => {
  it('an edit by the author replaces the text and keeps every earlier one, oldest first', () => {
    const once = changePatch(entry(), change({ kind: 'edit', text: '3 pizzas' }))!
    expect(once).toEqual({ patch: { text: '3 pizzas', edited: { at: 5000, history: [{ text: '2 pizzas', at: 1000 }] } }, previousText: '2 pizzas' })
    const twice = changePatch(entry({ ...once.patch }), change({ kind: 'edit', text: '4 pizzas', timestamp: 9 }))!
    expect(twice.patch.edited).toEqual({ at: 9000, history: [{ text: '2 pizzas', at: 1000 }, { text: '3 pizzas', at: 5000 }] })
  })

  it('changes by someone else, in another chat, or on a deleted message do nothing', () => {
    expect(changePatch(entry(), change({ kind: 'edit', text: 'x', senderId: BO, chatId: BO }))).toBeNull()
    expect(changePatch(entry(), change({ kind: 'edit', text: 'x', fromMe: true, senderId: 'me' }))).toBeNull()
    expect(changePatch(entry({ chatId: GROUP, senderId: ANA }), change({ kind: 'delete', chatId: GROUP, senderId: BO }))).toBeNull()
    expect(changePatch(entry({ deleted: { at: 1, by: 'customer' }, text: '' }), change({ kind: 'reaction', emoji: '👍' }))).toBeNull()
    expect(changePatch(entry(), change({ kind: 'edit', text: '2 pizzas' }))).toBeNull()
  })

  it('a deletion clears text, media, history, reactions and poll, and says who deleted it', () => {
    const full = entry({ media: { mimetype: 'image/jpeg' }, edited: { at: 2, history: [{ text: 'a', at: 1 }] }, reactions: [{ by: 'me', fromMe: true, emoji: '👍', at: 3 }] })
    expect(changePatch(full, change({ kind: 'delete' }))!.patch).toEqual({
      text: '', media: undefined, location: undefined, options: undefined, edited: undefined, reactions: undefined, poll: undefined, deleted: { at: 5000, by: 'customer' }
    })
    const own = entry({ fromMe: true, source: 'api', senderId: undefined })
    expect(changePatch(own, change({ kind: 'delete', fromMe: true, senderId: 'me' }))!.patch.deleted).toEqual({ at: 5000, by: 'phone' })
  })
})

describe('reactions and votes', () => {
  it('one reaction per person: a new emoji replaces theirs, "" removes it', () => {
    const r1 = changePatch(entry(), change({ kind: 'reaction', emoji: '👍' }))!.patch.reactions!
    expect(r1).toEqual([{ by: ANA, fromMe: false, emoji: '👍', at: 5000 }])
    const r2 = changePatch(entry({ reactions: r1 }), change({ kind: 'reaction', emoji: '❤️', fromMe: true, senderId: 'me' }))!.patch.reactions!
    expect(r2.map((r) => [r.by, r.emoji])).toEqual([[ANA, '👍'], ['me', '❤️']])
    expect(changePatch(entry({ reactions: r2 }), change({ kind: 'reaction', emoji: '' }))!.patch.reactions!.map((r) => r.by)).toEqual(['me'])
  })

  it('a voter’s latest choice counts; unknown options and choices past the limit are dropped', () => {
    const poll: PollTally = { selectable: 1, options: [{ name: 'A', votes: 0 }, { name: 'B', votes: 0 }], voters: [] }
    const a = tallyVote(poll, ANA, ['A', 'Z'], 1)
    const b = tallyVote(a, BO, ['B', 'A'], 2)
    expect(b.options).toEqual([{ name: 'A', votes: 1 }, { name: 'B', votes: 1 }])
    expect(tallyVote(b, ANA, ['B'], 3).options).toEqual([{ name: 'A', votes: 0 }, { name: 'B', votes: 2 }])
    expect(tallyVote(b, ANA, [], 3).voters.map((v) => v.by)).toEqual([BO])
    expect(changePatch(entry(), change({ kind: 'poll_vote', selected: ['A'] }))).toBeNull()
  })
})
