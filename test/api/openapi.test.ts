/**
 * The OpenAPI 3.1 document: generated from the operation schemas, lists every seed
 * operation with its request schema, and the interactive page is served.
 */
import { afterAll, beforeAll, expect, it } from 'vitest'
import { makeHarness, type Harness } from '../helpers/harness'

let h: Harness
beforeAll(async () => {
  h = await makeHarness()
})
afterAll(async () => {
  await h.close()
})

const SEED_OPERATIONS = [
  ['post', '/survey'],
  ['get', '/survey'],
  ['put', '/survey/{survey_id}'],
  ['delete', '/survey/{survey_id}'],
  ['get', '/survey/{survey_id}/responses'],
  ['post', '/intent'],
  ['get', '/intent'],
  ['get', '/intent/{intent_id}'],
  ['put', '/intent/{intent_id}'],
  ['delete', '/intent/{intent_id}'],
  ['get', '/attachment'],
  ['post', '/attachment'],
  ['put', '/chatapp/updateGeneral'],
  ['put', '/chatapp/updateActions'],
  ['put', '/chatapp/updateActiveDays'],
  ['put', '/chatapp/updateActiveHours'],
  ['put', '/chatapp/setWebhook'],
  ['post', '/chatapp/createNewChatapp'],
  ['post', '/chatapp/init'],
  ['get', '/chatapp/scan'],
  ['get', '/chatapp/instance'],
  ['delete', '/chatapp/{instance_id}'],
  ['get', '/chatapp/instance/logout/{instance_id}'],
  ['get', '/chatapp'],
  ['post', '/chatapp/message'],
  ['post', '/chatapp/message/image'],
  ['post', '/chatapp/message/video'],
  ['post', '/chatapp/message/audio'],
  ['post', '/chatapp/message/doc'],
  ['post', '/chatapp/message/fileurl'],
  ['post', '/chatapp/message/button'],
  ['post', '/chatapp/message/contact'],
  ['post', '/chatapp/message/list'],
  ['post', '/chatapp/message/MediaButton'],
  ['post', '/chatapp/message/sendText'],
  ['post', '/chatapp/sendText']
]

it('documents every seed operation, without a token', async () => {
  const res = await h.app.inject({ method: 'GET', url: '/openapi.json' })
  expect(res.statusCode).toBe(200)
  const doc = res.json()
  expect(doc.openapi).toBe('3.1.0')
  for (const [method, path] of SEED_OPERATIONS) {
    expect(doc.paths[path!]?.[method!], `${method} ${path}`).toHaveProperty(['responses', '200'])
  }
  const intent = doc.paths['/intent'].post.requestBody.content['application/json'].schema
  expect(intent.required).toEqual(expect.arrayContaining(['title', 'keyword', 'reply']))
  expect(intent.properties.action.additionalProperties).toBe(false)
  const image = doc.paths['/chatapp/message/image'].post.requestBody.content['multipart/form-data'].schema
  expect(image.properties.file).toMatchObject({ type: 'string', format: 'binary' })
  expect(doc.components.securitySchemes.bearer).toEqual({ type: 'http', scheme: 'bearer' })
})

it('serves the interactive docs page', async () => {
  const res = await h.app.inject({ method: 'GET', url: '/docs' })
  const page = res.statusCode === 302 ? await h.app.inject({ method: 'GET', url: res.headers.location as string }) : res
  expect(page.statusCode).toBe(200)
  expect(page.body).toMatch(/swagger/i)
})

it('gives every operation an operationId, its errors, and a request example its own schema accepts', async () => {
  const doc = (await h.app.inject({ method: 'GET', url: '/openapi.json' })).json()
  const { makeAjv } = await import('../../src/main/validation')
  const ajv = makeAjv(false)
  let examples = 0
  for (const [path, methods] of Object.entries(doc.paths as Record<string, Record<string, any>>)) {
    for (const [method, op] of Object.entries(methods)) {
      expect(op.operationId, `${method} ${path}`).toMatch(/^[a-zA-Z]+\.[a-zA-Z]+/)
      if (path === '/health') continue // liveness: no input, nothing to refuse
      expect(Object.keys(op.responses), `${method} ${path}`).toEqual(expect.arrayContaining(['200', '400', '403', '500']))
      if (method === 'post' || method === 'put') expect(op.responses, `${method} ${path}`).toHaveProperty('413')
      const media = op.requestBody?.content?.['application/json']
      const fields = Object.keys(media?.schema?.properties ?? {}).filter((f) => f !== 'session_id' && f !== 'access_token')
      // A body with fields of its own shows an example (all-optional ones may show an empty one).
      if (media && (method === 'post' || method === 'put') && media.schema.required?.some((f: string) => fields.includes(f)))
        expect(Object.keys(media.example ?? {}), `${method} ${path}`).toEqual(expect.arrayContaining(media.schema.required.filter((f: string) => fields.includes(f))))
      if (media?.example === undefined) continue
      examples++
      const { example, ...rest } = media
      expect(ajv.validate(rest.schema, example), `${method} ${path}: ${JSON.stringify(ajv.errors)}`).toBe(true)
    }
  }
  expect(examples).toBeGreaterThan(30)
  expect(doc.paths['/chatapp/message'].post.requestBody.content['application/json'].example).toEqual({ chatId: '15551234567', message: 'Hello from Chatapp Desk!' })
  expect(doc.paths['/chatapp/message/image'].post.responses).toHaveProperty('415')
})

it('describes the webhook payloads per event', async () => {
  const doc = (await h.app.inject({ method: 'GET', url: '/openapi.json' })).json()
  expect(Object.keys(doc.webhooks)).toEqual(['onMessage', 'onAnyMessage', 'onConnection', 'onMessageStatus', 'onChatStatus', 'onHandoff', 'onAssignment', 'onMessageEdit', 'onMessageDelete', 'onMessageReaction', 'onPollVote'])
  const body = doc.webhooks.onChatStatus.post.requestBody.content['application/json'].schema
  expect(body.properties.event.const).toBe('onChatStatus')
  expect(body.properties.data.required).toEqual(['chatId', 'status', 'by'])
  expect(doc.webhooks.onMessage.post.description).toContain('webhook-signature')
})

it('names the permission (API key scope) each operation needs', async () => {
  const doc = (await h.app.inject({ method: 'GET', url: '/openapi.json' })).json()
  const send = doc.paths['/chatapp/message'].post
  expect(send['x-required-scope']).toBe('messages:send')
  expect(send.security).toEqual([{ bearer: ['messages:send'] }])
  expect(send.description).toContain('Requires the `messages:send` permission')
  expect(doc.paths['/staff'].post['x-required-scope']).toBe('admin')
  expect(doc.paths['/auth/password'].post.security).toEqual([])
})

it('runs the documented examples as they are: a text send and an intent', async () => {
  const doc = (await h.app.inject({ method: 'GET', url: '/openapi.json' })).json()
  const { qs } = await h.connectedInstance()
  for (const [method, path] of [
    ['post', '/chatapp/message'],
    ['post', '/intent'],
    ['put', '/chatapp/updateGeneral'],
    ['post', '/quick-reply']
  ] as const) {
    const example = doc.paths[path].post?.requestBody.content['application/json'].example ?? doc.paths[path][method].requestBody.content['application/json'].example
    const res = await h.call({ method: method.toUpperCase() as 'POST' | 'PUT', url: `${path}?${qs}`, payload: example })
    expect(res.statusCode, `${method} ${path}: ${res.body}`).toBe(200)
  }
})
