/**
 * The sandbox acknowledges sends as WhatsApp does (docs/design.md §6): SERVER_ACK, then DELIVERY_ACK,
 * then READ when the simulated customer reads (their next message, or POST /chatapp/sandbox/read);
 * `failSends` makes the simulated server refuse a number's sends (ERROR 463), on purpose. Each step
 * reaches the message log, the `status` events and the `onMessageStatus` webhook.
 */
import { afterEach, beforeEach, expect, it } from 'vitest'
import { makeHarness, type Harness } from '../helpers/harness'
import { startReceiver, type Receiver } from '../helpers/webhook-receiver'

let h: Harness
let rx: Receiver
beforeEach(async () => {
  h = await makeHarness()
  rx = await startReceiver()
})
afterEach(async () => {
  await h.close()
  await rx.stop()
})

const CUSTOMER = '15550102000'

it('a send moves PENDING → SERVER_ACK → DELIVERY_ACK, and READ when the customer writes back', async () => {
  const { qs, creds } = await h.connectedInstance()
  const api = h.instanceApi(qs)
  await api('PUT', '/chatapp/setWebhook', { ...creds, webhook_url: rx.url, events: ['onMessageStatus'] })
  await api('PUT', '/chatapp/updateActions', { send_webhook: true, send_default_msg: false })
  const seen: string[] = []
  h.core.events.on('status', (e) => seen.push(`${e.message.id}:${e.message.status}`))

  const sent = (await api('POST', '/chatapp/message', { chatId: CUSTOMER, message: 'Your pizza is on its way' })).data.message
  expect(sent.status).toBe('PENDING')
  const id: string = sent.key.id
  const logged = async () => ((await api('GET', `/chatapp/messages?chatId=${CUSTOMER}`)).data as Array<{ id: string; status: string }>).find((m) => m.id === id)?.status
  await expect.poll(logged).toBe('DELIVERY_ACK')
  expect(seen).toEqual([`${id}:SERVER_ACK`, `${id}:DELIVERY_ACK`])

  await api('POST', '/chatapp/sandbox/inbound', { chatId: CUSTOMER, message: 'thanks!' })
  await expect.poll(logged).toBe('READ')
  expect(seen).toEqual([`${id}:SERVER_ACK`, `${id}:DELIVERY_ACK`, `${id}:READ`])
  await expect.poll(() => rx.requests.filter((r) => r.json.event === 'onMessageStatus' && r.json.data.id === id).map((r) => r.json.data.status)).toEqual(['SERVER_ACK', 'DELIVERY_ACK', 'READ'])
})

it('POST /chatapp/sandbox/read: the customer opens the chat; only that chat is read', async () => {
  const { qs } = await h.connectedInstance()
  const api = h.instanceApi(qs)
  const a = (await api('POST', '/chatapp/message', { chatId: CUSTOMER, message: 'one' })).data.message.key.id as string
  const b = (await api('POST', '/chatapp/message', { chatId: CUSTOMER, message: 'two' })).data.message.key.id as string
  const other = (await api('POST', '/chatapp/message', { chatId: '15550103000', message: 'elsewhere' })).data.message.key.id as string
  const statusOf = async (id: string) => ((await api('GET', '/chatapp/messages?type=all&limit=50')).data as Array<{ id: string; status: string }>).find((m) => m.id === id)?.status
  const read = await api('POST', '/chatapp/sandbox/read', { chatId: `+1 555 010 2000` })
  expect(read).toMatchObject({ status: true, message: 'Chat read by the customer.', data: { read: 2 } })
  await expect.poll(() => statusOf(a)).toBe('READ')
  await expect.poll(() => statusOf(b)).toBe('READ')
  await expect.poll(() => statusOf(other)).toBe('DELIVERY_ACK')
  // Read already: nothing more to read.
  expect((await api('POST', '/chatapp/sandbox/read', { chatId: CUSTOMER })).data.read).toBe(0)
})

it('failSends makes a number’s sends fail on purpose (ERROR 463); [] lets them through again', async () => {
  const { qs } = await h.connectedInstance()
  const api = h.instanceApi(qs)
  await api('POST', '/chatapp/sandbox/network', { failSends: ['+1 555 010 2000'] })
  const refused = (await api('POST', '/chatapp/message', { chatId: CUSTOMER, message: 'will not arrive' })).data.message.key.id as string
  const log = async () => (await api('GET', `/chatapp/messages?chatId=${CUSTOMER}`)).data as Array<{ id: string; status: string; error_code?: string }>
  await expect.poll(async () => (await log()).find((m) => m.id === refused)).toMatchObject({ status: 'ERROR', error_code: '463' })
  await api('POST', '/chatapp/sandbox/network', { failSends: [] })
  const ok = (await api('POST', '/chatapp/message', { chatId: CUSTOMER, message: 'this one arrives' })).data.message.key.id as string
  await expect.poll(async () => (await log()).find((m) => m.id === ok)?.status).toBe('DELIVERY_ACK')
  // A refused message stays refused when the customer reads the chat.
  await api('POST', '/chatapp/sandbox/read', { chatId: CUSTOMER })
  await expect.poll(async () => (await log()).find((m) => m.id === ok)?.status).toBe('READ')
  expect((await log()).find((m) => m.id === refused)).toMatchObject({ status: 'ERROR', error_code: '463' })
})

it('a stopped or real-channel instance is refused with 409', async () => {
  const inst = await h.createInstance('sandbox')
  const qs = `session_id=${inst.session_id}&access_token=${inst.settings.access_token}`
  const res = await h.call({ method: 'POST', url: `/chatapp/sandbox/read?${qs}`, payload: { chatId: CUSTOMER } })
  expect(res.statusCode).toBe(409)
  expect(res.json.message).toMatch(/not started/)
})
