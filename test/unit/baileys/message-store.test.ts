import { mkdtemp, readFile, rm, writeFile, appendFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { MessageStore } from '../../../src/main/channel/baileys/message-store'
import { waMessage } from '../../helpers/fake-baileys'

let dir: string
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'chatapp-ms-'))
})
afterEach(async () => {
  await rm(dir, { recursive: true, force: true })
})

const msg = (id: string, fromMe = true) => waMessage({ key: { id, remoteJid: '15551230000@s.whatsapp.net', fromMe }, message: { conversation: id } })
const media = (id: string) =>
  waMessage({ key: { id, remoteJid: '15551230000@s.whatsapp.net', fromMe: false }, message: { imageMessage: { mediaKey: Buffer.alloc(32, 7), directPath: '/m/1', mimetype: 'image/png' } } })

describe('MessageStore', () => {
  it('answers getMessage content and knows our own sends', () => {
    const s = new MessageStore(null, { max: 10 })
    s.remember(msg('A'), true)
    s.remember(msg('B', false), false)
    expect(s.content('A')).toEqual({ conversation: 'A' })
    expect(s.content(undefined)).toBeUndefined()
    expect(s.isOwnSend('A')).toBe(true)
    expect(s.isOwnSend('B')).toBe(false)
    // The echo of an own send does not unmark it.
    s.remember(msg('A'), false)
    expect(s.isOwnSend('A')).toBe(true)
  })

  it('ignores messages without content and stays bounded', () => {
    const s = new MessageStore(null, { max: 5 })
    s.remember(waMessage({ key: { id: 'X', remoteJid: 'a@s.whatsapp.net' } }), false)
    expect(s.size).toBe(0)
    for (let i = 0; i < 50; i++) s.remember(msg(`M${i}`), false)
    expect(s.size).toBe(5)
    expect(s.get('M0')).toBeUndefined()
    expect(s.get('M49')?.key.id).toBe('M49')
  })

  it('keeps own sends and inbound media on disk across a restart; plain inbound text stays in memory only', async () => {
    const file = join(dir, 'message-store.jsonl')
    const s = new MessageStore(file, { max: 10 })
    await s.load()
    s.remember(msg('OWN'), true)
    s.remember(msg('TEXT', false), false)
    s.remember(media('PIC'), false)
    await s.close()
    const again = new MessageStore(file, { max: 10 })
    await again.load()
    expect(again.content('OWN')).toMatchObject({ conversation: 'OWN' })
    expect(again.isOwnSend('OWN')).toBe(true)
    expect(Buffer.from(again.get('PIC')!.message!.imageMessage!.mediaKey!)).toEqual(Buffer.alloc(32, 7))
    expect(again.get('TEXT')).toBeUndefined()
  })

  it('drops expired entries on load, skips a torn line, and compacts the file', async () => {
    const file = join(dir, 'message-store.jsonl')
    let now = 1_000_000
    const s = new MessageStore(file, { max: 2, ttlMs: 1000, now: () => now })
    await s.load()
    s.remember(msg('OLD'), true)
    await s.flush()
    now += 2000
    await appendFile(file, '{"id":"TORN","at":')
    await appendFile(file, '\n')
    const again = new MessageStore(file, { max: 2, ttlMs: 1000, now: () => now })
    await again.load()
    expect(again.get('OLD')).toBeUndefined()
    for (const id of ['A', 'B', 'C', 'D', 'E']) again.remember(msg(id), true)
    await again.flush()
    const lines = (await readFile(file, 'utf8')).trim().split('\n')
    expect(lines.length).toBeLessThanOrEqual(4)
    const third = new MessageStore(file, { max: 2, ttlMs: 1000, now: () => now })
    await third.load()
    expect(third.get('E')).toBeDefined()
    await writeFile(file, 'not json\n')
    const broken = new MessageStore(file, { max: 2 })
    await expect(broken.load()).resolves.toBeUndefined()
  })
})
