import { describe, expect, it } from 'vitest'
import { knownLidFor, withStableChat, type LidLookup } from '../../../src/main/channel/baileys/chat-identity'
import type { InboundMessage } from '../../../src/main/channel/types'

const PN = '15551234567@s.whatsapp.net'
const LID = '220000000000001@lid'
const base: InboundMessage = { id: 'M1', chatId: LID, senderId: LID, fromMe: false, type: 'text', text: 'hi', timestamp: 1, offline: false }
const lookup = (map: Record<string, string>): LidLookup => ({ getPNForLID: async (lid) => map[lid] ?? null })

describe('withStableChat (docs/design.md §13 one chat per customer)', () => {
  it('a LID chat with the number beside it (remoteJidAlt) is filed under the number, and the link is reported', async () => {
    const r = await withStableChat({ ...base, senderPn: PN, senderLid: LID }, lookup({}))
    expect(r.message).toMatchObject({ chatId: PN, senderId: PN, senderPn: PN, senderLid: LID })
    expect(r.identity).toEqual({ lid: LID, pn: PN })
  })

  it("a LID chat without it takes the library's mapping (device suffix dropped)", async () => {
    const r = await withStableChat(base, lookup({ [LID]: '15551234567:3@s.whatsapp.net' }))
    expect(r.message.chatId).toBe(PN)
    expect(r.identity).toEqual({ lid: LID, pn: PN })
  })

  it('a LID nobody can map stays a LID chat; a failing lookup counts as no mapping', async () => {
    expect((await withStableChat(base, lookup({}))).message).toEqual(base)
    const failing: LidLookup = { getPNForLID: async () => Promise.reject(new Error('store closed')) }
    expect(await withStableChat(base, failing)).toEqual({ message: base })
  })

  it('a number-addressed message that names its LID reports the link; groups get the sender number filled in', async () => {
    const pnMsg = { ...base, chatId: PN, senderId: PN, senderPn: PN, senderLid: LID }
    expect(await withStableChat(pnMsg, undefined)).toEqual({ message: pnMsg, identity: { lid: LID, pn: PN } })
    const group = { ...base, chatId: '1203@g.us', senderId: LID, senderLid: LID }
    expect((await withStableChat(group, lookup({ [LID]: PN }))).message).toMatchObject({ chatId: '1203@g.us', senderPn: PN })
  })
})

describe('knownLidFor (sends to a chat that moved to LID, Baileys #2683)', () => {
  // The library's own key layout (lib/Signal/lid-mapping.js storeLIDPNMappings): `<pn user>` → `<lid user>`.
  const keys = (rows: Record<string, string>) => ({
    get: async (type: string, ids: string[]) => (type === 'lid-mapping' ? Object.fromEntries(ids.filter((id) => id in rows).map((id) => [id, rows[id]])) : {})
  })

  it("answers the stored LID of a number, device suffix ignored; nothing for an unknown number, a LID or a group", async () => {
    const store = keys({ '15551234567': '220000000000001', '220000000000001_reverse': '15551234567' })
    expect(await knownLidFor(PN, store as never)).toBe(LID)
    expect(await knownLidFor('15551234567:3@s.whatsapp.net', store as never)).toBe(LID)
    expect(await knownLidFor('15550009999@s.whatsapp.net', store as never)).toBeUndefined()
    expect(await knownLidFor(LID, store as never)).toBeUndefined()
    expect(await knownLidFor('120363000000000001@g.us', store as never)).toBeUndefined()
  })

  it('an unreadable store is no mapping (the send goes to the number)', async () => {
    expect(await knownLidFor(PN, { get: async () => Promise.reject(new Error('closed')) } as never)).toBeUndefined()
  })
})
