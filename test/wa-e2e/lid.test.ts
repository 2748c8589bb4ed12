/**
 * One chat per customer on today's LID-addressed WhatsApp (Baileys #2683, docs/design.md §13): a
 * customer whose messages come from `<lid>@lid` with the number in `sender_pn` is the same chat as
 * the number the shop sends to — in the log, for the bot's option replies, and in webhooks; a sender
 * known only by LID gets a LID chat that is re-keyed to the number once WhatsApp reveals it.
 */
import { describe, expect, it, vi } from 'vitest'
import { waTestSuite, type WaInstance } from '../helpers/wa-instance'
import { startReceiver } from '../helpers/webhook-receiver'

const { linked, cleanup } = waTestSuite()

const log = async (t: WaInstance, chatId?: string) =>
  (await t.h.call({ method: 'GET', url: `/chatapp/messages?${t.qs}${chatId ? `&chatId=${encodeURIComponent(chatId)}` : ''}` })).json.data as Array<{
    id: string
    chatId: string
    text: string
    fromMe: boolean
    source: string
    senderPn?: string
    senderLid?: string
    status?: string
  }>

describe('LID addressing', () => {
  it('a LID-addressed customer is one chat: the button reply "1" is recognised, the webhook carries the number', async () => {
    const t = await linked()
    const rx = await startReceiver()
    cleanup(() => rx.stop())
    await t.h.call({ method: 'PUT', url: `/chatapp/setWebhook?${t.qs}`, payload: { ...t.creds, webhook_url: `${rx.url}/hook`, events: ['onMessage'] } })
    await t.h.call({ method: 'PUT', url: `/chatapp/updateActions?${t.qs}`, payload: { ...t.creds, send_webhook: true } })
    await t.h.call({ method: 'POST', url: '/intent', payload: { ...t.creds, title: 'Pizza', keyword: 'pizza', reply: 'Pizza it is!' } })

    const ana = t.server.contact('15551234567', 'Ana')
    ana.addressing = 'lid'
    const menu = await t.h.call({
      method: 'POST',
      url: `/chatapp/message/button?${t.qs}`,
      payload: { ...t.creds, chatId: '15551234567', btndata: { text: 'What would you like?', buttons: [{ type: 'replyButton', title: 'Pizza' }, { type: 'replyButton', title: 'Pasta' }] } }
    })
    expect(menu.statusCode, menu.body).toBe(200)
    await vi.waitFor(() => expect(ana.received()).toHaveLength(1), { timeout: 5000 })

    await ana.sendText('1')
    await vi.waitFor(() => expect(ana.received()).toContain('Pizza it is!'), { timeout: 5000 })
    const pnJid = '15551234567@s.whatsapp.net'
    await vi.waitFor(async () => expect((await log(t, pnJid)).map((m) => m.text)).toEqual(['What would you like?\n\n1. Pizza\n2. Pasta', '1', 'Pizza it is!']))
    expect((await log(t)).filter((m) => m.chatId.endsWith('@lid'))).toEqual([])
    const inbound = (await log(t, pnJid)).find((m) => m.text === '1')!
    expect(inbound).toMatchObject({ senderPn: pnJid, senderLid: ana.lid })

    await vi.waitFor(() => expect(rx.requests.filter((r) => r.json.event === 'onMessage')).toHaveLength(1))
    expect(rx.requests[0]!.json.data).toMatchObject({ chatId: pnJid, senderPn: pnJid, senderLid: ana.lid, text: '1' })
  })

  it('a sender known only by LID: its chat is re-keyed to the number when WhatsApp reveals it, and stays one chat after', async () => {
    const t = await linked()
    const bo = t.server.contact('15559876543', 'Bo')
    bo.addressing = 'lid-only'
    await bo.sendText('hello')
    const inbound = async () => (await log(t)).filter((m) => !m.fromMe)
    await vi.waitFor(async () => expect((await inbound()).map((m) => [m.chatId, m.text])).toEqual([[bo.lid, 'hello']]), { timeout: 5000 })

    expect(bo.revealPn()).toBe(true)
    const pnJid = '15559876543@s.whatsapp.net'
    // The whole conversation moves: Bo's message and the bot's default-message answer.
    await vi.waitFor(async () => expect((await log(t)).map((m) => m.chatId)).toEqual([pnJid, pnJid]), { timeout: 5000 })
    expect((await inbound())[0]).toMatchObject({ chatId: pnJid, text: 'hello', senderPn: pnJid, senderLid: bo.lid })

    bo.addressing = 'lid'
    await bo.sendText('are you open?')
    await vi.waitFor(async () => expect((await inbound()).map((m) => [m.chatId, m.text])).toEqual([[pnJid, 'hello'], [pnJid, 'are you open?']]), { timeout: 5000 })
    // A reply to the number reaches Bo.
    const res = await t.h.call({ method: 'POST', url: `/chatapp/message?${t.qs}`, payload: { ...t.creds, chatId: '15559876543', message: 'Yes, until 10 pm' } })
    expect(res.statusCode, res.body).toBe(200)
    await vi.waitFor(() => expect(bo.received()).toContain('Yes, until 10 pm'), { timeout: 5000 })
  })

  it('a reply to the number of a customer whose chat moved to LID goes to the LID: delivered, and logged and reported under the number', async () => {
    const t = await linked()
    const rx = await startReceiver()
    cleanup(() => rx.stop())
    await t.h.call({ method: 'PUT', url: `/chatapp/setWebhook?${t.qs}`, payload: { ...t.creds, webhook_url: `${rx.url}/hook`, events: ['onMessageStatus'] } })
    await t.h.call({ method: 'PUT', url: `/chatapp/updateActions?${t.qs}`, payload: { ...t.creds, send_webhook: true } })
    const pnJid = '15551234567@s.whatsapp.net'
    const ana = t.server.contact('15551234567', 'Ana')
    ana.addressing = 'lid'
    // Her message comes from her LID with her number beside it: the chat moved to LID (Baileys #2683).
    await ana.sendText('is my order ready?')
    await vi.waitFor(async () => expect((await log(t, pnJid)).map((m) => m.text)).toContain('is my order ready?'), { timeout: 5000 })

    const res = await t.h.call({ method: 'POST', url: `/chatapp/message?${t.qs}`, payload: { ...t.creds, chatId: '15551234567', message: 'Yes, come by' } })
    expect(res.statusCode, res.body).toBe(200)
    const sent = res.json.data.message as { key: { id: string; remoteJid: string } }
    // The caller named the number and gets the number back, whatever address went on the wire.
    expect(sent.key.remoteJid).toBe(pnJid)
    await vi.waitFor(() => expect(ana.received()).toContain('Yes, come by'), { timeout: 5000 })
    await vi.waitFor(async () => expect((await log(t, pnJid)).find((m) => m.id === sent.key.id)).toMatchObject({ chatId: pnJid, status: 'DELIVERY_ACK' }), { timeout: 5000 })
    expect((await log(t)).filter((m) => m.chatId.endsWith('@lid'))).toEqual([])
    await vi.waitFor(() => expect(rx.requests.some((r) => r.json.event === 'onMessageStatus' && r.json.data.id === sent.key.id && r.json.data.status === 'DELIVERY_ACK')).toBe(true))
    const hooks = rx.requests.filter((r) => r.json.event === 'onMessageStatus' && r.json.data.id === sent.key.id)
    expect(hooks.map((r) => r.json.data.chatId)).toEqual(hooks.map(() => pnJid))
    expect(hooks.map((r) => r.json.data.status)).not.toContain('ERROR')
  })
})
