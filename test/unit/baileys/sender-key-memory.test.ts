/**
 * The sender-key memory reset after a contact's identity change (src/main/channel/baileys/sender-key-memory.ts)
 * on a real SQLite file through the channel's AuthState: only the member's devices leave every group's
 * map, in both its forms; which notifications count. End to end: test/wa-e2e/groups.test.ts ("changes phone").
 */
import { pino } from 'pino'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { BinaryNode } from 'baileys'
import { AuthState } from '../../../src/main/channel/baileys/auth-state'
import { forgetSenderKeyHolders, identityChangeOf } from '../../../src/main/channel/baileys/sender-key-memory'
import { openTestChannelStore, type TestChannelStore } from '../../helpers/channel-store'

const logger = pino({ level: 'silent' })
let t: TestChannelStore
beforeEach(async () => {
  t = await openTestChannelStore()
})
afterEach(async () => {
  await t.close()
})

const ANA_PN = '15551234567'
const ANA_LID = '220000000000001'
const lidMapping = {
  getPNForLID: async (lid: string) => (lid.startsWith(ANA_LID) ? `${ANA_PN}@s.whatsapp.net` : null),
  getLIDForPN: async (pn: string) => (pn.startsWith(ANA_PN) ? `${ANA_LID}@lid` : null)
}
const me = { id: '15550001111:12@s.whatsapp.net', lid: '210000000000001:12@lid' }
const identity = (from: string, extra: Record<string, string> = {}): BinaryNode => ({
  tag: 'notification',
  attrs: { from, type: 'encrypt', id: 'n1', t: '1', ...extra },
  content: [{ tag: 'identity', attrs: {} }]
})

describe('sender-key memory after an identity change', () => {
  it("drops only the member's devices, PN and LID forms, from every group; other members and groups stay", async () => {
    const auth = await AuthState.open(t.store.auth, 'inst1', { logger })
    await auth.keys.set({
      'sender-key-memory': {
        'g1@g.us': { [`${ANA_PN}@s.whatsapp.net`]: true, [`${ANA_PN}:3@s.whatsapp.net`]: true, '15557654321@s.whatsapp.net': true },
        'g2@g.us': { [`${ANA_LID}@lid`]: true, '220000000000002@lid': true },
        'g3@g.us': { '15557654321@s.whatsapp.net': true }
      }
    })
    const change = await identityChangeOf(identity(`${ANA_PN}@s.whatsapp.net`), me, lidMapping)
    expect(change).toEqual({ users: new Set([ANA_PN, ANA_LID]), jids: [`${ANA_PN}@s.whatsapp.net`, `${ANA_LID}@lid`] })
    const groups = await auth.keyIds('sender-key-memory')
    expect(groups.sort()).toEqual(['g1@g.us', 'g2@g.us', 'g3@g.us'])
    expect(await forgetSenderKeyHolders(auth.keys, groups, change!.users)).toBe(3)
    await auth.flush()

    const reopened = await AuthState.open(t.store.auth, 'inst1', { logger })
    expect(await reopened.keys.get('sender-key-memory', ['g1@g.us', 'g2@g.us', 'g3@g.us'])).toEqual({
      'g1@g.us': { '15557654321@s.whatsapp.net': true },
      'g2@g.us': { '220000000000002@lid': true },
      'g3@g.us': { '15557654321@s.whatsapp.net': true }
    })
  })

  it('ignores what is not a contact primary device changing identity: no <identity>, a companion device, our own account', async () => {
    expect(await identityChangeOf({ ...identity(`${ANA_PN}@s.whatsapp.net`), content: [{ tag: 'count', attrs: { value: '3' } }] }, me, lidMapping)).toBeNull()
    expect(await identityChangeOf(identity(`${ANA_PN}:3@s.whatsapp.net`), me, lidMapping)).toBeNull()
    expect(await identityChangeOf(identity('15550001111@s.whatsapp.net'), me, lidMapping)).toBeNull()
    expect(await identityChangeOf(identity('210000000000001@lid'), me, lidMapping)).toBeNull()
    // A LID the mapping does not know: that form alone.
    expect(await identityChangeOf(identity('220000000000009@lid'), me, lidMapping)).toEqual({ users: new Set(['220000000000009']), jids: ['220000000000009@lid'] })
  })

  it('keyIds sees a write under way and not a deletion under way', async () => {
    const auth = await AuthState.open(t.store.auth, 'inst1', { logger })
    await auth.keys.set({ 'sender-key-memory': { 'g1@g.us': { a: true }, 'g2@g.us': { b: true } } })
    const writing = auth.keys.set({ 'sender-key-memory': { 'g3@g.us': { c: true }, 'g1@g.us': null } })
    expect((await auth.keyIds('sender-key-memory')).sort()).toEqual(['g2@g.us', 'g3@g.us'])
    await writing
    expect((await auth.keyIds('sender-key-memory')).sort()).toEqual(['g2@g.us', 'g3@g.us'])
  })
})
