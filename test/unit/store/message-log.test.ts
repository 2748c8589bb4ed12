import { appendFile, mkdtemp, readdir, readFile, rm, writeFile, mkdir } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { MessageLog } from '../../../src/main/store/message-log'
import { enospc, injectFileFaults } from '../../../src/main/store/durable-file'
import type { LoggedMessage } from '../../../src/shared/schemas/records'

let dir: string
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'chatapp-log-'))
})
afterEach(async () => {
  await rm(dir, { recursive: true, force: true })
})

const msg = (i: number, chatId = 'a@s.whatsapp.net'): LoggedMessage => ({
  id: `M${i}`,
  chatId,
  fromMe: false,
  pushName: null,
  type: 'text',
  text: `t${i}`,
  timestamp: 1000 + i,
  status: 'RECEIVED',
  source: 'inbound'
})

it('appends, lists newest last, filters, and survives a reopen', async () => {
  const log = new MessageLog(dir, 100)
  await Promise.all([msg(1), msg(2, 'b@s.whatsapp.net'), msg(3)].map((m) => log.append('i1', m)))
  expect((await log.list('i1')).map((m) => m.id)).toEqual(['M1', 'M2', 'M3'])
  expect((await log.list('i1', { chatId: 'a@s.whatsapp.net' })).map((m) => m.id)).toEqual(['M1', 'M3'])
  expect((await log.list('i1', { before: 1003, limit: 1 })).map((m) => m.id)).toEqual(['M2'])
  const again = new MessageLog(dir, 100)
  expect((await again.list('i1')).map((m) => m.id)).toEqual(['M1', 'M2', 'M3'])
  expect(await again.list('other')).toEqual([])
})

it('keeps the newest N and compacts the file', async () => {
  const log = new MessageLog(dir, 10)
  for (let i = 0; i < 35; i++) await log.append('i1', msg(i))
  expect((await log.list('i1', { limit: 100 })).map((m) => m.id)).toEqual(Array.from({ length: 10 }, (_, k) => `M${25 + k}`))
  const lines = (await readFile(join(dir, 'i1.jsonl'), 'utf8')).trim().split('\n')
  expect(lines.length).toBeLessThanOrEqual(20)
})

it('drops a torn last line (an unacknowledged append); a damaged line mid-file is skipped, kept aside and reported', async () => {
  await mkdir(dir, { recursive: true })
  await writeFile(join(dir, 'i1.jsonl'), JSON.stringify(msg(1)) + '\n' + '{"id":"M2","chat')
  const log = new MessageLog(dir, 10)
  expect((await log.list('i1')).map((m) => m.id)).toEqual(['M1'])
  await log.append('i1', msg(3))
  expect((await new MessageLog(dir, 10).list('i1')).map((m) => m.id)).toEqual(['M1', 'M3'])
  await appendFile(join(dir, 'i2.jsonl'), JSON.stringify(msg(1)) + '\ngarbage\n' + JSON.stringify(msg(2)) + '\n')
  const reports: Array<[string, number, string]> = []
  const reopened = new MessageLog(dir, 10, (...r) => reports.push(r))
  expect((await reopened.list('i2')).map((m) => m.id)).toEqual(['M1', 'M2'])
  expect(reports).toEqual([['i2', 1, join(dir, 'i2.rejected.jsonl')]])
  expect(await readFile(join(dir, 'i2.rejected.jsonl'), 'utf8')).toBe('garbage\n')
  // The instance keeps working: the file was rewritten without the bad line.
  await reopened.append('i2', msg(3))
  await reopened.close()
  expect((await readFile(join(dir, 'i2.jsonl'), 'utf8')).trim().split('\n').map((l) => JSON.parse(l).id)).toEqual(['M1', 'M2', 'M3'])
})

it('updates an entry with an appended patch line: applied at once and after a reopen, merged by compaction', async () => {
  const log = new MessageLog(dir, 3)
  await log.append('i1', msg(1))
  await log.append('i1', msg(2))
  expect(await log.update('i1', 'M1', { status: 'READ' })).toMatchObject({ id: 'M1', status: 'READ' })
  expect(await log.update('i1', 'nope', { status: 'READ' })).toBeUndefined()
  const text = await readFile(join(dir, 'i1.jsonl'), 'utf8')
  expect(text.trim().split('\n')).toHaveLength(3)
  expect(JSON.parse(text.trim().split('\n')[2]!)).toEqual({ $patch: 'M1', status: 'READ' })
  expect((await new MessageLog(dir, 3).find('i1', 'M1'))?.status).toBe('READ')
  // Compaction at twice the limit keeps the patched entries as they are now.
  for (let i = 3; i <= 6; i++) await log.append('i1', msg(i))
  await log.update('i1', 'M6', { chatId: 'pn@s.whatsapp.net', status: 'ERROR', error_code: '463' })
  const reopened = await new MessageLog(dir, 3).list('i1')
  expect(reopened.map((m) => m.id)).toEqual(['M4', 'M5', 'M6'])
  expect(reopened[2]).toMatchObject({ chatId: 'pn@s.whatsapp.net', status: 'ERROR', error_code: '463' })
})

