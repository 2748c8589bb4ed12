/**
 * Backup and restore through the HTTP API (docs/storage.md "Backup and restore"): GET /backup streams one archive; POST
 * /restore with it as application/octet-stream puts that data back and the app serves it without a
 * restart; a truncated, tampered or foreign archive is a 4xx and changes nothing; the kept backups
 * (/backup/now, /backup/status, restore by name).
 */
import { gzipSync } from 'node:zlib'
import { afterEach, beforeEach, expect, it } from 'vitest'
import { makeHarness, type Harness } from '../helpers/harness'

let h: Harness
let qs: string
let call: ReturnType<Harness['instanceApi']>
beforeEach(async () => {
  h = await makeHarness()
  ;({ qs } = await h.connectedInstance())
  call = h.instanceApi(qs)
})
afterEach(async () => {
  await h.close()
})

async function download(): Promise<Buffer> {
  const res = await h.call({ method: 'GET', url: '/backup' })
  expect(res.statusCode, res.body.slice(0, 300)).toBe(200)
  expect(res.headers['content-type']).toBe('application/gzip')
  expect(String(res.headers['content-disposition'])).toMatch(/^attachment; filename\*=UTF-8''chatapp-desk-.*\.tar\.gz$/)
  return res.rawPayload
}

const restore = (bytes: Buffer) => h.call({ method: 'POST', url: '/restore', payload: bytes, headers: { 'content-type': 'application/octet-stream' } })
const intentTitles = async () => (await call('GET', '/intent')).data.map((i: { title: string }) => i.title)
const texts = async () => (await call('GET', '/chatapp/messages')).data.map((m: { text: string }) => m.text)

it('restores a downloaded backup into the running app: the data as it was, served without a restart', async () => {
  await call('POST', '/intent', { title: 'Kept', keyword: 'kept', reply: 'r' })
  await call('POST', '/chatapp/message', { chatId: '15550001111', message: 'before the backup' })
  const archive = await download()

  await call('POST', '/intent', { title: 'Later', keyword: 'later', reply: 'r' })
  await call('POST', '/chatapp/message', { chatId: '15550001111', message: 'after the backup' })
  expect(await intentTitles()).toEqual(['Kept', 'Later'])

  const res = await restore(archive)
  expect(res.statusCode, res.body).toBe(200)
  expect(res.json).toMatchObject({ status: true, message: 'Backup restored', data: { restored: { app_version: expect.any(String), database_version: expect.any(Number) }, replaced_dir: expect.stringContaining('replaced-') } })
  // The same server, the same token, the restored data; the connected sandbox instance is back.
  expect(await intentTitles()).toEqual(['Kept'])
  expect(await texts()).toEqual(['before the backup'])
  await expect.poll(() => h.core.instances.list()[0]!.settings.status).toBe('CONNECTED')
  expect((await call('POST', '/chatapp/message', { chatId: '15550001111', message: 'after the restore' })).status).toBe(true)
})

it('refuses a truncated, tampered or foreign archive with a 4xx and changes nothing', async () => {
  await call('POST', '/intent', { title: 'Kept', keyword: 'kept', reply: 'r' })
  const archive = await download()
  await call('POST', '/intent', { title: 'Current', keyword: 'current', reply: 'r' })
  const flipped = Buffer.from(archive)
  flipped[Math.floor(flipped.length / 2)]! ^= 0xff
  const cases: Array<[string, Buffer]> = [
    ['truncated', archive.subarray(0, Math.floor(archive.length * 0.6))],
    ['tampered', flipped],
    ['foreign', gzipSync(Buffer.from('not a backup at all'))],
    ['not an archive', Buffer.from('hello')]
  ]
  for (const [what, bytes] of cases) {
    const res = await restore(bytes)
    expect(res.statusCode, `${what}: ${res.body}`).toBe(400)
    expect(res.json.message, what).toMatch(/Nothing was changed\.$/)
  }
  expect(await intentTitles()).toEqual(['Kept', 'Current'])
  const wrongType = await h.call({ method: 'POST', url: '/restore', payload: 'a backup as text', headers: { 'content-type': 'text/plain' } })
  expect(wrongType.statusCode).toBe(415)
  expect(wrongType.json.message).toMatch(/application\/octet-stream/)
})

it('keeps backups in the data dir on demand, lists them, and restores one by name', async () => {
  await call('POST', '/intent', { title: 'Kept', keyword: 'kept', reply: 'r' })
  const made = await h.call({ method: 'POST', url: '/backup/now' })
  expect(made.statusCode, made.body).toBe(200)
  const status = await h.call({ method: 'GET', url: '/backup/status' })
  expect(status.json.data).toMatchObject({ daily: true, keep: 7, backups: [{ name: made.json.data.name, size: made.json.data.size }] })
  const off = await h.call({ method: 'PUT', url: '/backup/settings', payload: { daily: false, keep: 3 } })
  expect(off.json.data).toMatchObject({ daily: false, keep: 3, next_at: null })

  await call('POST', '/intent', { title: 'Later', keyword: 'later', reply: 'r' })
  const res = await h.call({ method: 'POST', url: `/backup/stored/${made.json.data.name}/restore` })
  expect(res.statusCode, res.body).toBe(200)
  expect(await intentTitles()).toEqual(['Kept'])
  expect((await h.call({ method: 'POST', url: '/backup/stored/nope.tar.gz/restore' })).statusCode).toBe(404)
})

it('needs the account token', async () => {
  const res = await h.app.inject({ method: 'GET', url: '/backup' })
  expect(res.statusCode).toBe(401)
  const up = await h.app.inject({ method: 'POST', url: '/restore', payload: Buffer.from('x'), headers: { 'content-type': 'application/octet-stream' } })
  expect(up.statusCode).toBe(401)
})
