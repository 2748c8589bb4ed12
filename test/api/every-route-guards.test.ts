/**
 * Guards on every route, table-driven: no bearer token → 401; instance routes without credentials
 * → 400 naming session_id; with credentials that match no instance → 401. Unknown record ids → 404.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { makeHarness, type Harness } from '../helpers/harness'

let h: Harness
let qs: string
beforeAll(async () => {
  h = await makeHarness()
  ;({ qs } = await h.connectedInstance())
  // A second instance: the seed's settings updates without credentials then cannot pick one (docs/design.md §17).
  await h.createInstance()
})
afterAll(async () => {
  await h.close()
})

const ID = 'aaaaaaaaaaaaaaaaaaaaaaaa'
const ACCOUNT_ROUTES: Array<[string, string]> = [
  ['POST', '/chatapp/createNewChatapp'],
  ['GET', '/chatapp'],
  ['DELETE', `/chatapp/${ID}`]
]
const INSTANCE_ROUTES: Array<[string, string]> = [
  ['POST', '/survey'],
  ['GET', '/survey'],
  ['GET', `/survey/${ID}`],
  ['PUT', `/survey/${ID}`],
  ['DELETE', `/survey/${ID}`],
  ['GET', `/survey/${ID}/responses`],
  ['POST', '/intent'],
  ['GET', '/intent'],
  ['GET', `/intent/${ID}`],
  ['PUT', `/intent/${ID}`],
  ['DELETE', `/intent/${ID}`],
  ['GET', '/attachment'],
  ['GET', `/attachment/${ID}`],
  ['GET', `/attachment/${ID}/file`],
  ['DELETE', `/attachment/${ID}`],
  ['PUT', '/chatapp/updateGeneral'],
  ['PUT', '/chatapp/updateActions'],
  ['PUT', '/chatapp/updateActiveDays'],
  ['PUT', '/chatapp/updateActiveHours'],
  ['PUT', '/chatapp/setWebhook'],
  ['POST', '/chatapp/init'],
  ['GET', '/chatapp/scan'],
  ['POST', '/chatapp/pairingCode'],
  ['GET', '/chatapp/instance'],
  ['GET', `/chatapp/instance/logout/${ID}`],
  ['GET', '/chatapp/messages'],
  ['GET', `/chatapp/messages/${ID}/media`],
  ['GET', '/chatapp/bot/activity'],
  ['POST', '/chatapp/message'],
  ['POST', '/chatapp/message/fileurl'],
  ['POST', '/chatapp/message/button'],
  ['POST', '/chatapp/message/contact'],
  ['POST', '/chatapp/message/list'],
  ['POST', '/chatapp/message/MediaButton'],
  ['POST', '/chatapp/message/sendText'],
  ['POST', '/chatapp/sendText'],
  ['POST', '/chatapp/sandbox/scan'],
  ['POST', '/chatapp/sandbox/inbound'],
  ['GET', '/chatapp/webhook/deliveries'],
  ['POST', `/chatapp/webhook/deliveries/${ID}/retry`]
]
const MULTIPART_ROUTES = ['/attachment', '/chatapp/message/image', '/chatapp/message/video', '/chatapp/message/audio', '/chatapp/message/doc']

/** A body that passes schema validation for the route, so the credential check is what answers. */
function validBody(method: string, url: string): Record<string, unknown> | undefined {
  if (method === 'GET' || method === 'DELETE') return undefined
  const bodies: Record<string, Record<string, unknown>> = {
    '/survey': { title: 't', keyword: 'k', reply: 'r', sort_id: 1 },
    '/intent': { title: 't', keyword: 'k', reply: 'r' },
    '/chatapp/updateActiveHours': { from: 'always', to: 'always' },
    '/chatapp/setWebhook': { webhook_url: 'https://x.example', events: [] },
    '/chatapp/pairingCode': { phone: '15550001111' },
    '/chatapp/message': { chatId: '15550001111', message: 'x' },
    '/chatapp/message/fileurl': { chatId: '15550001111', url: 'https://x.example/a.png', type: 'image' },
    '/chatapp/message/button': { chatId: '1555000111', btndata: { text: 'x', buttons: [{ type: 'replyButton', title: 'a' }] } },
    '/chatapp/message/contact': { chatId: '1555000111', vcard: { fullName: 'a', phoneNumber: '123' } },
    '/chatapp/message/list': { chatId: '1555000111', msgdata: { text: 'x', sections: [{ rows: [{ title: 'a' }] }] } },
    '/chatapp/message/MediaButton': { chatId: '1555000111', btndata: { text: 'x', buttons: [{ type: 'replyButton', title: 'a' }], image: 'https://x.example/a.png' } },
    '/chatapp/message/sendText': { to: '15550001111', message: 'x' },
    '/chatapp/sendText': { to: '15550001111', message: 'x' },
    '/chatapp/sandbox/inbound': { chatId: '15550001111', message: 'x' }
  }
  return bodies[url.replace(/\/a{24}.*$/, '')] ?? {}
}

describe('every route', () => {
  it.each([...ACCOUNT_ROUTES, ...INSTANCE_ROUTES, ...MULTIPART_ROUTES.map((u) => ['POST', u] as [string, string])])(
    '%s %s needs the bearer token',
    async (method, url) => {
      const res = await h.app.inject({ method: method as 'GET', url })
      expect(res.statusCode).toBe(401)
      expect(res.json().error.code).toBe('UNAUTHORIZED')
    }
  )

  it.each(INSTANCE_ROUTES)('%s %s needs instance credentials (400) that match (401)', async (method, url) => {
    const payload = validBody(method, url)
    const missing = await h.call({ method: method as 'GET', url, payload })
    expect(missing.statusCode, missing.body).toBe(400)
    const soleInstanceRoute = /^\/chatapp\/update(General|Actions|ActiveDays|ActiveHours)$/.test(url)
    expect(missing.json.error.details).toEqual([{ field: 'session_id', problem: soleInstanceRoute ? 'is required when the account has several instances' : 'is required' }])
    const wrong = await h.call({ method: method as 'GET', url: `${url}?session_id=nope&access_token=nope`, payload })
    expect(wrong.statusCode, wrong.body).toBe(401)
  })

  it.each(MULTIPART_ROUTES)('POST %s (multipart) needs instance credentials that match', async (url) => {
    const { multipart, png } = await import('../helpers/fixtures')
    const form = multipart({ chatId: '15550001111' }, { filename: 'a.png', contentType: 'image/png', data: await png() })
    const missing = await h.call({ method: 'POST', url, ...form })
    expect(missing.statusCode).toBe(400)
    const wrong = await h.call({ method: 'POST', url: `${url}?session_id=nope&access_token=nope`, ...form })
    expect(wrong.statusCode).toBe(401)
  })

  it.each(INSTANCE_ROUTES.filter(([, u]) => u.includes(ID)))('%s %s with an unknown id is a 404', async (method, url) => {
    const res = await h.call({ method: method as 'GET', url: `${url}?${qs}`, payload: validBody(method, url) })
    expect(res.statusCode, res.body).toBe(404)
    expect(res.json.error.code).toBe('NOT_FOUND')
  })

  it('DELETE /chatapp/{unknown} is a 404', async () => {
    const res = await h.call({ method: 'DELETE', url: `/chatapp/${ID}` })
    expect(res.statusCode).toBe(404)
  })
})
