/**
 * The settings Baileys' documentation calls required or recommended for production, proven end to
 * end against the protocol test server (docs/baileys.md "Production settings"): group metadata from a
 * cache, a persistent store behind `getMessage` (a recipient's retry after an app restart is
 * answered) and for inbound media keys, status broadcasts ignored, unknown numbers checked with
 * `onWhatsApp`, an undecryptable message kept as a placeholder until its retry succeeds, and the
 * offline backlog.
 */
import { describe, expect, it, vi } from 'vitest'
import { waTestSuite, type WaInstance } from '../helpers/wa-instance'
import { png } from '../helpers/fixtures'
import { startReceiver } from '../helpers/webhook-receiver'

const { linked, cleanup } = waTestSuite()

const send = (h: WaInstance['h'], t: WaInstance, chatId: string, message: string) =>
  h.call({ method: 'POST', url: `/chatapp/message?${t.qs}`, payload: { ...t.creds, chatId, message } })

const logOf = async (h: WaInstance['h'], t: WaInstance) =>
  (await h.call({ method: 'GET', url: `/chatapp/messages?${t.qs}` })).json.data as Array<{ id: string; chatId: string; text: string; type: string; fromMe: boolean; source: string; status: string }>

describe('production settings of the real channel', () => {
  it('three sends to one group cause one group metadata query (cachedGroupMetadata)', async () => {
    const t = await linked()
    const ana = t.server.contact('15551234567', 'Ana')
    const group = t.server.addGroup({ subject: 'Store team', participants: [t.server.phone, ana], admins: [t.server.phone] })
    for (const text of ['one', 'two', 'three']) {
      const res = await send(t.h, t, group.jid, text)
      expect(res.statusCode, res.body).toBe(200)
    }
    await vi.waitFor(() => expect(group.messages().filter((m) => m.member === ana.jid)).toHaveLength(3), { timeout: 5000 })
    expect(t.server.groupMetadataQueries).toBe(1)
  })

  it("a recipient's retry request after an app restart is answered from the persistent message store", async () => {
    const t = await linked()
    const ana = t.server.contact('15551234567', 'Ana')
    const res = await send(t.h, t, '15551234567', 'Your order is ready')
    const id = res.json.data.message.key.id as string
    await vi.waitFor(() => expect(ana.received()).toEqual(['Your order is ready']), { timeout: 5000 })

    const h2 = await t.h.restart()
    cleanup(() => h2.close())
    await vi.waitFor(() => expect(h2.core.instances.get(t.inst._id).settings.status).toBe('CONNECTED'), { timeout: 5000 })
    expect(ana.requestRetry(id)).toBe(true)
    await vi.waitFor(() => expect(ana.messages().filter((m) => m.id === id)).toHaveLength(2), { timeout: 5000 })
    expect(ana.received()).toEqual(['Your order is ready', 'Your order is ready'])
  })

  it("after a restart, a contact's retry receipt naming a picture it sent us is not answered: getMessage answers only our own sends", async () => {
    const t = await linked()
    const ana = t.server.contact('15551234567', 'Ana')
    const res = await send(t.h, t, '15551234567', 'Your order is ready')
    const own = res.json.data.message.key.id as string
    await vi.waitFor(() => expect(ana.received()).toEqual(['Your order is ready']), { timeout: 5000 })
    // Inbound media is kept in the database for its download keys, so it is there after a restart.
    const picture = await ana.sendImage(await png(24, 16), { mimetype: 'image/png', caption: 'my receipt' })
    await vi.waitFor(async () => expect((await logOf(t.h, t)).some((m) => m.id === picture)).toBe(true), { timeout: 5000 })

    // After the restart only getMessage answers (Baileys' own recent-message cache is in memory).
    const h2 = await t.h.restart()
    cleanup(() => h2.close())
    await vi.waitFor(() => expect(h2.core.instances.get(t.inst._id).settings.status).toBe('CONNECTED'), { timeout: 5000 })
    // Baileys treats every retry receipt without a `recipient` as one for our own send (lib/Socket/
    // messages-recv.js handleReceipt) and relays whatever getMessage answers, as ours, under that id.
    expect(ana.requestRetry(picture)).toBe(true)
    expect(ana.requestRetry(own)).toBe(true)
    // Receipts are handled in order (receiptMutex): once our send went again, the first was handled.
    await vi.waitFor(() => expect(ana.messages().filter((m) => m.id === own)).toHaveLength(2), { timeout: 5000 })
    expect(ana.messages().filter((m) => m.id === picture)).toEqual([])
  })

  it('the media of an inbound message can be downloaded after an app restart (media keys persisted)', async () => {
    const t = await linked()
    const ana = t.server.contact('15551234567', 'Ana')
    const picture = await png(24, 16)
    const id = await ana.sendImage(picture, { mimetype: 'image/png', caption: 'my receipt' })
    await vi.waitFor(async () => expect((await logOf(t.h, t)).some((m) => m.id === id)).toBe(true), { timeout: 5000 })

    const h2 = await t.h.restart()
    cleanup(() => h2.close())
    await vi.waitFor(() => expect(h2.core.instances.get(t.inst._id).settings.status).toBe('CONNECTED'), { timeout: 5000 })
    const media = await h2.call({ method: 'GET', url: `/chatapp/messages/${id}/media?${t.qs}` })
    expect(media.statusCode, media.body).toBe(200)
    expect(media.rawPayload).toEqual(picture)
  })

  it("a contact's status post is not a message: not logged, no webhook, no bot answer", async () => {
    const t = await linked()
    const rx = await startReceiver()
    cleanup(() => rx.stop())
    await t.h.call({ method: 'PUT', url: `/chatapp/setWebhook?${t.qs}`, payload: { ...t.creds, webhook_url: `${rx.url}/hook`, events: ['onMessage', 'onAnyMessage'] } })
    await t.h.call({ method: 'PUT', url: `/chatapp/updateActions?${t.qs}`, payload: { ...t.creds, send_webhook: true } })
    const ana = t.server.contact('15551234567', 'Ana')
    const status = await ana.postStatus('Out for lunch 🍕')
    await vi.waitFor(() => expect(t.server.acknowledged(status)).toBe(true), { timeout: 5000 })
    // A plain ack, not the NACK rc14 gives a message from a JID in shouldIgnoreJid (error 500).
    expect(t.server.nackOf(status)).toBeNull()
    // A real message after it: the app handles messages in order, so once "hi" is in, the status was handled.
    await ana.sendText('hi')
    await vi.waitFor(async () => expect((await logOf(t.h, t)).some((m) => m.text === 'hi')).toBe(true), { timeout: 5000 })
    await vi.waitFor(() => expect(rx.requests.length).toBeGreaterThanOrEqual(1))
    expect((await logOf(t.h, t)).map((m) => m.text)).not.toContain('Out for lunch 🍕')
    expect(rx.requests.map((r) => r.json.data.text)).not.toContain('Out for lunch 🍕')
    expect(ana.received().length).toBeLessThanOrEqual(1) // at most the default message for "hi"
  })

  it('a number that is not on WhatsApp is answered 400 naming chatId, before any encryption is tried', async () => {
    const t = await linked()
    const res = await send(t.h, t, '+1 555 000 0000', 'Hello?')
    expect(res.statusCode).toBe(400)
    expect(res.json).toMatchObject({ status: false, error: { code: 'VALIDATION_ERROR', details: [{ field: 'chatId' }] } })
    expect(res.json.message).toBe('Invalid request: chatId names a number that is not on WhatsApp (15550000000)')
    expect((await logOf(t.h, t)).length).toBe(0)
  })

  it('an undecryptable message is logged as a placeholder, then replaced by the real one after the retry; the bot answers once', async () => {
    const t = await linked()
    await t.h.call({ method: 'POST', url: '/intent', payload: { ...t.creds, title: 'Menu', keyword: 'menu', reply: 'Here is our menu' } })
    const ana = t.server.contact('15551234567', 'Ana')
    await ana.sendText('hello')
    await vi.waitFor(async () => expect((await logOf(t.h, t)).some((m) => m.text === 'hello')).toBe(true), { timeout: 5000 })
    const seen: Array<[string, string]> = []
    t.h.core.events.on('message', (e) => seen.push([e.message.id, e.message.type]))
    const id = await ana.sendUndecryptable('menu please')
    await vi.waitFor(async () => expect((await logOf(t.h, t)).find((m) => m.id === id)).toMatchObject({ text: 'menu please', type: 'text', status: 'RECEIVED' }), { timeout: 8000 })
    expect(ana.receivedReceipts().filter((r) => r.id === id && r.type === 'retry').length).toBeGreaterThanOrEqual(1)
    await vi.waitFor(() => expect(ana.received().filter((x) => x === 'Here is our menu')).toHaveLength(1), { timeout: 5000 })
    expect((await logOf(t.h, t)).filter((m) => m.id === id)).toHaveLength(1)
    // The placeholder was in the log (and on the UI's event stream) until the real message replaced it.
    expect(seen.filter(([mid]) => mid === id).map(([, type]) => type)).toEqual(['undecryptable', 'text'])
  })
})

