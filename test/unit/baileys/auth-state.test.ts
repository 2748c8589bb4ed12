/**
 * The Baileys auth state in the database (src/main/channel/baileys/auth-state.ts) on a real SQLite
 * file: creds and keys round-trip with their types, one keys.set is one transaction (a full disk in
 * the middle of one leaves the previous keys whole and the error reaches the caller), reads see
 * writes under way, late writes after close are dropped, destroy removes the rows.
 */
import { addTransactionCapability, makeCacheableSignalKeyStore, proto } from 'baileys'
import { pino } from 'pino'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { AuthState, AuthStateError, keyChanges } from '../../../src/main/channel/baileys/auth-state'
import { MAX_RECEIVING_CHAINS } from '../../../src/main/channel/baileys/session-record-prune'
import { StorageFullError } from '../../../src/main/store/db/errors'
import { openTestChannelStore, type TestChannelStore } from '../../helpers/channel-store'

const logger = pino({ level: 'silent' })
let t: TestChannelStore
beforeEach(async () => {
  t = await openTestChannelStore()
})
afterEach(async () => {
  await t.database.limitGrowth(null)
  await t.close()
})

const open = (instanceId = 'inst1') => AuthState.open(t.store.auth, instanceId, { logger })
const preKey = (n: number) => ({ public: Buffer.alloc(32, n), private: Buffer.alloc(32, n + 1) })
/** A value about the size of a session record (a few KB). */
const bulky = (n: number, size = 3000) => Buffer.alloc(size, n)

