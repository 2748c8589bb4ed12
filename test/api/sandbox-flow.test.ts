/**
 * The whole sandbox flow: create → init → scan PNG and base64 → sandbox scan → CONNECTED →
 * send each kind → inbound messages → message log shows them all, in order.
 */
import { afterEach, beforeEach, expect, it } from 'vitest'
import { makeHarness, type Harness } from '../helpers/harness'
import { jpeg, mp4, multipart, oggOpus, pdf } from '../helpers/fixtures'

let h: Harness
beforeEach(async () => {
  h = await makeHarness()
})
afterEach(async () => {
  await h.close()
})

it('walks an instance from creation to a logged conversation', async () => {
  const inst = (await h.call({ method: 'POST', url: '/chatapp/createNewChatapp', payload: {} })).json.data
  const creds = { session_id: inst.session_id, access_token: inst.settings.access_token }
  const qs = new URLSearchParams(creds).toString()
  expect((await h.call({ method: 'POST', url: '/chatapp/init', payload: { ...creds, config: { multiDevice: true, setWebhook: false } } })).json.data.status).toBe('QR')
  const png = await h.call({ method: 'GET', url: `/chatapp/scan?${qs}` })
  expect(png.rawPayload.subarray(1, 4).toString()).toBe('PNG')
  expect((await h.call({ method: 'GET', url: `/chatapp/scan?${qs}&format=base64text` })).json.data.qrcode).toMatch(/^data:image\/png;base64,/)

  const early = await h.call({ method: 'POST', url: `/chatapp/sandbox/inbound?${qs}`, payload: { chatId: '15550001111', message: 'too early' } })
  expect(early.statusCode).toBe(409)
  expect((await h.call({ method: 'POST', url: `/chatapp/sandbox/scan?${qs}` })).json.data.status).toBe('CONNECTED')
  expect((await h.call({ method: 'POST', url: `/chatapp/sandbox/scan?${qs}` })).statusCode).toBe(409)
  expect((await h.call({ method: 'GET', url: `/chatapp/instance?${qs}` })).json.data.instance_data.phone_connected).toBe(true)

  const customer = '15550001111'
  const inbound = await h.call({ method: 'POST', url: `/chatapp/sandbox/inbound?${qs}`, payload: { chatId: customer, message: 'Hi, are you open?', pushName: 'Ann' } })
  expect(inbound.json.message).toBe('Message received successfully')
  expect(inbound.json.data.replies).toEqual([expect.objectContaining({ source: 'bot', text: expect.stringMatching(/^(Hi|Hello) Ann, thanks for your message!/) })])
  expect(inbound.json.data.message).toMatchObject({ chatId: `${customer}@s.whatsapp.net`, fromMe: false, pushName: 'Ann', text: 'Hi, are you open?', source: 'inbound' })
  const group = await h.call({ method: 'POST', url: `/chatapp/sandbox/inbound?${qs}`, payload: { chatId: '120363000000000001@g.us', participant: '15550003333', message: 'group hello' } })
  expect(group.json.data.message).toMatchObject({ chatId: '120363000000000001@g.us', senderId: '15550003333@s.whatsapp.net' })
  const dup = await h.call({ method: 'POST', url: `/chatapp/sandbox/inbound?${qs}`, payload: { chatId: customer, message: 'once', id: 'FIXED1' } })
  await h.call({ method: 'POST', url: `/chatapp/sandbox/inbound?${qs}`, payload: { chatId: customer, message: 'once', id: 'FIXED1' } })
  expect(dup.statusCode).toBe(200)

  const send = (url: string, payload: object) => h.call({ method: 'POST', url: `${url}?${qs}`, payload })
  const form = (url: string, fields: Record<string, string>, file: { filename: string; contentType: string; data: Buffer }) =>
    h.call({ method: 'POST', url: `${url}?${qs}`, ...multipart(fields, file) })
  const results = [
    await send('/chatapp/message', { chatId: customer, message: 'Yes, 9 to 6!' }),
    await form('/chatapp/message/image', { chatId: customer, caption: 'Shop' }, { filename: 's.jpg', contentType: 'image/jpeg', data: await jpeg() }),
    await form('/chatapp/message/video', { chatId: customer }, { filename: 'v.mp4', contentType: 'video/mp4', data: mp4() }),
    await form('/chatapp/message/audio', { chatId: customer }, { filename: 'a.ogg', contentType: 'audio/ogg', data: oggOpus() }),
    await form('/chatapp/message/doc', { chatId: customer, filename: 'menu.pdf' }, { filename: 'm.pdf', contentType: 'application/pdf', data: pdf() }),
    await send('/chatapp/message/button', { chatId: customer, btndata: { text: 'Pick', buttons: [{ type: 'replyButton', title: 'Menu' }] } }),
    await send('/chatapp/message/contact', { chatId: customer, vcard: { fullName: 'Owner', phoneNumber: '15550009999' } }),
    await send('/chatapp/message/list', { chatId: customer, msgdata: { text: 'Menu', sections: [{ title: 'Food', rows: [{ title: 'Pizza', rowId: 'p' }] }] } }),
    await send('/chatapp/sendText', { to: customer, message: 'Bye' })
  ]
  for (const r of results) expect(r.statusCode).toBe(200)

  const log = (await h.call({ method: 'GET', url: `/chatapp/messages?${qs}&chatId=${customer}` })).json.data
  expect(log.map((m: { type: string; source: string }) => `${m.source}:${m.type}`)).toEqual([
    'inbound:text',
    'bot:text', // the default message, once per contact per day
    'inbound:text',
    'api:text',
    'api:image',
    'api:video',
    'api:audio',
    'api:document',
    'api:buttons',
    'api:contact',
    'api:list',
    'api:text'
  ])
  const all = (await h.call({ method: 'GET', url: `/chatapp/messages?${qs}` })).json.data
  expect(all).toHaveLength(14) // + the group message and its default reply
})

