/**
 * Delivery truth, end to end: what the server and the recipient's phone report about a sent message
 * reaches the message log (`GET /chatapp/messages`), an `onMessageStatus` webhook and the UI
 * (docs/design.md §13, docs/baileys.md "Delivery status"): a refusal (`<ack error="463">`) turns the
 * message ERROR with its code within seconds; a delivered one goes DELIVERY_ACK then READ; a voice
 * note PLAYED.
 */
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest'
import { linkByQr, startWaInstance, waTestFile, type WaInstance } from '../helpers/wa-instance'
import { startReceiver, type Receiver } from '../helpers/webhook-receiver'
import { multipart, oggOpus } from '../helpers/fixtures'

afterAll(waTestFile())

const cleanup: Array<() => Promise<void>> = []
afterEach(async () => {
  for (const fn of cleanup.splice(0).reverse()) await fn().catch(() => {})
})

/** A linked instance whose onMessageStatus webhooks go to a local receiver. */
async function setup(): Promise<{ t: WaInstance; rx: Receiver }> {
  const t = await startWaInstance()
  cleanup.push(() => t.close())
  const rx = await startReceiver()
  cleanup.push(() => rx.stop())
  await linkByQr(t)
  const hook = await t.h.call({ method: 'PUT', url: `/chatapp/setWebhook?${t.qs}`, payload: { ...t.creds, webhook_url: `${rx.url}/hook`, events: ['onMessageStatus'] } })
  expect(hook.statusCode, hook.body).toBe(200)
  await t.h.call({ method: 'PUT', url: `/chatapp/updateActions?${t.qs}`, payload: { ...t.creds, send_webhook: true } })
  return { t, rx }
}

const sendText = (t: WaInstance, chatId: string, message: string) => t.h.call({ method: 'POST', url: `/chatapp/message?${t.qs}`, payload: { ...t.creds, chatId, message } })

async function logged(t: WaInstance, id: string) {
  const list = await t.h.call({ method: 'GET', url: `/chatapp/messages?${t.qs}` })
  return (list.json.data as Array<{ id: string; status: string; error_code?: string }>).find((m) => m.id === id)
}

const statusHooks = (rx: Receiver, id: string) => rx.requests.filter((r) => r.json.event === 'onMessageStatus' && r.json.data.id === id).map((r) => r.json.data.status)

describe('delivery status of sent messages', () => {
  it('a send the server refuses (error 463) turns ERROR with its code, with an onMessageStatus webhook', async () => {
    const { t, rx } = await setup()
    const bob = t.server.contact('15557654321', 'Bob')
    bob.ackError = 463
    const res = await sendText(t, '15557654321', 'Hello Bob')
    expect(res.statusCode, res.body).toBe(200)
    const id = res.json.data.message.key.id as string
    await vi.waitFor(async () => expect(await logged(t, id)).toMatchObject({ status: 'ERROR', error_code: '463' }), { timeout: 3000 })
    await vi.waitFor(() => expect(statusHooks(rx, id)).toEqual(['ERROR']))
    const hook = rx.requests.find((r) => r.json.event === 'onMessageStatus')!
    expect(hook.json.data).toMatchObject({ id, chatId: '15557654321@s.whatsapp.net', fromMe: true, status: 'ERROR', error_code: '463', text: 'Hello Bob' })
    expect(bob.received()).toEqual([])
  })

  it('a delivered message goes DELIVERY_ACK, then READ when the contact reads it, each with a webhook', async () => {
    const { t, rx } = await setup()
    const ana = t.server.contact('15551234567', 'Ana')
    const res = await sendText(t, '15551234567', 'Your order is ready')
    const id = res.json.data.message.key.id as string
    await vi.waitFor(async () => expect((await logged(t, id))?.status).toBe('DELIVERY_ACK'), { timeout: 3000 })
    expect(ana.read()).toBe(1)
    await vi.waitFor(async () => expect((await logged(t, id))?.status).toBe('READ'), { timeout: 3000 })
    await vi.waitFor(() => expect(statusHooks(rx, id)).toEqual(expect.arrayContaining(['DELIVERY_ACK', 'READ'])))
    // Forward only: the order of the webhooks follows the message's progress.
    const seen = statusHooks(rx, id)
    expect(seen.indexOf('DELIVERY_ACK')).toBeLessThan(seen.indexOf('READ'))
    expect(seen.filter((s) => s === 'READ')).toHaveLength(1)
  })

  it('a voice note the contact plays is PLAYED', async () => {
    const { t } = await setup()
    const ana = t.server.contact('15551234567', 'Ana')
    const body = multipart({ ...t.creds, chatId: '15551234567', ptt: 'true' }, { filename: 'note.ogg', contentType: 'audio/ogg', data: oggOpus() })
    const res = await t.h.call({ method: 'POST', url: `/chatapp/message/audio?${t.qs}`, payload: body.payload, headers: body.headers })
    expect(res.statusCode, res.body).toBe(200)
    const id = res.json.data.key.id as string
    await vi.waitFor(() => expect(ana.messages().map((m) => m.id)).toContain(id), { timeout: 5000 })
    expect(ana.played([id])).toBe(1)
    await vi.waitFor(async () => expect((await logged(t, id))?.status).toBe('PLAYED'), { timeout: 3000 })
  })
})
