/**
 * The inbox (docs/design.md §15): conversations of every instance with name, number,
 * unread count, unanswered marker and open/resolved; mark read with read receipts; resolve hands the
 * chat back to the bot and a customer message reopens it; search; quick replies; webhook events.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { makeHarness, type Harness } from '../helpers/harness'
import { internalsOf } from '../../src/main/core'
import type { SandboxSession } from '../../src/main/channel/sandbox-channel'
import type { ConversationT } from '../../src/shared/operations/results'

let h: Harness
let now: number
let a: { qs: string; id: string }
let b: { qs: string; id: string }

beforeEach(async () => {
  now = Date.parse('2026-11-18T12:00:00.000Z')
  h = await makeHarness({ clock: { now: () => now } })
  for (const which of ['a', 'b'] as const) {
    const c = await h.connectedInstance()
    const inst = { qs: c.qs, id: c.inst._id }
    if (which === 'a') a = inst
    else b = inst
    await ok('PUT', `/chatapp/updateActions?${inst.qs}`, { send_default_msg: false })
  }
})
afterEach(async () => {
  await h.close()
})

async function ok(method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, payload?: object) {
  const res = await h.call({ method, url, ...(payload ? { payload } : {}) })
  expect(res.statusCode, res.body).toBe(200)
  return res.json.data
}

/** A customer writes to an instance, `sec` seconds after the start (WhatsApp timestamps are seconds). */
async function customer(inst: { qs: string }, chatId: string, message: string, pushName: string, sec: number) {
  now = Date.parse('2026-11-18T12:00:00.000Z') + sec * 1000
  return ok('POST', `/chatapp/sandbox/inbound?${inst.qs}`, { chatId, message, pushName, timestamp: Math.floor(now / 1000) })
}

const inbox = (query = ''): Promise<ConversationT[]> => ok('GET', `/chatapp/inbox${query}`)

describe('the conversation list', () => {
  beforeEach(async () => {
    await customer(a, '15550001111', 'Do you deliver to Elm Street?', 'Ann', 1)
    await customer(a, '15550001111', 'hello?', 'Ann', 2)
    await customer(b, '15550002222', 'Table for four tonight', 'Bo', 3)
    now += 1000
    await ok('POST', `/chatapp/message?${a.qs}`, { chatId: '15550003333', message: 'Your pizza is on its way' })
  })

  it('lists every instance newest first, with name, number, last message, unread and unanswered', async () => {
    const list = await inbox()
    expect(list.map((c) => [c.instance_id, c.chatId, c.name, c.phone, c.last.text, c.unread, c.unanswered, c.status])).toEqual([
      [a.id, '15550003333@s.whatsapp.net', null, '15550003333', 'Your pizza is on its way', 0, false, 'open'],
      [b.id, '15550002222@s.whatsapp.net', 'Bo', '15550002222', 'Table for four tonight', 1, true, 'open'],
      [a.id, '15550001111@s.whatsapp.net', 'Ann', '15550001111', 'hello?', 2, true, 'open']
    ])
    expect((await inbox(`?instance_id=${b.id}`)).map((c) => c.chatId)).toEqual(['15550002222@s.whatsapp.net'])
    expect((await inbox('?unanswered=true')).map((c) => c.name)).toEqual(['Bo', 'Ann'])
    expect(await inbox('?limit=1')).toHaveLength(1)
    const unknown = await h.call({ method: 'GET', url: '/chatapp/inbox?instance_id=nope' })
    expect(unknown.statusCode).toBe(404)
  })

  it('searches names, numbers and message text', async () => {
    expect((await inbox('?q=ann')).map((c) => c.name)).toEqual(['Ann'])
    expect((await inbox('?q=%2B1%20555%20000-2222')).map((c) => c.name)).toEqual(['Bo'])
    expect((await inbox('?q=elm%20street')).map((c) => c.name)).toEqual(['Ann'])
    expect(await inbox('?q=nothing%20like%20this')).toEqual([])
  })

  it('marks a chat read: unread cleared, read receipts for the unread messages, once', async () => {
    const session = internalsOf(h.core).sessions.get(a.id) as SandboxSession
    const read = await ok('POST', `/chatapp/inbox/read?${a.qs}`, { chatId: '15550001111' })
    expect(read).toEqual({ chatId: '15550001111@s.whatsapp.net', read: 2, receipts: true })
    expect(session.readReceipts.map((k) => k.chatId)).toEqual(['15550001111@s.whatsapp.net', '15550001111@s.whatsapp.net'])
    const row = (await inbox(`?instance_id=${a.id}`)).find((c) => c.name === 'Ann')
    expect(row).toMatchObject({ unread: 0, unanswered: true })
    expect(await ok('POST', `/chatapp/inbox/read?${a.qs}`, { chatId: '15550001111' })).toMatchObject({ read: 0 })
    expect(session.readReceipts).toHaveLength(2)
    // A new message is unread again.
    await customer(a, '15550001111', 'still there?', 'Ann', 10)
    expect((await inbox(`?instance_id=${a.id}`)).find((c) => c.name === 'Ann')?.unread).toBe(1)
    const missing = await h.call({ method: 'POST', url: `/chatapp/inbox/read?${a.qs}`, payload: { chatId: '15559999999' } })
    expect(missing.statusCode).toBe(404)
    expect(missing.json.message).toBe('There are no messages with this chat.')
  })

  it('a reply a person writes counts as reading the chat', async () => {
    const desk = (await import('../../src/main/ui-contract/handlers')).createHandlers(h.core, { baseUrl: () => '', mode: 'web', defaultChannel: 'sandbox' })
    await desk['messages.sendText']({ instanceId: b.id, chatId: '15550002222', message: 'Booked for 8pm!' })
    expect((await inbox(`?instance_id=${b.id}`))[0]).toMatchObject({ unread: 0, unanswered: false, last: { source: 'desk' } })
  })
})

