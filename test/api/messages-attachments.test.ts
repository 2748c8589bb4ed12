/**
 * Attachments (docs/design.md §8) and every send operation (docs/api-seed.md §4.5, docs/design.md §6–§7): result shapes,
 * content checks (415), size limits (413), not-connected (409), fileurl downloads, message log.
 */
import { createHash } from 'node:crypto'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { makeHarness, type Harness } from '../helpers/harness'
import { jpeg, mp4, multipart, oggOpus, pdf, png } from '../helpers/fixtures'
import { internalsOf } from '../../src/main/core'

let h: Harness
let qs: string
let creds: { session_id: string; access_token: string }
let files: Record<string, Buffer>
let server: Server
let base: string

beforeAll(async () => {
  files = { png: await png(120, 90), jpeg: await jpeg(), pdf: pdf(), ogg: oggOpus(), mp4: mp4(), big: Buffer.alloc(3000, 1) }
  server = createServer((req, res) => {
    const name = req.url!.slice(1).split('?')[0]!
    if (name === 'slow') return void setTimeout(() => res.end('late'), 3000)
    if (name === 'to-loopback') return void res.writeHead(302, { location: `http://127.0.0.1:${(server.address() as AddressInfo).port}/photo.png` }).end()
    if (name === 'stream-big') {
      res.writeHead(200, { 'content-type': 'application/octet-stream' })
      res.end(Buffer.alloc(5000, 2))
      return
    }
    const [key, type] = ({ 'photo.png': ['png', 'image/png'], 'menu.pdf': ['pdf', 'application/pdf'], 'clip.mp4': ['mp4', 'video/mp4'] } as Record<string, [string, string]>)[name] ?? []
    if (!key) return void res.writeHead(404).end()
    res.writeHead(200, { 'content-type': type! })
    res.end(files[key])
  })
  // Listens on every loopback address; the app may fetch from 127.0.0.2 only (an owner's LAN file server
  // stands in for it), 127.0.0.1 and `localhost` stay refused.
  await new Promise<void>((r) => server.listen(0, '0.0.0.0', r))
  base = `http://127.0.0.2:${(server.address() as AddressInfo).port}`
})
afterAll(() => new Promise<void>((r) => server.close(() => r())))

beforeEach(async () => {
  h = await makeHarness({ limits: { fileBytes: 4096, downloadTimeoutMs: 1000 }, fetchAllow: ['127.0.0.2'] })
  ;({ creds, qs } = await h.connectedInstance())
})
afterEach(async () => {
  await h.close()
})

const sha = (b: Buffer) => createHash('sha256').update(b).digest()

function upload(url: string, fields: Record<string, string>, file?: { filename: string; contentType: string; data: Buffer }) {
  return h.call({ method: 'POST', url, ...multipart(fields, file) })
}

