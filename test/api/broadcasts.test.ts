/**
 * Outreach through the API: a CSV import of 500 contacts with bad rows
 * reported, a group broadcast with spintax behind the send governor on a manual clock, skips with
 * reasons, a restart in the middle without a duplicate, an automatic pause on message capping, and a
 * weekly scheduled message across a DST change.
 */
import { DateTime } from 'luxon'
import { afterEach, beforeEach, expect, it } from 'vitest'
import { SandboxSession } from '../../src/main/channel/sandbox-channel'
import { internalsOf } from '../../src/main/core'
import { makeHarness, type Harness } from '../helpers/harness'
import { ManualClock } from '../helpers/manual-clock'
import { mulberry32 } from '../helpers/seeded-random'

let h: Harness
let clock: ManualClock
let qs: string
let instanceId: string

const ZONE = 'Europe/Rome'

async function start(at?: string): Promise<void> {
  clock = new ManualClock()
  if (at) clock.offset = Date.parse(at) - Date.now()
  h = await makeHarness({ clock, timers: clock, random: mulberry32(7) })
  const c = await h.connectedInstance()
  qs = c.qs
  instanceId = c.inst._id
  await call('PUT', '/chatapp/updateActions', { send_default_msg: false })
  await call('PUT', '/chatapp/updateGeneral', { bot_timezone: ZONE })
}

// A fixed Wednesday evening (20:30 in Rome): quiet hours begin half an hour into the broadcasts.
beforeEach(() => start('2026-11-25T19:30:00Z'))
afterEach(async () => {
  await h.close()
})

const call = (method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, payload?: object) => h.instanceApi(qs)(method, url, payload)

/** Lets the manual clock run: fires each timer in turn and waits for the sends it starts. */
async function runClock(until: () => Promise<boolean>, maxSteps = 2000): Promise<void> {
  for (let i = 0; i < maxSteps; i++) {
    await h.core.schedules.idle()
    await h.core.broadcasts.idle()
    if (await until()) return
    const next = clock.nextIn()
    if (next === undefined) throw new Error('nothing left to wait for, and the condition does not hold')
    clock.advance(Math.max(0, next))
  }
  throw new Error('the condition did not hold in time')
}

const broadcast = async (id: string) => (await call('GET', `/broadcast/${id}`)).data
const sandbox = () => internalsOf(h.core).sessions.get(instanceId) as SandboxSession
async function outbound(): Promise<{ chatId: string; text: string; timestamp: number; source: string }[]> {
  return (await call('GET', '/chatapp/messages?limit=1000')).data.filter((m: { fromMe: boolean }) => m.fromMe)
}

function contactsCsv(n: number, from = 0): string {
  return ['name,phone', ...Array.from({ length: n }, (_, i) => `Customer ${from + i},+39 333 ${String(1_000_000 + from + i)}`)].join('\n')
}

it('imports 500 contacts from CSV, reports the 3 bad rows, and exports them', async () => {
  const lines = contactsCsv(500).split('\n')
  lines.splice(11, 0, 'No number,')
  lines.splice(101, 0, 'Typo,+39 33x 12')
  lines.splice(301, 0, 'Twin,+39 333 1000005')
  const report = await call('POST', '/contact/import', { csv: lines.join('\n'), mapping: { number: 'phone' } })
  expect(report.data).toEqual({
    imported: 500,
    existing: 0,
    refused: [
      { row: 12, reason: 'no number' },
      { row: 102, reason: '"+39 33x 12" is not a phone number with its country code' },
      { row: 302, reason: 'the same number as line 7' }
    ]
  })
  const page = await h.call({ method: 'GET', url: `/contact?limit=5&${qs}` })
  expect(page.headers['x-total-count']).toBe('500')
  // The same file again: nothing new, nothing doubled.
  expect((await call('POST', '/contact/import', { csv: lines.join('\n') })).data).toMatchObject({ imported: 0, existing: 500 })
  const exported = await h.call({ method: 'GET', url: `/contact/export?${qs}` })
  expect(exported.headers['content-type']).toMatch(/^text\/csv/)
  expect(exported.body.trim().split('\n')).toHaveLength(501)
  expect(exported.body).toContain('Customer 499,393331000499')
})

