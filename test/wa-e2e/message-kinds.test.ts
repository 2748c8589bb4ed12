/**
 * Every message kind of the HTTP API (docs/api-seed.md §4.5, docs/design.md §6) end to end over the REAL Baileys
 * socket and the local protocol test server (test/support/wa-server): each send is decrypted by a
 * fake contact and checked field by field, media included (uploaded by the library to the fake HTTPS
 * media host, fetched, checked and decrypted by the contact). Inbound: a contact's image reaches the
 * message log with its caption, its bytes through GET /chatapp/messages/{id}/media, and the bot.
 *
 * The mapping under test is src/main/channel/baileys/outbound-mapper.ts and inbound-mapper.ts.
 * One instance is linked for the whole file; each test writes to its own contact.
 */
import { createHash } from 'node:crypto'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { proto } from 'baileys'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { renderButtons, renderList } from '../../src/main/channel/interactive-text'
import { buildVCard } from '../../src/main/channel/vcard'
import { jpeg, mp4, multipart, oggOpus, pdf, png, type FilePart } from '../helpers/fixtures'
import type { Harness } from '../helpers/harness'
import { linkByQr, startWaInstance, waTestFile, type WaInstance } from '../helpers/wa-instance'
import type { FakeContact, ReceivedMessage, WaTestServer } from '../support/wa-server/server'

const restore = waTestFile()

let t: WaInstance
let server: WaTestServer
let h: Harness
let creds: { session_id: string; access_token: string }
let qs: string
/** A plain HTTP server for fileurl / MediaButton downloads: path → [content type, bytes]. */
let files: Server
const served = new Map<string, [string, Buffer]>()
let filesUrl = ''
let nextContact = 15552000001

beforeAll(async () => {
  t = await startWaInstance({ accountNumber: '15550001111' })
  ;({ server, h, creds, qs } = t)
  await linkByQr(t)

  files = createServer((req, res) => {
    const file = served.get(req.url ?? '')
    if (!file) return void res.writeHead(404).end()
    res.writeHead(200, { 'content-type': file[0], 'content-length': file[1].length }).end(file[1])
  })
  await new Promise<void>((resolve) => files.listen(0, '127.0.0.1', resolve))
  filesUrl = `http://127.0.0.1:${(files.address() as AddressInfo).port}`
})

afterAll(async () => {
  await t?.close()
  await new Promise((resolve) => files?.close(resolve))
  restore()
})

/** A contact no other test writes to. */
const newContact = (name = 'Ana'): FakeContact => server.contact(String(nextContact++), name)

/** A JSON send; answers the response (status checked by the caller). */
const postJson = (path: string, payload: Record<string, unknown>) => h.call({ method: 'POST', url: `${path}?${qs}`, payload: { ...creds, ...payload } })

/** A multipart send with `file`. */
const postForm = (path: string, fields: Record<string, string>, file: FilePart) => {
  const body = multipart({ ...creds, ...fields }, file)
  return h.call({ method: 'POST', url: `${path}?${qs}`, payload: body.payload, headers: body.headers })
}

/** Runs `send` and answers its response with the next `n` messages `contact` decrypted. */
async function sendTo(contact: FakeContact, send: () => ReturnType<typeof h.call>, n = 1) {
  const before = contact.messages().length
  const res = await send()
  expect(res.statusCode, res.body).toBe(200)
  await vi.waitFor(() => expect(contact.messages().length).toBeGreaterThanOrEqual(before + n), { timeout: 5000 })
  const got = contact.messages().slice(before)
  expect(got).toHaveLength(n)
  return { res, got: got.map((m) => m.message) }
}

/** The message's content keys besides the per-message secret the library adds (messageContextInfo). */
const kinds = (m: proto.IMessage): string[] => Object.keys(proto.Message.fromObject(m).toJSON()).filter((k) => k !== 'messageContextInfo')

const sha256 = (b: Buffer | Uint8Array): string => createHash('sha256').update(b).digest('base64')

