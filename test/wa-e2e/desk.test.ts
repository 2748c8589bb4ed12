/**
 * The desk on the real channel (docs/design.md §15): a message the owner types on the phone reaches
 * the app as the phone's own-device copy (`deviceSentMessage` from the account's JID with `recipient`,
 * lib/Utils/decode-wa-message.js decodeMessageNode) and pauses the bot for that chat; marking a chat
 * read in the inbox sends read receipts the contact sees (`readMessages` → `<receipt type="read">`,
 * lib/Socket/messages-send.js, when the account's privacy setting `readreceipts` is `all`).
 */
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest'
import { linkByQr, startWaInstance, waTestFile, type WaInstance, type WaInstanceOptions } from '../helpers/wa-instance'
import type { ChatPause, LoggedMessage } from '../../src/shared/schemas/records'

afterAll(waTestFile())

const WAIT = { timeout: 5000 }
const cleanup: Array<() => Promise<void>> = []
afterEach(async () => {
  for (const fn of cleanup.splice(0).reverse()) await fn().catch(() => {})
})

async function linked(behaviour?: WaInstanceOptions['behaviour']): Promise<WaInstance> {
  const t = await startWaInstance({ behaviour })
  cleanup.push(() => t.close())
  await linkByQr(t)
  return t
}

async function call(t: WaInstance, method: 'GET' | 'POST' | 'PUT', url: string, payload?: object) {
  const res = await t.h.call({ method, url: `${url}?${t.qs}`, ...(payload ? { payload: { ...t.creds, ...payload } } : {}) })
  expect(res.statusCode, res.body).toBe(200)
  return res.json.data
}

const log = async (t: WaInstance): Promise<LoggedMessage[]> => call(t, 'GET', '/chatapp/messages')

describe('the desk on the real channel', () => {
  it('a message the owner types on the phone is logged as the phone’s and pauses the bot for that chat', async () => {
    const t = await linked()
    await call(t, 'PUT', '/chatapp/updateActions', { send_default_msg: false })
    const intent = await t.h.call({ method: 'POST', url: '/intent', payload: { ...t.creds, title: 'Hours', keyword: 'open', reply: 'We are open 12–23.' } })
    expect(intent.statusCode, intent.body).toBe(200)
    const ana = t.server.contact('15551234567', 'Ana')
    await ana.sendText('are you open?')
    await vi.waitFor(() => expect(ana.received()).toEqual(['We are open 12–23.']), WAIT)

    const id = await t.server.phone.typeTo(ana.jid, 'Ana, Marco here: I will call you.')
    await vi.waitFor(async () => expect((await log(t)).find((m) => m.id === id)).toMatchObject({ chatId: ana.jid, fromMe: true, source: 'phone', text: 'Ana, Marco here: I will call you.' }), WAIT)
    const pauses = (await call(t, 'GET', '/chatapp/handoff')) as ChatPause[]
    expect(pauses).toEqual([expect.objectContaining({ chatId: ana.jid, by: 'phone', reason: 'human_reply' })])

    const asked = await ana.sendText('open tomorrow?')
    await vi.waitFor(async () => expect((await log(t)).find((m) => m.id === asked)?.bot).toEqual({ action: 'none', reason: 'paused' }), WAIT)
    expect(ana.received()).toEqual(['We are open 12–23.'])
  })

  it('marking a chat read sends read receipts the contact sees, once per message', async () => {
    const t = await linked()
    await call(t, 'PUT', '/chatapp/updateActions', { send_default_msg: false })
    const ana = t.server.contact('15551234567', 'Ana')
    const first = await ana.sendText('hello')
    const second = await ana.sendText('anyone there?')
    await vi.waitFor(async () => expect((await call(t, 'GET', '/chatapp/inbox'))[0]).toMatchObject({ chatId: ana.jid, unread: 2 }), WAIT)

    expect(await call(t, 'POST', '/chatapp/inbox/read', { chatId: ana.jid })).toEqual({ chatId: ana.jid, read: 2, receipts: true })
    const reads = () => ana.receivedReceipts().filter((r) => r.type === 'read')
    await vi.waitFor(() => expect(reads().map((r) => r.id).sort()).toEqual([first, second].sort()), WAIT)
    expect(await call(t, 'POST', '/chatapp/inbox/read', { chatId: ana.jid })).toMatchObject({ read: 0 })
    expect((await call(t, 'GET', '/chatapp/inbox'))[0].unread).toBe(0)
    expect(reads()).toHaveLength(2)
  })

  it('an account that hides read receipts marks the chat read for its own devices only', async () => {
    const t = await linked({ readReceipts: 'none' })
    const ana = t.server.contact('15551234567', 'Ana')
    await call(t, 'PUT', '/chatapp/updateActions', { send_default_msg: false })
    await ana.sendText('hello')
    await vi.waitFor(async () => expect((await call(t, 'GET', '/chatapp/inbox'))[0]?.unread).toBe(1), WAIT)
    expect(await call(t, 'POST', '/chatapp/inbox/read', { chatId: ana.jid })).toMatchObject({ read: 1, receipts: true })
    await vi.waitFor(() => expect(t.server.phone.ownReceipts().map((r) => r.type)).toEqual(['read-self']), WAIT)
    expect(ana.receivedReceipts().filter((r) => r.type.startsWith('read'))).toEqual([])
  })
})