it('refuses the sandbox routes on a real-channel instance', async () => {
  const inst = await h.createInstance('baileys')
  const qs = `session_id=${inst.session_id}&access_token=${inst.settings.access_token}`
  const res = await h.call({ method: 'POST', url: `/chatapp/sandbox/scan?${qs}` })
  expect(res.statusCode).toBe(409)
  expect(res.json.message).toMatch(/real channel/)
})

it('takes inbound media and serves its file on demand', async () => {
  const { qs } = await h.connectedInstance()
  const { multipart, png } = await import('../helpers/fixtures')
  const photo = await png(30, 20)
  const att = (await h.call({ method: 'POST', url: `/attachment?${qs}`, ...multipart({}, { filename: 'receipt.png', contentType: 'image/png', data: photo }) })).json.data
  const res = await h.call({ method: 'POST', url: `/chatapp/sandbox/inbound?${qs}`, payload: { chatId: '15550001111', message: 'my receipt', attachmentId: att._id } })
  expect(res.json.data.message).toMatchObject({ type: 'image', text: 'my receipt', media: { mimetype: 'image/png', fileName: 'receipt.png', size: photo.length } })
  const file = await h.call({ method: 'GET', url: `/chatapp/messages/${res.json.data.message.id}/media?${qs}` })
  expect(file.statusCode).toBe(200)
  expect(file.headers['content-type']).toBe('image/png')
  expect(file.rawPayload.equals(photo)).toBe(true)
  const text = await h.call({ method: 'POST', url: `/chatapp/sandbox/inbound?${qs}`, payload: { chatId: '15550001111', message: 'just text' } })
  expect((await h.call({ method: 'GET', url: `/chatapp/messages/${text.json.data.message.id}/media?${qs}` })).statusCode).toBe(404)
  expect((await h.call({ method: 'GET', url: `/chatapp/messages/NOPE/media?${qs}` })).statusCode).toBe(404)
  const bad = await h.call({ method: 'POST', url: `/chatapp/sandbox/inbound?${qs}`, payload: { chatId: '15550001111', message: 'x', attachmentId: 'nope' } })
  expect(bad.json.error.details).toEqual([{ field: 'attachmentId', problem: 'names no attachment of this instance' }])
})
