/**
 * Attachments and media on a folder every worker mounts (`CHATAPP_MEDIA_DIR`,
 * docs/deploy.md "A shared media folder"): two workers with data dirs of their own and one shared
 * media folder on a real PostgreSQL database. An image uploaded through worker a is sent by an intent
 * on worker b once b has taken the instance over (a killed: its lease loop and sockets stopped, no
 * release), and downloads through b; deleting the instance removes its files from the shared folder.
 * Without the shared folder (each worker's own data dir) b cannot send it: the first test fails then,
 * and the last one checks that b says why (404 naming the file and the variable). The start's
 * warning in database mode without the variable, and the folder's modes.
 */
import { chmod, mkdir, mkdtemp, readdir, rm, stat, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Writable } from 'node:stream'
import { pino } from 'pino'
import { afterEach, expect, it } from 'vitest'
import { internalsOf } from '../../src/main/core'
import type { Logger } from '../../src/main/logger'
import { makeHarness, type Harness } from '../helpers/harness'
import { multipart, png } from '../helpers/fixtures'
import { createTestDatabase, dropTestDatabase } from '../helpers/postgres'

const TTL = 1500
const CUSTOMER = '15550001111'

let harnesses: Harness[] = []
let url: string | undefined
let mediaDir: string | undefined
afterEach(async () => {
  for (const h of harnesses.reverse()) await h.close()
  harnesses = []
  if (url) await dropTestDatabase(url)
  url = undefined
  if (mediaDir) await rm(mediaDir, { recursive: true, force: true })
  mediaDir = undefined
})

/** A worker on the test database; with the shared media folder unless `shared` is false. */
async function worker(id: string, shared = true): Promise<Harness> {
  const h = await makeHarness({ databaseUrl: url!, ...(shared ? { mediaDir: mediaDir! } : {}), worker: { id, url: `http://${id}.test:3210`, leaseTtlMs: TTL } })
  harnesses.push(h)
  return h
}

const mode = async (p: string) => (await stat(p)).mode & 0o777

it('an image uploaded through worker a is sent by an intent on worker b after a failover, and downloads through b', async () => {
  url = await createTestDatabase()
  mediaDir = await mkdtemp(join(tmpdir(), 'chatapp-media-'))
  const a = await worker('a')
  const { inst, qs } = await a.connectedInstance()
  const callA = a.instanceApi(qs)
  await callA('PUT', '/chatapp/updateActions', { send_default_msg: false })
  const photo = await png(40, 30)
  const up = await a.call({ method: 'POST', url: `/attachment?${qs}`, ...multipart({}, { filename: 'menu.png', contentType: 'image/png', data: photo }) })
  expect(up.statusCode, up.body).toBe(200)
  const att = up.json.data
  // The bytes are in the shared folder (0600 in a 0700 folder), not in a's data dir.
  expect(await mode(join(mediaDir, 'attachments', att._id))).toBe(0o600)
  expect(await mode(join(mediaDir, 'attachments'))).toBe(0o700)
  expect(await readdir(join(a.dataDir, 'attachments')).catch(() => [])).toEqual([])
  await callA('POST', '/intent', { title: 'Menu', keyword: 'menu', reply: 'Here is the menu', action: { send_photo: att._id } })
  // An inbound image fetched once through a: kept in the shared media folder.
  const inbound = await a.call({ method: 'POST', url: `/chatapp/sandbox/inbound?${qs}`, payload: { chatId: CUSTOMER, message: 'my receipt', attachmentId: att._id } })
  expect(inbound.statusCode, inbound.body).toBe(200)
  const inboundId = inbound.json.data.message.id as string
  expect((await a.call({ method: 'GET', url: `/chatapp/messages/${inboundId}/media?${qs}` })).statusCode).toBe(200)
  expect(await readdir(join(mediaDir, 'media', inst._id))).toHaveLength(1)

  const b = await worker('b')
  // a is killed: its loop and sockets stop, its lease is not released; b claims the instance after the TTL.
  await internalsOf(a.core).workers!.halt()
  await expect.poll(() => b.core.sessions.get(inst._id) !== undefined, { timeout: 10_000, interval: 20 }).toBe(true)
  await expect.poll(() => b.core.instances.get(inst._id).settings.status, { timeout: 10_000, interval: 20 }).toBe('CONNECTED')

  const said = await b.call({ method: 'POST', url: `/chatapp/sandbox/inbound?${qs}`, payload: { chatId: CUSTOMER, message: 'menu', pushName: 'Ann' } })
  expect(said.statusCode, said.body).toBe(200)
  const replies = said.json.data.replies as Array<{ type: string; text: string }>
  expect(replies.map((r) => `${r.type}:${r.text}`)).toEqual(['text:Here is the menu', 'image:'])
  const activity = (await b.call({ method: 'GET', url: `/chatapp/bot/activity?${qs}` })).json.data
  // The sandbox channel read the file to send it (its hashes are of the bytes): found on b.
  expect(activity[0].actions).toEqual([{ action: 'send_photo', ok: true }])

  const file = await b.call({ method: 'GET', url: `/attachment/${att._id}/file?${qs}` })
  expect(file.statusCode).toBe(200)
  expect(file.headers['content-type']).toBe('image/png')
  expect(file.rawPayload.equals(photo)).toBe(true)
  const media = await b.call({ method: 'GET', url: `/chatapp/messages/${inboundId}/media?${qs}` })
  expect(media.statusCode).toBe(200)
  expect(media.rawPayload.equals(photo)).toBe(true)

  // Deleting the instance (through b, which runs it) removes its files from the shared folder.
  const del = await b.call({ method: 'DELETE', url: `/chatapp/${inst._id}` })
  expect(del.statusCode, del.body).toBe(200)
  expect(await readdir(join(mediaDir, 'attachments'))).toEqual([])
  expect(await readdir(join(mediaDir, 'media'))).toEqual([])
}, 60_000)