it('broadcasts to a group with spintax behind the governor: gaps, hourly limit, quiet hours, typing first, skips with reasons', async () => {
  await call('PUT', '/chatapp/outreach', { number_since: '2020-01-01', hourly_limit: 8, min_gap_seconds: 20, max_gap_seconds: 90, quiet_hours: { from: '21:00', to: '8:00' } })
  const group = (await call('POST', '/contact_groups', { title: 'Regulars' })).data
  await call('POST', '/contact/import', { csv: contactsCsv(25), group_id: group._id })
  const contacts = (await call('GET', '/contact')).data as { _id: string; number: string; name: string }[]
  await call('PUT', `/contact/${contacts[3]!._id}`, { opted_out: true })
  await call('POST', '/chatapp/sandbox/network', { notOnWhatsApp: [contacts[7]!.number] })

  const created = await call('POST', '/broadcast', { send_type: 'group', to: group._id, message: { text: '{Hi|Hello} [name], pizza night on Friday!' } })
  expect(created.message).toBe('Broadcast group created successfully!')
  expect(created.data).toMatchObject({ send_type: 'group', status: 'sending', skipped: [{ number: contacts[3]!.number, reason: 'opted out (wrote the opt-out word)' }] })
  expect(created.data.progress).toMatchObject({ total: 25, skipped: 1, pending: 24, expected_finish: expect.any(String) })

  await runClock(async () => (await broadcast(created.data._id)).status === 'done')
  const done = await broadcast(created.data._id)
  expect(done.sent).toHaveLength(23)
  expect(done.skipped).toEqual([
    { number: contacts[3]!.number, reason: 'opted out (wrote the opt-out word)' },
    { number: contacts[7]!.number, reason: 'not on WhatsApp' }
  ])
  expect(done.failed).toEqual([])

  const sent = (await outbound()).sort((a, b) => a.timestamp - b.timestamp)
  expect(sent).toHaveLength(23)
  // Each recipient once, by name, with either greeting.
  expect(new Set(sent.map((m) => m.chatId)).size).toBe(23)
  for (const m of sent) {
    const c = contacts.find((x) => `${x.number}@s.whatsapp.net` === m.chatId)!
    expect(m.text).toMatch(new RegExp(`^(Hi|Hello) ${c.name}, pizza night on Friday!$`))
    expect(m.source).toBe('broadcast')
  }
  expect(new Set(sent.map((m) => m.text.split(' ')[0]))).toEqual(new Set(['Hi', 'Hello']))
  // The governor: random gaps within the bounds (not all equal), at most 8 in any hour, none in quiet hours.
  const gaps = sent.slice(1).map((m, i) => m.timestamp - sent[i]!.timestamp)
  expect(Math.min(...gaps)).toBeGreaterThanOrEqual(20_000)
  expect(new Set(gaps.filter((g) => g <= 90_000)).size).toBeGreaterThan(5)
  for (const m of sent) expect(sent.filter((x) => x.timestamp > m.timestamp - 3_600_000 && x.timestamp <= m.timestamp).length).toBeLessThanOrEqual(8)
  for (const m of sent) {
    const hour = DateTime.fromMillis(m.timestamp, { zone: ZONE }).hour
    expect(hour >= 8 && hour < 21, `sent at ${hour}h local`).toBe(true)
  }
  // "typing…" before each message, in its chat.
  const presences = sandbox().presences
  expect(presences.map((p) => p.jid)).toEqual(sent.map((m) => m.chatId))
})

it('a restart in the middle resumes where it stopped, and a send cut by a crash is never repeated', async () => {
  await call('PUT', '/chatapp/outreach', { number_since: '2020-01-01', quiet_hours: null, min_gap_seconds: 30, max_gap_seconds: 30 })
  const to = Array.from({ length: 6 }, (_, i) => `39333200000${i}`)
  const b = (await call('POST', '/broadcast', { send_type: 'individual', to: to.join(', '), message: { text: 'Hello [name]' } })).data
  await runClock(async () => (await broadcast(b._id)).sent.length >= 2)
  expect((await broadcast(b._id)).sent).toHaveLength(2)

  h = await h.restart()
  await runClock(async () => (await broadcast(b._id)).status === 'done')
  const done = await broadcast(b._id)
  expect(done.sent.map((s: { number: string }) => s.number)).toEqual(to)
  const sent = await outbound()
  expect(to.map((n) => sent.filter((m) => m.chatId === `${n}@s.whatsapp.net`).length)).toEqual([1, 1, 1, 1, 1, 1])

  // A crash between "sending to X" and "sent to X": the log says whether it went out; either way it is not sent again.
  const b2 = (await call('POST', '/broadcast', { send_type: 'individual', to: '393339000001,393339000002', message: { text: 'Second' } })).data
  await call('POST', `/broadcast/${b2._id}/pause`)
  const repos = internalsOf(h.core).storage.repos
  await repos.broadcasts.update(b2._id, (d) => {
    d.current = { number: d.pending[0]!.number, started_at: new Date(clock.now()).toISOString() }
    d.pending.shift()
  })
  h = await h.restart()
  const after = await broadcast(b2._id)
  expect(after.current).toBeNull()
  expect(after.failed).toEqual([{ number: '393339000001', reason: 'the app stopped while sending; not sent again so nobody gets it twice', at: expect.any(String) }])
  expect(after.pending.map((p: { number: string }) => p.number)).toEqual(['393339000002'])
})

