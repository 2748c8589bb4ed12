/**
 * Older messages from the phone on demand (WAHA #1544): `POST
 * /chatapp/messages/fetch-history` asks the phone, through Baileys' `fetchMessageHistory` (a peer
 * data operation HISTORY_SYNC_ON_DEMAND to the account's own phone, lib/Socket/messages-recv.js),
 * for the messages of a chat older than the oldest the app holds; the phone answers with an ON_DEMAND
 * history sync (`messaging-history.set`), which the app stores once: what the log already has (live
 * messages, an earlier history sync, an earlier fetch) is not stored again. Against the protocol test
 * server's fake phone (test/support/wa-server/history.ts), which holds a chat history set here.
 */
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest'
import { linkByQr, startWaInstance, waTestFile, type WaInstance, type WaInstanceOptions } from '../helpers/wa-instance'
import type { LoggedMessage } from '../../src/shared/schemas/records'
import type { CoreEvents } from '../../src/main/events'

afterAll(waTestFile())

const WAIT = { timeout: 10_000, interval: 50 }
const cleanup: Array<() => Promise<void>> = []
afterEach(async () => {
  for (const fn of cleanup.splice(0).reverse()) await fn().catch(() => {})
})

async function linked(opts: WaInstanceOptions = {}): Promise<WaInstance> {
  const t = await startWaInstance(opts)
  cleanup.push(() => t.close())
  await linkByQr(t)
  await post(t, '/chatapp/updateActions', { send_default_msg: false, reply_msgs: false }, 'PUT')
  return t
}

async function post(t: WaInstance, url: string, payload: object, method: 'POST' | 'PUT' = 'POST') {
  return t.h.call({ method, url: `${url}?${t.qs}`, payload: { ...t.creds, ...payload } })
}

async function chatLog(t: WaInstance, chatId: string): Promise<LoggedMessage[]> {
  const res = await t.h.call({ method: 'GET', url: `/chatapp/messages?${t.qs}&chatId=${encodeURIComponent(chatId)}&limit=1000` })
  expect(res.statusCode, res.body).toBe(200)
  return res.json.data
}

/** The history batches the app stored (the core's `history` event), as they come. */
function historyEvents(t: WaInstance): Array<CoreEvents['history']> {
  const seen: Array<CoreEvents['history']> = []
  cleanup.push(async () => off())
  const off = t.h.core.events.on('history', (e) => seen.push(e))
  return seen
}

const MINUTE = 60_000

