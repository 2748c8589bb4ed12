/**
 * Surveys that finish: a closing message with [name] and [answer:N], the owner's
 * notification carrying every answer of the run, responses with the customer's number and local times,
 * a handled flag, and the CSV in the same columns.
 */
import { afterEach, beforeEach, expect, it } from 'vitest'
import { makeHarness, type Harness } from '../helpers/harness'
import type { LoggedMessage } from '../../src/shared/schemas/records'

let h: Harness
let qs: string
let creds: { session_id: string; access_token: string }
const now = Date.parse('2026-11-18T12:00:00.000Z')

beforeEach(async () => {
  h = await makeHarness({ clock: { now: () => now } })
  ;({ qs, creds } = await h.connectedInstance())
  await h.call({ method: 'PUT', url: `/chatapp/updateGeneral?${qs}`, payload: { bot_timezone: 'Asia/Kolkata' } })
  await h.call({ method: 'PUT', url: `/chatapp/updateActions?${qs}`, payload: { send_default_msg: false } })
})
afterEach(async () => {
  await h.close()
})

async function step(sort_id: number, keyword: string, reply: string, extra: object = {}) {
  const res = await h.call({ method: 'POST', url: '/survey', payload: { ...creds, title: 'Order', keyword, reply, sort_id, ...extra } })
  expect(res.statusCode, res.body).toBe(200)
  return res.json.data as { _id: string }
}

async function say(message: string): Promise<string[]> {
  const res = await h.call({ method: 'POST', url: `/chatapp/sandbox/inbound?${qs}`, payload: { chatId: '15550001111', message, pushName: 'Ann' } })
  expect(res.statusCode, res.body).toBe(200)
  return (res.json.data.replies as LoggedMessage[]).map((r) => r.text)
}

it('ends with the closing message, tells the owner every answer, and lists the response with number, local time and a handled flag', async () => {
  const first = await step(1, 'order', 'What would you like?', { closing_msg: 'Thanks [name]! One [answer:2] [answer:1] coming up{!|.}' })
  await step(2, 'small,large', 'Which size: small or large?')
  await step(3, '', 'Any note for the kitchen?', { action: { send_notification: { chatapp_number: '15559990000' } } })
  expect(await say('I want to order')).toEqual(['What would you like?'])
  expect(await say('{pizza|pasta}')).toEqual(['Which size: small or large?'])
  expect(await say('large')).toEqual(['Any note for the kitchen?'])
  const last = await say('No onions')
  // The answer '{pizza|pasta}' is the customer's text: inserted as written, never taken for spintax.
  expect(last).toHaveLength(1)
  expect(last[0]).toMatch(/^Thanks Ann! One large \{pizza\|pasta\} coming up[!.]$/)

  const notes = (await h.call({ method: 'GET', url: `/chatapp/messages?${qs}&chatId=15559990000` })).json.data as LoggedMessage[]
  expect(notes.map((m) => m.text)).toEqual([
    '🔔 Chatapp Bot: Ann (+15550001111) completed survey "Order":\n1. What would you like? — {pizza|pasta}\n2. Which size: small or large? — large\n3. Any note for the kitchen? — No onions'
  ])

  const list = (await h.call({ method: 'GET', url: `/survey/${first._id}/responses?${qs}` })).json.data
  expect(list).toEqual([
    expect.objectContaining({ pushName: 'Ann', phone: '+15550001111', status: 'completed', handled: false, started_local: '2026-11-18 17:30', completed_local: '2026-11-18 17:30' })
  ])
  const marked = await h.call({ method: 'PUT', url: `/survey/response/${list[0]._id}?${qs}`, payload: { handled: true } })
  expect(marked.statusCode, marked.body).toBe(200)
  expect(marked.json.data).toMatchObject({ _id: list[0]._id, handled: true })
  expect((await h.call({ method: 'PUT', url: `/survey/response/nope?${qs}`, payload: { handled: true } })).statusCode).toBe(404)

  const csv = (await h.call({ method: 'GET', url: `/survey/${first._id}/responses?${qs}&format=csv` })).body
  const [header, row] = csv.trim().split('\n')
  expect(header).toBe('run_id,name,phone,status,handled,started,completed,What would you like?,Which size: small or large?,Any note for the kitchen?')
  // A leading + is escaped for spreadsheets (OWASP CSV injection): Excel shows the number as text.
  expect(row).toBe(`${list[0]._id},Ann,'+15550001111,completed,yes,2026-11-18 17:30,2026-11-18 17:30,{pizza|pasta},large,No onions`)
})

it('removes a closing message with null', async () => {
  const first = await step(1, 'order', 'What would you like?', { closing_msg: 'Bye' })
  const res = await h.call({ method: 'PUT', url: `/survey/${first._id}`, payload: { ...creds, closing_msg: null } })
  expect(res.statusCode, res.body).toBe(200)
  expect(res.json.data.closing_msg).toBeUndefined()
})
