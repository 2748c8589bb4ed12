/**
 * The real channel's recent-message store (src/main/channel/baileys/message-store.ts) on a real SQLite
 * file: own sends and inbound media kept across a restart, plain inbound text in memory only, the
 * TTL and the row bound per instance, lookups past the memory bound, getMessage answering only own
 * sends with content within the TTL, a full disk that never stops the session, and nothing written
 * after close.
 */
import { pino } from 'pino'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { MessageStore, type MessageStoreOptions } from '../../../src/main/channel/baileys/message-store'
import { openTestChannelStore, type TestChannelStore } from '../../helpers/channel-store'
import type { WAMessage } from 'baileys'
import { waMessage } from '../../helpers/fake-baileys'

const logger = pino({ level: 'silent' })
let t: TestChannelStore
beforeEach(async () => {
  t = await openTestChannelStore()
})
afterEach(async () => {
  await t.database.limitGrowth(null)
  await t.close()
})

const msg = (id: string, fromMe = true) => waMessage({ key: { id, remoteJid: '15551230000@s.whatsapp.net', fromMe }, message: { conversation: id } })
const media = (id: string) =>
  waMessage({ key: { id, remoteJid: '15551230000@s.whatsapp.net', fromMe: false }, message: { imageMessage: { mediaKey: Buffer.alloc(32, 7), directPath: '/m/1', mimetype: 'image/png' } } })
const own = (id: string, message: WAMessage['message']) => waMessage({ key: { id, remoteJid: '15551230000@s.whatsapp.net', fromMe: true }, message })
const storeOf = (opts: MessageStoreOptions = {}, instanceId = 'inst1') => new MessageStore({ repo: t.store.messages, instanceId }, { logger, ...opts })

