/**
 * Hand-off to a person (docs/design.md §13): a reply from the desk or the phone pauses
 * the bot for that chat for the instance's pause time; the pause ends by timer or by hand, survives a
 * restart; a customer's hand-off keyword pauses it until resumed; scripts (the HTTP API) do not pause it.
 */
import { afterEach, beforeEach, expect, it } from 'vitest'
import { makeHarness, type Harness } from '../helpers/harness'
import { createHandlers } from '../../src/main/ui-contract/handlers'
import type { ChatPause, LoggedMessage } from '../../src/shared/schemas/records'

let h: Harness
let qs: string
let creds: { session_id: string; access_token: string }
let instanceId: string
let now: number
const CUSTOMER = '15550001111'
const CHAT = `${CUSTOMER}@s.whatsapp.net`

beforeEach(async () => {
  now = Date.parse('2026-11-18T12:00:00.000Z')
  h = await makeHarness({ clock: { now: () => now } })
  const c = await h.connectedInstance()
  ;({ qs, creds } = c)
  instanceId = c.inst._id
  await call('PUT', '/chatapp/updateActions', { send_default_msg: false })
  await call('POST', '/intent', { ...creds, title: 'Hours', keyword: 'open', reply: 'We are open 9-18.' })
})
afterEach(async () => {
  await h.close()
})

async function call(method: 'GET' | 'POST' | 'PUT', url: string, payload?: object) {
  const res = await h.call({ method, url: url.startsWith('/intent') ? url : `${url}?${qs}`, ...(payload ? { payload } : {}) })
  expect(res.statusCode, res.body).toBe(200)
  return res.json.data
}

async function customer(message: string): Promise<{ message: LoggedMessage; replies: LoggedMessage[] }> {
  return call('POST', '/chatapp/sandbox/inbound', { chatId: CUSTOMER, message, pushName: 'Ann' })
}

/** The web UI's contract, as a person at the desk calls it. */
const desk = () => createHandlers(h.core, { baseUrl: () => '', mode: 'web', defaultChannel: 'sandbox' })

it('a reply from the desk pauses the bot for that chat for 30 minutes, then it answers again', async () => {
  expect((await customer('are you open?')).replies).toHaveLength(1)
  const sent = await desk()['messages.sendText']({ instanceId, chatId: CUSTOMER, message: 'Hi Ann, Marco here. Yes, until 6!' })
  // The desk's face answers how many messages went out.
  expect(sent).toEqual({ sent: 1 })
  const log = (await call('GET', '/chatapp/messages', undefined)) as LoggedMessage[]
  expect(log.at(-1)).toMatchObject({ source: 'desk', text: 'Hi Ann, Marco here. Yes, until 6!' })

  const paused = await customer('and open on sunday?')
  expect(paused.replies).toEqual([])
  expect(paused.message.bot).toEqual({ action: 'none', reason: 'paused' })
  const pauses = (await call('GET', '/chatapp/handoff')) as ChatPause[]
  expect(pauses).toEqual([expect.objectContaining({ chatId: CHAT, reason: 'human_reply', by: 'desk', until: new Date(now + 30 * 60_000).toISOString() })])

  now += 31 * 60_000
  expect((await customer('open tomorrow?')).message.bot).toEqual({ action: 'intent', ref: 'Hours' })
  expect(await call('GET', '/chatapp/handoff')).toEqual([])
})

it('a message the owner types on the phone pauses the bot; a script’s send does not', async () => {
  await call('POST', '/chatapp/message', { chatId: CUSTOMER, message: 'Your order is ready.' })
  expect((await customer('open now?')).replies).toHaveLength(1)
  const phone = await call('POST', '/chatapp/sandbox/inbound', { chatId: CUSTOMER, message: 'I will call you', fromMe: true })
  expect(phone.message).toMatchObject({ source: 'phone', bot: { action: 'none', reason: 'own_message' } })
  expect((await customer('open now?')).message.bot).toEqual({ action: 'none', reason: 'paused' })
  expect(((await call('GET', '/chatapp/handoff')) as ChatPause[])[0]).toMatchObject({ by: 'phone', reason: 'human_reply' })
})

it('a phone message delivered late (sent while the app was off) pauses only for what is left of its time', async () => {
  const chat = '15550002222'
  const ask = (message: string) => call('POST', '/chatapp/sandbox/inbound', { chatId: chat, message, pushName: 'Bo' })
  // Sent from the phone two hours ago: its 30 minutes are over.
  await call('POST', '/chatapp/sandbox/inbound', { chatId: chat, message: 'old reply', fromMe: true, timestamp: Math.floor((now - 2 * 3_600_000) / 1000) })
  expect((await ask('open?')).message.bot).toEqual({ action: 'intent', ref: 'Hours' })
  // Sent ten minutes ago: paused for the twenty left.
  await call('POST', '/chatapp/sandbox/inbound', { chatId: chat, message: 'recent reply', fromMe: true, timestamp: Math.floor((now - 10 * 60_000) / 1000) })
  const pause = ((await call('GET', '/chatapp/handoff')) as ChatPause[]).find((p) => p.chatId.startsWith(chat))
  expect(pause?.until).toBe(new Date(now + 20 * 60_000).toISOString())
})

