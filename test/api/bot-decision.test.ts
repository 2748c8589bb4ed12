/**
 * "Why no reply?" (docs/design.md §13): every inbound message carries the bot's decision
 * record — returned by sandbox/inbound, kept in the message log, sent in the onMessage webhook.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
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

describe('the away message', () => {
  async function hi() {
    const res = await h.call({ method: 'POST', url: `/chatapp/sandbox/inbound?${qs}`, payload: { chatId: '15550001111', message: 'hi', pushName: 'Ann' } })
    expect(res.statusCode, res.body).toBe(200)
    return res.json.data as { message: LoggedMessage; replies: LoggedMessage[] }
  }

  it('answers outside hours once per contact, naming the next opening; inside hours the bot answers again', async () => {
    await put('/chatapp/updateActiveHours', { from: '9:00', to: '11:00' }) // it is Wednesday 12:00 UTC
    expect((await hi()).message.bot).toEqual({ action: 'none', reason: 'outside_hours' }) // away is off by default
    const set = await h.call({ method: 'PUT', url: `/chatapp/away?${qs}`, payload: { enabled: true } })
    expect(set.json.data).toEqual({ enabled: true, message: expect.stringContaining('[next_open]') })
    now = new Date('2026-11-18T12:05:00.000Z')
    const first = await hi()
    expect(first.message.bot).toEqual({ action: 'away' })
    expect(first.replies.map((r) => r.text)).toEqual(["Thanks for your message, Ann! We're closed right now and will answer when we open again tomorrow at 9:00."])
    const second = await hi()
    expect(second.message.bot).toEqual({ action: 'none', reason: 'outside_hours' })
    expect(second.replies).toEqual([])
    now = new Date('2026-11-19T09:30:00.000Z')
    expect((await hi()).message.bot).toEqual({ action: 'default' })
  })

  it('names the weekday when the next opening is days away, in the bot’s time zone', async () => {
    now = new Date('2026-11-20T14:00:00.000Z') // Friday 19:30 in Kolkata
    await put('/chatapp/updateGeneral', { bot_timezone: 'Asia/Kolkata' })
    await put('/chatapp/updateActiveDays', { saturday: false, sunday: false })
    await put('/chatapp/updateActiveHours', { from: '9:30', to: '18:00' })
    await h.call({ method: 'PUT', url: `/chatapp/away?${qs}`, payload: { enabled: true, message: 'Closed, [name]. Back [next_open].' } })
    expect((await hi()).replies.map((r) => r.text)).toEqual(['Closed, Ann. Back Monday at 9:30.'])
  })

  it('refuses an empty away message', async () => {
    const res = await h.call({ method: 'PUT', url: `/chatapp/away?${qs}`, payload: { message: '' } })
    expect(res.statusCode).toBe(400)
    expect(res.json.error.details).toEqual([expect.objectContaining({ field: 'message' })])
  })
})
