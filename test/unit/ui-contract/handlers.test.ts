/**
 * The contract handlers over a real sandbox core: behaviour the transports do not add — survey
 * reorder, uploads and media sends by attachment, SMTP settings (password kept, never returned), the
 * API token, the chat list, and the webhook delivery log with its live events.
 */
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import sharp from 'sharp'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { startCore, type Core } from '../../../src/main/core'
import { createHandlers, dispatch } from '../../../src/main/ui-contract/handlers'
import { subscribeContractEvents } from '../../../src/main/ui-contract/event-bridge'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { ContractEvent, ContractHandlers } from '../../../src/shared/contract'

let core: Core
let dir: string
let h: ContractHandlers

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'chatapp-handlers-'))
  // The file server of the URL sends is on this machine: allowed explicitly (the default refuses it).
  core = await startCore({ dataDir: dir, defaultChannel: 'sandbox', fetchAllow: ['127.0.0.1'] })
  h = createHandlers(core, { baseUrl: () => 'http://127.0.0.1:9', mode: 'desktop', defaultChannel: 'sandbox' })
})
afterEach(async () => {
  await core.close()
  await rm(dir, { recursive: true, force: true })
})

async function connected() {
  const inst = await h['instances.create']({ channel: 'sandbox' })
  await h['instances.init']({ instanceId: inst._id })
  await h['pairing.sandboxScan']({ instanceId: inst._id })
  return inst._id
}

