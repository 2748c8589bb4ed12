/**
 * Intents (docs/api-seed.md §4.2) and surveys (docs/api-seed.md §4.1, docs/design.md §9): messages, record shapes, updates,
 * deletes, action checks, and the survey responses route.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { makeHarness, type Harness } from '../helpers/harness'
import { png, multipart } from '../helpers/fixtures'
import { internalsOf } from '../../src/main/core'

let h: Harness
let creds: { session_id: string; access_token: string }
/** The core's clock: real time plus an offset the tests move instead of sleeping. */
let clockOffset = 0
beforeEach(async () => {
  clockOffset = 0
  h = await makeHarness({ clock: { now: () => Date.now() + clockOffset } })
  const inst = await h.createInstance()
  creds = { session_id: inst.session_id, access_token: inst.settings.access_token }
})
afterEach(async () => {
  await h.close()
})

const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/

describe('intents', () => {
  it('creates a reply-only intent with the seed shape', async () => {
    const res = await h.call({ method: 'POST', url: '/intent', payload: { ...creds, title: 'Greeting', keyword: 'hi,hello', reply: 'Hello [name]!' } })
    expect(res.statusCode).toBe(200)
    expect(res.json.message).toBe('Intent created successfully!')
    const d = res.json.data
    expect(d).toMatchObject({ title: 'Greeting', keyword: 'hi,hello', reply: 'Hello [name]!', __v: 0, client_id: h.core.account.id })
    expect(d._id).toMatch(/^[0-9a-f]{24}$/)
    expect(d.createdAt).toMatch(ISO_MS)
    expect(d.updatedAt).toBe(d.createdAt)
    expect('action' in d).toBe(false)
  })

  it('creates an intent with every action and checks references', async () => {
    const upload = multipart({ ...creds }, { filename: 'menu.png', contentType: 'image/png', data: await png() })
    const att = await h.call({ method: 'POST', url: '/attachment', ...upload })
    expect(att.statusCode).toBe(200)
    const step = await h.call({ method: 'POST', url: '/survey', payload: { ...creds, title: 'Feedback', keyword: 'feedback', reply: 'How was it?', sort_id: 1, action: {} } })
    const action = {
      send_location: { lat: '28.6139', lng: '77.2090', loc: 'Shop' },
      send_contact: { name: 'Owner', number: '+91 98765 43210' },
      send_file: att.json.data._id,
      send_photo: att.json.data._id,
      send_notification: { email: 'owner@example.com', chatapp_number: '919876543210' },
      add_to_group: '120363012345678901@g.us',
      start_survey: step.json.data._id
    }
    const res = await h.call({ method: 'POST', url: '/intent', payload: { ...creds, title: 'Menu', keyword: 'menu', reply: 'Here', action } })
    expect(res.statusCode).toBe(200)
    expect(res.json.data.action).toEqual(action)
  })

  it('refuses dangling or wrong action references with field details', async () => {
    const res = await h.call({
      method: 'POST',
      url: '/intent',
      payload: {
        ...creds,
        title: 'x',
        keyword: 'x',
        reply: 'x',
        action: { send_file: 'aaaaaaaaaaaaaaaaaaaaaaaa', start_survey: 'nope', add_to_group: 'not a group', send_notification: {} }
      }
    })
    expect(res.statusCode).toBe(400)
    const fields = res.json.error.details.map((d: { field: string }) => d.field)
    expect(fields).toEqual(['action.send_file', 'action.start_survey', 'action.add_to_group', 'action.send_notification'])
  })

  it('validates required and typed fields', async () => {
    const res = await h.call({ method: 'POST', url: '/intent', payload: { ...creds, title: 'x', reply: 5 } })
    expect(res.statusCode).toBe(400)
    expect(res.json.error.details).toEqual(
      expect.arrayContaining([
        { field: 'keyword', problem: 'is required' },
        { field: 'reply', problem: 'must be string' }
      ])
    )
    const blank = await h.call({ method: 'POST', url: '/intent', payload: { ...creds, title: 'x', keyword: ' , ', reply: 'r' } })
    expect(blank.statusCode).toBe(400)
    expect(blank.json.error.details[0].field).toBe('keyword')
  })

  it('lists, gets, updates and deletes', async () => {
    const a = (await h.call({ method: 'POST', url: '/intent', payload: { ...creds, title: 'A', keyword: 'a', reply: 'ra' } })).json.data
    await h.call({ method: 'POST', url: '/intent', payload: { ...creds, title: 'B', keyword: 'b', reply: 'rb', action: { add_to_group: '1203630@g.us' } } })
    const list = await h.call({ method: 'GET', url: '/intent', payload: creds })
    expect(list.json.message).toBe('Intent fetched successfully!')
    expect(list.json.data.map((i: { title: string }) => i.title)).toEqual(['A', 'B'])
    const one = await h.call({ method: 'GET', url: `/intent/${a._id}`, payload: creds })
    expect(one.json).toMatchObject({ message: 'Intent fetched successfully!', data: { _id: a._id, reply: 'ra' } })
    clockOffset += 1000
    const upd = await h.call({ method: 'PUT', url: `/intent/${a._id}`, payload: { ...creds, title: 'A2', keyword: 'a2', reply: 'ra2' } })
    expect(upd.json.message).toBe('Intent updated successfully!')
    expect(upd.json.data).toMatchObject({ title: 'A2', keyword: 'a2', reply: 'ra2', __v: 1, createdAt: a.createdAt })
    expect(upd.json.data.updatedAt > a.updatedAt).toBe(true)
    const del = await h.call({ method: 'DELETE', url: `/intent/${a._id}`, payload: creds })
    expect(del.json).toEqual({ status: true, message: 'Intent deleted successfully!', data: { n: 1, ok: 1, deletedCount: 1 } })
    const gone = await h.call({ method: 'GET', url: `/intent/${a._id}`, payload: creds })
    expect(gone.statusCode).toBe(404)
    const del2 = await h.call({ method: 'DELETE', url: `/intent/${a._id}`, payload: creds })
    expect(del2.statusCode).toBe(404)
  })

  it('removes an action with action:null', async () => {
    const a = (await h.call({ method: 'POST', url: '/intent', payload: { ...creds, title: 'A', keyword: 'a', reply: 'r', action: { add_to_group: '1203630@g.us' } } })).json.data
    const upd = await h.call({ method: 'PUT', url: `/intent/${a._id}`, payload: { ...creds, action: null } })
    expect(upd.statusCode).toBe(200)
    expect('action' in upd.json.data).toBe(false)
  })
})

