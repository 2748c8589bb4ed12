/**
 * The assistant's contract over HTTP (docs/assistant.md): its settings with a write-only key, where
 * its endpoint may be (loopback and LAN yes, this app's own API port no), who may configure and who
 * may see it, the shop's knowledge (CRUD, `q`, imports of real files), and the dry run against a real
 * OpenAI-compatible endpoint on loopback (test/support/openai-fake.ts): what the model is sent and
 * what the owner sees, with nothing sent to anybody.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { Writable } from 'node:stream'
import pino from 'pino'
import { makeHarness, type Harness } from '../helpers/harness'
import { startOpenAiFake, type OpenAiFake } from '../support/openai-fake'
import { makeDocx, makePdf } from '../support/documents'
import type { AssistantView, KnowledgeEntry, KnowledgeListItem } from '../../src/shared/schemas/assistant'

let h: Harness
let fake: OpenAiFake
let qs: string
let instanceId: string
let logged: string

beforeEach(async () => {
  logged = ''
  const sink = new Writable({
    write(chunk, _enc, done) {
      logged += String(chunk)
      done()
    }
  })
  h = await makeHarness({ passwordCostLog2: 12, logger: pino({ level: 'debug' }, sink), clock: { now: () => Date.parse('2026-11-24T13:05:00.000Z') } })
  fake = await startOpenAiFake()
  const c = await h.connectedInstance()
  qs = c.qs
  instanceId = c.inst._id
  await h.call({ method: 'PUT', url: `/chatapp/updateGeneral?${qs}`, payload: { bot_name: 'Trattoria Roma', bot_timezone: 'Europe/Rome' } })
})
afterEach(async () => {
  await h.close()
  await fake.close()
})

async function call(method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, payload?: object, headers?: Record<string, string>) {
  return h.call({ method, url: `${url}${url.includes('?') ? '&' : '?'}${qs}`, ...(payload ? { payload } : {}), ...(headers ? { headers } : {}) })
}

async function ok(method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, payload?: object) {
  const res = await call(method, url, payload)
  expect(res.statusCode, res.body).toBe(200)
  return res.json.data
}

describe('settings', () => {
  it('answers the defaults, then what was saved; the key only as api_key_set, nowhere else', async () => {
    const first = (await ok('GET', '/chatapp/assistant')) as AssistantView
    expect(first).toMatchObject({ enabled: false, base_url: '', model: '', api_key_set: false, history_messages: 10, daily_token_limit: 200_000, tokens_today: 0, timeout_ms: 30_000, circuit: { state: 'closed' } })
    expect(first).not.toHaveProperty('api_key')

    const saved = (await ok('PUT', '/chatapp/assistant', { enabled: true, base_url: `${fake.baseUrl}/`, model: 'fake-chat', api_key: 'sk-live-SECRET123', instructions: 'Be kind.' })) as AssistantView
    expect(saved).toMatchObject({ enabled: true, base_url: fake.baseUrl, model: 'fake-chat', api_key_set: true, instructions: 'Be kind.' })
    const everything = JSON.stringify([saved, await ok('GET', '/chatapp/assistant'), await ok('GET', '/chatapp/instance'), await h.call({ method: 'GET', url: '/chatapp' }).then((r) => r.json), await h.call({ method: 'GET', url: '/audit' }).then((r) => r.json)])
    expect(everything).not.toContain('SECRET123')
    expect(logged).toContain('assistant settings changed')
    expect(logged).not.toContain('SECRET123')

    // Omitted keeps the key, "" removes it.
    expect(((await ok('PUT', '/chatapp/assistant', { history_messages: 4 })) as AssistantView).api_key_set).toBe(true)
    expect(((await ok('PUT', '/chatapp/assistant', { api_key: '' })) as AssistantView).api_key_set).toBe(false)
  })

  it('refuses an endpoint that is not an http(s) /v1 root, carries a password, or is this app’s own API; allows loopback and LAN', async () => {
    const refused = async (payload: object, field: string, problem: RegExp) => {
      const res = await call('PUT', '/chatapp/assistant', payload)
      expect(res.statusCode, res.body).toBe(400)
      expect(res.json.error.details).toEqual([{ field, problem: expect.stringMatching(problem) }])
    }
    await refused({ base_url: 'ftp://models.local/v1' }, 'base_url', /http:\/\/ or https:\/\//)
    await refused({ base_url: 'not a url' }, 'base_url', /must be a URL/)
    await refused({ base_url: 'https://user:pw@api.example.com/v1' }, 'base_url', /put the key in api_key/)
    await refused({ base_url: 'https://api.example.com/v1?key=1' }, 'base_url', /without \? or #/)
    await refused({ enabled: true }, 'base_url', /needed to switch the assistant on/)
    await refused({ enabled: true, base_url: fake.baseUrl }, 'model', /needed to switch the assistant on/)
    await refused({ timeout_ms: 10 }, 'timeout_ms', /1000/)
    h.core.setOwnApiPort(43_210)
    await refused({ base_url: 'http://127.0.0.1:43210/v1' }, 'base_url', /own API/)
    await refused({ base_url: 'http://localhost:43210/v1' }, 'base_url', /own API/)
    expect((await ok('PUT', '/chatapp/assistant', { base_url: 'http://192.168.1.20:11434/v1' })).base_url).toBe('http://192.168.1.20:11434/v1')
    expect((await ok('PUT', '/chatapp/assistant', { base_url: 'http://127.0.0.1:11434/v1' })).base_url).toBe('http://127.0.0.1:11434/v1')
  })

  it('a manager configures it; an agent sees it and the knowledge but changes nothing', async () => {
    const token = async (login: string, role: 'manager' | 'agent') => {
      const created = await h.call({ method: 'POST', url: '/staff', payload: { name: login, login, role } })
      const code = decodeURIComponent(String(created.json.data.invite_url).split('#invite=')[1]!)
      await h.app.inject({ method: 'POST', url: '/auth/accept-invite', payload: { code, password: 'a long password 123' } })
      return (await h.app.inject({ method: 'POST', url: '/auth/password', payload: { login, password: 'a long password 123' } })).json().data.token as string
    }
    const manager = { authorization: `Bearer ${await token('mia', 'manager')}` }
    const agent = { authorization: `Bearer ${await token('ada', 'agent')}` }
    expect((await call('PUT', '/chatapp/assistant', { model: 'm1', api_key: 'sk-x' }, manager)).statusCode).toBe(200)
    expect((await call('POST', '/chatapp/knowledge', { title: 'Hours', content: 'Open 9-18.' }, manager)).statusCode).toBe(200)
    const seen = await call('GET', '/chatapp/assistant', undefined, agent)
    expect(seen.statusCode).toBe(200)
    expect(seen.json.data).toMatchObject({ model: 'm1', api_key_set: true })
    expect((await call('GET', '/chatapp/knowledge', undefined, agent)).json.data).toHaveLength(1)
    for (const [method, url, body] of [
      ['PUT', '/chatapp/assistant', { model: 'm2' }],
      ['POST', '/chatapp/knowledge', { title: 't', content: 'c' }],
      ['POST', '/chatapp/assistant/ask', { text: 'hi' }]
    ] as const) {
      const res = await call(method, url, body, agent)
      expect(res.statusCode, `${method} ${url}`).toBe(403)
      expect(res.json.message).toContain('bot:write')
    }
  })
})

describe('knowledge', () => {
  it('creates, lists newest first, finds by q with an excerpt, changes and deletes entries', async () => {
    const hours = (await ok('POST', '/chatapp/knowledge', { title: 'Opening hours', content: '# Week\n\nMonday to Saturday 12:00–23:00.\n\n# Sunday\n\nSunday we open at 18:00.' })) as KnowledgeEntry
    expect(hours).toMatchObject({ title: 'Opening hours', source: 'manual', file_name: null, chunks: 2, instance_id: instanceId })
    const menu = (await ok('POST', '/chatapp/knowledge', { title: 'Menu', content: 'Our Margherita costs 8 €. Vegan cheese on request.' })) as KnowledgeEntry

    const list = await call('GET', '/chatapp/knowledge')
    expect(list.headers['x-total-count']).toBe('2')
    expect((list.json.data as KnowledgeListItem[]).map((e) => e.title).sort()).toEqual(['Menu', 'Opening hours'])
    expect(list.json.data[0]).not.toHaveProperty('content')

    const found = (await ok('GET', '/chatapp/knowledge?q=sunday')) as KnowledgeListItem[]
    expect(found.map((e) => e._id)).toEqual([hours._id])
    expect(found[0]!.excerpt).toBe('Sunday\nSunday we open at 18:00.')
    expect(found[0]!.highlights).toEqual([
      [0, 6],
      [7, 13]
    ])
    expect(((await ok('GET', '/chatapp/knowledge?q=MARGHER')) as KnowledgeListItem[]).map((e) => e._id)).toEqual([menu._id])

    const changed = (await ok('PUT', `/chatapp/knowledge/${menu._id}`, { content: 'Our Diavola costs 9 €.' })) as KnowledgeEntry
    expect(changed).toMatchObject({ title: 'Menu', content: 'Our Diavola costs 9 €.', chunks: 1 })
    expect(await ok('GET', '/chatapp/knowledge?q=margherita')).toEqual([])
    expect((await ok('GET', `/chatapp/knowledge/${menu._id}`)).content).toBe('Our Diavola costs 9 €.')
    expect(await ok('DELETE', `/chatapp/knowledge/${menu._id}`)).toEqual({ n: 1, ok: 1, deletedCount: 1 })
    expect((await call('GET', `/chatapp/knowledge/${menu._id}`)).statusCode).toBe(404)
    expect((await call('DELETE', `/chatapp/knowledge/${menu._id}`)).statusCode).toBe(404)
    expect((await call('POST', '/chatapp/knowledge', { title: '', content: 'x' })).statusCode).toBe(400)
  })

  it('imports PDF, DOCX, CSV and Markdown files sent as multipart; refuses other kinds with 415', async () => {
    const upload = async (name: string, bytes: Buffer, title?: string) => {
      const boundary = 'XyZ'
      const parts = [
        ...(title ? [`--${boundary}\r\nContent-Disposition: form-data; name="title"\r\n\r\n${title}\r\n`] : []),
        `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${name}"\r\nContent-Type: application/octet-stream\r\n\r\n`
      ]
      const payload = Buffer.concat([Buffer.from(parts.join('')), bytes, Buffer.from(`\r\n--${boundary}--\r\n`)])
      return h.call({ method: 'POST', url: `/chatapp/knowledge/import?${qs}`, payload, headers: { 'content-type': `multipart/form-data; boundary=${boundary}` } })
    }
    const pdf = await upload('Delivery terms.pdf', makePdf([['Delivery', 'We deliver within 5 km, free above 20 euros.']]))
    expect(pdf.statusCode, pdf.body).toBe(200)
    expect(pdf.json.data).toMatchObject({ title: 'Delivery terms', source: 'file', file_name: 'Delivery terms.pdf', chunks: 1 })
    const docx = await upload('policies.docx', await makeDocx(['# Returns', 'Return within 30 days with the receipt.']), 'Our policies')
    expect(docx.json.data).toMatchObject({ title: 'Our policies', file_name: 'policies.docx' })
    const csv = await upload('faq.csv', Buffer.from('question,answer\nDo you have gluten-free pizza?,"Yes, every day."\nCan I pay by card?,Yes.\n'))
    expect(csv.json.data).toMatchObject({ title: 'faq', chunks: 2, content: 'Q: Do you have gluten-free pizza?\nA: Yes, every day.\n\nQ: Can I pay by card?\nA: Yes.' })
    expect((await upload('notes.md', Buffer.from('# Parking\n\nFree parking behind the shop.'))).json.data.chunks).toBe(1)
    expect(((await ok('GET', '/chatapp/knowledge?q=gluten')) as KnowledgeListItem[]).map((e) => e.title)).toEqual(['faq'])
    expect(((await ok('GET', '/chatapp/knowledge?q=euros')) as KnowledgeListItem[]).map((e) => e.title)).toEqual(['Delivery terms'])

    const png = await upload('photo.png', Buffer.from([0x89, 0x50, 0x4e, 0x47]))
    expect(png.statusCode).toBe(415)
    expect(png.json.message).toContain('.txt, .md, .pdf, .docx, .csv')
    const scanned = await upload('scan.pdf', makePdf([[]]))
    expect(scanned.statusCode).toBe(400)
    expect(scanned.json.message).toMatch(/OCR/)
    expect(((await ok('GET', '/chatapp/knowledge')) as unknown[]).length).toBe(4)
  })
})

describe('the dry run', () => {
  beforeEach(async () => {
    await ok('PUT', '/chatapp/assistant', { enabled: true, base_url: fake.baseUrl, model: 'fake-chat', api_key: 'sk-live-SECRET123', instructions: 'You are Roma’s assistant.' })
    await ok('POST', '/chatapp/knowledge', { title: 'Opening hours', content: 'Sunday we open at 18:00. Monday is our day off.' })
    await ok('POST', '/chatapp/knowledge', { title: 'Menu', content: 'Margherita 8 €, Diavola 9 €.' })
  })

  it('answers with the sources and usage, sends nothing, and shows the model the instructions, facts, knowledge and the hand-off tool', async () => {
    fake.script({ reply: 'On Sunday we open at 18:00.', usage: { prompt_tokens: 321, completion_tokens: 9 } })
    const before = (await ok('GET', '/chatapp/messages')).length
    const answer = await ok('POST', '/chatapp/assistant/ask', { text: 'When do you open on Sunday?' })
    expect(answer).toMatchObject({ reply: 'On Sunday we open at 18:00.', handoff: false, sources: [{ title: 'Opening hours' }], usage: { prompt_tokens: 321, completion_tokens: 9 }, model: 'fake-chat' })
    expect(answer.ms).toBeGreaterThanOrEqual(0)
    expect(answer).not.toHaveProperty('fallback')
    expect((await ok('GET', '/chatapp/messages')).length).toBe(before)

    const [sent] = fake.chats()
    expect(sent!.model).toBe('fake-chat')
    expect(sent!.tools?.map((t) => t.function.name)).toEqual(['handoff_to_human'])
    const system = sent!.messages[0]!
    expect(system.role).toBe('system')
    expect(system.content).toContain('You are Roma’s assistant.')
    expect(system.content).toContain('- Name: Trattoria Roma')
    expect(system.content).toContain('- Now: Tuesday 2026-11-24 14:05 (Europe/Rome)')
    expect(system.content).toMatch(/\[1\] Opening hours\nSunday we open at 18:00/)
    expect(sent!.messages.at(-1)).toEqual({ role: 'user', content: 'When do you open on Sunday?' })
    const req = fake.requests.find((r) => r.path === '/v1/chat/completions')!
    expect(req.headers.authorization).toBe('Bearer sk-live-SECRET123')

    const usage = await ok('GET', '/chatapp/assistant/usage')
    expect(usage).toEqual([{ day: '2026-11-24', prompt_tokens: 321, completion_tokens: 9, replies: 0, handoffs: 0, fallbacks: 0, asks: 1 }])
    expect((await ok('GET', '/chatapp/assistant')).tokens_today).toBe(330)
  })

  it('shows a hand-off as the customer would see it, and a failure as the fallback with its reason', async () => {
    fake.script({ toolCall: { name: 'handoff_to_human', arguments: '{"reason":"complaint about a cold pizza"}' } })
    expect(await ok('POST', '/chatapp/assistant/ask', { text: 'My pizza was cold!' })).toMatchObject({ handoff: true, handoff_reason: 'complaint about a cold pizza', reply: expect.stringContaining('passing you to a person') })
    await ok('PUT', '/chatapp/updateGeneral', { default_msg: 'Thanks! A person will answer soon.' })
    fake.script({ status: 500 })
    const failed = await ok('POST', '/chatapp/assistant/ask', { text: 'Open on Sunday?' })
    expect(failed).toMatchObject({ reply: 'Thanks! A person will answer soon.', handoff: false })
    expect(failed.fallback).toEqual({ reason: 'error', detail: 'the endpoint answered with an error: HTTP 500 Internal Server Error: the fake failed on purpose' })
    await ok('PUT', '/chatapp/assistant', { fallback: 'handoff' })
    fake.script({ reply: '' })
    expect(await ok('POST', '/chatapp/assistant/ask', { text: 'Open on Sunday?' })).toMatchObject({ handoff: true, fallback: { reason: 'unusable', detail: 'the answer could not be used: the model answered nothing' } })
  })

  it('names the chat’s customer in the texts it would send, or shows [name] when asked for no chat', async () => {
    await ok('PUT', '/chatapp/updateGeneral', { default_msg: 'Thanks [name]! A person will answer soon.' })
    // Switched off, so only the dry runs call the model (they work without the switch).
    await ok('PUT', '/chatapp/assistant', { enabled: false })
    await ok('PUT', '/chatapp/updateActions', { send_default_msg: false, reply_msgs: false })
    await ok('POST', '/chatapp/sandbox/inbound', { chatId: '15550002222', message: 'hello', pushName: 'Bea' })
    fake.script({ status: 500 }, { status: 500 })
    expect((await ok('POST', '/chatapp/assistant/ask', { text: 'Open on Sunday?', chat_id: '15550002222' })).reply).toBe('Thanks Bea! A person will answer soon.')
    // The chat's history comes first (joined with the question: one customer turn).
    expect(fake.chats().at(-1)!.messages.at(-1)).toEqual({ role: 'user', content: 'hello\nOpen on Sunday?' })
    expect((await ok('POST', '/chatapp/assistant/ask', { text: 'Open on Sunday?' })).reply).toBe('Thanks [name]! A person will answer soon.')
  })
})