it('pauses and resumes by hand, and keeps a pause across a restart', async () => {
  const pause = (await call('POST', '/chatapp/handoff/pause', { chatId: CUSTOMER })) as ChatPause
  expect(pause).toMatchObject({ chatId: CHAT, until: null, reason: 'manual', by: 'api' })
  h = await h.restart()
  expect((await customer('open?')).message.bot).toEqual({ action: 'none', reason: 'paused' })
  expect(await call('POST', '/chatapp/handoff/resume', { chatId: CUSTOMER })).toEqual({ resumed: true })
  expect(await call('POST', '/chatapp/handoff/resume', { chatId: CUSTOMER })).toEqual({ resumed: false })
  expect((await customer('open?')).replies).toHaveLength(1)
})

it('a customer’s hand-off keyword pauses the bot until resumed; pause 0 means replies never pause it', async () => {
  expect(await call('PUT', '/chatapp/handoff/settings', { keyword: 'agent,human', pause_minutes: 0 })).toEqual({ keyword: 'agent,human', pause_minutes: 0 })
  const asked = await customer('Can I talk to a HUMAN please?')
  expect(asked.message.bot).toEqual({ action: 'none', reason: 'handoff_requested' })
  expect(asked.replies).toEqual([])
  expect(((await call('GET', '/chatapp/handoff')) as ChatPause[])[0]).toMatchObject({ until: null, reason: 'keyword', by: 'customer' })
  now += 24 * 3_600_000
  expect((await customer('open?')).message.bot).toEqual({ action: 'none', reason: 'paused' })
  await call('POST', '/chatapp/handoff/resume', { chatId: CUSTOMER })
  // With pause_minutes 0 a reply from the desk leaves the bot on.
  await desk()['messages.sendText']({ instanceId, chatId: CUSTOMER, message: 'Here I am.' })
  expect((await customer('open?')).message.bot).toEqual({ action: 'intent', ref: 'Hours' })
  expect((await customer('humanity is great')).message.bot).not.toEqual({ action: 'none', reason: 'handoff_requested' })
})

it('refuses bad hand-off settings with a clear error', async () => {
  const res = await h.call({ method: 'PUT', url: `/chatapp/handoff/settings?${qs}`, payload: { pause_minutes: -1 } })
  expect(res.statusCode).toBe(400)
  expect(res.json.error.details).toEqual([expect.objectContaining({ field: 'pause_minutes' })])
})

it('tells the owner on WhatsApp and by e-mail when a customer asks for a person', async () => {
  await h.close()
  const mails: Array<{ to: string; subject: string; text: string }> = []
  h = await makeHarness({ clock: { now: () => now }, mailer: { send: async (m) => void mails.push(m), close: () => {} } })
  const c = await h.connectedInstance()
  qs = c.qs
  await call('PUT', '/chatapp/handoff/settings', { keyword: 'agent', notify: { email: 'marco@example.com', chatapp_number: '15559990000' } })
  expect((await customer('agent please')).message.bot).toEqual({ action: 'none', reason: 'handoff_requested' })
  const sent = (await call('GET', '/chatapp/messages')) as LoggedMessage[]
  expect(sent.find((m) => m.chatId === '15559990000@s.whatsapp.net')?.text).toContain('Ann (+15550001111) wrote "agent please" (matched the hand-off keyword')
  expect(mails).toEqual([expect.objectContaining({ to: 'marco@example.com', text: expect.stringContaining('agent please') })])
})

it('answers the first message of a burst only, when burst_seconds is set', async () => {
  await call('PUT', '/chatapp/handoff/settings', { burst_seconds: 5 })
  const at = (sec: number) => Math.floor(now / 1000) + sec
  const say = (message: string, sec: number) => call('POST', '/chatapp/sandbox/inbound', { chatId: CUSTOMER, message, pushName: 'Ann', timestamp: at(sec) })
  expect((await say('hi', 0)).message.bot).toEqual({ action: 'none', reason: 'no_match' })
  expect((await say('are you open?', 2)).message.bot).toEqual({ action: 'none', reason: 'burst' })
  expect((await say('open today?', 6)).message.bot).toEqual({ action: 'none', reason: 'burst' }) // 4 s after the last one
  expect((await say('open now?', 20)).message.bot).toEqual({ action: 'intent', ref: 'Hours' })
  await call('PUT', '/chatapp/handoff/settings', { burst_seconds: 0 })
  expect((await say('open now?', 21)).message.bot).toEqual({ action: 'intent', ref: 'Hours' })
})
