/**
 * A broadcast on the real channel (issue 14, done-when): 20 contacts of a contact group each decrypt
 * the message exactly once, and each saw "typing…" first (`sendPresenceUpdate('composing')` →
 * `<chatstate><composing/></chatstate>`, lib/Socket/chats.js). The governor's gaps run on a manual
 * clock; Baileys and the protocol test server run in real time.
 */
import { afterAll, afterEach, expect, it } from 'vitest'
import { linkByQr, startWaInstance, waTestFile, type WaInstance } from '../helpers/wa-instance'
import { ManualClock } from '../helpers/manual-clock'

afterAll(waTestFile())

let t: WaInstance | undefined
afterEach(async () => {
  await t?.close()
})

async function call(method: 'GET' | 'POST' | 'PUT', url: string, payload?: object) {
  const res = await t!.h.call({ method, url: `${url}?${t!.qs}`, ...(payload ? { payload: { ...t!.creds, ...payload } } : {}) })
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