/** The media fields every upload must carry, consistent with the decrypted file. */
function expectMediaEnvelope(media: proto.Message.IImageMessage | proto.Message.IVideoMessage | proto.Message.IAudioMessage | proto.Message.IDocumentMessage | null | undefined, file: Buffer): void {
  expect(media).toBeTruthy()
  expect(media!.url).toMatch(new RegExp(`^https://${server.media.host.replace(/\./g, '\\.')}/v/`))
  expect(media!.directPath).toMatch(/^\/v\/t62\.7118-24\//)
  expect(media!.mediaKey).toHaveLength(32)
  expect(Number(media!.fileLength)).toBe(file.length)
  expect(Buffer.from(media!.fileSha256!).toString('base64')).toBe(sha256(file))
  expect(Number(media!.mediaKeyTimestamp)).toBeGreaterThan(0)
}

describe('every message kind of the API, decrypted by the contact', () => {
  it('text: POST /chatapp/message arrives as exactly that text', async () => {
    const ana = newContact()
    const { res, got } = await sendTo(ana, () => postJson('/chatapp/message', { chatId: ana.jid, message: 'Order #42 is ready 🍕\nSee you!' }))
    const m = got[0]!
    expect(kinds(m)).toEqual(['extendedTextMessage'])
    expect(m.extendedTextMessage!.text).toBe('Order #42 is ready 🍕\nSee you!')
    expect(res.json.data.message.message.extendedTextMessage.text).toBe('Order #42 is ready 🍕\nSee you!')
  })

  it('image with caption: the decrypted file is the uploaded PNG; mimetype, caption, width/height and a JPEG thumbnail', async () => {
    const ana = newContact()
    const file = await png(64, 48)
    const { res, got } = await sendTo(ana, () => postForm('/chatapp/message/image', { chatId: ana.jid, caption: 'Our menu' }, { filename: 'menu.png', contentType: 'image/png', data: file }))
    const m = got[0]!
    expect(kinds(m)).toEqual(['imageMessage'])
    const img = m.imageMessage!
    expect(await ana.readMedia(m)).toEqual(file)
    expectMediaEnvelope(img, file)
    expect(img.mimetype).toBe('image/png')
    expect(img.caption).toBe('Our menu')
    expect([img.width, img.height]).toEqual([64, 48])
    expect(Buffer.from(img.jpegThumbnail!).subarray(0, 3)).toEqual(Buffer.from([0xff, 0xd8, 0xff]))
    // The API answers docs/api-seed.md §2.11's image result: the same message the contact got.
    const data = res.json.data
    expect(data.key).toMatchObject({ remoteJid: ana.jid, fromMe: true })
    expect(data.message.imageMessage).toMatchObject({ url: img.url, directPath: img.directPath, mimetype: 'image/png', caption: 'Our menu', width: 64, height: 48, fileLength: String(file.length) })
    expect(data.message.imageMessage.mediaKey).toBe(Buffer.from(img.mediaKey!).toString('base64'))
    expect(data.message.imageMessage.jpegThumbnail).toBe(Buffer.from(img.jpegThumbnail!).toString('base64'))
    expect(data.status).toBe('PENDING')
    expect(server.media.uploads().filter((u) => u.directPath === img.directPath)).toEqual([expect.objectContaining({ type: 'image' })])
  })

  it('video with caption: the decrypted file is the uploaded MP4, video/mp4, caption', async () => {
    const ana = newContact()
    const file = mp4()
    const { got } = await sendTo(ana, () => postForm('/chatapp/message/video', { chatId: ana.jid, caption: 'How to order' }, { filename: 'how.mp4', contentType: 'video/mp4', data: file }))
    const m = got[0]!
    expect(kinds(m)).toEqual(['videoMessage'])
    expect(await ana.readMedia(m)).toEqual(file)
    expectMediaEnvelope(m.videoMessage, file)
    expect(m.videoMessage!.mimetype).toBe('video/mp4')
    expect(m.videoMessage!.caption).toBe('How to order')
  })

  it('audio with ptt=true: a voice note (ptt, audio/ogg; codecs=opus), the decrypted file is the uploaded Ogg', async () => {
    const ana = newContact()
    const file = oggOpus()
    const { got } = await sendTo(ana, () => postForm('/chatapp/message/audio', { chatId: ana.jid, ptt: 'true' }, { filename: 'note.ogg', contentType: 'audio/ogg', data: file }))
    const m = got[0]!
    expect(kinds(m)).toEqual(['audioMessage'])
    expect(await ana.readMedia(m)).toEqual(file)
    expectMediaEnvelope(m.audioMessage, file)
    expect(m.audioMessage!.ptt).toBe(true)
    expect(m.audioMessage!.mimetype).toBe('audio/ogg; codecs=opus')
  })

  it("audio without ptt: a plain audio message (ptt false) with the file's own type", async () => {
    const ana = newContact()
    // An MP3 (ID3 tag, then an MPEG frame header): detected as audio/mpeg.
    const file = Buffer.concat([Buffer.from('ID3\x04\x00\x00\x00\x00\x00\x00', 'latin1'), Buffer.from([0xff, 0xfb, 0x90, 0x00]), Buffer.alloc(400, 7)])
    const { got } = await sendTo(ana, () => postForm('/chatapp/message/audio', { chatId: ana.jid }, { filename: 'song.mp3', contentType: 'audio/mpeg', data: file }))
    expect(kinds(got[0]!)).toEqual(['audioMessage'])
    const a = got[0]!.audioMessage!
    expect(await ana.readMedia(got[0]!)).toEqual(file)
    expectMediaEnvelope(a, file)
    expect(a.ptt).toBe(false)
    expect(a.mimetype).toBe('audio/mpeg')
  })

  it('document: fileName, mimetype and caption; the decrypted file is the uploaded PDF', async () => {
    const ana = newContact()
    const file = pdf()
    const { got } = await sendTo(ana, () =>
      postForm('/chatapp/message/doc', { chatId: ana.jid, filename: 'Invoice 42.pdf', caption: 'Your invoice' }, { filename: 'upload.pdf', contentType: 'application/pdf', data: file })
    )
    const m = got[0]!
    // rc14 sends a captioned document as a plain documentMessage (no documentWithCaptionMessage wrapper).
    expect(kinds(m)).toEqual(['documentMessage'])
    const doc = m.documentMessage
    expect(await ana.readMedia(m)).toEqual(file)
    expectMediaEnvelope(doc, file)
    expect(doc!.fileName).toBe('Invoice 42.pdf')
    expect(doc!.mimetype).toBe('application/pdf')
    expect(doc!.caption).toBe('Your invoice')
  })

  it('location: POST /chatapp/message with location {name, lat, lng} arrives with those coordinates and name', async () => {
    const ana = newContact()
    const { got } = await sendTo(ana, () => postJson('/chatapp/message', { chatId: ana.jid, location: { name: 'Main St shop', lat: '40.7127', lng: '-74.0059' } }))
    expect(kinds(got[0]!)).toEqual(['locationMessage'])
    const l = got[0]!.locationMessage!
    expect([l.degreesLatitude, l.degreesLongitude, l.name]).toEqual([40.7127, -74.0059, 'Main St shop'])
    // The API has no address field (docs/api-seed.md §4.5), so none is sent.
    expect(l.address ?? undefined).toBeUndefined()
  })

  it('contact: POST /chatapp/message/contact arrives as a contact card with the vCard text', async () => {
    const ana = newContact()
    const vcard = { fullName: 'Bea Diaz', displayName: 'Bea (sales)', organization: 'Acme, Inc.', phoneNumber: '+1 555 987 6543' }
    const { got } = await sendTo(ana, () => postJson('/chatapp/message/contact', { chatId: ana.jid, vcard }))
    expect(kinds(got[0]!)).toEqual(['contactMessage'])
    const c = got[0]!.contactMessage!
    expect(c.displayName).toBe('Bea (sales)')
    expect(c.vcard).toBe(['BEGIN:VCARD', 'VERSION:3.0', 'FN:Bea Diaz', 'ORG:Acme\\, Inc.;', 'TEL;type=CELL;type=VOICE;waid=15559876543:+15559876543', 'END:VCARD'].join('\n'))
  })

  it('buttons: delivered as numbered text (docs/design.md §6)', async () => {
    const ana = newContact()
    const btndata = {
      text: 'How can we help?',
      footerText: 'Open 9–5',
      buttons: [
        { type: 'replyButton', title: 'Menu' },
        { type: 'urlButton', title: 'Site', payload: 'https://example.com' },
        { type: 'callButton', title: 'Call us', payload: '+15550001111' }
      ]
    }
    const { got } = await sendTo(ana, () => postJson('/chatapp/message/button', { chatId: ana.jid, btndata }))
    const expected = 'How can we help?\n\n1. Menu\n2. Site: https://example.com\n3. Call: +15550001111\n\n_Open 9–5_'
    expect(renderButtons(btndata.text, btndata.buttons as never, btndata.footerText).text).toBe(expected)
    expect(kinds(got[0]!)).toEqual(['extendedTextMessage'])
    expect(got[0]!.extendedTextMessage!.text).toBe(expected)
  })

  it('list: delivered as numbered text with its sections (docs/design.md §6)', async () => {
    const ana = newContact()
    const msgdata = {
      title: 'Menu',
      text: 'Pick a dish',
      description: 'Prices include VAT',
      buttonText: 'Choose',
      sections: [
        { title: 'Pizza', rows: [{ title: 'Margherita', description: '$9', rowId: 'p1' }, { title: 'Diavola', rowId: 'p2' }] },
        { title: 'Drinks', rows: [{ title: 'Water', rowId: 'd1' }] }
      ]
    }
    const { got } = await sendTo(ana, () => postJson('/chatapp/message/list', { chatId: ana.jid, msgdata }))
    const expected = '*Menu*\n\nPick a dish\n\n*Pizza*\n1. Margherita — $9\n2. Diavola\n\n*Drinks*\n3. Water\n\n_Prices include VAT_\n\nReply with the number of your choice.'
    expect(renderList(msgdata).text).toBe(expected)
    expect(got[0]!.extendedTextMessage!.text).toBe(expected)
  })

  it('MediaButton: the image from btndata.image with the numbered buttons as its caption', async () => {
    const ana = newContact()
    const file = await jpeg(80, 60)
    served.set('/promo.jpg', ['image/jpeg', file])
    const btndata = { text: 'Today only', buttons: [{ type: 'replyButton', title: 'Order' }], image: `${filesUrl}/promo.jpg`, mediaType: 'image', mimeType: 'image/jpeg' }
    const { got } = await sendTo(ana, () => postJson('/chatapp/message/MediaButton', { chatId: ana.jid, btndata }))
    const img = got[0]!.imageMessage!
    expect(await ana.readMedia(got[0]!)).toEqual(file)
    expectMediaEnvelope(img, file)
    expect(img.caption).toBe('Today only\n\n1. Order')
    expect(img.mimetype).toBe('image/jpeg')
    expect([img.width, img.height]).toEqual([80, 60])
  })

  it('fileurl: an image and a document downloaded from a URL arrive as the same bytes', async () => {
    const ana = newContact()
    const image = await jpeg(40, 30)
    const doc = pdf()
    served.set('/files/photo.jpg', ['image/jpeg', image])
    served.set('/files/terms.pdf', ['application/pdf', doc])
    const { got: [first] } = await sendTo(ana, () => postJson('/chatapp/message/fileurl', { chatId: ana.jid, url: `${filesUrl}/files/photo.jpg`, type: 'image', mimetype: 'image/jpeg', caption: 'From the web' }))
    expect(await ana.readMedia(first!)).toEqual(image)
    expect(first!.imageMessage).toMatchObject({ caption: 'From the web', mimetype: 'image/jpeg', width: 40, height: 30 })
    const { got: [second] } = await sendTo(ana, () => postJson('/chatapp/message/fileurl', { chatId: ana.jid, url: `${filesUrl}/files/terms.pdf`, type: 'document' }))
    expect(await ana.readMedia(second!)).toEqual(doc)
    expect(second!.documentMessage).toMatchObject({ fileName: 'terms.pdf', mimetype: 'application/pdf' })
  })

  it('text with an attachment, a location and a contact: four messages, in that order', async () => {
    const ana = newContact()
    const file = await jpeg(32, 32)
    const upload = multipart(creds, { filename: 'logo.jpg', contentType: 'image/jpeg', data: file })
    const att = await h.call({ method: 'POST', url: `/attachment?${qs}`, payload: upload.payload, headers: upload.headers })
    expect(att.statusCode, att.body).toBe(200)
    const { res, got } = await sendTo(
      ana,
      () => postJson('/chatapp/message', { chatId: ana.jid, message: 'All in one', attachments: [att.json.data._id], location: { name: 'Depot', lat: '-33.8688', lng: '151.2093' }, contactId: '15557654321' }),
      4
    )
    expect(got.map(kinds)).toEqual([['extendedTextMessage'], ['imageMessage'], ['locationMessage'], ['contactMessage']])
    expect(got[0]!.extendedTextMessage!.text).toBe('All in one')
    expect(await ana.readMedia(got[1]!)).toEqual(file)
    expect(got[1]!.imageMessage!.caption ?? '').toBe('')
    expect([got[2]!.locationMessage!.degreesLatitude, got[2]!.locationMessage!.degreesLongitude, got[2]!.locationMessage!.name]).toEqual([-33.8688, 151.2093, 'Depot'])
    expect(got[3]!.contactMessage).toMatchObject({ displayName: '+15557654321', vcard: buildVCard({ fullName: '+15557654321', phoneNumber: '15557654321' }) })
    expect(res.json.data.attachment).toEqual([att.json.data._id])
  })
})

describe('inbound media from a contact', () => {
  /** The log entry of message `id`, once logged. */
  async function logged(id: string) {
    let entry: Record<string, unknown> | undefined
    await vi.waitFor(async () => {
      const list = await h.call({ method: 'GET', url: `/chatapp/messages?${qs}` })
      entry = (list.json.data as Array<Record<string, unknown>>).find((m) => m.id === id)
      expect(entry).toMatchObject({ id })
    })
    return entry!
  }

  it('an image with a caption: logged as image with the caption; GET …/media answers exactly its bytes', async () => {
    const ana = newContact('Bea')
    const file = await jpeg(50, 40)
    const id = await ana.sendImage(file, { caption: 'Is this in stock?', mimetype: 'image/jpeg', width: 50, height: 40 })
    const entry = await logged(id)
    expect(entry).toMatchObject({ chatId: ana.jid, fromMe: false, type: 'image', text: 'Is this in stock?', source: 'inbound', pushName: 'Bea', media: { mimetype: 'image/jpeg', size: file.length } })
    const media = await h.call({ method: 'GET', url: `/chatapp/messages/${id}/media?${qs}` })
    expect(media.statusCode, media.body).toBe(200)
    expect(media.headers['content-type']).toBe('image/jpeg')
    expect(media.rawPayload).toEqual(file)
    // Downloaded from the media host by the library (fetch), at the message's direct path.
    expect(server.media.downloads().at(-1)).toEqual({ path: expect.stringMatching(/_image\.enc$/), status: 200 })
  })

  it('a document: logged with its file name; the media route names it', async () => {
    const ana = newContact('Cal')
    const file = pdf()
    const id = await ana.sendMedia('document', file, { mimetype: 'application/pdf', fileName: 'order form.pdf' })
    expect(await logged(id)).toMatchObject({ type: 'document', text: '', media: { mimetype: 'application/pdf', fileName: 'order form.pdf', size: file.length } })
    const media = await h.call({ method: 'GET', url: `/chatapp/messages/${id}/media?${qs}` })
    expect(media.rawPayload).toEqual(file)
    expect(media.headers['content-disposition']).toBe("attachment; filename*=UTF-8''order%20form.pdf")
    // The pipeline gives every inbound kind to the bot (inbound-pipeline.ts): with no text to match,
    // a first message from a contact gets the default message (instance-service DEFAULT_MSG).
    await vi.waitFor(() => expect(ana.received()).toEqual([expect.stringMatching(/^(Hi|Hello) Cal, thanks for your message! We will reply soon\.$/)]))
  })

  it('a voice note and a video: logged as audio and video with their types; their bytes from the media route', async () => {
    const ana = newContact('Eve')
    const note = oggOpus()
    const clip = mp4()
    const noteId = await ana.sendMedia('audio', note, { mimetype: 'audio/ogg; codecs=opus', ptt: true, seconds: 3 })
    const clipId = await ana.sendMedia('video', clip, { mimetype: 'video/mp4', caption: 'unboxing' })
    expect(await logged(noteId)).toMatchObject({ type: 'audio', text: '', media: { mimetype: 'audio/ogg; codecs=opus', size: note.length } })
    expect(await logged(clipId)).toMatchObject({ type: 'video', text: 'unboxing', media: { mimetype: 'video/mp4', size: clip.length } })
    expect((await h.call({ method: 'GET', url: `/chatapp/messages/${noteId}/media?${qs}` })).rawPayload).toEqual(note)
    expect((await h.call({ method: 'GET', url: `/chatapp/messages/${clipId}/media?${qs}` })).rawPayload).toEqual(clip)
  })

  it("an image's caption is the text the bot matches: a keyword caption gets the intent's reply", async () => {
    const intent = await h.call({ method: 'POST', url: '/intent', payload: { ...creds, title: 'Stock', keyword: 'price list', reply: 'Here are our prices.' } })
    expect(intent.statusCode, intent.body).toBe(200)
    const ana = newContact('Dee')
    const replied = ana.nextMessage()
    await ana.sendImage(await jpeg(20, 20), { caption: 'price list', mimetype: 'image/jpeg' })
    const reply: ReceivedMessage = await replied
    expect(reply.message.extendedTextMessage?.text ?? reply.message.conversation).toBe('Here are our prices.')
    // The intent answered instead of the default message, and only once: Dee's next message gets the
    // intent's reply again, and nothing came between the two (replies to one chat go out in order).
    const again = ana.nextMessage()
    await ana.sendText('price list')
    await again
    expect(ana.received()).toEqual(['Here are our prices.', 'Here are our prices.'])
  })
})
