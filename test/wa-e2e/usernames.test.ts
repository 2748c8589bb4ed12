/**
 * WhatsApp usernames (docs/baileys.md "Usernames", Baileys #2742): a customer with a username who
 * hides the number writes by LID only (`from=<lid>@lid`, no `sender_pn`). The app keeps the chat under
 * the LID, asks WhatsApp for the username (USync `username` protocol, lib/WAUSync), shows "@name",
 * answers like anyone, carries `username` in webhooks, and sends to "@name" by looking the LID up
 * (`<contact username>`). The opt-out words work for such a customer too.
 */
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest'
import { linkByQr, startWaInstance, waTestFile, type WaInstance } from '../helpers/wa-instance'
import { startReceiver } from '../helpers/webhook-receiver'
import type { LoggedMessage } from '../../src/shared/schemas/records'

afterAll(waTestFile())

const WAIT = { timeout: 5000 }
const cleanup: Array<() => Promise<void>> = []
afterEach(async () => {
  for (const fn of cleanup.splice(0).reverse()) await fn().catch(() => {})
})

async function call(t: WaInstance, method: 'GET' | 'POST' | 'PUT', url: string, payload?: object) {
  const res = await t.h.call({ method, url: `${url}?${t.qs}`, ...(payload ? { payload: { ...t.creds, ...payload } } : {}) })
  expect(res.statusCode, res.body).toBe(200)
  return res.json.data
}

async function linked(): Promise<WaInstance> {
  const t = await startWaInstance()
  cleanup.push(() => t.close())
  await linkByQr(t)
  await call(t, 'PUT', '/chatapp/updateActions', { send_default_msg: false })
  const intent = await t.h.call({ method: 'POST', url: '/intent', payload: { ...t.creds, title: 'Hours', keyword: 'open', reply: 'We are open 12–23.' } })
  expect(intent.statusCode, intent.body).toBe(200)
  return t
}

describe('usernames', () => {
  it('a customer who hides the number behind a username is answered, shown as @name, and webhooks carry the username', async () => {
    const t = await linked()
    const rx = await startReceiver()
    cleanup.push(() => rx.stop())
    await call(t, 'PUT', '/chatapp/setWebhook', { webhook_url: `${rx.url}/hook`, events: ['onMessage'] })
    await call(t, 'PUT', '/chatapp/updateActions', { send_webhook: true })
    const lu = t.server.contact('15557770001', 'Lu')
    lu.addressing = 'lid-only'
    lu.username = 'lu.bakes'

    await lu.sendText('are you open today?')
    await vi.waitFor(() => expect(lu.received()).toEqual(['We are open 12–23.']), WAIT)
    const log = (await call(t, 'GET', '/chatapp/messages')) as LoggedMessage[]
    expect(log.find((m) => !m.fromMe)).toMatchObject({ chatId: lu.lid, username: 'lu.bakes', text: 'are you open today?' })
    expect(log.find((m) => !m.fromMe)!.senderPn).toBeUndefined()
    const inbox = await call(t, 'GET', '/chatapp/inbox')
    expect(inbox).toEqual([expect.objectContaining({ chatId: lu.lid, username: 'lu.bakes', phone: null })])
    await vi.waitFor(() => expect(rx.requests.map((r) => r.json.data)).toEqual([expect.objectContaining({ chatId: lu.lid, username: 'lu.bakes' })]), WAIT)
  })

  it('a message to "@name" goes to the LID WhatsApp gives for the username; an unknown one is a 400', async () => {
    const t = await linked()
    const lu = t.server.contact('15557770001', 'Lu')
    lu.addressing = 'lid-only'
    lu.username = 'lu.bakes'

    const sent = await call(t, 'POST', '/chatapp/message', { chatId: '@Lu.Bakes', message: 'Your bread is ready' })
    expect(sent.message.key.remoteJid).toBe(lu.lid)
    await vi.waitFor(() => expect(lu.received()).toEqual(['Your bread is ready']), WAIT)
    const unknown = await t.h.call({ method: 'POST', url: `/chatapp/message?${t.qs}`, payload: { ...t.creds, chatId: '@nobody.here', message: 'hi' } })
    expect(unknown.statusCode).toBe(400)
    expect(unknown.json.error.details).toEqual([expect.objectContaining({ field: 'chatId', problem: expect.stringContaining('@nobody.here') })])
  })

  it('the opt-out word from a customer known only by username is honoured', async () => {
    const t = await linked()
    const lu = t.server.contact('15557770001', 'Lu')
    lu.addressing = 'lid-only'
    lu.username = 'lu.bakes'
    await lu.sendText('STOP')
    await vi.waitFor(() => expect(lu.received()).toEqual(['You will get no more messages from us. Write START to hear from us again.']), WAIT)
    const entry = ((await call(t, 'GET', '/chatapp/messages')) as LoggedMessage[]).find((m) => m.text === 'STOP')
    expect(entry).toMatchObject({ username: 'lu.bakes', bot: { action: 'opt_out' } })
  })
})
