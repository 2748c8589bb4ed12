/**
 * Any text in a search box is searched or refused with a 400, never a 500: control characters (a
 * NUL from `q=abc%00`, which SQLite's FTS5 query parser reads as an unterminated string and
 * PostgreSQL cannot hold in text at all) separate terms like spaces. Over HTTP and the UI contract's
 * `/rpc`, for the message log, contacts and the inbox. `CHATAPP_TEST_DATABASE=postgres` runs it there.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { FastifyInstance } from 'fastify'
import { makeHarness, type Harness } from '../helpers/harness'
import { buildApiServer } from '../../src/main/api/server'
import { rpcPlugin } from '../../src/main/ui-contract/http-transport'
import { createHandlers } from '../../src/main/ui-contract/handlers'

let h: Harness
let web: FastifyInstance
let a: { inst: { _id: string }; qs: string }

beforeAll(async () => {
  h = await makeHarness()
  a = await h.connectedInstance()
  const send = h.instanceApi(a.qs)
  await send('POST', '/chatapp/sandbox/inbound', { chatId: '15550001111', message: 'abcdef pizza order', pushName: 'Ann' })
  await send('POST', '/contact', { name: 'abcdef Zed', number: '15550002222' })
  web = await buildApiServer(h.core, { host: '127.0.0.1', version: 'test', accountPlugins: [rpcPlugin(h.core, createHandlers(h.core, { baseUrl: () => '', mode: 'web', defaultChannel: 'sandbox' }))] })
  await web.ready()
})
afterAll(async () => {
  await web?.close()
  await h?.close()
})

const QUERIES = ['abc\u0000', '\u0000', 'abc\u0000def', 'ab\u0001c', 'abc\u0000 "', 'a\u0000']

describe('control characters in a search', () => {
  it.each(QUERIES)('GET /chatapp/messages?q=%j is searched', async (q) => {
    const res = await h.call({ method: 'GET', url: `/chatapp/messages?${a.qs}&q=${encodeURIComponent(q)}` })
    expect(res.statusCode, res.body).toBe(200)
    expect(Array.isArray(res.json.data)).toBe(true)
  })

  it('a NUL separates terms: "abc\\0" finds what "abc" finds', async () => {
    const plain = await h.call({ method: 'GET', url: `/chatapp/messages?${a.qs}&q=abc` })
    const nul = await h.call({ method: 'GET', url: `/chatapp/messages?${a.qs}&q=abc%00` })
    expect(plain.json.data.length).toBe(1)
    expect(nul.json.data.map((m: { id: string }) => m.id)).toEqual(plain.json.data.map((m: { id: string }) => m.id))
  })

  it.each(QUERIES)('/rpc/messages.list with q=%j is searched', async (q) => {
    const res = await web.inject({ method: 'POST', url: '/rpc/messages.list', headers: { authorization: `Bearer ${h.token}` }, payload: { instanceId: a.inst._id, q } })
    expect(res.statusCode, res.body).toBe(200)
  })

  it.each(QUERIES)('GET /contact and GET /chatapp/inbox with q=%j are searched', async (q) => {
    const contacts = await h.call({ method: 'GET', url: `/contact?${a.qs}&q=${encodeURIComponent(q)}` })
    expect(contacts.statusCode, contacts.body).toBe(200)
    const inbox = await h.call({ method: 'GET', url: `/chatapp/inbox?q=${encodeURIComponent(q)}` })
    expect(inbox.statusCode, inbox.body).toBe(200)
  })

  it('a NUL in a contact or inbox search finds what the text around it finds', async () => {
    const contacts = await h.call({ method: 'GET', url: `/contact?${a.qs}&q=abcdef%00` })
    expect(contacts.json.data.map((c: { name: string }) => c.name)).toEqual(['abcdef Zed'])
    const inbox = await h.call({ method: 'GET', url: `/chatapp/inbox?q=abcdef%00` })
    expect(inbox.json.data.length).toBe(1)
  })
})