describe('AuthState', () => {
  it('starts with fresh creds (not stored until saved) and restores them after saveCreds, Buffers as Buffers', async () => {
    const a = await open()
    expect(a.paired).toBe(false)
    expect(a.creds.noiseKey.private).toHaveLength(32)
    expect(await t.store.auth.has('inst1')).toBe(false)
    a.creds.me = { id: '15550001111:7@s.whatsapp.net', name: 'Shop', lid: '123:7@lid' }
    a.creds.account = { details: Buffer.from('d'), accountSignature: Buffer.alloc(64, 1) }
    a.creds.nextPreKeyId = 31
    await a.saveCreds()
    await a.close()

    const b = await open()
    expect(b.paired).toBe(true)
    expect(b.creds.me).toEqual({ id: '15550001111:7@s.whatsapp.net', name: 'Shop', lid: '123:7@lid' })
    expect(b.creds.nextPreKeyId).toBe(31)
    expect(Buffer.isBuffer(b.creds.noiseKey.private)).toBe(true)
    expect(Buffer.compare(b.creds.noiseKey.private, a.creds.noiseKey.private)).toBe(0)
    expect(Buffer.compare(Buffer.from(b.creds.account!.details!), Buffer.from('d'))).toBe(0)
    // Another instance's rows are its own.
    expect((await open('inst2')).paired).toBe(false)
  })

  it('keys: get omits missing ids, null deletes, values survive a reopen with their types', async () => {
    const a = await open()
    const session = new Uint8Array([1, 2, 3, 250])
    await a.keys.set({
      session: { '15551234567.0': session },
      'pre-key': { '1': preKey(7), '2': preKey(1) },
      'app-state-sync-key': { AAAA: { keyData: Buffer.from('kd'), timestamp: 1700000000 } },
      'lid-mapping': { '15551234567': '201234567890123' }
    })
    await a.keys.set({ 'pre-key': { '1': null } })
    expect(await a.keys.get('pre-key', ['1', '2', '3'])).toEqual({ '2': preKey(1) })
    await a.close()

    const b = await open()
    const got = await b.keys.get('session', ['15551234567.0'])
    expect(Buffer.from(got['15551234567.0']!)).toEqual(Buffer.from(session))
    expect(Object.keys(await b.keys.get('pre-key', ['1', '2']))).toEqual(['2'])
    const sync = (await b.keys.get('app-state-sync-key', ['AAAA'])).AAAA!
    expect(sync).toBeInstanceOf(proto.Message.AppStateSyncKeyData)
    expect(Buffer.from(sync.keyData!).toString()).toBe('kd')
    expect(await b.keys.get('lid-mapping', ['15551234567'])).toEqual({ '15551234567': '201234567890123' })
    expect(await t.store.auth.countKeys('inst1')).toBe(4)
    expect(await t.store.auth.countKeys('inst2')).toBe(0)
  })

  it('a read right after a set (not yet committed) sees the new value and deletion', async () => {
    const a = await open()
    await a.keys.set({ session: { s: new Uint8Array([1]) }, 'pre-key': { '1': preKey(1) } })
    const writing = a.keys.set({ session: { s: new Uint8Array([2]) }, 'pre-key': { '1': null } })
    const [session, pre] = await Promise.all([a.keys.get('session', ['s']), a.keys.get('pre-key', ['1'])])
    expect(Buffer.from(session.s!)).toEqual(Buffer.from([2]))
    expect(pre).toEqual({})
    await writing
    expect(Buffer.from((await a.keys.get('session', ['s'])).s!)).toEqual(Buffer.from([2]))
    expect(await t.store.auth.countKeys('inst1', 'pre-key')).toBe(0)
  })

  it('keeps the keys it read, following their committed writes: a second read does not ask the database, and answers an object of its own', async () => {
    const a = await open()
    await a.keys.set({ 'pre-key': { '1': preKey(1), '2': preKey(2) } })
    const reads = vi.spyOn(t.store.auth, 'keys')
    // Written keys are not kept until read (a pairing writes 812 pre-keys); absent ones ('9') are kept too.
    expect(await a.keys.get('pre-key', ['1', '9'])).toEqual({ '1': preKey(1) })
    const kept = await a.keys.get('pre-key', ['1', '9'])
    kept['1']!.public[0] = 99
    expect(await a.keys.get('pre-key', ['1', '9'])).toEqual({ '1': preKey(1) })
    await a.keys.set({ 'pre-key': { '1': preKey(5) } })
    expect(await a.keys.get('pre-key', ['1'])).toEqual({ '1': preKey(5) })
    expect(reads.mock.calls.map((c) => [c[1], c[2]])).toEqual([['pre-key', ['1', '9']]])
    expect(await a.keys.get('pre-key', ['2'])).toEqual({ '2': preKey(2) })
    expect(reads).toHaveBeenCalledTimes(2)
    // A reopened state (another socket) starts empty and reads the database.
    await a.close()
    const b = await open()
    expect(await b.keys.get('pre-key', ['1'])).toEqual({ '1': preKey(5) })
    expect(reads).toHaveBeenCalledTimes(3)
  })

  it('keeps only what the database holds: a write that failed, or one a clear overtook, is read from the database again', async () => {
    const a = await open()
    await a.keys.set({ session: { s: bulky(1), t: bulky(3) } })
    expect(Object.keys(await a.keys.get('session', ['s', 't'])).sort()).toEqual(['s', 't'])
    await t.database.limitGrowth(0)
    await expect(a.keys.set({ session: { s: bulky(2, 200_000) } })).rejects.toBeInstanceOf(StorageFullError)
    await t.database.limitGrowth(null)
    expect(Buffer.from((await a.keys.get('session', ['s'])).s!)).toEqual(bulky(1))

    const set = a.keys.set({ session: { t: bulky(4) } })
    const clear = a.keys.clear!()
    await Promise.all([set, clear])
    expect(await a.keys.get('session', ['s', 't'])).toEqual({})
    expect(await t.store.auth.countKeys('inst1')).toBe(0)
  })

  it('a session record keeps at most 5 receiving chains when written', async () => {
    const a = await open()
    const chain = (chainType: number) => ({ chainType, chainKey: { counter: 0, key: 'k' }, messageKeys: {} })
    const chains = Object.fromEntries(Array.from({ length: 9 }, (_, i) => [`r${i}`, chain(2)]))
    const record = { version: 'v1', _sessions: { base: { currentRatchet: { lastRemoteEphemeralKey: 'r8' }, _chains: { s: chain(1), ...chains } } } }
    await a.keys.set({ session: { '1555.0': record as never } })
    const again = await open()
    const stored = (await again.keys.get('session', ['1555.0']))['1555.0'] as unknown as typeof record
    const receiving = Object.keys(stored._sessions.base._chains).filter((k) => k.startsWith('r'))
    expect(receiving).toHaveLength(MAX_RECEIVING_CHAINS)
    expect(receiving).toContain('r8')
    expect(Object.keys(stored._sessions.base._chains)).toContain('s')
  })

  it('the library transaction layer commits a transaction of several types as ONE keys.set = one database transaction', async () => {
    const a = await open()
    // As the socket wraps it (lib/Socket/socket.js), behind the cache the session uses.
    const keys = addTransactionCapability(makeCacheableSignalKeyStore(a.keys, logger), logger, { maxCommitRetries: 1, delayBetweenTriesMs: 1 })
    await keys.transaction(async () => {
      await keys.set({ session: { s1: new Uint8Array([1]) } })
      await keys.set({ 'pre-key': { '5': preKey(5) } })
      await keys.set({ 'lid-mapping': { '1555': '2012' } })
      // Nothing is written before the transaction ends.
      expect(await t.store.auth.countKeys('inst1')).toBe(0)
    }, 'test')
    expect(await t.store.auth.countKeys('inst1')).toBe(3)
  })

  it('a full disk in the middle of a keys.set of many types: none of it is stored, the previous keys stay whole, the caller gets StorageFullError', async () => {
    const a = await open()
    const before = { session: { old: bulky(1) }, 'pre-key': { '1': preKey(1) } }
    await a.keys.set(before)
    // Free pages: the next writes fill them before the file must grow.
    await a.keys.set({ 'sender-key': Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`tmp${i}`, bulky(i)])) })
    await a.keys.set({ 'sender-key': Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`tmp${i}`, null])) })
    await t.database.limitGrowth(0)

    const big = {
      session: Object.fromEntries(Array.from({ length: 100 }, (_, i) => [`s${i}`, bulky(i)])),
      'pre-key': { '1': null, '2': preKey(2) },
      'sender-key': Object.fromEntries(Array.from({ length: 100 }, (_, i) => [`g${i}`, bulky(i)])),
      'lid-mapping': { '1555': '2012' }
    }
    await expect(a.keys.set(big)).rejects.toBeInstanceOf(StorageFullError)
    // Exactly what was there before.
    expect(await t.store.auth.countKeys('inst1')).toBe(2)
    const fresh = await open()
    expect(Buffer.from((await fresh.keys.get('session', ['old'])).old!)).toEqual(bulky(1))
    expect(await fresh.keys.get('pre-key', ['1', '2'])).toEqual({ '1': preKey(1) })
    // Reads through the store that failed also show the stored keys again.
    expect(Object.keys(await a.keys.get('session', ['old', 's0']))).toEqual(['old'])
    expect(await a.keys.get('pre-key', ['1'])).toEqual({ '1': preKey(1) })
    // The first part alone fits in the free space: a store writing type by type would have kept it.
    await a.keys.set({ session: { s0: bulky(0) } })
    expect(await t.store.auth.countKeys('inst1', 'session')).toBe(2)

    // With room again, the same set is stored whole.
    await t.database.limitGrowth(null)
    await a.keys.set(big)
    expect(await t.store.auth.countKeys('inst1')).toBe(1 + 100 + 1 + 100 + 1)
  })

  it('through the library transaction layer the full disk reaches the Signal operation, after its retries', async () => {
    const a = await open()
    await a.keys.set({ 'pre-key': { '1': preKey(1) } })
    const keys = addTransactionCapability(a.keys, logger, { maxCommitRetries: 2, delayBetweenTriesMs: 1 })
    await t.database.limitGrowth(0)
    const work = keys.transaction(async () => {
      await keys.set({ session: Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`s${i}`, bulky(i)])) })
      await keys.set({ 'pre-key': { '1': null } })
    }, 'decrypt')
    await expect(work).rejects.toBeInstanceOf(StorageFullError)
    expect(await t.store.auth.countKeys('inst1', 'session')).toBe(0)
    expect(await a.keys.get('pre-key', ['1'])).toEqual({ '1': preKey(1) })
  })

  it('a full disk while saving the creds: the error reaches the caller and the stored creds stay whole', async () => {
    const a = await open()
    a.creds.me = { id: '15550001111:7@s.whatsapp.net', name: 'Shop' }
    await a.saveCreds()
    const stored = await t.store.auth.creds('inst1')
    // Big enough to need new pages.
    a.creds.processedHistoryMessages = Array.from({ length: 400 }, (_, i) => ({ key: { id: `H${i}`.padEnd(60, 'x') }, messageTimestamp: i }))
    await t.database.limitGrowth(0)
    await expect(a.saveCreds()).rejects.toBeInstanceOf(StorageFullError)
    expect(await t.store.auth.creds('inst1')).toBe(stored)
    await t.database.limitGrowth(null)
    await a.saveCreds()
    expect((await open()).creds.processedHistoryMessages).toHaveLength(400)
  })

  it('writes are applied in order: the last creds written win', async () => {
    const a = await open()
    const writes: Promise<void>[] = []
    for (let i = 0; i < 20; i++) {
      a.creds.nextPreKeyId = i
      writes.push(a.saveCreds())
    }
    await Promise.all(writes)
    expect((await open()).creds.nextPreKeyId).toBe(19)
  })

  it('close waits for writes under way; later updates from a dying socket are dropped and never bring rows back after destroy', async () => {
    const a = await open()
    await a.saveCreds()
    const underWay = a.keys.set({ session: { s: new Uint8Array([1]) } })
    await a.close()
    await underWay
    expect(await t.store.auth.countKeys('inst1')).toBe(1)
    await a.keys.set({ session: { late: new Uint8Array([1]) } })
    expect(await t.store.auth.countKeys('inst1')).toBe(1)

    const b = await open()
    await b.destroy()
    expect(await t.store.auth.has('inst1')).toBe(false)
    await b.saveCreds()
    await b.keys.set({ session: { late: new Uint8Array([1]) } })
    await b.keys.clear!()
    expect(await t.store.auth.has('inst1')).toBe(false)
  })

  it('keys.clear deletes every key and keeps the creds', async () => {
    const a = await open()
    await a.saveCreds()
    await a.keys.set({ session: { s: new Uint8Array([1]) }, 'pre-key': { '1': preKey(1) } })
    const clearing = a.keys.clear!()
    expect(await a.keys.get('session', ['s'])).toEqual({})
    await clearing
    expect(await t.store.auth.countKeys('inst1')).toBe(0)
    expect(JSON.parse((await t.store.auth.creds('inst1'))!)).toHaveProperty('noiseKey')
  })

  it('unreadable stored creds raise AuthStateError and are left untouched', async () => {
    await t.store.auth.saveCreds('inst1', '{"noiseKey": ', new Date().toISOString())
    await expect(open()).rejects.toBeInstanceOf(AuthStateError)
    await expect(open()).rejects.toThrow(/unreadable.*log out/)
    // A sandbox pairing is not a linked device's creds.
    await t.store.auth.saveCreds('inst2', JSON.stringify({ account: { id: '1555@s.whatsapp.net' }, pairedAt: '2026-01-01T00:00:00Z' }), new Date().toISOString())
    await expect(open('inst2')).rejects.toBeInstanceOf(AuthStateError)
    expect(await t.store.auth.creds('inst1')).toBe('{"noiseKey": ')
  })

  it('keyChanges turns a key map (e.g. release 0.1 keys.json folded with its journal) into rows AuthState reads', async () => {
    const rows = keyChanges({ session: { a: new Uint8Array([1]) }, 'pre-key': { '9': null }, 'app-state-sync-key': { K: { keyData: Buffer.from('kd') } } })
    expect(rows).toEqual([
      { type: 'session', id: 'a', value: JSON.stringify({ type: 'Buffer', data: 'AQ==' }) },
      { type: 'pre-key', id: '9', value: null },
      { type: 'app-state-sync-key', id: 'K', value: JSON.stringify({ keyData: { type: 'Buffer', data: 'a2Q=' } }) }
    ])
    await t.store.auth.applyKeys('inst1', rows)
    const a = await open()
    expect(Buffer.from((await a.keys.get('session', ['a'])).a!)).toEqual(Buffer.from([1]))
    expect((await a.keys.get('app-state-sync-key', ['K'])).K).toBeInstanceOf(proto.Message.AppStateSyncKeyData)
  })
})
