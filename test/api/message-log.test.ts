/**
 * The message log in the original service's shapes (docs/design.md §17): `GET /message-log?page=&limit=` for
 * this instance, `type=all` for every instance of the account, `GET /message-log/{id}`; newest first.
 */
import { afterEach, beforeEach, expect, it } from 'vitest'
import { makeHarness, type Harness } from '../helpers/harness'

let h: Harness
let now: number
beforeEach(async () => {
  now = Date.parse('2026-11-20T10:00:00.000Z')
  h = await makeHarness({ clock: { now: () => now } })
})
afterEach(async () => {
  await h.close()
})

it('pages this instance’s log newest first, every instance with type=all, and answers one entry', async () => {
  const a = await h.connectedInstance()
  const b = await h.connectedInstance()
  for (const inst of [a, b]) await h.call({ method: 'PUT', url: `/chatapp/updateActions?${inst.qs}`, payload: { send_default_msg: false } })
  const say = async (inst: { qs: string }, text: string) => {
    now += 1000
    const res = await h.call({ method: 'POST', url: `/chatapp/sandbox/inbound?${inst.qs}`, payload: { chatId: '15550001111', message: text, pushName: 'Ann', timestamp: Math.floor(now / 1000) } })
    return res.json.data.message.id as string
  }
  for (let i = 1; i <= 12; i++) await say(a, `a${i}`)
  const fromB = await say(b, 'b1')

  const page1 = await h.call({ method: 'GET', url: `/message-log?page=1&limit=5&${a.qs}` })
  expect(page1.statusCode, page1.body).toBe(200)
  expect(page1.json.message).toBe('Message log fetched successfully!')
  expect(page1.headers['x-total-count']).toBe('12')
  expect(page1.json.data.map((m: { text: string }) => m.text)).toEqual(['a12', 'a11', 'a10', 'a9', 'a8'])
  expect(page1.json.data[0]).toMatchObject({ instance_id: a.inst._id, chatId: '15550001111@s.whatsapp.net', fromMe: false, source: 'inbound', createdAt: '2026-11-20T10:00:12.000Z' })
  const page3 = await h.call({ method: 'GET', url: `/message-log?page=3&limit=5&${a.qs}` })
  expect(page3.json.data.map((m: { text: string }) => m.text)).toEqual(['a2', 'a1'])
  // Default: page 1 of 10.
  expect((await h.call({ method: 'GET', url: `/message-log?${a.qs}` })).json.data).toHaveLength(10)

  const all = await h.call({ method: 'GET', url: `/message-log?type=all&limit=3&${a.qs}` })
  expect(all.headers['x-total-count']).toBe('13')
  expect(all.json.data.map((m: { text: string; instance_id: string }) => [m.text, m.instance_id])).toEqual([
    ['b1', b.inst._id],
    ['a12', a.inst._id],
    ['a11', a.inst._id]
  ])

  const one = await h.call({ method: 'GET', url: `/message-log/${fromB}?${a.qs}` })
  expect(one.json.data).toMatchObject({ _id: fromB, instance_id: b.inst._id, text: 'b1' })
  expect((await h.call({ method: 'GET', url: `/message-log/nope?${a.qs}` })).statusCode).toBe(404)
  expect((await h.call({ method: 'GET', url: `/message-log?page=0&${a.qs}` })).statusCode).toBe(400)
})