it('message capping pauses the broadcast with the reason; resume while capped pauses again, after the cycle it finishes', async () => {
  await call('PUT', '/chatapp/outreach', { number_since: '2020-01-01', quiet_hours: null })
  const b = (await call('POST', '/broadcast', { send_type: 'individual', to: '393334000001,393334000002,393334000003', message: { text: 'News' } })).data
  await runClock(async () => (await broadcast(b._id)).sent.length >= 1)
  const until = new Date(clock.now() + 3_600_000).toISOString()
  await call('POST', '/chatapp/sandbox/network', { limits: { capping: { status: 'CAPPED', used: 50, total: 50, until } } })
  await h.core.broadcasts.idle()
  const paused = await broadcast(b._id)
  expect(paused.status).toBe('paused')
  expect(paused.status_reason).toMatch(/^WhatsApp caps new chats for this number \(50 of 50 used until 2026-11-2\d \d\d:\d\d \(Europe\/Rome\)\)/)
  expect((await call('GET', '/chatapp/outreach')).data).toMatchObject({ blocked: expect.stringMatching(/caps new chats/), sent_last_24h: 1 })

  await call('POST', `/broadcast/${b._id}/resume`)
  await h.core.broadcasts.idle()
  expect((await broadcast(b._id)).status).toBe('paused')

  clock.advance(3_600_001)
  await call('POST', `/broadcast/${b._id}/resume`)
  await runClock(async () => (await broadcast(b._id)).status === 'done')
  expect((await broadcast(b._id)).sent).toHaveLength(3)
  const gone = await h.call({ method: 'POST', url: `/broadcast/${b._id}/cancel?${qs}` })
  expect(gone.statusCode).toBe(409)
  expect((await h.call({ method: 'DELETE', url: `/broadcast/${b._id}?${qs}` })).statusCode).toBe(204)
})

it('refuses bad broadcasts with the field named', async () => {
  const bad = async (payload: object, field: string) => {
    const res = await h.call({ method: 'POST', url: `/broadcast?${qs}`, payload })
    expect(res.statusCode, res.body).toBe(400)
    expect(res.json.error.details[0].field).toBe(field)
  }
  await bad({ send_type: 'individual', to: '393331234567,call me', message: { text: 'x' } }, 'to')
  await bad({ send_type: 'group', to: 'nope', message: { text: 'x' } }, 'to')
  await bad({ send_type: 'individual', to: '393331234567', message: {} }, 'message')
  await bad({ send_type: 'individual', to: '393331234567', message: { text: 'x', attachments: ['nope'] } }, 'message.attachments.0')
})

it('a weekly scheduled message fires at 10:00 local before and after the DST change; a run missed while off is reported', async () => {
  await h.close()
  await start('2026-10-15T12:00:00Z')
  await call('PUT', '/chatapp/outreach', { number_since: '2020-01-01' })
  const s = (
    await call('POST', '/schedule', { target: { type: 'chat', id: '393335000001' }, message: { text: 'Sunday brunch is on, [name]!' }, repeat: 'weekly', start_at: '2026-10-18T10:00' })
  ).data
  expect(s).toMatchObject({ repeat: 'weekly', next_run_at: '2026-10-18T08:00:00.000Z', active: true })

  await runClock(async () => (await outbound()).length === 1)
  await runClock(async () => (await outbound()).length === 2)
  const times = (await outbound()).map((m) => new Date(m.timestamp).toISOString().slice(0, 16))
  expect(times).toEqual(['2026-10-18T08:00', '2026-10-25T09:00'])
  const now = (await call('GET', '/schedule')).data[0]
  expect(now.runs.map((r: { result: string }) => r.result)).toEqual(['sent', 'sent'])
  expect(now.next_run_at).toBe('2026-11-01T09:00:00.000Z')

  // The PC is off on Sunday 1 November and comes back on Monday: that run is skipped and reported.
  await h.close(true)
  clock.offset = Date.parse('2026-11-02T09:00:00Z') - Date.now()
  h = await h.reopen()
  const later = (await call('GET', '/schedule')).data[0]
  expect(later.runs[0]).toMatchObject({ result: 'skipped', at: '2026-11-01T09:00:00.000Z', detail: expect.stringMatching(/^missed: the app was not running at 2026-11-01 10:00/) })
  expect(later.next_run_at).toBe('2026-11-08T09:00:00.000Z')
  expect(await outbound()).toHaveLength(2)
})
