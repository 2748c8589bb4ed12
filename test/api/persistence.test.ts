/**
 * Storage durability (docs/design.md §20 "Storage"): a restart finds every record again; a connected
 * instance reconnects without a new QR; an unreadable configuration or a damaged database stops the
 * start and is left untouched; a full disk is a 507 and stores nothing half; one process per data dir.
 */
import { chmod, mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { Writable } from 'node:stream'
import pino from 'pino'
import { dirname, join } from 'node:path'
import { afterEach, expect, it } from 'vitest'
import { makeHarness, type Harness } from '../helpers/harness'
import { startCore } from '../../src/main/core'
import { internalsOf } from '../../src/main/core'
import { DataDirLockedError } from '../../src/main/store/data-dir-lock'
import { enospc, injectConfigWriteFault } from '../../src/main/store/config/durable-json-file'
import { CorruptDatabaseError, DataFileError } from '../../src/main/store/storage'
import { multipart, png } from '../helpers/fixtures'

let h: Harness | undefined
afterEach(async () => {
  await h?.close()
  h = undefined
})

it('a restart finds every record, the token, and reconnects the connected instance', async () => {
  h = await makeHarness()
  const { inst, creds, qs } = await h.connectedInstance()
  const idle = await h.createInstance()
  const intent = (await h.call({ method: 'POST', url: '/intent', payload: { ...creds, title: 'T', keyword: 'k', reply: 'r' } })).json.data
  const survey = (await h.call({ method: 'POST', url: '/survey', payload: { ...creds, title: 'S', keyword: 'k', reply: 'q', sort_id: 1, action: {} } })).json.data
  const att = (await h.call({ method: 'POST', url: `/attachment?${qs}`, ...multipart({}, { filename: 'a.png', contentType: 'image/png', data: await png() }) })).json.data
  await h.call({ method: 'PUT', url: `/chatapp/updateGeneral?${qs}`, payload: { bot_name: 'Persisted' } })
  await h.call({ method: 'POST', url: `/chatapp/message?${qs}`, payload: { chatId: '15550001111', message: 'kept' } })
  const token = h.token
  const botNumber = h.core.instances.get(inst._id).settings.bot_number

  h = await h.restart()
  expect(h.token).toBe(token)
  expect(h.core.instances.list().map((i) => i._id)).toEqual([inst._id, idle._id])
  expect((await h.call({ method: 'GET', url: `/intent/${intent._id}?${qs}` })).json.data).toEqual(intent)
  expect((await h.call({ method: 'GET', url: `/survey/${survey._id}?${qs}` })).json.data).toEqual(survey)
  expect((await h.call({ method: 'GET', url: `/attachment/${att._id}?${qs}` })).json.data).toEqual(att)
  expect((await h.call({ method: 'GET', url: `/attachment/${att._id}/file?${qs}` })).rawPayload.length).toBe(att.size)
  expect(h.core.instances.get(inst._id).settings.bot_name).toBe('Persisted')
  expect((await h.call({ method: 'GET', url: `/chatapp/messages?${qs}` })).json.data.map((m: { text: string }) => m.text)).toEqual(['kept'])
  // Restored from saved credentials: CONNECTED again, same number, no QR.
  const s = h.core.instances.get(inst._id).settings
  expect(s.status).toBe('CONNECTED')
  expect(s.bot_number).toBe(botNumber)
  expect(h.core.instances.get(idle._id).settings.status).toBe('DISCONNECTED')
  expect((await h.call({ method: 'POST', url: `/chatapp/message?${qs}`, payload: { chatId: '15550001111', message: 'after restart' } })).statusCode).toBe(200)
})

it('a QR left on screen at shutdown comes back DISCONNECTED', async () => {
  h = await makeHarness()
  const inst = await h.createInstance()
  await h.call({ method: 'POST', url: '/chatapp/init', payload: { session_id: inst.session_id, access_token: inst.settings.access_token } })
  expect(h.core.instances.get(inst._id).settings.status).toBe('QR')
  h = await h.restart()
  expect(h.core.instances.get(inst._id).settings.status).toBe('DISCONNECTED')
})

it('an unreadable configuration stops the start with a clear message and is not overwritten', async () => {
  h = await makeHarness()
  await h.createInstance()
  const dir = h.dataDir
  await h.close(true)
  h = undefined
  const file = join(dir, 'config.json')
  const corrupt = (await readFile(file, 'utf8')).slice(0, 40)
  await writeFile(file, corrupt)
  const err = await startCore({ dataDir: dir }).catch((e: unknown) => e)
  expect(err).toBeInstanceOf(DataFileError)
  expect((err as Error).message).toMatch(/config\.json is unreadable .* left untouched/)
  expect(await readFile(file, 'utf8')).toBe(corrupt)
  // The lock was released: a fixed file starts fine.
  await writeFile(file, JSON.stringify({ version: 1, account: null, appSettings: { smtp: null }, instances: [] }))
  const core = await startCore({ dataDir: dir })
  expect(core.instances.list()).toEqual([])
  await core.close()
})

it('a damaged database stops the start, names the file and how to restore, and is never overwritten', async () => {
  h = await makeHarness()
  const { qs } = await h.connectedInstance()
  await h.call({ method: 'POST', url: `/chatapp/message?${qs}`, payload: { chatId: '15550001111', message: 'kept' } })
  const dir = h.dataDir
  await h.close(true)
  h = undefined
  const file = join(dir, 'chatapp.db')
  const bytes = await readFile(file)
  // The header (the first 100 bytes) holds the page size and format: overwritten, SQLite cannot read the file.
  const damaged = Buffer.concat([Buffer.from('not a database anymore'.padEnd(100, '!')), bytes.subarray(100)])
  await writeFile(file, damaged)
  const err = await startCore({ dataDir: dir }).catch((e: unknown) => e)
  expect(err).toBeInstanceOf(CorruptDatabaseError)
  expect((err as Error).message).toContain(file)
  expect((err as Error).message).toMatch(/left untouched.*Restore a backup/)
  expect((await readFile(file)).equals(damaged)).toBe(true)
  // The lock was released and nothing was recreated beside it.
  const again = await startCore({ dataDir: dir }).catch((e: unknown) => e)
  expect(again).toBeInstanceOf(CorruptDatabaseError)
})

it('one process per data dir', async () => {
  h = await makeHarness()
  const err = await startCore({ dataDir: h.dataDir }).catch((e: unknown) => e)
  expect(err).toBeInstanceOf(DataDirLockedError)
  expect((err as Error).message).toMatch(/already using the data dir/)
}, 30_000)

it('a full disk: writes are a 507 that store nothing half; the instance works once there is space, and after a restart', async () => {
  h = await makeHarness()
  const { inst, creds, qs } = await h.connectedInstance()
  const before = await h.call({ method: 'POST', url: '/intent', payload: { ...creds, title: 'Before', keyword: 'before', reply: 'r' } })
  expect(before.statusCode).toBe(200)
  // SQLite's own SQLITE_FULL, as on a full disk: the file may not grow by a page.
  await internalsOf(h.core).storage.database.limitGrowth(0)
  try {
    const refused = await h.call({ method: 'POST', url: '/intent', payload: { ...creds, title: 'Lost', keyword: 'lost', reply: 'r'.repeat(4096) } })
    expect(refused.statusCode).toBe(507)
    expect(refused.json).toEqual({ status: false, message: 'The disk is full: nothing was saved. Free some space and try again.', error: { code: 'INSUFFICIENT_STORAGE' } })
    const send = await h.call({ method: 'POST', url: `/chatapp/message?${qs}`, payload: { chatId: '15550001111', message: 'not logged '.repeat(2000) } })
    expect(send.statusCode).toBe(507)
  } finally {
    await internalsOf(h.core).storage.database.limitGrowth(null)
  }
  // The configuration document: ENOSPC from the file system.
  injectConfigWriteFault((file) => enospc(file))
  try {
    const refused = await h.call({ method: 'PUT', url: `/chatapp/updateGeneral?${qs}`, payload: { bot_name: 'Not saved' } })
    expect(refused.statusCode).toBe(507)
  } finally {
    injectConfigWriteFault(null)
  }
  expect(h.core.instances.get(inst._id).settings.bot_name).not.toBe('Not saved')
  // No phantom: what was refused is not listed, so a client's retry creates it once.
  const titles = async () => (await h!.call({ method: 'GET', url: `/intent?${qs}` })).json.data.map((i: { title: string }) => i.title)
  expect(await titles()).toEqual(['Before'])
  expect((await h.call({ method: 'GET', url: `/chatapp/messages?${qs}` })).json.data.map((m: { text: string }) => m.text.slice(0, 10))).not.toContain('not logged')
  expect((await h.call({ method: 'POST', url: '/intent', payload: { ...creds, title: 'Lost', keyword: 'lost', reply: 'r' } })).statusCode).toBe(200)
  expect((await h.call({ method: 'POST', url: `/chatapp/message?${qs}`, payload: { chatId: '15550001111', message: 'logged' } })).statusCode).toBe(200)
  h = await h.restart()
  expect(await titles()).toEqual(['Before', 'Lost'])
  const texts = (await h.call({ method: 'GET', url: `/chatapp/messages?${qs}` })).json.data.map((m: { text: string }) => m.text)
  expect(texts).toContain('logged')
  expect(texts.some((t: string) => t.startsWith('not logged'))).toBe(false)
  expect(h.core.instances.get(inst._id).settings.status).toBe('CONNECTED')
})

it.runIf(process.platform !== 'win32')('keeps secrets readable by the owner only: folders 0700, files 0600, an open data dir fixed at start with a log line', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'chatapp-modes-'))
  // A data dir left open (a copy, or an older version).
  await mkdir(join(dir, 'attachments', 'old'), { recursive: true, mode: 0o755 })
  await chmod(dir, 0o755)
  await writeFile(join(dir, 'attachments', 'old', 'file'), 'x', { mode: 0o644 })
  const lines: Array<Record<string, unknown>> = []
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      for (const line of chunk.toString().split('\n').filter(Boolean)) lines.push(JSON.parse(line) as Record<string, unknown>)
      done()
    }
  })
  h = await makeHarness({ logger: pino({ level: 'info' }, sink) }, dir)
  const { creds, qs } = await h.connectedInstance()
  await h.call({ method: 'POST', url: '/intent', payload: { ...creds, title: 'T', keyword: 'k', reply: 'r' } })
  await h.call({ method: 'POST', url: `/chatapp/message?${qs}`, payload: { chatId: '15550001111', message: 'hi' } })
  await h.call({ method: 'POST', url: `/attachment?${qs}`, ...multipart({}, { filename: 'a.png', contentType: 'image/png', data: await png() }) })
  await h.close(true)
  h = undefined
  // The data dir, attachments/, attachments/old/ and its file; not the lock folder the start just made.
  const fixed = lines.find((l) => String(l.msg).startsWith('data dir: folders set to 0700'))
  expect(fixed?.changed).toBe(4)
  const open: string[] = []
  const walk = async (p: string): Promise<void> => {
    const st = await stat(p)
    if ((st.mode & 0o077) !== 0) open.push(`${p} ${(st.mode & 0o777).toString(8)}`)
    if (st.isDirectory()) for (const e of await readdir(p)) await walk(join(p, e))
  }
  await walk(dir)
  expect(open).toEqual([])
  await rm(dir, { recursive: true, force: true })
})

it.runIf(process.platform !== 'win32')('reports nothing to fix on a fresh data dir', async () => {
  const dir = join(await mkdtemp(join(tmpdir(), 'chatapp-modes-')), 'data')
  const lines: string[] = []
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      lines.push(...chunk.toString().split('\n').filter(Boolean))
      done()
    }
  })
  h = await makeHarness({ logger: pino({ level: 'info' }, sink) }, dir)
  await h.connectedInstance()
  await h.close(true)
  h = undefined
  expect(lines.filter((l) => l.includes('data dir: folders set to 0700'))).toEqual([])
  await rm(dirname(dir), { recursive: true, force: true })
})