describe('MessageStore', () => {
  it('answers getMessage content and knows our own sends', async () => {
    const s = new MessageStore(null, { max: 10 })
    s.remember(msg('A'), true)
    s.remember(msg('B', false), false)
    expect(await s.content('A')).toEqual({ conversation: 'A' })
    expect(await s.content(undefined)).toBeUndefined()
    expect(s.isOwnSend('A')).toBe(true)
    expect(s.isOwnSend('B')).toBe(false)
    // The echo of an own send does not unmark it.
    s.remember(msg('A'), false)
    expect(s.isOwnSend('A')).toBe(true)
  })

  it('getMessage never answers an empty message (Baileys would relay it and spend the retry)', async () => {
    const s = storeOf({ max: 10 })
    await s.load()
    s.remember(own('EMPTY', {}), true)
    s.remember(own('BLANK', { conversation: '' }), true)
    s.remember(own('CONTEXT-ONLY', { messageContextInfo: { messageSecret: Buffer.alloc(32, 1) } }), true)
    await s.flush()
    for (const id of ['EMPTY', 'BLANK', 'CONTEXT-ONLY']) expect(await s.content(id), id).toBeUndefined()
    const fresh = storeOf({ max: 10 })
    await fresh.load()
    for (const id of ['EMPTY', 'BLANK', 'CONTEXT-ONLY']) expect(await fresh.content(id), id).toBeUndefined()
  })

  it("getMessage answers only our own sends: a contact's message, in memory or in the database, is not ours to send again", async () => {
    const s = storeOf({ max: 10 })
    await s.load()
    s.remember(msg('THEIRS', false), false)
    s.remember(media('THEIR-PIC'), false)
    s.remember(msg('MINE'), true)
    await s.flush()
    expect(await s.content('THEIRS')).toBeUndefined()
    expect(await s.content('THEIR-PIC')).toBeUndefined()
    expect(await s.content('MINE')).toEqual({ conversation: 'MINE' })
    const fresh = storeOf({ max: 10 })
    await fresh.load()
    expect(await fresh.content('THEIR-PIC')).toBeUndefined()
    expect(await fresh.content('MINE')).toEqual({ conversation: 'MINE' })
  })

  it('getMessage answers nothing kept longer ago than the window, not even from memory; a download may still read it', async () => {
    let now = 1_000_000
    const s = storeOf({ max: 10, ttlMs: 1000, now: () => now })
    await s.load()
    s.remember(msg('MINE'), true)
    await s.flush()
    now += 1000
    expect(await s.content('MINE')).toEqual({ conversation: 'MINE' })
    now += 1
    expect(await s.content('MINE')).toBeUndefined()
    expect(await s.lookup('MINE')).toMatchObject({ key: { id: 'MINE' } })
  })

  it('ignores messages without content and stays bounded in memory', () => {
    const s = new MessageStore(null, { max: 5 })
    s.remember(waMessage({ key: { id: 'X', remoteJid: 'a@s.whatsapp.net' } }), false)
    expect(s.size).toBe(0)
    for (let i = 0; i < 50; i++) s.remember(msg(`M${i}`), false)
    expect(s.size).toBe(5)
    expect(s.get('M0')).toBeUndefined()
    expect(s.get('M49')?.key.id).toBe('M49')
  })

  it('keeps own sends and inbound media in the database across a restart; plain inbound text stays in memory only', async () => {
    const s = storeOf({ max: 10 })
    await s.load()
    s.remember(msg('OWN'), true)
    s.remember(msg('TEXT', false), false)
    s.remember(media('PIC'), false)
    await s.close()
    expect(await t.store.messages.count('inst1')).toBe(2)
    const again = storeOf({ max: 10 })
    await again.load()
    expect(await again.content('OWN')).toMatchObject({ conversation: 'OWN' })
    expect(again.isOwnSend('OWN')).toBe(true)
    expect(Buffer.from(again.get('PIC')!.message!.imageMessage!.mediaKey!)).toEqual(Buffer.alloc(32, 7))
    expect(again.get('TEXT')).toBeUndefined()
    // Another instance's store sees none of it.
    const other = storeOf({ max: 10 }, 'inst2')
    await other.load()
    expect(await other.lookup('OWN')).toBeUndefined()
  })

  it('a message memory evicted is still answered from the database (retries, downloads)', async () => {
    const s = storeOf({ max: 3 })
    await s.load()
    s.remember(msg('OLD-SEND'), true)
    for (let i = 0; i < 3; i++) s.remember(msg(`T${i}`, false), false)
    await s.flush()
    expect(s.get('OLD-SEND')).toBeUndefined()
    expect(await s.content('OLD-SEND')).toEqual({ conversation: 'OLD-SEND' })
    expect(await s.lookup('NEVER')).toBeUndefined()
  })

  it('drops messages older than the TTL at load and in lookups, and keeps at most `max` rows per instance', async () => {
    let now = 1_000_000
    const s = storeOf({ max: 3, ttlMs: 1000, now: () => now })
    await s.load()
    s.remember(msg('OLD'), true)
    await s.flush()
    now += 2000
    expect(await s.lookup('OLD')).toMatchObject({ key: { id: 'OLD' } }) // memory has no TTL of its own
    const again = storeOf({ max: 3, ttlMs: 1000, now: () => now })
    await again.load()
    expect(again.get('OLD')).toBeUndefined()
    expect(await again.lookup('OLD')).toBeUndefined()
    expect(await t.store.messages.count('inst1')).toBe(0)

    // Every `max` new rows the oldest beyond the bound go.
    for (const [i, id] of ['A', 'B', 'C', 'D', 'E', 'F'].entries()) {
      now += 1
      if (i % 2 === 0) again.remember(msg(id), true)
      else again.remember(media(id), false)
    }
    await again.flush()
    expect(await t.store.messages.count('inst1')).toBe(3)
    const third = storeOf({ max: 3, ttlMs: 1000, now: () => now })
    await third.load()
    expect(['A', 'B', 'C', 'D', 'E', 'F'].filter((id) => third.get(id))).toEqual(['D', 'E', 'F'])
    expect(third.isOwnSend('E')).toBe(true)
    expect(third.isOwnSend('F')).toBe(false)
  })

  it('a full disk: the message stays in memory, nothing throws, later writes go on once there is room', async () => {
    const s = storeOf({ max: 50 })
    await s.load()
    await t.database.limitGrowth(0)
    const big = (id: string) => waMessage({ key: { id, remoteJid: '15551230000@s.whatsapp.net', fromMe: true }, message: { conversation: id.padEnd(20_000, '.') } })
    s.remember(big('FULL'), true)
    await s.flush()
    expect(await s.content('FULL')).toEqual({ conversation: 'FULL'.padEnd(20_000, '.') })
    expect(await t.store.messages.count('inst1')).toBe(0)
    await t.database.limitGrowth(null)
    s.remember(big('ROOM'), true)
    await s.flush()
    expect(await t.store.messages.count('inst1')).toBe(1)
  })

  it('nothing is written after close; destroy deletes the rows and memory', async () => {
    const s = storeOf({ max: 10 })
    await s.load()
    s.remember(msg('KEPT'), true)
    await s.close()
    s.remember(msg('LATE'), true)
    await s.flush()
    expect(await t.store.messages.count('inst1')).toBe(1)
    await s.destroy()
    expect(await t.store.messages.count('inst1')).toBe(0)
    expect(s.size).toBe(0)
    s.remember(msg('AFTER'), true)
    await s.flush()
    expect(await t.store.messages.count('inst1')).toBe(0)
  })
})
