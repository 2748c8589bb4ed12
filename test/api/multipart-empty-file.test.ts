/**
 * A multipart file part with no file in it — `filename=""` and no bytes, what the original service's
 * Postman samples send for a file row where no file was chosen — is an absent field, not a bad file:
 * ignored where the file is optional or the part is not the file, "file is required"
 * where the file is required.
 */
import { randomBytes } from 'node:crypto'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, afterEach, beforeAll, beforeEach, expect, it } from 'vitest'
import { makeHarness, type Harness } from '../helpers/harness'
import { png } from '../helpers/fixtures'

let h: Harness
let qs: string
let photo: Buffer
let server: Server
let base: string

beforeAll(async () => {
  photo = await png(40, 30)
  server = createServer((_req, res) => res.writeHead(200, { 'content-type': 'image/png' }).end(photo))
  await new Promise<void>((r) => server.listen(0, '0.0.0.0', r))
  base = `http://127.0.0.2:${(server.address() as AddressInfo).port}`
})
afterAll(() => new Promise<void>((r) => server.close(() => r())))
beforeEach(async () => {
  h = await makeHarness({ fetchAllow: ['127.0.0.2'] })
  ;({ qs } = await h.connectedInstance())
})
afterEach(async () => {
  await h.close()
})

type Part = { name: string; value: string } | { name: string; filename: string; contentType: string; data: Buffer }

/** A multipart/form-data body of `parts` in order, as Postman writes it (a file row with no file: filename="" and no bytes). */
function form(parts: Part[]) {
  const boundary = `--------------------------${randomBytes(12).toString('hex')}`
  const chunks: Buffer[] = []
  for (const p of parts) {
    if ('value' in p) chunks.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${p.name}"\r\n\r\n${p.value}\r\n`))
    else chunks.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${p.name}"; filename="${p.filename}"\r\nContent-Type: ${p.contentType}\r\n\r\n`), p.data, Buffer.from('\r\n'))
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`))
  return { payload: Buffer.concat(chunks), headers: { 'content-type': `multipart/form-data; boundary=${boundary}` } }
}
const noFile = (name: string): Part => ({ name, filename: '', contentType: 'application/octet-stream', data: Buffer.alloc(0) })
const tmpFiles = async () => (await import('node:fs/promises')).readdir(`${h.dataDir}/tmp`).catch(() => [])

it('fileurl: a file row with no file chosen is ignored, the URL is sent', async () => {
  const res = await h.call({
    method: 'POST',
    url: `/chatapp/message/fileurl?${qs}`,
    ...form([{ name: 'chatId', value: '15550001111' }, { name: 'url', value: `${base}/photo.png` }, { name: 'type', value: 'image' }, noFile('file'), { name: 'caption', value: 'From URL' }])
  })
  expect(res.statusCode, res.body).toBe(200)
  expect(res.json.data.message.imageMessage).toMatchObject({ caption: 'From URL', width: 40, height: 30 })
})

it('a send that needs a file: no file chosen is "file is required", as when the row is missing', async () => {
  const empty = await h.call({ method: 'POST', url: `/chatapp/message/image?${qs}`, ...form([{ name: 'chatId', value: '15550001111' }, noFile('file')]) })
  const missing = await h.call({ method: 'POST', url: `/chatapp/message/image?${qs}`, ...form([{ name: 'chatId', value: '15550001111' }]) })
  expect(empty.statusCode).toBe(400)
  expect(empty.json).toEqual(missing.json)
  expect(empty.json.error.details).toEqual([{ field: 'file', problem: 'is required (a multipart part named file)' }])
  expect(await tmpFiles()).toEqual([])
})

it('an empty file row under another name is an absent field: the real file is sent', async () => {
  for (const parts of [
    [{ name: 'chatId', value: '15550001111' }, noFile('thumbnail'), { name: 'file', filename: 'menu.png', contentType: 'image/png', data: photo }],
    [{ name: 'chatId', value: '15550001111' }, { name: 'file', filename: 'menu.png', contentType: 'image/png', data: photo }, noFile('caption')]
  ] as Part[][]) {
    const res = await h.call({ method: 'POST', url: `/chatapp/message/image?${qs}`, ...form(parts) })
    expect(res.statusCode, res.body).toBe(200)
    expect(res.json.data.message.imageMessage).toMatchObject({ width: 40, height: 30 })
  }
})

it('still refuses a file that was chosen but is empty, and a real file under another name', async () => {
  const empty = await h.call({ method: 'POST', url: `/attachment?${qs}`, ...form([{ name: 'file', filename: 'menu.png', contentType: 'image/png', data: Buffer.alloc(0) }]) })
  expect(empty.statusCode).toBe(400)
  expect(empty.json.error.details).toEqual([{ field: 'file', problem: 'is empty' }])
  const other = await h.call({ method: 'POST', url: `/attachment?${qs}`, ...form([{ name: 'photo', filename: 'menu.png', contentType: 'image/png', data: photo }]) })
  expect(other.statusCode).toBe(400)
  expect(other.json.error.details).toEqual([{ field: 'photo', problem: 'is not an accepted file field; name the file part "file"' }])
  const real = { name: 'file', filename: 'menu.png', contentType: 'image/png', data: photo }
  const twice = await h.call({ method: 'POST', url: `/attachment?${qs}`, ...form([real, { ...real, filename: 'other.png' }]) })
  expect(twice.statusCode).toBe(400)
  expect(twice.json.error.details).toEqual([{ field: 'file', problem: 'is sent twice; send one file part' }])
  expect(await tmpFiles()).toEqual([])
})

it('an empty optional text field is an absent one: a document keeps its own name; an empty required field is still refused', async () => {
  const doc = Buffer.from('%PDF-1.4\n1 0 obj<</Type/Catalog>>endobj\ntrailer<</Root 1 0 R>>\n%%EOF\n')
  const res = await h.call({
    method: 'POST',
    url: `/chatapp/message/doc?${qs}`,
    ...form([{ name: 'chatId', value: '15550001111' }, { name: 'filename', value: '' }, { name: 'caption', value: '' }, { name: 'file', filename: 'menu.pdf', contentType: 'application/pdf', data: doc }])
  })
  expect(res.statusCode, res.body).toBe(200)
  expect(res.json.data.message.documentMessage).toMatchObject({ fileName: 'menu.pdf', title: 'menu.pdf', caption: '' })
  const noChat = await h.call({ method: 'POST', url: `/chatapp/message/doc?${qs}`, ...form([{ name: 'chatId', value: '' }, { name: 'file', filename: 'menu.pdf', contentType: 'application/pdf', data: doc }]) })
  expect(noChat.statusCode).toBe(400)
  expect(noChat.json.error.details[0].field).toBe('chatId')
  expect(await tmpFiles()).toEqual([])
})
