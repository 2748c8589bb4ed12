/**
 * The assistant on the real channel (docs/assistant.md), Baileys against the WhatsApp protocol test
 * server, the model a real OpenAI-compatible endpoint on loopback (test/support/openai-fake.ts): a
 * customer's question gets the model's answer, with "typing…" shown before it (Baileys'
 * `sendPresenceUpdate('composing')`, lib/Socket/chats.js: a `<chatstate>` node the server records) and
 * stopped after (`paused`); a complaint is handed to a person: the model calls `handoff_to_human`,
 * the customer gets the hand-off message, the bot pauses for that chat, and a later message is left to
 * the person.
 */
import { afterAll, afterEach, expect, it, vi } from 'vitest'
import { linkByQr, startWaInstance, waTestFile, type WaInstance } from '../helpers/wa-instance'
import { startOpenAiFake, type OpenAiFake } from '../support/openai-fake'
import type { ChatPause, LoggedMessage } from '../../src/shared/schemas/records'

afterAll(waTestFile())

const WAIT = { timeout: 8000 }
const cleanup: Array<() => Promise<void>> = []
afterEach(async () => {
  for (const fn of cleanup.splice(0).reverse()) await fn().catch(() => {})
})

async function call(t: WaInstance, method: 'GET' | 'POST' | 'PUT', url: string, payload?: object) {
  const res = await t.h.call({ method, url: `${url}?${t.qs}`, ...(payload ? { payload: { ...t.creds, ...payload } } : {}) })
  expect(res.statusCode, res.body).toBe(200)
  return res.json.data
}

it('answers a customer’s question with the model’s answer and hands a complaint to a person', async () => {
  const fake: OpenAiFake = await startOpenAiFake()
  cleanup.push(() => fake.close())
  const t = await startWaInstance()
  cleanup.push(() => t.close())
  await linkByQr(t)
  await call(t, 'PUT', '/chatapp/updateGeneral', { bot_name: 'Trattoria Roma', default_msg: 'Thanks, we will answer soon.' })
  await call(t, 'POST', '/chatapp/knowledge', { title: 'Delivery', content: 'We deliver within 5 km every day, Sundays included, free above 20 euros.' })
  await call(t, 'PUT', '/chatapp/assistant', { enabled: true, base_url: fake.baseUrl, model: 'llama3.1:8b', debounce_ms: 200 })
  // The model: a complaint goes to a person, anything else is answered from the knowledge it was given.
  fake.reply = (req) => {
    const last = req.messages.at(-1)!.content
    if (/cold|unacceptable/i.test(last)) return { toolCall: { name: 'handoff_to_human', arguments: JSON.stringify({ reason: 'complaint about a cold pizza' }) } }
    const knows = req.messages[0]!.content.includes('Sundays included')
    return { reply: knows ? 'Yes, we deliver on Sundays too, free above 20 euros.' : 'I do not know.', usage: { prompt_tokens: 300, completion_tokens: 14 } }
  }

  const ana = t.server.contact('15551234567', 'Ana')
  const asked = await ana.sendText('Do you deliver on Sunday?')
  await vi.waitFor(() => expect(ana.received()).toEqual(['Yes, we deliver on Sundays too, free above 20 euros.']), WAIT)
  // "typing…" was shown before the answer arrived, and stopped after it.
  const states = ana.chatStates()
  expect(states.filter((s) => s.state === 'composing' && s.beforeMessage === 0).length).toBeGreaterThan(0)
  await vi.waitFor(() => expect(ana.chatStates().at(-1)).toEqual({ state: 'paused', beforeMessage: 1 }), WAIT)
  const log = (await call(t, 'GET', '/chatapp/messages')) as LoggedMessage[]
  expect(log.find((m) => m.id === asked)?.bot).toMatchObject({ action: 'assistant', assistant: { outcome: 'answered', model: 'llama3.1:8b', sources: [{ title: 'Delivery' }], prompt_tokens: 300 } })
  expect(fake.chats()).toHaveLength(1)

  const bea = t.server.contact('15557654321', 'Bea')
  await bea.sendText('My pizza arrived cold. This is unacceptable!')
  await vi.waitFor(() => expect(bea.received()).toEqual(['I’m passing you to a person on our team; they will answer you here as soon as they can.']), WAIT)
  const pauses = (await call(t, 'GET', '/chatapp/handoff')) as ChatPause[]
  expect(pauses).toEqual([expect.objectContaining({ chatId: bea.jid, reason: 'assistant', until: null })])
  // A person has Bea's chat now: her next message is theirs; Ana's chat still gets answers.
  const later = await bea.sendText('Hello??')
  await vi.waitFor(async () => expect(((await call(t, 'GET', '/chatapp/messages')) as LoggedMessage[]).find((m) => m.id === later)?.bot).toEqual({ action: 'none', reason: 'paused' }), WAIT)
  expect(fake.chats()).toHaveLength(2)
  expect(bea.received()).toHaveLength(1)
})