describe('attachments', () => {
  it('uploads, lists, gets, downloads and deletes', async () => {
    const res = await upload(`/attachment?${qs}`, {}, { filename: 'menu.png', contentType: 'application/octet-stream', data: files.png! })
    expect(res.statusCode).toBe(200)
    expect(res.json.message).toBe('Attachment uploaded successfully!')
    const a = res.json.data
    expect(a).toMatchObject({ filename: 'menu.png', mimetype: 'image/png', size: files.png!.length, sha256: sha(files.png!).toString('hex'), client_id: h.core.account.id })
    const list = await h.call({ method: 'GET', url: `/attachment?${qs}` })
    expect(list.json.data).toEqual([a])
    const one = await h.call({ method: 'GET', url: `/attachment/${a._id}`, payload: creds })
    expect(one.json.data).toEqual(a)
    const bytes = await h.call({ method: 'GET', url: `/attachment/${a._id}/file?${qs}` })
    expect(bytes.headers['content-type']).toBe('image/png')
    expect(bytes.rawPayload.equals(files.png!)).toBe(true)
    const del = await h.call({ method: 'DELETE', url: `/attachment/${a._id}?${qs}` })
    expect(del.json.data).toEqual({ n: 1, ok: 1, deletedCount: 1 })
    expect((await h.call({ method: 'GET', url: `/attachment/${a._id}?${qs}` })).statusCode).toBe(404)
  })

  it('refuses an oversize file with 413 and keeps nothing', async () => {
    const res = await upload(`/attachment?${qs}`, {}, { filename: 'big.bin', contentType: 'application/octet-stream', data: Buffer.alloc(5000) })
    expect(res.statusCode).toBe(413)
    expect(res.json.error.code).toBe('PAYLOAD_TOO_LARGE')
    expect((await h.call({ method: 'GET', url: `/attachment?${qs}` })).json.data).toEqual([])
    const { readdir } = await import('node:fs/promises')
    expect(await readdir(internalsOf(h.core).storage.paths.tmp)).toEqual([])
  })

  it('needs a file part', async () => {
    const res = await upload(`/attachment?${qs}`, {})
    expect(res.statusCode).toBe(400)
    expect(res.json.error.details[0]).toEqual({ field: 'file', problem: 'is required (a multipart part named file)' })
    const json = await h.call({ method: 'POST', url: `/attachment?${qs}`, payload: { file: 'x' } })
    expect(json.statusCode).toBe(415)
  })
})