describe('the offline backlog', () => {
  it('messages sent while the app was down arrive after login as backlog: logged in order, unanswered with reply_unread_msgs off, a live one after is answered', async () => {
    const t = await linked()
    await t.h.call({ method: 'POST', url: '/intent', payload: { ...t.creds, title: 'Hi', keyword: 'hi', reply: 'Hello!' } })
    await t.h.call({ method: 'PUT', url: `/chatapp/updateActions?${t.qs}`, payload: { ...t.creds, reply_unread_msgs: false } })
    const ana = t.server.contact('15551234567', 'Ana')
    await ana.sendText('first')
    await vi.waitFor(async () => expect((await logOf(t.h, t)).some((m) => m.text === 'first')).toBe(true), { timeout: 5000 })

    await t.h.close(true)
    await vi.waitFor(() => expect(t.server.phone.online).toBe(false))
    await ana.sendText('hi')
    await ana.sendText('are you there?')
    const h2 = await t.h.reopen()
    cleanup(() => h2.close())
    await vi.waitFor(async () => expect((await logOf(h2, t)).filter((m) => !m.fromMe).map((m) => m.text)).toEqual(['first', 'hi', 'are you there?']), { timeout: 8000 })
    expect(ana.received()).not.toContain('Hello!')

    await ana.sendText('hi')
    await vi.waitFor(() => expect(ana.received()).toContain('Hello!'), { timeout: 5000 })
  })

  it('a status the app cannot decrypt, posted while it was away, does not hold back the backlog: every customer message arrives (Baileys PR #2779)', async () => {
    const t = await linked()
    const ana = t.server.contact('15551234567', 'Ana')
    const ben = t.server.contact('15557654321', 'Ben')
    await ana.sendText('first')
    await vi.waitFor(async () => expect((await logOf(t.h, t)).some((m) => m.text === 'first')).toBe(true), { timeout: 5000 })

    await t.h.close(true)
    await vi.waitFor(() => expect(t.server.phone.online).toBe(false))
    // A night offline: a contact's status whose sender key the device never got, then customers write.
    const status = await ben.postStatus('Gone fishing', undefined, { undecryptable: true })
    await ana.sendText('is the shop open?')
    await ben.sendText('I need a refund')
    const h2 = await t.h.reopen()
    cleanup(() => h2.close())
    await vi.waitFor(
      async () => expect((await logOf(h2, t)).filter((m) => !m.fromMe).map((m) => m.text).sort()).toEqual(['I need a refund', 'first', 'is the shop open?']),
      { timeout: 10_000 }
    )
    // The status was answered with a plain ack, so the server dropped it from the queue.
    expect(t.server.acknowledged(status)).toBe(true)
    expect(t.server.nackOf(status)).toBeNull()
    expect((await logOf(h2, t)).map((m) => m.text)).not.toContain('Gone fishing')
  })
})
