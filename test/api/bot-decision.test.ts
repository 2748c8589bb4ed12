/**
 * "Why no reply?" (issue 13 §4, docs/design.md §13): every inbound message carries the bot's decision
 * record — returned by sandbox/inbound, kept in the message log, sent in the onMessage webhook.
 */
import { afterEach, beforeEach, expect, it, vi } from 'vitest'
import { makeHarness, type Harness } from '../helpers/harness'
import { startReceiver, type Receiver } from '../helpers/webhook-receiver'
import type { LoggedMessage } from '../../src/shared/schemas/records'

let h: Harness
let qs: string
let creds: { session_id: string; access_token: string }
let now: Date

beforeEach(async () => {
  now = new Date('2026-11-18T12:00:00.000Z') // a Wednesday, 12:00 UTC
  h = await makeHarness({ clock: { now: () => now.getTime() } })
  ;({ qs, creds } = await h.connectedInstance())
  await put('/chatapp/updateGeneral', { bot_timezone: 'UTC' })
})
afterEach(async () => {
  await h.close()
})

async function put(url: string, payload: object) {
  const res = await h.call({ method: 'PUT', url: `${url}?${qs}`, payload })
  expect(res.statusCode, res.body).toBe(200)
}

async function say(message: string, extra: Record<string, unknown> = {}): Promise<LoggedMessage> {
  const res = await h.call({ method: 'POST', url: `/chatapp/sandbox/inbound?${qs}`, payload: { chatId: '15550001111', message, pushName: 'Ann', ...extra } })
  expect(res.statusCode, res.body).toBe(200)
  return res.json.data.message
}

it('names what answered, or why nothing did', async () => {
  expect((await h.call({ method: 'POST', url: '/intent', payload: { ...creds, title: 'Hours', keyword: 'open', reply: 'We are open 9–18.' } })).statusCode).toBe(200)
  expect((await say('are you open?')).bot).toEqual({ action: 'intent', ref: 'Hours' })
  expect((await say('something else')).bot).toEqual({ action: 'default' })
  expect((await say('and another thing')).bot).toEqual({ action: 'none', reason: 'default_sent_recently' })
  await put('/chatapp/updateActions', { send_default_msg: false })
  expect((await say('still nothing')).bot).toEqual({ action: 'none', reason: 'no_match' })
  expect((await say('open on sunday?', { chatId: '120363000000000001@g.us', participant: '15550003333' })).bot).toEqual({ action: 'intent', ref: 'Hours' })
})

it('says when a gate kept the bot silent: hours, groups, backlog, reply_msgs', async () => {
  await put('/chatapp/updateActions', { reply_group_msgs: false, reply_unread_msgs: false })
  expect((await say('hi', { chatId: '120363000000000001@g.us', participant: '15550003333' })).bot).toEqual({ action: 'none', reason: 'group_off' })
  expect((await say('hi', { offline: true })).bot).toEqual({ action: 'none', reason: 'backlog' })
  await put('/chatapp/updateActiveHours', { from: '9:00', to: '11:00' })
  expect((await say('hi')).bot).toEqual({ action: 'none', reason: 'outside_hours' })
  await put('/chatapp/updateActions', { reply_msgs: false })
  expect((await say('hi')).bot).toEqual({ action: 'none', reason: 'reply_msgs_off' })
})

it('keeps the record in the message log and sends it with onMessage', async () => {
  const rx: Receiver = await startReceiver()
  try {
    await put('/chatapp/setWebhook', { webhook_url: rx.url, events: ['onMessage'], requestConfig: {} })
    await put('/chatapp/updateActions', { send_webhook: true })
    await put('/chatapp/updateActiveHours', { from: '9:00', to: '11:00' })
    const m = await say('hello?')
    const log = (await h.call({ method: 'GET', url: `/chatapp/messages?${qs}` })).json.data as LoggedMessage[]
    expect(log.find((x) => x.id === m.id)?.bot).toEqual({ action: 'none', reason: 'outside_hours' })
    await vi.waitFor(() => expect(rx.requests).toHaveLength(1))
    expect((JSON.parse(rx.requests[0]!.body) as { data: LoggedMessage }).data.bot).toEqual({ action: 'none', reason: 'outside_hours' })
  } finally {
    await rx.stop()
  }
})
