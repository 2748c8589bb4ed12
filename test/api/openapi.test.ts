/**
 * The OpenAPI 3.1 document (issue 2 §5): generated from the operation schemas, lists every seed
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
    expect(doc.paths[path!]?.[method!], `${method} ${path}`).toBeDefined()
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