describe('surveys', () => {
  it('creates steps with the seed messages, sort_id from a numeric string on update', async () => {
    const c = await h.call({ method: 'POST', url: '/survey', payload: { ...creds, title: 'Order', keyword: 'order', reply: 'What would you like?', sort_id: 1, action: {} } })
    expect(c.statusCode).toBe(200)
    expect(c.json.message).toBe('Survey created successfully!')
    expect(c.json.data).toMatchObject({ reply: 'What would you like?', client_id: h.core.account.id, sort_id: 1, __v: 0, action: {} })
    const upd = await h.call({ method: 'PUT', url: `/survey/${c.json.data._id}`, payload: { ...creds, reply: 'Your order?', sort_id: '3' } })
    expect(upd.json.message).toBe('Survey updated successfully!')
    expect(upd.json.data).toMatchObject({ reply: 'Your order?', sort_id: 3, __v: 1 })
    const bad = await h.call({ method: 'PUT', url: `/survey/${c.json.data._id}`, payload: { ...creds, sort_id: 'three' } })
    expect(bad.statusCode).toBe(400)
    expect(bad.json.error.details[0].field).toBe('sort_id')
  })

  it('lists steps grouped by title in sort order, and deletes', async () => {
    const mk = (title: string, sort_id: number, reply: string) =>
      h.call({ method: 'POST', url: '/survey', payload: { ...creds, title, keyword: '', reply, sort_id, action: {} } })
    await mk('Order', 2, 'Q2')
    await mk('Feedback', 1, 'F1')
    const q1 = await mk('Order', 1, 'Q1')
    const list = await h.call({ method: 'GET', url: '/survey', payload: creds })
    expect(list.json.message).toBe('Survey fetched successfully!')
    expect(list.json.data.map((s: { reply: string }) => s.reply)).toEqual(['Q1', 'Q2', 'F1'])
    const del = await h.call({ method: 'DELETE', url: `/survey/${q1.json.data._id}`, payload: creds })
    expect(del.json).toEqual({ status: true, message: 'Survey deleted successfully!', data: { n: 1, ok: 1, deletedCount: 1 } })
  })

  it('lists the runs of a survey on the responses route', async () => {
    const step = (await h.call({ method: 'POST', url: '/survey', payload: { ...creds, title: 'Order', keyword: 'order', reply: 'Q1', sort_id: 1, action: {} } })).json.data
    const inst = h.core.instances.authenticate(creds.session_id, creds.access_token)
    await internalsOf(h.core).storage.repos.surveyRuns.put({
        _id: 'run1',
        instance_id: inst._id,
        survey_title: 'Order',
        chatId: '15550001111@s.whatsapp.net',
        pushName: 'Ann',
        status: 'completed',
        current_step_id: null,
        answers: [{ step_id: step._id, question: 'Q1', answer: 'pizza', at: '2026-01-01T00:00:00.000Z' }],
        startedAt: '2026-01-01T00:00:00.000Z',
        updatedAt: '2026-01-01T00:00:00.000Z',
        completedAt: '2026-01-01T00:00:01.000Z'
    })
    await h.call({ method: 'PUT', url: '/chatapp/updateGeneral', payload: { ...creds, bot_timezone: 'UTC' } })
    const res = await h.call({ method: 'GET', url: `/survey/${step._id}/responses`, payload: creds })
    expect(res.statusCode).toBe(200)
    expect(res.json.data).toEqual([
      {
        _id: 'run1',
        chatId: '15550001111@s.whatsapp.net',
        pushName: 'Ann',
        phone: '+15550001111',
        status: 'completed',
        handled: false,
        answers: [{ step_id: step._id, question: 'Q1', answer: 'pizza', at: '2026-01-01T00:00:00.000Z' }],
        startedAt: '2026-01-01T00:00:00.000Z',
        completedAt: '2026-01-01T00:00:01.000Z',
        started_local: '2026-01-01 00:00',
        completed_local: '2026-01-01 00:00'
      }
    ])
    const unknown = await h.call({ method: 'GET', url: '/survey/aaaaaaaaaaaaaaaaaaaaaaaa/responses', payload: creds })
    expect(unknown.statusCode).toBe(404)
  })
})