it('re-keys a chat: its entries move to the new chat id with patch lines, inbound ones naming both sender forms', async () => {
  const log = new MessageLog(dir, 100)
  await log.append('i1', msg(1, 'lid1@lid'))
  await log.append('i1', { ...msg(2, 'lid1@lid'), fromMe: true, source: 'bot' })
  await log.append('i1', msg(3, 'other@s.whatsapp.net'))
  expect(await log.rekeyChat('i1', 'lid1@lid', 'pn1@s.whatsapp.net')).toBe(2)
  expect(await log.rekeyChat('i1', 'lid1@lid', 'pn1@s.whatsapp.net')).toBe(0)
  const again = new MessageLog(dir, 100)
  expect((await again.list('i1', { chatId: 'pn1@s.whatsapp.net' })).map((m) => [m.id, m.senderPn, m.senderLid])).toEqual([
    ['M1', 'pn1@s.whatsapp.net', 'lid1@lid'],
    ['M2', undefined, undefined]
  ])
  expect(await again.list('i1', { chatId: 'lid1@lid' })).toEqual([])
})

it('a lazy update is applied at once and reaches the disk with the next write, or at close', async () => {
  const log = new MessageLog(dir, 100)
  await log.append('i1', msg(1))
  expect(await log.update('i1', 'M1', { status: 'DELIVERY_ACK' }, { lazy: true })).toMatchObject({ status: 'DELIVERY_ACK' })
  expect((await log.find('i1', 'M1'))?.status).toBe('DELIVERY_ACK')
  await log.append('i1', msg(2))
  expect((await new MessageLog(dir, 100).find('i1', 'M1'))?.status).toBe('DELIVERY_ACK')
  await log.update('i1', 'M2', { status: 'READ' }, { lazy: true })
  await log.close()
  expect((await new MessageLog(dir, 100).find('i1', 'M2'))?.status).toBe('READ')
})

describe('a full disk', () => {
  afterEach(() => injectFileFaults(null))

  it('refuses an append (ENOSPC) without leaving it in memory or on disk; appends work again once there is space, and after a reopen', async () => {
    const log = new MessageLog(dir, 100)
    await log.append('i1', msg(1))
    injectFileFaults({ beforeWrite: (file) => { throw enospc(file) } })
    await expect(log.append('i1', msg(2))).rejects.toMatchObject({ code: 'ENOSPC' })
    await expect(log.update('i1', 'M1', { status: 'READ' })).rejects.toMatchObject({ code: 'ENOSPC' })
    injectFileFaults(null)
    expect((await log.list('i1')).map((m) => [m.id, m.status])).toEqual([['M1', 'RECEIVED']])
    await log.append('i1', msg(3))
    await log.close()
    expect((await new MessageLog(dir, 100).list('i1')).map((m) => m.id)).toEqual(['M1', 'M3'])
  })

  it('a full disk during a compaction keeps the old file whole, leaves no temp file behind, and the next append compacts', async () => {
    const log = new MessageLog(dir, 3)
    for (let i = 1; i <= 6; i++) await log.append('i1', msg(i))
    const before = await readFile(join(dir, 'i1.jsonl'), 'utf8')
    // The seventh line would make the file hold more than twice the limit: the compaction's write fails.
    injectFileFaults({ beforeWrite: (file) => { throw enospc(file) } })
    await expect(log.append('i1', msg(7))).rejects.toMatchObject({ code: 'ENOSPC' })
    injectFileFaults(null)
    expect(await readFile(join(dir, 'i1.jsonl'), 'utf8')).toBe(before)
    expect(await readdir(dir)).toEqual(['i1.jsonl'])
    await log.append('i1', msg(8))
    await log.close()
    expect((await readFile(join(dir, 'i1.jsonl'), 'utf8')).trim().split('\n').map((l) => JSON.parse(l).id)).toEqual(['M5', 'M6', 'M8'])
  })

  it('cuts a short write back to the last good line: nothing half-written stays, nothing glued to the next append', async () => {
    const log = new MessageLog(dir, 100)
    await log.append('i1', msg(1))
    const before = await readFile(join(dir, 'i1.jsonl'), 'utf8')
    let calls = 0
    // The OS takes 10 bytes, then the disk is full.
    injectFileFaults({ beforeWrite: (file, bytes) => (++calls === 1 ? Math.min(10, bytes) : (() => { throw enospc(file) })()) })
    await expect(log.append('i1', msg(2))).rejects.toMatchObject({ code: 'ENOSPC' })
    injectFileFaults(null)
    expect(await readFile(join(dir, 'i1.jsonl'), 'utf8')).toBe(before)
    await log.append('i1', msg(3))
    await log.close()
    const lines = (await readFile(join(dir, 'i1.jsonl'), 'utf8')).trim().split('\n')
    expect(lines.map((l) => JSON.parse(l).id)).toEqual(['M1', 'M3'])
  })
})
