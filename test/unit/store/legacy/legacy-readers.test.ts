/**
 * The readers of the 0.1 formats (src/main/store/legacy/*-reader.ts) follow 0.1's replay rules:
 * snapshot + journal with `$seq`, torn last lines, patches, outbox lines and bounds, key journals.
 * Real files in a temp dir.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { BufferJSON, proto } from 'baileys'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { DataFileError } from '../../../../src/main/store/config/durable-json-file'
import { readAuthDir } from '../../../../src/main/store/legacy/auth-reader'
import { readJournaledDocument } from '../../../../src/main/store/legacy/journaled-document-reader'
import { readLegacyConfig } from '../../../../src/main/store/legacy/legacy-documents'
import { indexMessageLog, latestById, readMessageLog } from '../../../../src/main/store/legacy/message-log-reader'
import { readWebhookOutbox } from '../../../../src/main/store/legacy/outbox-reader'
import type { LoggedMessage } from '../../../../src/shared/schemas/records'
import type { WebhookDelivery } from '../../../../src/shared/schemas/webhooks'

let dir: string
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'chatapp-legacy-read-'))
})
afterEach(async () => {
  await rm(dir, { recursive: true, force: true })
})

const lines = (...xs: unknown[]): string => xs.map((x) => (typeof x === 'string' ? x : JSON.stringify(x)) + '\n').join('')

describe('journaled document', () => {
  const defaults = { version: 1, items: [] as Array<{ _id: string; v?: number }>, log: [] as unknown[], settings: { a: 1 } as Record<string, unknown> }

  it('replays the journal after the snapshot: lines at or below $seq skipped, put/remove/set/append applied, defaults filled', async () => {
    await writeFile(join(dir, 'doc.json'), JSON.stringify({ version: 1, items: [{ _id: 'a', v: 1 }, { _id: 'b', v: 1 }], $seq: 2 }))
    await writeFile(
      join(dir, 'doc.journal'),
      lines(
        { seq: 1, ops: [{ op: 'put', path: 'items', value: { _id: 'zombie' } }] },
        { seq: 2, ops: [{ op: 'remove', path: 'items', id: 'a' }] },
        { seq: 3, ops: [{ op: 'put', path: 'items', value: { _id: 'a', v: 2 } }, { op: 'put', path: 'items', value: { _id: 'c' } }] },
        '',
        { seq: 4, ops: [{ op: 'remove', path: 'items', id: 'b' }, { op: 'set', path: ['settings', 'b'], value: 2 }, { op: 'set', path: ['settings', 'a'] }] },
        { seq: 5, ops: [{ op: 'append', path: 'log', value: { k: 'x', n: 1 }, keep: 2, by: 'k' }, { op: 'append', path: 'log', value: { k: 'y', n: 2 }, keep: 2, by: 'k' }] },
        { seq: 6, ops: [{ op: 'append', path: 'log', value: { k: 'x', n: 3 }, keep: 2, by: 'k' }, { op: 'append', path: 'log', value: { k: 'x', n: 4 }, keep: 2, by: 'k' }] }
      ) + '{"seq":7,"ops":[{"op":"remove","path":"items","id":"c"'
    )
    const doc = await readJournaledDocument(dir, 'doc', defaults)
    expect(doc.seq).toBe(6)
    // The snapshot held a and b; line 1 and 2 (seq ≤ 2) are in it already; the torn line 7 never happened.
    expect(doc.data.items).toEqual([{ _id: 'a', v: 2 }, { _id: 'c' }])
    expect(doc.data.settings).toEqual({ b: 2 })
    expect(doc.data.log).toEqual([{ k: 'y', n: 2 }, { k: 'x', n: 3 }, { k: 'x', n: 4 }])
  })

  it('a journal without a snapshot starts from the defaults; an append with keep and no `by` keeps the newest', async () => {
    await writeFile(join(dir, 'doc.journal'), lines({ seq: 1, ops: [1, 2, 3].map((n) => ({ op: 'append', path: 'log', value: n, keep: 2 })) }))
    const doc = await readJournaledDocument(dir, 'doc', defaults)
    expect(doc.data).toEqual({ version: 1, items: [], log: [2, 3], settings: { a: 1 } })
    expect(doc.hasSnapshot).toBe(false)
  })

  it('an unreadable journal line that is not the last stops the read, naming the journal and the line', async () => {
    await writeFile(join(dir, 'doc.json'), JSON.stringify({ version: 1, $seq: 0 }))
    await writeFile(join(dir, 'doc.journal'), lines({ seq: 1, ops: [] }, 'not json', { seq: 2, ops: [] }))
    const err = await readJournaledDocument(dir, 'doc', defaults).catch((e: unknown) => e)
    expect(err).toBeInstanceOf(DataFileError)
    expect((err as DataFileError).file).toBe(join(dir, 'doc.journal'))
    expect((err as Error).message).toContain('line 2')
  })

  it('an unparsable snapshot is named; an invalid record is named with its document', async () => {
    await writeFile(join(dir, 'doc.json'), '{"version":1,')
    await expect(readJournaledDocument(dir, 'doc', defaults)).rejects.toMatchObject({ name: 'DataFileError', file: join(dir, 'doc.json') })
    await writeFile(join(dir, 'chatapp.json'), JSON.stringify({ version: 1, account: null, intents: [{ _id: 'i1' }], $seq: 0 }))
    const err = await readLegacyConfig(dir).catch((e: unknown) => e)
    expect(err).toMatchObject({ name: 'DataFileError', file: join(dir, 'chatapp.json') })
    expect((err as Error).message).toContain('intents[0] (_id i1)')
  })
})

const message = (id: string, extra: Partial<LoggedMessage> = {}): LoggedMessage => ({
  id,
  chatId: 'a@s.whatsapp.net',
  fromMe: false,
  pushName: null,
  type: 'text',
  text: `text ${id}`,
  timestamp: 1000,
  status: 'RECEIVED',
  source: 'inbound',
  ...extra
})

describe('message log', () => {
  it('applies patches to the newest entry with the id; skips and reports unreadable lines (a torn tail among them)', async () => {
    const file = join(dir, 'i1.jsonl')
    await writeFile(
      file,
      lines(message('M1', { fromMe: true, source: 'api', status: 'PENDING' }), { $patch: 'M1', status: 'SERVER_ACK' }, 'garbage', { $patch: 'nobody', status: 'READ' }, message('M2'), { id: 'M3' }, { $patch: 'M1', status: 'READ', chatId: 'b@s.whatsapp.net' }) +
        '{"id":"M4","chatId'
    )
    const log = await readMessageLog(file)
    expect(log.entries.map((m) => [m.id, m.status, m.chatId])).toEqual([
      ['M1', 'READ', 'b@s.whatsapp.net'],
      ['M2', 'RECEIVED', 'a@s.whatsapp.net']
    ])
    // Line 3 does not parse, line 6 is no entry, line 8 is torn.
    expect(log.skipped.map((s) => s.line)).toEqual([3, 6, 8])
  })

  it('an id logged twice: a patch changes the newer, and latestById keeps the newer in its place', async () => {
    const file = join(dir, 'i1.jsonl')
    await writeFile(file, lines(message('M1', { text: 'old' }), message('M2'), message('M1', { text: 'new' }), { $patch: 'M1', status: 'READ' }))
    const log = await readMessageLog(file)
    expect(log.entries.map((m) => [m.id, m.text, m.status])).toEqual([
      ['M1', 'old', 'RECEIVED'],
      ['M2', 'text M2', 'RECEIVED'],
      ['M1', 'new', 'READ']
    ])
    const { entries, dropped } = latestById(log.entries)
    expect(entries.map((m) => [m.id, m.text])).toEqual([
      ['M2', 'text M2'],
      ['M1', 'new']
    ])
    expect(dropped).toBe(1)
    // The streaming pass the import uses gives the same, and counts the repeat.
    const index = await indexMessageLog(file)
    const streamed: LoggedMessage[] = []
    for await (const m of index.entries({ latestOnly: true })) streamed.push(m)
    expect(streamed).toEqual(entries)
    expect(index.repeated).toBe(1)
  })

  it('a missing file is an empty log; a folder in its place is refused, named', async () => {
    expect(await readMessageLog(join(dir, 'none.jsonl'))).toEqual({ entries: [], skipped: [] })
    await mkdir(join(dir, 'x.jsonl'))
    await expect(readMessageLog(join(dir, 'x.jsonl'))).rejects.toMatchObject({ name: 'DataFileError', file: join(dir, 'x.jsonl') })
  })
})

const delivery = (id: string, extra: Partial<WebhookDelivery> = {}): WebhookDelivery => ({
  id,
  instance_id: 'i1',
  event: 'onMessage',
  url: 'http://127.0.0.1:9/hook',
  payload: { event: 'onMessage', instance_id: 'i1', session_id: 's', data: {}, timestamp: '2026-01-01T00:00:00.000Z' },
  status: 'pending',
  attempts: 0,
  last_error: null,
  last_status: null,
  next_attempt_at: '2026-01-01T00:00:00.000Z',
  created_at: '2026-01-01T00:00:00.000Z',
  delivered_at: null,
  ...extra
})

describe('webhook outbox', () => {
  it('replays put/set/drop, leaves the torn last line out, and keeps the newest 50 delivered per instance', async () => {
    const file = join(dir, 'webhook-outbox.jsonl')
    const delivered = Array.from({ length: 55 }, (_, i) => ({ put: delivery(`d${i}`, { status: 'delivered', delivered_at: '2026-01-01T00:00:01.000Z' }) }))
    await writeFile(
      file,
      lines(
        { put: delivery('p1') },
        { put: delivery('p2') },
        { set: 'p1', fields: { attempts: 1, last_error: 'ECONNREFUSED' } },
        { put: delivery('x1', { instance_id: 'gone' }) },
        { drop: 'gone' },
        ...delivered,
        { set: 'missing', fields: { attempts: 9 } }
      ) + '{"set":"p2","fields":{"status":"deliv'
    )
    const out = await readWebhookOutbox(file)
    expect(out.filter((d) => d.status === 'pending').map((d) => [d.id, d.attempts, d.last_error])).toEqual([
      ['p1', 1, 'ECONNREFUSED'],
      ['p2', 0, null]
    ])
    expect(out.filter((d) => d.status === 'delivered').map((d) => d.id)).toEqual(Array.from({ length: 50 }, (_, i) => `d${i + 5}`))
    expect(out.some((d) => d.instance_id === 'gone')).toBe(false)
  })

  it('an unreadable whole line stops the read, naming the file', async () => {
    const file = join(dir, 'webhook-outbox.jsonl')
    await writeFile(file, lines({ put: delivery('p1') }, '{oops', { put: delivery('p2') }))
    await expect(readWebhookOutbox(file)).rejects.toMatchObject({ name: 'DataFileError', file })
  })
})

describe('auth dir', () => {
  const key = (n: number) => ({ keyPair: { public: Buffer.alloc(32, n), private: Buffer.alloc(32, n + 1) }, keyId: n })
  const json = (v: unknown) => JSON.stringify(v, BufferJSON.replacer)

  it('creds revived, the key snapshot plus the journal lines after its $seq, null deletes, a torn last line skipped, message store kept', async () => {
    const creds = { noiseKey: { public: Buffer.alloc(32, 7), private: Buffer.alloc(32, 8) }, me: { id: '1555@s.whatsapp.net' }, registrationId: 42 }
    await writeFile(join(dir, 'creds.json'), json(creds))
    await writeFile(join(dir, 'keys.json'), json({ $seq: 2, 'pre-key': { '1': key(1), '2': key(2) }, session: { a: { x: Buffer.from('s1') } } }))
    await writeFile(
      join(dir, 'keys.journal'),
      [json({ $seq: 1, 'pre-key': { '9': key(9) } }), json({ $seq: 2, 'pre-key': { '1': null } }), json({ $seq: 3, 'pre-key': { '2': null, '3': key(3) }, session: { a: { x: Buffer.from('s2') } } }), '{"$seq":4,"pre-key":{"4":'].join('\n')
    )
    const msg = proto.WebMessageInfo.encode({ key: { id: 'W1', remoteJid: '1@s.whatsapp.net', fromMe: true }, message: { conversation: 'hi' } }).finish()
    await writeFile(join(dir, 'message-store.jsonl'), lines({ id: 'W1', at: 5, own: true, m: Buffer.from(msg).toString('base64') }, 'junk', { id: 'W2', at: 6, own: false, m: Buffer.from([0x0a, 0xff, 0xff, 0xff, 0xff, 0x0f]).toString('base64') }))
    const state = await readAuthDir(dir)
    expect(state.creds).toEqual(creds)
    expect(Object.fromEntries([...state.keys].map(([t, b]) => [t, Object.fromEntries(b)]))).toEqual({
      // seq 1 and 2 are in the snapshot already: pre-key 9 is not brought back, pre-key 1 stays.
      'pre-key': { '1': key(1), '3': key(3) },
      session: { a: { x: Buffer.from('s2') } }
    })
    expect(state.waMessages.map((m) => [m.id, m.at, m.own, Buffer.compare(m.message, Buffer.from(msg))])).toEqual([['W1', 5, true, 0]])
    expect(state.skipped).toHaveLength(2)
  })

  it('an unreadable key-journal line that is not the last stops the read, naming the file', async () => {
    await writeFile(join(dir, 'keys.journal'), ['{bad', json({ $seq: 1, 'pre-key': { '1': key(1) } }), ''].join('\n'))
    await expect(readAuthDir(dir)).rejects.toMatchObject({ name: 'DataFileError', file: join(dir, 'keys.journal') })
    await writeFile(join(dir, 'keys.journal'), '')
    await writeFile(join(dir, 'creds.json'), '{"noiseKey":')
    await expect(readAuthDir(dir)).rejects.toMatchObject({ name: 'DataFileError', file: join(dir, 'creds.json') })
  })

  it('sandbox creds: read as they are; unparsable ones are "not linked", as 0.1 took them', async () => {
    await writeFile(join(dir, 'sandbox-creds.json'), JSON.stringify({ account: { id: '1@s.whatsapp.net' }, pairedAt: 'x' }))
    expect((await readAuthDir(dir)).sandbox).toEqual({ account: { id: '1@s.whatsapp.net' }, pairedAt: 'x' })
    await writeFile(join(dir, 'sandbox-creds.json'), '{')
    const state = await readAuthDir(dir)
    expect(state.sandbox).toBeNull()
    expect(state.skipped[0]).toContain('sandbox-creds.json')
  })
})