describe('older messages from the phone on demand', { timeout: 60_000 }, () => {
  it('stores what the phone answers once: a fetch, the same fetch twice at once, and a history sync overlapping them', async () => {
    const t = await linked()
    const events = historyEvents(t)
    const ana = t.server.contact('15551234567', 'Ana')
    const live = await ana.sendText('Hi, is my order ready?')
    await vi.waitFor(async () => expect((await chatLog(t, ana.jid)).map((m) => m.id)).toEqual([live]), WAIT)

    // The phone holds 60 older messages of the chat (every other one the owner's), and the live one.
    const now = Date.now()
    const old = t.server.phone.holdHistory(
      ana.jid,
      Array.from({ length: 60 }, (_, i) => ({ fromMe: i % 2 === 1, text: `old ${i + 1}`, at: now - (61 - i) * MINUTE }))
    )
    t.server.phone.holdHistory(ana.jid, [{ id: live, fromMe: false, text: 'Hi, is my order ready?', at: now }])

    // An earlier history sync: the newest 5 (the live message and old 57–60).
    const synced = await t.server.phone.sendHistorySync({ perChat: 5 })
    expect(synced).toEqual([...old.slice(-4), live])
    // The live message was stored already: 4 of the 5 are new.
    await vi.waitFor(() => expect(events.map((e) => [e.received, e.added])).toEqual([[5, 4]]), WAIT)
    expect((await chatLog(t, ana.jid)).map((m) => m.id)).toEqual([...old.slice(-4), live])

    // A fetch of 10 anchors on the oldest held (old 57) and stores old 47–56.
    const first = await post(t, '/chatapp/messages/fetch-history', { chatId: '15551234567', count: 10 })
    expect(first.statusCode, first.body).toBe(200)
    expect(first.json.data).toMatchObject({ chatId: ana.jid, requested: 10, anchor_id: old[56], answered: true, received: 10, stored: 10 })
    const [request] = t.server.phone.historyRequests()
    expect(request).toMatchObject({ chatJid: ana.jid, oldestMsgId: old[56], oldestMsgFromMe: false, count: 10 })
    // Baileys names the anchor's time in milliseconds (historySyncOnDemandRequest.oldestMsgTimestampMs).
    expect(request!.oldestMsgTimestampMs).toBe(Math.floor((now - 5 * MINUTE) / 1000) * 1000)

    // The same fetch twice at once: both anchor on old 47 and the phone answers both with old 1–46.
    // The first answer stores them; rc14 itself drops the second's, whose keys this socket already
    // emitted in a history set (lib/Utils/event-buffer.js historyCache), so it holds none.
    const twice = await Promise.all([
      post(t, '/chatapp/messages/fetch-history', { chatId: ana.jid }),
      post(t, '/chatapp/messages/fetch-history', { chatId: ana.jid })
    ])
    for (const res of twice) expect(res.statusCode, res.body).toBe(200)
    expect(twice.map((r) => r.json.data.anchor_id)).toEqual([old[46], old[46]])
    const outcomes = twice.map((r) => [r.json.data.received, r.json.data.stored]).sort((a, b) => b[0] - a[0])
    expect(outcomes).toEqual([
      [46, 46],
      [0, 0]
    ])

    // After a reconnect (a new socket: the library's cache is gone) a history sync of everything the
    // phone holds overlaps all of it: the library hands over all 61, the app stores none again.
    t.server.disconnect()
    await vi.waitFor(() => expect(t.server.logins).toHaveLength(2), WAIT)
    await vi.waitFor(() => expect(t.record().settings.status).toBe('CONNECTED'), WAIT)
    const before = events.length
    await t.server.phone.sendHistorySync()
    await vi.waitFor(() => expect(events.length).toBe(before + 1), WAIT)
    expect(events.at(-1)).toMatchObject({ kind: 'recent', received: 61, added: 0 })

    const held = await chatLog(t, ana.jid)
    expect(held.map((m) => m.id)).toEqual([...old, live])
    expect(new Set(held.map((m) => m.id)).size).toBe(61)
    expect(held[0]).toMatchObject({ text: 'old 1', fromMe: false, source: 'inbound', pushName: 'Ana' })
    expect(held[1]).toMatchObject({ text: 'old 2', fromMe: true, source: 'phone' })
    // Old messages are not new to the desk: the chat's unread count is the live message only.
    const inbox = await t.h.call({ method: 'GET', url: `/chatapp/inbox?${t.qs}` })
    expect(inbox.json.data[0]).toMatchObject({ chatId: ana.jid, unread: 1 })
    // Nothing of the history reached the bot or the contact.
    expect(ana.received()).toEqual([])
  })

  it('answers that the phone did not answer within the wait, and stores its late answer', async () => {
    const t = await linked({ behaviour: { answerHistoryRequests: false }, channel: { historyWaitMs: 500 } })
    const events = historyEvents(t)
    const ana = t.server.contact('15551234567', 'Ana')
    const live = await ana.sendText('hello')
    await vi.waitFor(async () => expect(await chatLog(t, ana.jid)).toHaveLength(1), WAIT)
    t.server.phone.holdHistory(ana.jid, [{ fromMe: false, text: 'last week', at: Date.now() - 7 * 24 * 60 * MINUTE }])

    const res = await post(t, '/chatapp/messages/fetch-history', { chatId: ana.jid, count: 5 })
    expect(res.statusCode, res.body).toBe(200)
    expect(res.json.data).toMatchObject({ anchor_id: live, answered: false, received: 0, stored: 0 })
    expect(t.server.phone.historyRequests()).toHaveLength(1)
    expect(events).toEqual([])

    // The phone answers after all: stored then, announced like any history.
    expect(await t.server.phone.answerHistoryRequests()).toBe(1)
    await vi.waitFor(() => expect(events).toEqual([expect.objectContaining({ kind: 'on_demand', requestId: res.json.data.request_id, received: 1, added: 1 })]), WAIT)
    expect((await chatLog(t, ana.jid)).map((m) => m.text)).toEqual(['last week', 'hello'])
  })

  it('refuses a chat with no message to start from (400), a stopped instance and the sandbox (409), a count over 50 (400)', async () => {
    const t = await linked()
    const none = await post(t, '/chatapp/messages/fetch-history', { chatId: '15559990000' })
    expect(none.statusCode, none.body).toBe(400)
    expect(none.json.message).toMatch(/no message/i)
    const tooMany = await post(t, '/chatapp/messages/fetch-history', { chatId: '15559990000', count: 51 })
    expect(tooMany.statusCode).toBe(400)

    const sandbox = await t.h.connectedInstance()
    const sb = await t.h.call({ method: 'POST', url: `/chatapp/messages/fetch-history?${sandbox.qs}`, payload: { ...sandbox.creds, chatId: '15551234567' } })
    expect(sb.statusCode, sb.body).toBe(409)
    expect(sb.json.message).toMatch(/sandbox/i)

    const ana = t.server.contact('15551234567', 'Ana')
    await ana.sendText('hello')
    await vi.waitFor(async () => expect(await chatLog(t, ana.jid)).toHaveLength(1), WAIT)
    const stop = await t.h.call({ method: 'POST', url: '/chatapp/stop', payload: t.creds })
    expect(stop.statusCode, stop.body).toBe(200)
    const stopped = await post(t, '/chatapp/messages/fetch-history', { chatId: ana.jid })
    expect(stopped.statusCode, stopped.body).toBe(409)
    expect(stopped.json.message).toMatch(/not connected/i)
  })
})