describe('contract handlers', () => {
  it('reorders the steps of one survey and refuses steps of two surveys', async () => {
    const id = (await h['instances.create']({}))._id
    const a = await h['surveys.create']({ instanceId: id, title: 'S', keyword: 'go', reply: 'Q1', sort_id: 1 })
    const b = await h['surveys.create']({ instanceId: id, title: 'S', keyword: '', reply: 'Q2', sort_id: 2 })
    const c = await h['surveys.create']({ instanceId: id, title: 'S', keyword: '', reply: 'Q3', sort_id: 3 })
    const other = await h['surveys.create']({ instanceId: id, title: 'T', keyword: 'x', reply: 'X', sort_id: 1 })
    const steps = await h['surveys.reorder']({ instanceId: id, stepIds: [c._id, a._id, b._id] })
    expect(steps.map((s) => [s.reply, s.sort_id])).toEqual([
      ['Q3', 1],
      ['Q1', 2],
      ['Q2', 3]
    ])
    await expect(h['surveys.reorder']({ instanceId: id, stepIds: [a._id, other._id] })).rejects.toMatchObject({ code: 'VALIDATION_ERROR' })
  })

  it('sends a file by URL and an image with buttons', async () => {
    const id = await connected()
    const png = await sharp({ create: { width: 20, height: 10, channels: 3, background: '#abcdef' } }).png().toBuffer()
    const server = createServer((_req, res) => res.writeHead(200, { 'content-type': 'image/png' }).end(png))
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/menu.png`
      await h['messages.sendFileUrl']({ instanceId: id, chatId: '15550001111', url, type: 'image', caption: 'Menu' })
      await h['messages.sendMediaButtons']({ instanceId: id, chatId: '15550001111', btndata: { text: 'Today', buttons: [{ type: 'replyButton', title: 'Order' }], image: url } })
      const log = await h['messages.list']({ instanceId: id, chatId: '15550001111' })
      expect(log.map((m) => [m.type, m.text])).toEqual([
        ['image', 'Menu'],
        ['buttons', 'Today\n\n1. Order']
      ])
      await expect(h['messages.sendFileUrl']({ instanceId: id, chatId: '15550001111', url, type: 'document', caption: 'x' })).resolves.toMatchObject({ id: expect.any(String) })
      await expect(h['messages.sendFileUrl']({ instanceId: id, chatId: '15550001111', url, type: 'video' })).rejects.toMatchObject({ code: 'UNSUPPORTED_MEDIA_TYPE' })
    } finally {
      await new Promise<void>((r) => server.close(() => r()))
    }
  })

  it('exports survey responses as the same CSV file the API gives', async () => {
    const id = await connected()
    await h['settings.updateActions']({ instanceId: id, send_default_msg: false })
    const q1 = await h['surveys.create']({ instanceId: id, title: 'Visit feedback', keyword: 'feedback', reply: 'How was it?', sort_id: 1 })
    for (const message of ['feedback', 'Great, thanks']) await h['sandbox.inbound']({ instanceId: id, chatId: '15550001111', message, pushName: 'Ann' })
    const file = await h['surveys.responsesCsv']({ instanceId: id, id: q1._id })
    expect(file.fileName).toBe('Visit_feedback-responses.csv')
    expect(file).toEqual(await core.surveys.responsesCsv(core.instances.get(id), q1._id))
    expect(file.csv.split('\n')[1]).toMatch(/,Ann,'\+\d+,completed,no,.*,"Great, thanks"$/)
  })

  it('uploads an image as base64 and sends it by attachment id; a PDF as an image is a 415', async () => {
    const id = await connected()
    const png = await sharp({ create: { width: 40, height: 30, channels: 3, background: '#123456' } }).png().toBuffer()
    const att = await h['attachments.upload']({ instanceId: id, filename: 'logo.png', dataBase64: png.toString('base64') })
    expect(att).toMatchObject({ filename: 'logo.png', mimetype: 'image/png', size: png.length })
    const sent = await h['messages.sendMedia']({ instanceId: id, chatId: '15550001111', kind: 'image', attachmentId: att._id, caption: 'Hi' })
    const [logged] = await h['messages.list']({ instanceId: id, chatId: '15550001111' })
    expect(logged).toMatchObject({ id: sent.id, type: 'image', text: 'Hi', source: 'desk' }) // sent by a person in the UI (hand-off pauses the bot there)
    const pdf = await h['attachments.upload']({ instanceId: id, filename: 'a.pdf', dataBase64: Buffer.from('%PDF-1.4\n%%EOF\n').toString('base64') })
    await expect(h['messages.sendMedia']({ instanceId: id, chatId: '15550001111', kind: 'image', attachmentId: pdf._id })).rejects.toMatchObject({ code: 'UNSUPPORTED_MEDIA_TYPE' })
    await expect(h['attachments.upload']({ instanceId: id, filename: 'e', dataBase64: '' })).rejects.toMatchObject({ code: 'VALIDATION_ERROR' })
  })

  it('keeps the SMTP password when omitted, never returns it, and clears settings with null', async () => {
    const base = { host: 'smtp.example.com', port: 465, secure: true, user: 'bot', from: 'bot@example.com' }
    expect(await h['appSettings.setSmtp']({ smtp: { ...base, pass: 's3cret' } })).toEqual({ smtp: { ...base, hasPassword: true } })
    expect(await h['appSettings.setSmtp']({ smtp: { ...base, port: 587 } })).toEqual({ smtp: { ...base, port: 587, hasPassword: true } })
    expect(core.appSettings.smtpSecret()?.pass).toBe('s3cret')
    expect(await h['appSettings.get']({})).toEqual({ smtp: { ...base, port: 587, hasPassword: true } })
    expect(await h['appSettings.setSmtp']({ smtp: null })).toEqual({ smtp: null })
    const bad = await dispatch(h, 'appSettings.setSmtp', { smtp: { ...base, from: 'not-an-address' } }, () => {})
    expect(bad).toMatchObject({ ok: false, error: { code: 'VALIDATION_ERROR', details: expect.arrayContaining([expect.objectContaining({ field: 'smtp.from' })]) } })
  })

  it('shows and regenerates the API token', async () => {
    const before = await h['apiToken.get']({})
    expect(before).toEqual({ token: core.account.token(), fixed: false })
    const { token } = await h['apiToken.regenerate']({})
    expect(token).not.toBe(before.token)
    expect(core.account.verify(token)).toBe(true)
  })

  it('lists conversations newest first with the contact name and number', async () => {
    const id = await connected()
    await h['settings.updateActions']({ instanceId: id, send_default_msg: false })
    await h['sandbox.inbound']({ instanceId: id, chatId: '15550001111', message: 'first', pushName: 'Ann' })
    await h['messages.sendText']({ instanceId: id, chatId: '15550002222', message: 'hello Bob' })
    const chats = await h['inbox.list']({ instance_id: id })
    expect(chats.map((c) => [c.chatId, c.name, c.phone, c.last.text])).toEqual([
      ['15550002222@s.whatsapp.net', null, '15550002222', 'hello Bob'],
      ['15550001111@s.whatsapp.net', 'Ann', '15550001111', 'first']
    ])
  })

  it('lists webhook deliveries, retries a failed one, and streams delivery events', async () => {
    let answer = 400
    const hits: string[] = []
    const receiver = createServer((req, res) => {
      hits.push(req.headers['webhook-id'] as string)
      req.resume().on('end', () => res.writeHead(answer).end())
    })
    await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r))
    try {
      const id = await connected()
      const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`
      await h['settings.setWebhook']({ instanceId: id, webhook_url: url, events: ['onAnyMessage'] })
      await h['settings.updateActions']({ instanceId: id, send_webhook: true })
      const events: ContractEvent[] = []
      const off = subscribeContractEvents(core, (e) => events.push(e))
      await h['messages.sendText']({ instanceId: id, chatId: '15550001111', message: 'hello' })
      await vi.waitFor(() => expect(events.filter((e) => e.type === 'delivery')).toHaveLength(1))
      const [failed] = await h['webhookDeliveries.list']({ instanceId: id })
      expect(failed).toMatchObject({ status: 'failed', last_status: 400, event: 'onAnyMessage', url, attempts: 1 })
      answer = 204
      await h['webhookDeliveries.retry']({ instanceId: id, deliveryId: failed!.id })
      await vi.waitFor(() => expect(events.filter((e) => e.type === 'delivery')).toHaveLength(2))
      expect(events.filter((e) => e.type === 'delivery').at(-1)).toMatchObject({ type: 'delivery', instanceId: id, delivery: { id: failed!.id, status: 'delivered' } })
      expect(hits).toEqual([failed!.id, failed!.id])
      off()
      await expect(h['webhookDeliveries.retry']({ instanceId: id, deliveryId: 'nope' })).rejects.toMatchObject({ code: 'NOT_FOUND' })
    } finally {
      await new Promise<void>((r) => receiver.close(() => r()))
    }
  })
})
