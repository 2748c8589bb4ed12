/**
 * WhatsApp usernames (docs/baileys.md "Usernames", Baileys #2742): a customer with a username who
 * hides the number writes by LID only (`from=<lid>@lid`, no `sender_pn`). The app keeps the chat under
 * the LID, asks WhatsApp for the username (USync `username` protocol, lib/WAUSync), shows "@name",
 * answers like anyone, carries `username` in webhooks, and sends to "@name" by looking the LID up
 * (`<contact username>`). Their contact is keyed by the LID and shown by the username; the opt-out
 * words, surveys and the hand-off work for them as for numbers, and their data is exported and erased
 * by the LID or by "@name".
 */
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest'
import { linkByQr, startWaInstance, waTestFile, type WaInstance } from '../helpers/wa-instance'
import { startReceiver } from '../helpers/webhook-receiver'
import type { ChatPause, Contact, LoggedMessage } from '../../src/shared/schemas/records'

afterAll(waTestFile())

const WAIT = { timeout: 5000 }
const cleanup: Array<() => Promise<void>> = []
afterEach(async () => {
  for (const fn of cleanup.splice(0).reverse()) await fn().catch(() => {})
})

async function call(t: WaInstance, method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, payload?: object) {
  const res = await t.h.call({ method, url: `${url}${url.includes('?') ? '&' : '?'}${t.qs}`, ...(payload ? { payload: { ...t.creds, ...payload } } : {}) })
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

  it('the opt-out word from a customer known only by username is honoured, by the bot and by broadcasts to the LID', async () => {
    const t = await linked()
    const lu = t.server.contact('15557770001', 'Lu')
    lu.addressing = 'lid-only'
    lu.username = 'lu.bakes'
    await lu.sendText('STOP')
    await vi.waitFor(() => expect(lu.received()).toEqual(['You will get no more messages from us. Write START to hear from us again.']), WAIT)
    const entry = ((await call(t, 'GET', '/chatapp/messages')) as LoggedMessage[]).find((m) => m.text === 'STOP')
    expect(entry).toMatchObject({ username: 'lu.bakes', bot: { action: 'opt_out' } })
    // The opt-out is on the contact the LID keys (not on a "number" made of the LID's digits).
    const contacts = (await call(t, 'GET', '/contact')) as Contact[]
    expect(contacts.map((c) => [c.number, c.username, c.opted_out])).toEqual([[lu.lid, 'lu.bakes', true]])
    const b = await call(t, 'POST', '/broadcast', { send_type: 'individual', to: lu.lid, message: { text: 'Fresh croissants today!' } })
    expect(b.skipped).toEqual([{ number: lu.lid, reason: 'opted out (wrote the opt-out word)' }])
  })

  it('a customer known only by username is a contact keyed by the LID, shown by the username', async () => {
    const t = await linked()
    const lu = t.server.contact('15557770001', 'Lu')
    lu.addressing = 'lid-only'
    lu.username = 'lu.bakes'
    await lu.sendText('are you open today?')
    await vi.waitFor(() => expect(lu.received()).toEqual(['We are open 12–23.']), WAIT)
    const contacts = (await call(t, 'GET', '/contact')) as Contact[]
    expect(contacts).toEqual([expect.objectContaining({ name: 'Lu', number: lu.lid, username: 'lu.bakes', opted_out: false, last_seen_at: expect.any(String) })])
    // Labels from the inbox go on that contact.
    await call(t, 'PUT', '/chatapp/inbox/labels', { chatId: lu.lid, labels: ['bakery'] })
    expect(((await call(t, 'GET', '/contact')) as Contact[]).map((c) => [c.number, c.labels])).toEqual([[lu.lid, ['bakery']]])
  })

  it('surveys and the hand-off work for a customer known only by username; their data is exported and erased by "@name" and by the LID', async () => {
    const t = await linked()
    await call(t, 'PUT', '/chatapp/handoff/settings', { keyword: 'person' })
    for (const step of [
      { title: 'Order', keyword: 'order', reply: 'How many loaves?', sort_id: 1 },
      { title: 'Order', keyword: '', reply: 'Thanks, noted.', sort_id: 2 }
    ]) {
      const res = await t.h.call({ method: 'POST', url: '/survey', payload: { ...t.creds, ...step } })
      expect(res.statusCode, res.body).toBe(200)
    }
    const lu = t.server.contact('15557770001', 'Lu')
    lu.addressing = 'lid-only'
    lu.username = 'lu.bakes'
    const ann = t.server.contact('15557770002', 'Ann')

    await lu.sendText('order')
    await vi.waitFor(() => expect(lu.received()).toEqual(['How many loaves?']), WAIT)
    await lu.sendText('three')
    await vi.waitFor(() => expect(lu.received()).toEqual(['How many loaves?', 'Thanks, noted.']), WAIT)
    await lu.sendText('can I talk to a person')
    await vi.waitFor(async () => expect((await call(t, 'GET', '/chatapp/handoff')) as ChatPause[]).toEqual([expect.objectContaining({ chatId: lu.lid, reason: 'keyword' })]), WAIT)
    // Paused: her next question is logged, not answered (the log entry says why).
    await lu.sendText('are you open today?')
    await vi.waitFor(async () => {
      const log = (await call(t, 'GET', '/chatapp/messages')) as LoggedMessage[]
      expect(log.find((m) => m.text === 'are you open today?')?.bot).toEqual({ action: 'none', reason: 'paused' })
    }, WAIT)
    await ann.sendText('are you open today?')
    await vi.waitFor(() => expect(ann.received()).toEqual(['We are open 12–23.']), WAIT)

    const byName = await call(t, 'GET', '/chatapp/customer/export?number=%40Lu.Bakes')
    expect(byName).toMatchObject({ number: lu.lid, username: 'lu.bakes', contact: expect.objectContaining({ number: lu.lid, username: 'lu.bakes' }) })
    expect(byName.messages.filter((m: LoggedMessage) => !m.fromMe).map((m: LoggedMessage) => m.text)).toEqual(['order', 'three', 'can I talk to a person', 'are you open today?'])
    expect(byName.survey_runs).toEqual([expect.objectContaining({ chatId: lu.lid, contactId: lu.lid, answers: [expect.objectContaining({ question: 'How many loaves?', answer: 'three' })] })])
    const byLid = await call(t, 'GET', `/chatapp/customer/export?number=${encodeURIComponent(lu.lid)}`)
    expect(byLid.messages.map((m: LoggedMessage) => m.id)).toEqual(byName.messages.map((m: LoggedMessage) => m.id))
    const unknown = await t.h.call({ method: 'GET', url: `/chatapp/customer/export?${t.qs}&number=%40nobody.here` })
    expect(unknown.statusCode, unknown.body).toBe(404)

    const erased = await call(t, 'DELETE', '/chatapp/customer?number=%40lu.bakes')
    expect(erased).toMatchObject({ number: lu.lid, username: 'lu.bakes', deleted: { messages: byName.messages.length, conversations: 1, survey_runs: 1, contacts: 1 } })
    expect(((await call(t, 'GET', '/chatapp/inbox')) as Array<{ chatId: string }>).map((c) => c.chatId)).toEqual([ann.jid])
    expect(((await call(t, 'GET', '/contact')) as Contact[]).map((c) => c.name)).toEqual(['Ann'])
    expect((await call(t, 'GET', '/chatapp/handoff')) as ChatPause[]).toEqual([])
    // Her LID again: nothing is left (the username is gone with her chat).
    const again = await call(t, 'DELETE', `/chatapp/customer?number=${encodeURIComponent(lu.lid)}`)
    expect(again.deleted).toMatchObject({ messages: 0, conversations: 0, contacts: 0 })
  })
})