it('resolve ends the hand-off and hides the chat from open ones; the customer writing again reopens it', async () => {
  await ok('PUT', `/chatapp/setWebhook?${a.qs}`, { webhook_url: 'http://127.0.0.1:9/hook', events: ['onChatStatus', 'onHandoff'] })
  await ok('PUT', `/chatapp/updateActions?${a.qs}`, { send_webhook: true })
  await customer(a, '15550001111', 'I want a person', 'Ann', 1)
  await ok('POST', `/chatapp/handoff/pause?${a.qs}`, { chatId: '15550001111' })
  now += 60_000
  const resolved = await ok('POST', `/chatapp/inbox/resolve?${a.qs}`, { chatId: '15550001111' })
  expect(resolved).toMatchObject({ chatId: '15550001111@s.whatsapp.net', status: 'resolved' })
  expect(resolved.paused_until).toBeUndefined()
  expect(await ok('GET', `/chatapp/handoff?${a.qs}`)).toEqual([])
  expect(await inbox('?status=open')).toEqual([])
  expect((await inbox('?status=resolved')).map((c) => c.name)).toEqual(['Ann'])

  await customer(a, '15550001111', 'one more thing', 'Ann', 120)
  expect((await inbox('?status=open')).map((c) => [c.name, c.status, c.unread])).toEqual([['Ann', 'open', 2]])
  const reopened = await ok('POST', `/chatapp/inbox/resolve?${a.qs}`, { chatId: '15550001111' })
  expect(reopened.status).toBe('resolved')
  expect((await ok('POST', `/chatapp/inbox/reopen?${a.qs}`, { chatId: '15550001111' })).status).toBe('open')

  // Desk events are stored without holding up the answer: listed once committed.
  await vi.waitFor(async () => {
    const events = (await h.core.webhooks.list(a.id)).map((d) => [d.event, d.payload.data]).reverse()
    expect(events).toEqual([
      ['onHandoff', expect.objectContaining({ chatId: '15550001111@s.whatsapp.net', pause: expect.objectContaining({ reason: 'manual' }) })],
      ['onHandoff', { chatId: '15550001111@s.whatsapp.net', pause: null }],
      ['onChatStatus', { chatId: '15550001111@s.whatsapp.net', status: 'resolved', by: 'api' }],
      ['onChatStatus', { chatId: '15550001111@s.whatsapp.net', status: 'open', by: 'customer' }],
      ['onChatStatus', { chatId: '15550001111@s.whatsapp.net', status: 'resolved', by: 'api' }],
      ['onChatStatus', { chatId: '15550001111@s.whatsapp.net', status: 'open', by: 'api' }]
    ])
  })
})

it('keeps the read mark and the resolve across a restart, and forgets them with the instance', async () => {
  await customer(a, '15550001111', 'hi', 'Ann', 1)
  await ok('POST', `/chatapp/inbox/read?${a.qs}`, { chatId: '15550001111' })
  await ok('POST', `/chatapp/inbox/resolve?${a.qs}`, { chatId: '15550001111' })
  h = await h.restart()
  expect((await inbox())[0]).toMatchObject({ unread: 0, status: 'resolved' })
  await ok('DELETE', `/chatapp/${a.id}`)
  expect(await internalsOf(h.core).storage.repos.conversations.list([a.id], {}, 100, Date.now())).toEqual([])
})

describe('quick replies', () => {
  it('are created, listed by shortcut, changed and deleted', async () => {
    const hours = await ok('POST', '/quick-reply', { shortcut: 'hours', text: 'We are open 12–23, every day.' })
    await ok('POST', '/quick-reply', { shortcut: 'address', text: 'Via Roma 1' })
    expect((await ok('GET', '/quick-reply')).map((q: { shortcut: string }) => q.shortcut)).toEqual(['address', 'hours'])
    const changed = await ok('PUT', `/quick-reply/${hours._id}`, { text: 'We are open 12–22.' })
    expect(changed).toMatchObject({ shortcut: 'hours', text: 'We are open 12–22.' })
    expect(await ok('DELETE', `/quick-reply/${hours._id}`)).toEqual({ n: 1, ok: 1, deletedCount: 1 })
    expect((await h.call({ method: 'DELETE', url: `/quick-reply/${hours._id}` })).statusCode).toBe(404)
  })

  it('refuse a taken shortcut and a malformed one with the field named', async () => {
    await ok('POST', '/quick-reply', { shortcut: 'menu', text: 'Our menu: …' })
    const taken = await h.call({ method: 'POST', url: '/quick-reply', payload: { shortcut: 'menu', text: 'again' } })
    expect(taken.statusCode).toBe(409)
    expect(taken.json.message).toBe('The shortcut /menu is taken.')
    const bad = await h.call({ method: 'POST', url: '/quick-reply', payload: { shortcut: 'Menu Card', text: 'x' } })
    expect(bad.statusCode).toBe(400)
    expect(bad.json.error.details).toEqual([{ field: 'shortcut', problem: 'must be 1 to 32 lower-case letters, digits, _ or - (no spaces)' }])
    expect((await ok('GET', '/quick-reply')).length).toBe(1)
  })
})