describe('sending', () => {
  it('text: seed result shape, logged as source api', async () => {
    const res = await h.call({ method: 'POST', url: `/chatapp/message?${qs}`, payload: { ...creds, chatId: '+91 98765-43210', message: 'Hello!' } })
    expect(res.json.message).toBe('Message sent successfully')
    const d = res.json.data
    expect(d.message.key).toMatchObject({ remoteJid: '919876543210@s.whatsapp.net', fromMe: true })
    expect(d.message.message.extendedTextMessage.text).toBe('Hello!')
    expect(d.message.messageTimestamp).toMatch(/^\d{10}$/)
    expect(d).toMatchObject({ attachment: [], contact: null, image: null, buttons: null, location: null })
    const log = await h.call({ method: 'GET', url: `/chatapp/messages?${qs}` })
    expect(log.json.data).toEqual([
      // The sandbox's server acknowledges it at once (sandbox-receipts.test.ts follows the statuses).
      expect.objectContaining({ id: d.message.key.id, chatId: '919876543210@s.whatsapp.net', fromMe: true, type: 'text', text: 'Hello!', source: 'api', status: expect.stringMatching(/^(PENDING|SERVER_ACK)$/), pushName: null })
    ])
  })

  it('text with attachments, location and contact', async () => {
    const att = (await upload(`/attachment?${qs}`, {}, { filename: 'p.png', contentType: 'image/png', data: files.png! })).json.data
    const doc = (await upload(`/attachment?${qs}`, {}, { filename: 'menu.pdf', contentType: 'application/pdf', data: files.pdf! })).json.data
    const res = await h.call({
      method: 'POST',
      url: `/chatapp/message?${qs}`,
      payload: { chatId: '15550001111', message: 'See', attachments: [att._id, doc._id], location: { name: 'Shop', lat: '28.61', lng: '77.20' }, contactId: '15550002222' }
    })
    expect(res.statusCode).toBe(200)
    const d = res.json.data
    expect(d.attachment).toEqual([att._id, doc._id])
    expect(d.image.imageMessage).toMatchObject({ width: 120, height: 90, mimetype: 'image/png' })
    expect(d.media[1].message.documentMessage).toMatchObject({ fileName: 'menu.pdf', mimetype: 'application/pdf' })
    expect(d.location.locationMessage).toEqual({ degreesLatitude: 28.61, degreesLongitude: 77.2, name: 'Shop' })
    expect(d.contact.contactMessage.vcard).toContain('waid=15550002222')
    const log = await h.call({ method: 'GET', url: `/chatapp/messages?${qs}&chatId=15550001111` })
    expect(log.json.data.map((m: { type: string }) => m.type)).toEqual(['text', 'image', 'document', 'location', 'contact'])
    const badAtt = await h.call({ method: 'POST', url: `/chatapp/message?${qs}`, payload: { chatId: '15550001111', attachments: ['nope'] } })
    expect(badAtt.json.error.details[0].field).toBe('attachments.0')
  })

  it('text needs something to send and a valid chatId', async () => {
    const empty = await h.call({ method: 'POST', url: `/chatapp/message?${qs}`, payload: { chatId: '15550001111' } })
    expect(empty.statusCode).toBe(400)
    const bad = await h.call({ method: 'POST', url: `/chatapp/message?${qs}`, payload: { chatId: 'bob', message: 'x' } })
    expect(bad.statusCode).toBe(400)
    expect(bad.json.error.details[0].field).toBe('chatId')
    const missing = await h.call({ method: 'POST', url: `/chatapp/message?${qs}`, payload: { message: 'x' } })
    expect(missing.json.error.details).toEqual([{ field: 'chatId', problem: 'is required' }])
  })

  it('image: the seed image result with real sha256, length and dimensions', async () => {
    const res = await upload(`/chatapp/message/image?${qs}`, { chatId: '120363012345678901@g.us', caption: 'Our menu' }, { filename: 'menu.jpg', contentType: 'image/jpeg', data: files.jpeg! })
    expect(res.statusCode).toBe(200)
    const d = res.json.data
    expect(d.key).toMatchObject({ remoteJid: '120363012345678901@g.us', fromMe: true })
    expect(d.status).toBe('PENDING')
    expect(d.messageTimestamp).toMatch(/^\d+$/)
    const im = d.message.imageMessage
    expect(im).toMatchObject({ mimetype: 'image/jpeg', caption: 'Our menu', width: 80, height: 60, fileLength: String(files.jpeg!.length) })
    expect(Buffer.from(im.fileSha256, 'base64').equals(sha(files.jpeg!))).toBe(true)
    for (const f of ['url', 'mediaKey', 'fileEncSha256', 'directPath', 'mediaKeyTimestamp', 'jpegThumbnail']) expect(typeof im[f]).toBe('string')
    expect(Buffer.from(im.jpegThumbnail, 'base64').subarray(0, 2).toString('hex')).toBe('ffd8')
  })

  it('video, audio (voice note) and document', async () => {
    const v = await upload(`/chatapp/message/video?${qs}`, { chatId: '15550001111', caption: 'clip' }, { filename: 'c.mp4', contentType: 'video/mp4', data: files.mp4! })
    expect(v.json.data.message.videoMessage).toMatchObject({ mimetype: 'video/mp4', caption: 'clip', fileLength: String(files.mp4!.length) })
    const a = await upload(`/chatapp/message/audio?${qs}`, { chatId: '15550001111', ptt: 'true' }, { filename: 'v.ogg', contentType: 'audio/ogg', data: files.ogg! })
    expect(a.json.data.message.audioMessage).toMatchObject({ mimetype: 'audio/ogg; codecs=opus', ptt: true })
    const d = await upload(`/chatapp/message/doc?${qs}`, { chatId: '15550001111', filename: 'Price list.pdf' }, { filename: 'x.pdf', contentType: 'application/pdf', data: files.pdf! })
    expect(d.json.data.message.documentMessage).toMatchObject({ fileName: 'Price list.pdf', mimetype: 'application/pdf' })
  })

  it('wrong file types are a 415, oversize a 413, a missing chatId a 400', async () => {
    const pdfAsImage = await upload(`/chatapp/message/image?${qs}`, { chatId: '15550001111' }, { filename: 'fake.png', contentType: 'image/png', data: files.pdf! })
    expect(pdfAsImage.statusCode).toBe(415)
    expect(pdfAsImage.json.error.code).toBe('UNSUPPORTED_MEDIA_TYPE')
    expect(pdfAsImage.json.message).toContain('application/pdf')
    const imgAsVideo = await upload(`/chatapp/message/video?${qs}`, { chatId: '15550001111' }, { filename: 'x.mp4', contentType: 'video/mp4', data: files.png! })
    expect(imgAsVideo.statusCode).toBe(415)
    const pdfAsAudio = await upload(`/chatapp/message/audio?${qs}`, { chatId: '15550001111' }, { filename: 'x.ogg', contentType: 'audio/ogg', data: files.pdf! })
    expect(pdfAsAudio.statusCode).toBe(415)
    const big = await upload(`/chatapp/message/image?${qs}`, { chatId: '15550001111' }, { filename: 'big.png', contentType: 'image/png', data: Buffer.alloc(5000) })
    expect(big.statusCode).toBe(413)
    const noChat = await upload(`/chatapp/message/image?${qs}`, {}, { filename: 'p.png', contentType: 'image/png', data: files.png! })
    expect(noChat.statusCode).toBe(400)
    expect(noChat.json.error.details).toEqual([{ field: 'chatId', problem: 'is required' }])
    expect((await h.call({ method: 'GET', url: `/chatapp/messages?${qs}` })).json.data).toEqual([])
  })

  it('fileurl downloads http URLs (form or JSON), checks type, limits size and time', async () => {
    const ok = await upload(`/chatapp/message/fileurl?${qs}`, { chatId: '15550001111', url: `${base}/photo.png`, type: 'image', mimetype: 'image/png', caption: 'From URL' })
    expect(ok.statusCode).toBe(200)
    expect(ok.json.data.message.imageMessage).toMatchObject({ caption: 'From URL', width: 120, height: 90 })
    const json = await h.call({ method: 'POST', url: `/chatapp/message/fileurl?${qs}`, payload: { chatId: '15550001111', url: `${base}/menu.pdf`, type: 'document' } })
    expect(json.json.data.message.documentMessage).toMatchObject({ fileName: 'menu.pdf', mimetype: 'application/pdf' })
    const wrong = await h.call({ method: 'POST', url: `/chatapp/message/fileurl?${qs}`, payload: { chatId: '15550001111', url: `${base}/menu.pdf`, type: 'image' } })
    expect(wrong.statusCode).toBe(415)
    const missing = await h.call({ method: 'POST', url: `/chatapp/message/fileurl?${qs}`, payload: { chatId: '15550001111', url: `${base}/nope`, type: 'image' } })
    expect(missing.statusCode).toBe(400)
    expect(missing.json.error.details[0]).toEqual({ field: 'url', problem: 'could not be downloaded: the server answered HTTP 404' })
    const big = await h.call({ method: 'POST', url: `/chatapp/message/fileurl?${qs}`, payload: { chatId: '15550001111', url: `${base}/stream-big`, type: 'document' } })
    expect(big.statusCode).toBe(413)
    const slow = await h.call({ method: 'POST', url: `/chatapp/message/fileurl?${qs}`, payload: { chatId: '15550001111', url: `${base}/slow`, type: 'document' } })
    expect(slow.statusCode).toBe(400)
    expect(slow.json.message).toMatch(/no answer within 1000 ms/)
    const ftp = await h.call({ method: 'POST', url: `/chatapp/message/fileurl?${qs}`, payload: { chatId: '15550001111', url: 'ftp://x/y', type: 'image' } })
    expect(ftp.statusCode).toBe(400)
    expect(ftp.json.error.details[0].field).toBe('url')
  })

  it('fileurl and MediaButton refuse private and local addresses unless allowed, at every redirect hop', async () => {
    const port = (server.address() as AddressInfo).port
    const refused = async (url: string, field = 'url') => {
      const res =
        field === 'url'
          ? await h.call({ method: 'POST', url: `/chatapp/message/fileurl?${qs}`, payload: { chatId: '15550001111', url, type: 'image' } })
          : await h.call({ method: 'POST', url: `/chatapp/message/MediaButton?${qs}`, payload: { chatId: '15550001111', btndata: { text: 'x', buttons: [{ type: 'replyButton', title: 'a' }], image: url } } })
      expect(res.statusCode, url).toBe(400)
      expect(res.json.error.details[0]).toMatchObject({ field, problem: expect.stringMatching(/private or local address/) })
      return res
    }
    // Not allowed: loopback by address and by name, the cloud metadata address, a redirect from an allowed host to loopback.
    expect((await refused(`http://127.0.0.1:${port}/photo.png`)).json.message).toContain('127.0.0.1')
    await refused(`http://localhost:${port}/photo.png`)
    await refused(`http://[::1]:${port}/photo.png`)
    await refused('http://169.254.169.254/latest/meta-data/')
    await refused(`${base}/to-loopback`)
    await refused(`http://127.0.0.1:${port}/photo.png`, 'btndata.image')
    // The allowed address works.
    const ok = await h.call({ method: 'POST', url: `/chatapp/message/fileurl?${qs}`, payload: { chatId: '15550001111', url: `${base}/photo.png`, type: 'image' } })
    expect(ok.statusCode).toBe(200)
  })

  it('buttons and lists go out as numbered text; options are logged', async () => {
    const b = await h.call({
      method: 'POST',
      url: `/chatapp/message/button?${qs}`,
      headers: { 'content-type': 'application/json' },
      payload: JSON.stringify({
        chatId: '15550001111',
        btndata: {
          text: 'How can we help?',
          buttons: [
            { type: 'replyButton', title: 'Menu' },
            { type: 'urlButton', title: 'Site', payload: 'https://shop.example' },
            { type: 'callButton', title: 'Call us', payload: '+15550009999' }
          ],
          footerText: 'Open 9-6'
        }
      })
    })
    expect(b.statusCode).toBe(200)
    expect(b.json.data.message.extendedTextMessage.text).toBe('How can we help?\n\n1. Menu\n2. Site: https://shop.example\n3. Call: +15550009999\n\n_Open 9-6_')
    const l = await h.call({
      method: 'POST',
      url: `/chatapp/message/list?${qs}`,
      payload: {
        chatId: '15550001111',
        msgdata: {
          buttonText: 'Choose',
          text: 'Our menu',
          title: 'Pizza Place',
          description: 'Prices include tax',
          sections: [
            { title: 'Pizza', rows: [{ title: 'Margherita', description: '$8', rowId: 'p1' }, { title: 'Pepperoni', rowId: 'p2' }] },
            { title: 'Drinks', rows: [{ title: 'Cola', rowId: 'd1' }] }
          ],
          listType: 1
        }
      }
    })
    const text = l.json.data.message.extendedTextMessage.text
    expect(text).toContain('*Pizza*\n1. Margherita — $8\n2. Pepperoni')
    expect(text).toContain('*Drinks*\n3. Cola')
    const log = (await h.call({ method: 'GET', url: `/chatapp/messages?${qs}` })).json.data
    expect(log[0]).toMatchObject({ type: 'buttons', options: [{ title: 'Menu', id: 'Menu' }, { title: 'Site', id: 'https://shop.example' }, { title: 'Call us', id: '+15550009999' }] })
    expect(log[1]).toMatchObject({ type: 'list', options: [{ title: 'Margherita', id: 'p1' }, { title: 'Pepperoni', id: 'p2' }, { title: 'Cola', id: 'd1' }] })
    const bad = await h.call({ method: 'POST', url: `/chatapp/message/button?${qs}`, payload: { chatId: '15550001111', btndata: { text: 'x', buttons: [{ type: 'linkButton', title: 'x' }] } } })
    expect(bad.statusCode).toBe(400)
  })

  it('media with buttons: the image with the buttons as caption', async () => {
    const res = await h.call({
      method: 'POST',
      url: `/chatapp/message/MediaButton?${qs}`,
      payload: { chatId: '15550001111', btndata: { text: 'Today', buttons: [{ type: 'replyButton', title: 'Order' }], footerText: 'Fresh', image: `${base}/photo.png`, mediaType: 'image', mimeType: 'image/png' } }
    })
    expect(res.statusCode).toBe(200)
    expect(res.json.data.message.imageMessage).toMatchObject({ caption: 'Today\n\n1. Order\n\n_Fresh_', width: 120 })
  })

  it('contact: a vCard', async () => {
    const res = await h.call({ method: 'POST', url: `/chatapp/message/contact?${qs}`, payload: { chatId: '15550001111', vcard: { fullName: 'Jane Doe', displayName: 'Jane', organization: 'Shop; Ltd', phoneNumber: '+1 555 000 3333' } } })
    expect(res.json.data.message.contactMessage).toEqual({
      displayName: 'Jane',
      vcard: 'BEGIN:VCARD\nVERSION:3.0\nFN:Jane Doe\nORG:Shop\\; Ltd;\nTEL;type=CELL;type=VOICE;waid=15550003333:+15550003333\nEND:VCARD'
    })
  })

  it('deprecated sendText at both paths answers the message id', async () => {
    for (const path of ['/chatapp/message/sendText', '/chatapp/sendText']) {
      const res = await h.call({ method: 'POST', url: `${path}?${qs}`, payload: { ...creds, to: '15550001111', message: 'old style' } })
      expect(res.json.message).toBe('Message sent successfully')
      expect(typeof res.json.data).toBe('string')
      const log = await h.call({ method: 'GET', url: `/chatapp/messages?${qs}` })
      expect(log.json.data.at(-1)).toMatchObject({ id: res.json.data, text: 'old style' })
    }
    const bad = await h.call({ method: 'POST', url: `/chatapp/sendText?${qs}`, payload: { to: '15550001111' } })
    expect(bad.json.error.details).toEqual([{ field: 'message', problem: 'is required' }])
  })

  it('every send is a 409 while the instance is not connected', async () => {
    const other = await h.createInstance()
    const oqs = `session_id=${other.session_id}&access_token=${other.settings.access_token}`
    const checks = [
      h.call({ method: 'POST', url: `/chatapp/message?${oqs}`, payload: { chatId: '15550001111', message: 'x' } }),
      upload(`/chatapp/message/image?${oqs}`, { chatId: '15550001111' }, { filename: 'p.png', contentType: 'image/png', data: files.png! }),
      h.call({ method: 'POST', url: `/chatapp/message/button?${oqs}`, payload: { chatId: '15550001111', btndata: { text: 'x', buttons: [{ type: 'replyButton', title: 'a' }] } } }),
      h.call({ method: 'POST', url: `/chatapp/message/contact?${oqs}`, payload: { chatId: '15550001111', vcard: { fullName: 'a', phoneNumber: '123' } } }),
      h.call({ method: 'POST', url: `/chatapp/sendText?${oqs}`, payload: { to: '15550001111', message: 'x' } })
    ]
    for (const res of await Promise.all(checks)) {
      expect(res.statusCode).toBe(409)
      expect(res.json.error.code).toBe('CONFLICT')
      expect(res.json.message).toMatch(/not connected \(status DISCONNECTED\)/)
    }
  })

  it('message log filters by chat, limit and before', async () => {
    for (const [chat, text] of [['15550001111', 'a'], ['15550002222', 'b'], ['15550001111', 'c']]) {
      await h.call({ method: 'POST', url: `/chatapp/message?${qs}`, payload: { chatId: chat, message: text } })
    }
    const byChat = await h.call({ method: 'GET', url: `/chatapp/messages?${qs}&chatId=15550001111` })
    expect(byChat.json.data.map((m: { text: string }) => m.text)).toEqual(['a', 'c'])
    const limited = await h.call({ method: 'GET', url: `/chatapp/messages?${qs}&limit=1` })
    expect(limited.json.data.map((m: { text: string }) => m.text)).toEqual(['c'])
    const bad = await h.call({ method: 'GET', url: `/chatapp/messages?${qs}&limit=0` })
    expect(bad.statusCode).toBe(400)
  })
})
