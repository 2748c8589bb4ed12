/**
 * Signal session records stop growing with the conversation (docs/benchmarks.md "Signal session record size"): Baileys' own signal
 * repository over the product's auth store, talking to a libsignal contact, turn after turn. libsignal
 * 6.0.0 adds a receiving chain per turn and never drops one; the auth store keeps the newest five.
 */
import { afterEach, expect, it } from 'vitest'
import { MAX_RECEIVING_CHAINS, pruneSessionRecord } from '../../../src/main/channel/baileys/session-record-prune'
import { openSignalConversation, type SignalConversation } from '../../support/signal-conversation'

let conv: SignalConversation | undefined
afterEach(async () => {
  await conv?.close()
  conv = undefined
})

it('a session record after 200 turns is no bigger than after 30 (within 10 %), and the chat still decrypts', async () => {
  conv = await openSignalConversation()
  for (let i = 0; i < 30; i++) await conv.turn()
  const early = await conv.recordBytes()
  for (let i = 0; i < 170; i++) await conv.turn()
  const late = await conv.recordBytes()
  expect(late).toBeLessThanOrEqual(early * 1.1)
}, 60_000)

it('keeps the current receiving chain, the sending chain and the newest others up to five', () => {
  const chain = (chainType: number) => ({ chainType, chainKey: { counter: 0, key: 'k' }, messageKeys: {} })
  const record = {
    version: 'v1',
    _sessions: {
      base: {
        currentRatchet: { lastRemoteEphemeralKey: 'r7' },
        _chains: { r1: chain(2), s1: chain(1), r2: chain(2), r3: chain(2), r4: chain(2), r5: chain(2), r6: chain(2), r7: chain(2) }
      }
    }
  }
  expect(pruneSessionRecord(record)).toBe(2)
  expect(Object.keys(record._sessions.base._chains)).toEqual(['s1', 'r3', 'r4', 'r5', 'r6', 'r7'])
  expect(Object.keys(record._sessions.base._chains).filter((k) => k.startsWith('r'))).toHaveLength(MAX_RECEIVING_CHAINS)
  expect(pruneSessionRecord(null)).toBe(0)
  expect(pruneSessionRecord(Buffer.from('x'))).toBe(0)
})
