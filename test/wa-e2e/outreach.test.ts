/**
 * A broadcast on the real channel (docs/design.md §18): 20 contacts of a contact group each decrypt
 * the message exactly once, and each saw "typing…" first (`sendPresenceUpdate('composing')` →
 * `<chatstate><composing/></chatstate>`, lib/Socket/chats.js). The governor's gaps run on a manual
 * clock; Baileys and the protocol test server run in real time.
 */
import { afterAll, afterEach, expect, it, vi } from 'vitest'
import { linkByQr, startWaInstance, waTestFile, type WaInstance } from '../helpers/wa-instance'
import { ManualClock } from '../helpers/manual-clock'

afterAll(waTestFile())

let t: WaInstance | undefined
afterEach(async () => {
  await t?.close()
})

async function call(method: 'GET' | 'POST' | 'PUT', url: string, payload?: object) {
  const res = await t!.h.call({ method, url: `${url}${url.includes("?") ? "&" : "?"}${t!.qs}`, ...(payload ? { payload: { ...t!.creds, ...payload } } : {}) })
  expect(res.statusCode, res.body).toBe(200)
  return res.json.data
}

it('a broadcast to 20 contacts is decrypted by each exactly once, with "typing…" before each message', async () => {
  const clock = new ManualClock()
  t = await startWaInstance({ core: { clock, timers: clock } })
  await linkByQr(t)
  await call('PUT', '/chatapp/updateActions', { send_default_msg: false })
  await call('PUT', '/chatapp/outreach', { number_since: '2020-01-01', quiet_hours: null, min_gap_seconds: 20, max_gap_seconds: 40 })
  const contacts = Array.from({ length: 20 }, (_, i) => t!.server.contact(`1555300${String(i).padStart(4, '0')}`, `Guest ${i}`))
  const group = await call('POST', '/contact_groups', { title: 'Tasting night' })
  const csv = ['name,number', ...contacts.map((c) => `${c.name},+${c.jid.split('@')[0]}`)].join('\n')
  expect(await call('POST', '/contact/import', { csv, group_id: group._id })).toMatchObject({ imported: 20, refused: [] })

  const b = await call('POST', '/broadcast', { send_type: 'group', to: group._id, message: { text: '{Dear|Hello} [name], the tasting is on Friday at 19:00.' } })
  for (let i = 0; i < 200; i++) {
    await t.h.core.broadcasts.idle()
    if ((await call('GET', `/broadcast/${b._id}`)).status === 'done') break
    const next = clock.nextIn()
    if (next !== undefined) clock.advance(Math.max(0, next))
  }
  const done = await call('GET', `/broadcast/${b._id}`)
  expect(done).toMatchObject({ status: 'done', failed: [], skipped: [] })
  expect(done.sent).toHaveLength(20)

  for (const c of contacts) {
    expect(c.received(), c.name).toHaveLength(1)
    expect(c.received()[0]).toMatch(new RegExp(`^(Dear|Hello) ${c.name}, the tasting is on Friday at 19:00\\.$`))
    expect(c.chatStates()[0], c.name).toEqual({ state: 'composing', beforeMessage: 0 })
  }
})

it('three 463 refusals within an hour pause the broadcast with the reason; nobody after them gets it', async () => {
  const clock = new ManualClock()
  t = await startWaInstance({ core: { clock, timers: clock } })
  await linkByQr(t)
  await call('PUT', '/chatapp/updateActions', { send_default_msg: false })
  await call('PUT', '/chatapp/outreach', { number_since: '2020-01-01', quiet_hours: null })
  const contacts = Array.from({ length: 5 }, (_, i) => t!.server.contact(`1555400000${i}`, `Lead ${i}`))
  // WhatsApp refuses messages to the first three: the number may not start these chats (463).
  for (const c of contacts.slice(0, 3)) c.ackError = 463
  const b = await call('POST', '/broadcast', { send_type: 'individual', to: contacts.map((c) => c.jid.split('@')[0]).join(','), message: { text: 'Hello [name]' } })
  const settled = async () => ((await call('GET', '/chatapp/messages?limit=100')) as { fromMe: boolean; status: string }[]).filter((m) => m.fromMe).every((m) => m.status !== 'PENDING')
  for (let i = 0; i < 50; i++) {
    await t.h.core.broadcasts.idle()
    // Each refusal comes back from the server right after the send (the ack's `error`), before the next gap ends.
    await vi.waitFor(async () => expect(await settled()).toBe(true), { timeout: 5000 })
    if ((await call('GET', `/broadcast/${b._id}`)).status !== 'sending') break
    const next = clock.nextIn()
    if (next !== undefined) clock.advance(Math.max(0, next))
  }
  const paused = await call('GET', `/broadcast/${b._id}`)
  expect(paused.status).toBe('paused')
  expect(paused.status_reason).toMatch(/^paused: WhatsApp refused 3 messages within an hour \(error 463/)
  expect(paused.sent.map((s: { number: string }) => s.number)).toEqual(contacts.slice(0, 3).map((c) => c.jid.split('@')[0]))
  expect(paused.pending).toHaveLength(2)
  expect(contacts.map((c) => c.received().length)).toEqual([0, 0, 0, 0, 0])
})
