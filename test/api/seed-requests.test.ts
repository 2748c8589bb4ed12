/**
 * The seed's request shapes that failed (docs/design.md §17, found by replaying the original documentation's
 * samples): settings updates without credentials, JSON sent without its content type, DELETE /intent
 * with a survey step's id, and `send_notification.whatsapp_number`.
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

it('applies a settings update sent without credentials to the only instance; with several, asks for them', async () => {
  const one = await h.createInstance()
  const res = await h.call({ method: 'PUT', url: '/chatapp/updateGeneral', payload: { bot_name: 'Pizzeria Marco' } })
  expect(res.statusCode, res.body).toBe(200)
  expect(h.core.instances.get(one._id).settings.bot_name).toBe('Pizzeria Marco')
  for (const [url, payload] of [
    ['/chatapp/updateActions', { reply_msgs: false }],
    ['/chatapp/updateActiveDays', { sunday: false }],
    ['/chatapp/updateActiveHours', { from: '9:00', to: '18:00' }]
  ] as const) {
    expect((await h.call({ method: 'PUT', url, payload })).statusCode, url).toBe(200)
  }
  expect(h.core.instances.get(one._id).settings).toMatchObject({ actions: { reply_msgs: false }, active_days: { sunday: false }, active_hours: { from: '9:00', to: '18:00' } })

  await h.createInstance()
  const two = await h.call({ method: 'PUT', url: '/chatapp/updateGeneral', payload: { bot_name: 'Which one?' } })
  expect(two.statusCode).toBe(400)
  expect(two.json.message).toBe('Invalid request: the account has 2 instances; pass session_id and access_token in the query string to say which.')
  // Other instance routes still need their credentials.
  expect((await h.call({ method: 'GET', url: '/intent' })).statusCode).toBe(400)
})

it('takes a JSON body whatever its content type, and says so when a body is not JSON', async () => {
  const inst = await h.createInstance()
  const creds = { session_id: inst.session_id, access_token: inst.settings.access_token }
  for (const type of ['text/plain', 'application/x-www-form-urlencoded', undefined]) {
    const res = await h.call({
      method: 'POST',
      url: '/intent',
      payload: JSON.stringify({ ...creds, title: `Hours ${type}`, keyword: 'open', reply: 'We are open.' }),
      headers: type ? { 'content-type': type } : {}
    })
    expect(res.statusCode, `${type}: ${res.body}`).toBe(200)
  }
  const form = await h.call({ method: 'POST', url: '/intent', payload: 'title=Hours&keyword=open', headers: { 'content-type': 'application/x-www-form-urlencoded' } })
  expect(form.statusCode).toBe(415)
  expect(form.json.message).toBe('Send the body as JSON (Content-Type: application/json), not application/x-www-form-urlencoded, as multipart/form-data on upload routes, or as application/octet-stream on POST /restore.')
  expect((await h.call({ method: 'GET', url: `/intent?session_id=${creds.session_id}&access_token=${creds.access_token}` })).json.data).toHaveLength(3)
})

it('deletes a survey step through DELETE /intent/{id}, and stores whatsapp_number as chatapp_number', async () => {
  const inst = await h.createInstance()
  const creds = { session_id: inst.session_id, access_token: inst.settings.access_token }
  const qs = new URLSearchParams(creds).toString()
  const step = (await h.call({ method: 'POST', url: '/survey', payload: { ...creds, title: 'Order', keyword: 'order', reply: 'What would you like?', sort_id: 1 } })).json.data
  const del = await h.call({ method: 'DELETE', url: `/intent/${step._id}?${qs}` })
  expect(del.statusCode, del.body).toBe(200)
  expect((await h.call({ method: 'GET', url: `/survey/${step._id}?${qs}` })).statusCode).toBe(404)
  expect((await h.call({ method: 'DELETE', url: `/intent/${step._id}?${qs}` })).statusCode).toBe(404)

  const intent = await h.call({
    method: 'POST',
    url: '/intent',
    payload: { ...creds, title: 'Order', keyword: 'order', reply: 'Coming!', action: { send_notification: { whatsapp_number: '15559990000', email: 'marco@example.com' } } }
  })
  expect(intent.statusCode, intent.body).toBe(200)
  expect(intent.json.data.action).toEqual({ send_notification: { chatapp_number: '15559990000', email: 'marco@example.com' } })
})
