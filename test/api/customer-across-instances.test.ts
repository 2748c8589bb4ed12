/**
 * A customer who wrote to two of the shop's numbers: their data is exported and erased on every
 * instance the caller may reach with `type=all`, and the answer says which instances it covered; without
 * it, the instance named only. A key limited to one instance covers that one, whatever it asks.
 */
import { afterEach, beforeEach, expect, it } from 'vitest'
import { makeHarness, type Harness } from '../helpers/harness'

let h: Harness
beforeEach(async () => {
  h = await makeHarness()
})
afterEach(async () => {
  await h.close()
})

const ANN = '15550102000'

/** Two connected sandbox instances, named, each with Ann's chat (and a bystander's on the first). */
async function twoShops() {
  const a = await h.connectedInstance()
  const b = await h.connectedInstance()
  await h.instanceApi(a.qs)('PUT', '/chatapp/updateGeneral', { bot_name: 'Pizzeria' })
  await h.instanceApi(b.qs)('PUT', '/chatapp/updateGeneral', { bot_name: 'Deliveries' })
  // No default message: each chat holds what the test writes.
  for (const shop of [a, b]) await h.instanceApi(shop.qs)('PUT', '/chatapp/updateActions', { send_default_msg: false })
  for (const [shop, text] of [
    [a, 'a margherita please'],
    [b, 'where is my order?']
  ] as const) {
    await h.instanceApi(shop.qs)('POST', '/chatapp/sandbox/inbound', { chatId: ANN, message: text, pushName: 'Ann' })
    await h.instanceApi(shop.qs)('POST', '/chatapp/message', { chatId: ANN, message: `reply to: ${text}` })
  }
  await h.instanceApi(a.qs)('POST', '/chatapp/sandbox/inbound', { chatId: '15550109999', message: 'not Ann', pushName: 'Bo' })
  return { a, b }
}

const texts = (messages: Array<{ text: string; fromMe: boolean }>) => messages.filter((m) => !m.fromMe).map((m) => m.text)

it('exports from every instance the caller may reach with type=all, saying which; the instance named only without it', async () => {
  const { a, b } = await twoShops()
  const one = (await h.instanceApi(a.qs)('GET', `/chatapp/customer/export?number=%2B${ANN}`)).data
  expect(texts(one.messages)).toEqual(['a margherita please'])
  expect(one.instances).toEqual([{ instance_id: a.inst._id, name: 'Pizzeria', bot_number: a.inst.settings.bot_number, contact: true, messages: 2, survey_runs: 0 }])

  const all = (await h.instanceApi(a.qs)('GET', `/chatapp/customer/export?number=%2B${ANN}&type=all`)).data
  expect(all.instances.map((i: { name: string; messages: number }) => [i.name, i.messages])).toEqual([
    ['Pizzeria', 2],
    ['Deliveries', 2]
  ])
  expect(texts(all.messages)).toEqual(['a margherita please', 'where is my order?'])
  expect(new Set(all.messages.map((m: { instance_id: string }) => m.instance_id))).toEqual(new Set([a.inst._id, b.inst._id]))
  expect(all.contacts.map((c: { instance_id: string; name: string }) => [c.instance_id, c.name])).toEqual([
    [a.inst._id, 'Ann'],
    [b.inst._id, 'Ann']
  ])
  expect(JSON.stringify(all)).not.toContain('not Ann')

  const csv = await h.call({ method: 'GET', url: `/chatapp/customer/export?${a.qs}&number=${ANN}&type=all&format=csv` })
  expect(csv.statusCode).toBe(200)
  const lines = csv.body.trim().split('\n')
  expect(lines[0]).toBe('instance,time,chat,direction,source,name,type,text,status')
  expect(lines.filter((l) => l.startsWith('Pizzeria'))).toHaveLength(2)
  expect(lines.filter((l) => l.startsWith('Deliveries'))).toHaveLength(2)
})

it('erases from every instance with type=all and names them; without it, the other instance keeps its data', async () => {
  const { a, b } = await twoShops()
  const single = (await h.instanceApi(b.qs)('DELETE', `/chatapp/customer?number=${ANN}`)).data
  expect(single.instances).toEqual([expect.objectContaining({ instance_id: b.inst._id, name: 'Deliveries' })])
  expect((await h.instanceApi(a.qs)('GET', `/chatapp/customer/export?number=${ANN}`)).data.messages).toHaveLength(2)

  // Ann writes to the second number again; then the owner erases her everywhere.
  await h.instanceApi(b.qs)('POST', '/chatapp/sandbox/inbound', { chatId: ANN, message: 'forget me please', pushName: 'Ann' })
  const everywhere = (await h.instanceApi(a.qs)('DELETE', `/chatapp/customer?number=${ANN}&type=all`)).data
  expect(everywhere.instances.map((i: { name: string; deleted: { messages: number } }) => [i.name, i.deleted.messages])).toEqual([
    ['Pizzeria', 2],
    ['Deliveries', 1]
  ])
  expect(everywhere.deleted.messages).toBe(3)
  expect(everywhere.deleted.contacts).toBe(2)
  const after = (await h.instanceApi(a.qs)('GET', `/chatapp/customer/export?number=${ANN}&type=all`)).data
  expect(after.messages).toEqual([])
  expect(after.contacts).toEqual([])
  // The bystander is untouched.
  expect((await h.instanceApi(a.qs)('GET', '/chatapp/customer/export?number=15550109999')).data.messages).toHaveLength(1)
})

it('a key limited to one instance covers only that one with type=all', async () => {
  const { a, b } = await twoShops()
  const key = (await h.call({ method: 'POST', url: '/api-keys', payload: { name: 'privacy desk', scopes: ['admin'], instance_ids: [a.inst._id] } })).json.data.key as string
  const asKey = (url: string, method = 'GET') => h.app.inject({ method: method as 'GET', url, headers: { authorization: `Bearer ${key}` } })
  const res = await asKey(`/chatapp/customer?${a.qs}&number=${ANN}&type=all`, 'DELETE')
  expect(res.statusCode, res.body).toBe(200)
  expect(res.json().data.instances.map((i: { instance_id: string }) => i.instance_id)).toEqual([a.inst._id])
  expect((await h.instanceApi(b.qs)('GET', `/chatapp/customer/export?number=${ANN}`)).data.messages).toHaveLength(2)
})
