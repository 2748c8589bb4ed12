/**
 * Storage durability (issue 2 §2): a restart finds every record again; a connected instance
 * reconnects without a new QR; an unreadable data file stops the start and is left untouched; one
 * process per data dir.
 */
import { chmod, mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { Writable } from 'node:stream'
import pino from 'pino'
import { dirname, join } from 'node:path'
import { afterEach, expect, it } from 'vitest'
import { makeHarness, type Harness } from '../helpers/harness'
import { startCore } from '../../src/main/core'
import { DataFileError } from '../../src/main/store/journaled-document'
import { DataDirLockedError } from '../../src/main/store/data-dir-lock'
import { multipart, png } from '../helpers/fixtures'
import { enospc, injectFileFaults } from '../../src/main/store/durable-file'

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

it('an unreadable data file stops the start with a clear message and is not overwritten', async () => {
  h = await makeHarness()
  await h.createInstance()
  const dir = h.dataDir
  await h.close(true)
  h = undefined
  const file = join(dir, 'chatapp.json')
  const corrupt = (await readFile(file, 'utf8')).slice(0, 40)
  await writeFile(file, corrupt)
  const err = await startCore({ dataDir: dir }).catch((e: unknown) => e)
  expect(err).toBeInstanceOf(DataFileError)
  expect((err as Error).message).toMatch(/chatapp\.json is unreadable .* left untouched/)
  expect(await readFile(file, 'utf8')).toBe(corrupt)
  // The lock was released: a fixed file starts fine.
  await writeFile(file, '{}')
  const core = await startCore({ dataDir: dir })
  expect(core.instances.list()).toEqual([])
  await core.close()
})

it('one process per data dir', async () => {
  h = await makeHarness()
  const err = await startCore({ dataDir: h.dataDir }).catch((e: unknown) => e)
  expect(err).toBeInstanceOf(DataDirLockedError)
  expect((err as Error).message).toMatch(/already using the data dir/)
}, 30_000)

it('a full disk: writes are refused and leave nothing behind; the instance works once there is space, and after a restart', async () => {
  h = await makeHarness()
  const { inst, creds, qs } = await h.connectedInstance()
  const before = await h.call({ method: 'POST', url: '/intent', payload: { ...creds, title: 'Before', keyword: 'before', reply: 'r' } })
  expect(before.statusCode).toBe(200)
  injectFileFaults({ beforeWrite: (file) => { throw enospc(file) } })
  try {
    const refused = await h.call({ method: 'POST', url: '/intent', payload: { ...creds, title: 'Lost', keyword: 'lost', reply: 'r' } })
    expect(refused.statusCode).toBe(500)
    const send = await h.call({ method: 'POST', url: `/chatapp/message?${qs}`, payload: { chatId: '15550001111', message: 'not logged' } })
    expect(send.statusCode).toBe(500)
  } finally {
    injectFileFaults(null)
  }
  // No phantom: what was refused is not listed, so a client's retry creates it once.
  const titles = async () => (await h!.call({ method: 'GET', url: `/intent?${qs}` })).json.data.map((i: { title: string }) => i.title)
  expect(await titles()).toEqual(['Before'])
  expect((await h.call({ method: 'GET', url: `/chatapp/messages?${qs}` })).json.data.map((m: { text: string }) => m.text)).not.toContain('not logged')
  expect((await h.call({ method: 'POST', url: '/intent', payload: { ...creds, title: 'Lost', keyword: 'lost', reply: 'r' } })).statusCode).toBe(200)
  expect((await h.call({ method: 'POST', url: `/chatapp/message?${qs}`, payload: { chatId: '15550001111', message: 'logged' } })).statusCode).toBe(200)
  h = await h.restart()
  expect(await titles()).toEqual(['Before', 'Lost'])
  const texts = (await h.call({ method: 'GET', url: `/chatapp/messages?${qs}` })).json.data.map((m: { text: string }) => m.text)
  expect(texts).toContain('logged')
  expect(texts).not.toContain('not logged')
  expect(h.core.instances.get(inst._id).settings.status).toBe('CONNECTED')
})

it.runIf(process.platform !== 'win32')('keeps secrets readable by the owner only: folders 0700, files 0600, an open data dir fixed at start with a log line', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'chatapp-modes-'))
  // A data dir an older version left open.
  await mkdir(join(dir, 'sessions', 'old'), { recursive: true, mode: 0o755 })
  await chmod(dir, 0o755)
  await writeFile(join(dir, 'sessions', 'old', 'creds.json'), '{}', { mode: 0o644 })
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
  // The data dir, sessions/, sessions/old/ and creds.json; not the lock folder the start just made.
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
