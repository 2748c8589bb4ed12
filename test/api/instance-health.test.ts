/**
 * Instance health (docs/design.md §16 "Instances"): a name chosen at creation, and counts for today and 7 days (messages
 * in and out, the bot's answer rate, failed sends, failed webhook deliveries) in the instance's zone.
 */
import { afterEach, expect, it } from 'vitest'
import { makeHarness, type Harness } from '../helpers/harness'
import { internalsOf } from '../../src/main/core'

let h: Harness
afterEach(async () => {
  await h.close()
})

it('names an instance at creation; its bot name is the name', async () => {
  h = await makeHarness()
  const res = await h.call({ method: 'POST', url: '/chatapp/createNewChatapp', payload: { channel: 'sandbox', name: '  Pizzeria Marco ' } })
  expect(res.statusCode, res.body).toBe(200)
  expect(res.json.data.settings.bot_name).toBe('Pizzeria Marco')
  expect((await h.call({ method: 'POST', url: '/chatapp/createNewChatapp', payload: { channel: 'sandbox', name: '' } })).statusCode).toBe(400)
})

it('counts today and the last 7 days in the instance’s zone', async () => {
  let now = Date.parse('2026-11-20T10:00:00.000Z') // Friday 11:00 in Rome
  h = await makeHarness({ clock: { now: () => now } })
  const { qs, inst } = await h.connectedInstance()
  const put = (url: string, payload: object) => h.call({ method: 'PUT', url: `${url}?${qs}`, payload })
  expect((await put('/chatapp/updateGeneral', { bot_timezone: 'Europe/Rome' })).statusCode).toBe(200)
  await h.call({ method: 'POST', url: '/intent', payload: { session_id: inst.session_id, access_token: inst.settings.access_token, title: 'Hours', keyword: 'open', reply: 'We are open.' } })
  await put('/chatapp/updateActions', { send_default_msg: false })
  const say = async (message: string, at: string) => {
    now = Date.parse(at)
    const res = await h.call({ method: 'POST', url: `/chatapp/sandbox/inbound?${qs}`, payload: { chatId: '15550001111', message, pushName: 'Ann', timestamp: Math.floor(now / 1000) } })
    expect(res.statusCode, res.body).toBe(200)
  }
  await say('open?', '2026-11-16T10:00:00.000Z') // Monday: in the 7 days
  await say('hello', '2026-11-19T22:30:00.000Z') // Thursday 23:30 in Rome: not today
  await say('open?', '2026-11-19T23:30:00.000Z') // Friday 0:30 in Rome: today
  await say('thanks', '2026-11-20T09:00:00.000Z')
  // A send the network refused, as the channel reports it.
  const sent = await h.call({ method: 'POST', url: `/chatapp/message?${qs}`, payload: { chatId: '15550002222', message: 'Your order' } })
  await internalsOf(h.core).storage.repos.messages.update(inst._id, sent.json.data.message.key.id, { status: 'ERROR', error_code: '463' })
  now = Date.parse('2026-11-20T10:00:00.000Z')
  const stats = (await h.call({ method: 'GET', url: `/chatapp/stats?${qs}` })).json.data
  expect(stats.today).toEqual({ messages_in: 2, messages_out: 2, bot_answered: 1, bot_answer_rate: 0.5, failed_sends: 1, webhook_failures: 0 })
  expect(stats.last_7_days).toEqual({ messages_in: 4, messages_out: 3, bot_answered: 2, bot_answer_rate: 0.5, failed_sends: 1, webhook_failures: 0 })
  expect(stats.since).toBe('2026-11-16T10:00:00.000Z')
})