describe('list paging', () => {
  it('answers a small list whole, as the seed does; offset and limit page a long one, the total in X-Total-Count', async () => {
    for (let i = 0; i < 5; i++) await h.call({ method: 'POST', url: '/intent', payload: { ...creds, title: `I${i}`, keyword: `k${i}`, reply: 'r' } })
    const all = await h.call({ method: 'GET', url: '/intent', payload: creds })
    expect(all.json.data.map((i: { title: string }) => i.title)).toEqual(['I0', 'I1', 'I2', 'I3', 'I4'])
    expect(all.headers['x-total-count']).toBe('5')
    const page = await h.call({ method: 'GET', url: `/intent?offset=1&limit=2&session_id=${creds.session_id}&access_token=${creds.access_token}` })
    expect(page.json).toMatchObject({ status: true, message: 'Intent fetched successfully!' })
    expect(page.json.data.map((i: { title: string }) => i.title)).toEqual(['I1', 'I2'])
    expect(page.headers['x-total-count']).toBe('5')
    const bad = await h.call({ method: 'GET', url: `/intent?limit=5000&session_id=${creds.session_id}&access_token=${creds.access_token}` })
    expect(bad.statusCode).toBe(400)
    expect(bad.json.error.details[0].field).toBe('limit')
  })
})