/** A logger whose lines the test reads. */
function recordingLogger(): { logger: Logger; lines: Array<Record<string, unknown>> } {
  const lines: Array<Record<string, unknown>> = []
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      for (const line of chunk.toString().split('\n').filter(Boolean)) lines.push(JSON.parse(line) as Record<string, unknown>)
      done()
    }
  })
  return { logger: pino({ level: 'info' }, sink), lines }
}

it('in database mode a worker without CHATAPP_MEDIA_DIR warns that its attachments are its own; with it, no warning, and an open media folder is made 0700/0600', async () => {
  url = await createTestDatabase()
  const without = recordingLogger()
  harnesses.push(await makeHarness({ databaseUrl: url, logger: without.logger, worker: { id: 'a', leaseTtlMs: TTL } }))
  const warned = without.lines.find((l) => String(l.msg).startsWith('CHATAPP_MEDIA_DIR is not set'))
  expect(warned?.level).toBe(40)
  expect(String(warned?.msg)).toMatch(/another worker takes over cannot send or serve them/)

  mediaDir = await mkdtemp(join(tmpdir(), 'chatapp-media-'))
  await mkdir(join(mediaDir, 'attachments'), { mode: 0o755 })
  await chmod(join(mediaDir, 'attachments'), 0o755)
  await writeFile(join(mediaDir, 'attachments', 'old'), 'x', { mode: 0o644 })
  const withDir = recordingLogger()
  harnesses.push(await makeHarness({ databaseUrl: url, mediaDir, logger: withDir.logger, worker: { id: 'b', leaseTtlMs: TTL } }))
  expect(withDir.lines.filter((l) => String(l.msg).startsWith('CHATAPP_MEDIA_DIR is not set'))).toEqual([])
  expect(withDir.lines.find((l) => String(l.msg).startsWith('media dir: folders set to 0700'))?.changed).toBe(2)
  expect(await mode(join(mediaDir, 'attachments'))).toBe(0o700)
  expect(await mode(join(mediaDir, 'attachments', 'old'))).toBe(0o600)
  expect(await mode(join(mediaDir, 'media'))).toBe(0o700)
}, 60_000)

it('without a shared folder, the worker that took an instance over answers 404 naming the missing file and CHATAPP_MEDIA_DIR (was a 500)', async () => {
  url = await createTestDatabase()
  const own = (id: string) => worker(id, false)
  const a = await own('a')
  const { inst, qs } = await a.connectedInstance()
  await a.instanceApi(qs)('PUT', '/chatapp/updateActions', { send_default_msg: false })
  const att = (await a.call({ method: 'POST', url: `/attachment?${qs}`, ...multipart({}, { filename: 'menu.png', contentType: 'image/png', data: await png() }) })).json.data
  await a.instanceApi(qs)('POST', '/intent', { title: 'Menu', keyword: 'menu', reply: 'Here', action: { send_photo: att._id } })
  const b = await own('b')
  await internalsOf(a.core).workers!.halt()
  await expect.poll(() => b.core.instances.get(inst._id).settings.status === 'CONNECTED' && b.core.sessions.get(inst._id) !== undefined, { timeout: 10_000, interval: 20 }).toBe(true)

  const missing = /^The file of attachment menu\.png \(\w+\) is not in this worker's attachments folder\. With several workers, CHATAPP_MEDIA_DIR must name a folder every worker mounts\.$/
  const file = await b.call({ method: 'GET', url: `/attachment/${att._id}/file?${qs}` })
  expect(file.statusCode, file.body).toBe(404)
  expect(file.json.message).toMatch(missing)
  const send = await b.call({ method: 'POST', url: `/chatapp/message?${qs}`, payload: { chatId: CUSTOMER, attachments: [att._id] } })
  expect(send.statusCode, send.body).toBe(404)
  expect(send.json.message).toMatch(missing)
  await b.call({ method: 'POST', url: `/chatapp/sandbox/inbound?${qs}`, payload: { chatId: CUSTOMER, message: 'menu' } })
  const activity = (await b.call({ method: 'GET', url: `/chatapp/bot/activity?${qs}` })).json.data
  expect(activity[0].actions).toEqual([{ action: 'send_photo', ok: false, error: expect.stringMatching(missing) }])
}, 60_000)
