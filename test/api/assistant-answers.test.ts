/**
 * The assistant answering customers on the sandbox channel (docs/assistant.md), one behaviour a test,
 * against a real OpenAI-compatible endpoint on loopback (test/support/openai-fake.ts): its place in the
 * bot's order (opt-out → hand-off → survey → intents → assistant → default message), the answer with
 * "typing…" around it and its record (the "why", the activity, the usage), the hand-off tool, a burst
 * answered once, the fallbacks (timeout, error, unusable answer, the day's tokens) and the circuit
 * with the health saying why, the hourly cap per chat, opening hours, voice notes, embeddings, and a
 * customer's export and erasure.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { makeHarness, type Harness } from '../helpers/harness'
import { startReceiver, type Receiver } from '../helpers/webhook-receiver'
import { startOpenAiFake, type OpenAiFake } from '../support/openai-fake'
import { internalsOf } from '../../src/main/core'
import { SandboxSession } from '../../src/main/channel/sandbox-channel'
import { createHandlers } from '../../src/main/ui-contract/handlers'
import type { InboundMessage } from '../../src/main/channel/types'
import { WEBHOOK_EVENTS, type BotActivity, type ChatPause, type LoggedMessage } from '../../src/shared/schemas/records'

let h: Harness
let fake: OpenAiFake
let qs: string
let creds: { session_id: string; access_token: string }
let instanceId: string
let now: number
const CUSTOMER = '15550001111'
const CHAT = `${CUSTOMER}@s.whatsapp.net`

beforeEach(async () => {
  // Tuesday 14:05 in Rome: open (the default window is every day, all day, until set below).
  now = Date.parse('2026-11-24T13:05:00.000Z')
  h = await makeHarness({ clock: { now: () => now } })
  fake = await startOpenAiFake()
  const c = await h.connectedInstance()
  ;({ qs, creds } = c)
  instanceId = c.inst._id
  await ok('PUT', '/chatapp/updateGeneral', { bot_name: 'Trattoria Roma', bot_timezone: 'Europe/Rome', default_msg: 'Thanks [name]! We will answer soon.' })
  await ok('PUT', '/chatapp/assistant', { enabled: true, base_url: fake.baseUrl, model: 'fake-chat', debounce_ms: 0 })
  await ok('POST', '/chatapp/knowledge', { title: 'Opening hours', content: 'Sunday we open at 18:00. Monday is our day off.' })
  await ok('POST', '/chatapp/knowledge', { title: 'Delivery', content: 'We deliver within 5 km, free above 20 euros.' })
})
afterEach(async () => {
  await h.close()
  await fake.close()
})

async function ok(method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, payload?: object) {
  const res = await h.call({ method, url: url.startsWith('/intent') || url.startsWith('/survey') ? url : `${url}${url.includes('?') ? '&' : '?'}${qs}`, ...(payload ? { payload } : {}) })
  expect(res.statusCode, `${method} ${url}: ${res.body}`).toBe(200)
  return res.json.data
}

/** A customer's message through the sandbox; answers it as logged (with the bot's decision). */
async function customer(message: string, extra: object = {}): Promise<LoggedMessage> {
  return (await ok('POST', '/chatapp/sandbox/inbound', { chatId: CUSTOMER, message, pushName: 'Ann', ...extra })).message
}

/** Waits until the answers under way are sent (or fell back) and recorded. */
const settled = () => internalsOf(h.core).responder.idle()

const log = async (): Promise<LoggedMessage[]> => ok('GET', '/chatapp/messages')
const botTexts = async () => (await log()).filter((m) => m.source === 'bot').map((m) => m.text)
const session = () => internalsOf(h.core).sessions.get(instanceId) as SandboxSession

describe('answering', () => {
  it('answers a question no intent matched with the model’s reply, typing meanwhile, and records model, tokens, ms and sources', async () => {
    fake.script({ reply: 'On Sunday we open at 18:00, Ann.', usage: { prompt_tokens: 400, completion_tokens: 11 } })
    const asked = await customer('When do you open on Sunday?')
    expect(asked.bot).toEqual({ action: 'assistant', ref: 'fake-chat' })
    await settled()
    expect(await botTexts()).toEqual(['On Sunday we open at 18:00, Ann.'])
    const reply = (await log()).find((m) => m.source === 'bot')!
    expect(reply).toMatchObject({ chatId: CHAT, fromMe: true, sent_by: { kind: 'bot' } })

    const states = session().chatStates.filter((s) => s.jid === CHAT).map((s) => s.state)
    expect(states[0]).toBe('composing')
    expect(states.at(-1)).toBe('paused')

    // No key set (a local model): no Authorization header at all.
    expect(fake.requests.find((r) => r.path === '/v1/chat/completions')!.headers).not.toHaveProperty('authorization')
    const why = (await log()).find((m) => m.id === asked.id)!.bot!
    expect(why).toMatchObject({ action: 'assistant', ref: 'fake-chat', assistant: { outcome: 'answered', model: 'fake-chat', prompt_tokens: 400, completion_tokens: 11, sources: [{ title: 'Opening hours' }], message_ids: [asked.id] } })
    expect(why.assistant!.ms).toBeGreaterThanOrEqual(0)
    const activity = (await ok('GET', '/chatapp/bot/activity')) as BotActivity[]
    expect(activity.at(-1)).toMatchObject({ chatId: CHAT, messageId: asked.id, matched: 'the assistant', actions: [{ action: 'assistant_reply', ok: true }], assistant: { outcome: 'answered', prompt_tokens: 400 } })
    expect(await ok('GET', '/chatapp/assistant/usage')).toEqual([{ day: '2026-11-24', prompt_tokens: 400, completion_tokens: 11, replies: 1, handoffs: 0, fallbacks: 0, asks: 0 }])

    // The model saw the chat's history: the earlier question and answer, then the new one.
    fake.script({ reply: 'Yes, within 5 km.' })
    await customer('And do you deliver?')
    await settled()
    expect(fake.chats()[1]!.messages.slice(1)).toEqual([
      { role: 'user', content: 'When do you open on Sunday?' },
      { role: 'assistant', content: 'On Sunday we open at 18:00, Ann.' },
      { role: 'user', content: 'And do you deliver?' }
    ])
  })

  it('reads its settings and the chat’s answers beside the bot’s own reads, not after them; an assistant seen off is read only when no intent answers, and its switching on counts at once', async () => {
    const responder = internalsOf(h.core).responder
    const started: unknown[] = []
    const given: unknown[] = []
    const prepare = responder.prepare.bind(responder)
    const plan = responder.plan.bind(responder)
    responder.prepare = (inst, msg) => {
      const ahead = prepare(inst, msg)
      started.push(ahead)
      return ahead
    }
    responder.plan = (...args) => {
      given.push(args[4])
      return plan(...args)
    }
    let n = 0
    const message = (text: string): InboundMessage => ({ id: `AHEAD${++n}`, chatId: CHAT, senderId: CHAT, fromMe: false, pushName: 'Ann', type: 'text', text, timestamp: Math.floor(now / 1000), offline: false })
    let fresh!: (isNew: boolean) => void
    const deciding = h.core.bot.decide(instanceId, message('Do you deliver?'), new Promise<boolean>((resolve) => (fresh = resolve)))
    // The engine waits for its own reads (the log's duplicate check, held here): the assistant's are under way.
    expect(started).toHaveLength(1)
    expect(started[0]).toMatchObject({ instanceId, chatId: CHAT })
    expect(given).toEqual([])
    fresh(true)
    const decided = await deciding
    expect(decided.record).toEqual({ action: 'assistant', ref: 'fake-chat' })
    expect(given[0]).toBe(started[0])

    // Switched off: the plan reads it so; the next message reads nothing ahead and gets the default message.
    await ok('PUT', '/chatapp/assistant', { enabled: false })
    expect((await h.core.bot.decide(instanceId, message('And on Sunday?'))).record).toEqual({ action: 'default' })
    expect((await h.core.bot.decide(instanceId, message('Hello?'))).record).toEqual({ action: 'none', reason: 'default_sent_recently' })
    expect(started.slice(1)).toEqual([expect.objectContaining({ instanceId }), null])
    // Switched on again: the very next message is the assistant's.
    await ok('PUT', '/chatapp/assistant', { enabled: true })
    expect((await h.core.bot.decide(instanceId, message('Are you open?'))).record).toEqual({ action: 'assistant', ref: 'fake-chat' })
    expect(started.at(-1)).toBeNull()
  })

  it('reads an answer’s history, tokens and knowledge with its message’s decision when it will start at once, and the model sees the chat as it was', async () => {
    const responder = internalsOf(h.core).responder
    const started: Array<ReturnType<typeof responder.prepare>> = []
    const prepare = responder.prepare.bind(responder)
    responder.prepare = (inst, msg) => {
      const ahead = prepare(inst, msg)
      started.push(ahead)
      return ahead
    }
    fake.script({ reply: 'Yes, within 5 km.' })
    await customer('Do you deliver?')
    await settled()
    // The first message: the settings were not known yet, so only the decision's own reads went ahead.
    expect(started[0]).not.toHaveProperty('answer')
    fake.script({ reply: 'Free above 20 euros.' })
    await customer('Is delivery free?')
    await settled()
    expect(started[1]).toHaveProperty('answer')
    expect(fake.chats()[1]!.messages.slice(1)).toEqual([
      { role: 'user', content: 'Do you deliver?' },
      { role: 'assistant', content: 'Yes, within 5 km.' },
      { role: 'user', content: 'Is delivery free?' }
    ])
    // Its knowledge was found with those reads: the passage about delivery.
    expect(fake.chats()[1]!.messages[0]!.content).toContain('free above 20 euros')
    // With a debounce the answer waits, and reads when it starts: what the first message read ahead
    // (the settings last read had no debounce) goes unused, and the next message reads nothing ahead.
    await ok('PUT', '/chatapp/assistant', { debounce_ms: 50 })
    fake.script({ reply: 'Until 23:00.' })
    await customer('How late do you deliver?')
    await customer('On Sunday?')
    await settled()
    expect(started.slice(2).map((a) => a !== null && 'answer' in a)).toEqual([true, false])
    expect(fake.chats()).toHaveLength(3)
    expect(fake.chats()[2]!.messages.slice(1)).toEqual([
      { role: 'user', content: 'Do you deliver?' },
      { role: 'assistant', content: 'Yes, within 5 km.' },
      { role: 'user', content: 'Is delivery free?' },
      { role: 'assistant', content: 'Free above 20 euros.' },
      { role: 'user', content: 'How late do you deliver?\nOn Sunday?' }
    ])
    // The option lookback's 20 messages, read with the decision, serve as the history: the model
    // still sees exactly the last `history_messages` before the question.
    await ok('PUT', '/chatapp/assistant', { debounce_ms: 0, history_messages: 2 })
    fake.script({ reply: 'Yes.' })
    await customer('Card payment?')
    await settled()
    fake.script({ reply: 'No, sorry.' })
    await customer('Cash?')
    await settled()
    expect(started.at(-1)).toHaveProperty('answer')
    expect(fake.chats().at(-1)!.messages.slice(1)).toEqual([
      { role: 'user', content: 'Card payment?' },
      { role: 'assistant', content: 'Yes.' },
      { role: 'user', content: 'Cash?' }
    ])
  })

  it('comes after opt-out, a paused chat, a survey in progress and intents; the default message only when it is off', async () => {
    await ok('POST', '/intent', { ...creds, title: 'Menu', keyword: 'menu', reply: 'Here is our menu.' })
    await ok('POST', '/survey', { ...creds, title: 'Booking', keyword: 'book', reply: 'For how many people?', sort_id: 1 })
    await ok('POST', '/survey', { ...creds, title: 'Booking', keyword: '', reply: 'At what time?', sort_id: 2 })
    expect((await customer('menu')).bot).toEqual({ action: 'intent', ref: 'Menu' })
    expect((await customer('book')).bot).toMatchObject({ action: 'survey' })
    expect((await customer('four of us, is there vegan food?')).bot).toMatchObject({ action: 'survey' })
    expect((await customer('at 8, do you have a terrace?')).bot).toMatchObject({ action: 'survey' })
    expect((await customer('STOP')).bot).toEqual({ action: 'opt_out' })
    await ok('POST', '/chatapp/handoff/pause', { chatId: CUSTOMER })
    expect((await customer('hello?')).bot).toEqual({ action: 'none', reason: 'paused' })
    await ok('POST', '/chatapp/handoff/resume', { chatId: CUSTOMER })
    await settled()
    expect(fake.chats()).toEqual([])

    expect((await customer('do you deliver?')).bot).toEqual({ action: 'assistant', ref: 'fake-chat' })
    await settled()
    expect(fake.chats()).toHaveLength(1)
    await ok('PUT', '/chatapp/assistant', { enabled: false })
    expect((await customer('anything else?')).bot).toEqual({ action: 'default' })
    expect(fake.chats()).toHaveLength(1)
  })

  it('a burst of messages is answered once, after the debounce, with all of them', async () => {
    // The default wait (2 s): a message through the sandbox takes a few hundred ms on a busy machine,
    // so a shorter one could end between two messages of the burst.
    await ok('PUT', '/chatapp/assistant', { debounce_ms: 2000 })
    const sent = [await customer('Hi'), await customer('do you deliver'), await customer('to Via Roma 5?')]
    // Answered on its own once the wait is over (no flush from the test).
    await vi.waitFor(async () => expect(await botTexts()).toHaveLength(1), { timeout: 10_000 })
    await settled()
    expect(fake.chats()).toHaveLength(1)
    expect(fake.chats()[0]!.messages.at(-1)).toEqual({ role: 'user', content: 'Hi\ndo you deliver\nto Via Roma 5?' })
    const why = (await log()).filter((m) => sent.some((s) => s.id === m.id)).map((m) => m.bot?.assistant?.message_ids)
    expect(why).toEqual([sent.map((s) => s.id), sent.map((s) => s.id), sent.map((s) => s.id)])
  })

  it('a person who takes the chat over while its answer waits (the debounce, or the chat’s previous answer) gets no answer from it', async () => {
    const tookOver = { outcome: 'fallback', fallback: 'none', error: 'a person took the chat over before the answer' }
    // Waiting for the debounce: the answer reads the pause again when it starts.
    await ok('PUT', '/chatapp/assistant', { debounce_ms: 15_000 })
    const waiting = await customer('do you deliver?')
    await ok('POST', '/chatapp/handoff/pause', { chatId: CUSTOMER })
    await settled()
    expect(await botTexts()).toEqual([])
    expect((await log()).find((m) => m.id === waiting.id)!.bot!.assistant).toMatchObject(tookOver)
    await ok('POST', '/chatapp/handoff/resume', { chatId: CUSTOMER })

    // No debounce, but behind the chat's previous answer (the model still writing it).
    await ok('PUT', '/chatapp/assistant', { debounce_ms: 0 })
    let release!: () => void
    fake.script({ reply: 'Yes, within 5 km.', after: new Promise<void>((r) => (release = r)) }, { reply: 'Never sent.' })
    await customer('do you deliver to Via Roma?')
    await vi.waitFor(() => expect(fake.chats()).toHaveLength(1))
    const queued = await customer('and on Sundays?')
    await ok('POST', '/chatapp/handoff/pause', { chatId: CUSTOMER })
    release()
    await settled()
    expect(await botTexts()).toEqual(['Yes, within 5 km.'])
    expect(fake.chats()).toHaveLength(1)
    expect((await log()).find((m) => m.id === queued.id)!.bot!.assistant).toMatchObject(tookOver)
  })

  it('the hand-off tool hands the chat to a person as the keyword does: paused until resumed, the webhook, the handoff message', async () => {
    const receiver: Receiver = await startReceiver()
    try {
      await ok('PUT', '/chatapp/setWebhook', { webhook_url: receiver.url, events: ['onHandoff'] })
      await ok('PUT', '/chatapp/updateActions', { send_webhook: true })
      fake.script({ toolCall: { name: 'handoff_to_human', arguments: '{"reason":"complaint: cold pizza"}' } })
      const asked = await customer('My pizza arrived cold, this is unacceptable!')
      await settled()
      expect(await botTexts()).toEqual(['I’m passing you to a person on our team; they will answer you here as soon as they can.'])
      const pauses = (await ok('GET', '/chatapp/handoff')) as ChatPause[]
      expect(pauses).toEqual([expect.objectContaining({ chatId: CHAT, reason: 'assistant', until: null })])
      expect((await log()).find((m) => m.id === asked.id)!.bot!.assistant).toMatchObject({ outcome: 'handoff', handoff_reason: 'complaint: cold pizza' })
      await vi.waitFor(() => expect(receiver.requests.map((r) => r.json)).toEqual([expect.objectContaining({ event: 'onHandoff', data: expect.objectContaining({ chatId: CHAT, pause: expect.objectContaining({ reason: 'assistant' }) }) })]), { timeout: 5000 })
      // A person has the chat now: the bot stays quiet.
      expect((await customer('hello??')).bot).toEqual({ action: 'none', reason: 'paused' })
      expect(await ok('GET', '/chatapp/assistant/usage')).toEqual([expect.objectContaining({ handoffs: 1, replies: 0 })])
    } finally {
      await receiver.stop()
    }
  })

  it('the endpoint’s key is in no webhook of any event, whatever the assistant did', async () => {
    const receiver: Receiver = await startReceiver()
    try {
      await ok('PUT', '/chatapp/setWebhook', { webhook_url: receiver.url, events: [...WEBHOOK_EVENTS] })
      await ok('PUT', '/chatapp/updateActions', { send_webhook: true })
      await ok('PUT', '/chatapp/assistant', { api_key: 'sk-live-WEBHOOKSECRET' })
      await customer('Do you deliver?')
      await settled()
      fake.script({ status: 500 })
      await customer('And on Sunday?')
      await settled()
      fake.script({ toolCall: { name: 'handoff_to_human', arguments: '{"reason":"asks for a person"}' } })
      await customer('Can I talk to a person?')
      await settled()
      expect(fake.requests.filter((r) => r.path === '/v1/chat/completions').every((r) => r.headers.authorization === 'Bearer sk-live-WEBHOOKSECRET')).toBe(true)
      await vi.waitFor(() => expect(receiver.requests.some((r) => r.json?.event === 'onHandoff')).toBe(true), { timeout: 5000 })
      expect(receiver.requests.length).toBeGreaterThan(5)
      expect(JSON.stringify(receiver.requests.map((r) => [r.headers, r.json]))).not.toContain('WEBHOOKSECRET')
    } finally {
      await receiver.stop()
    }
  })

  it('a hand-off the model writes as text (small local models) counts as the tool call', async () => {
    fake.script({ reply: '<tool_call>{"name": "handoff_to_human", "arguments": {"reason": "wants a refund"}}</tool_call>' })
    await customer('I want my money back')
    await settled()
    expect((await ok('GET', '/chatapp/handoff'))[0]).toMatchObject({ reason: 'assistant' })
    expect(await botTexts()).toEqual(['I’m passing you to a person on our team; they will answer you here as soon as they can.'])
  })
})

describe('fallbacks', () => {
  it('a timeout, an error and an unusable answer send the default message (once in 10 minutes), never silence, and say why', async () => {
    await ok('PUT', '/chatapp/assistant', { timeout_ms: 1000 })
    fake.script({ hang: true })
    const slow = await customer('Do you deliver?')
    await settled()
    expect(await botTexts()).toEqual(['Thanks Ann! We will answer soon.'])
    expect((await log()).find((m) => m.id === slow.id)!.bot!.assistant).toMatchObject({ outcome: 'fallback', fallback: 'default', error: 'no answer in time: timed out after 1000 ms' })

    fake.script({ status: 503, message: 'model is loading' })
    const failed = await customer('Hello?')
    await settled()
    // Within 10 minutes of the last fallback: recorded, nothing sent twice.
    expect((await log()).find((m) => m.id === failed.id)!.bot!.assistant).toMatchObject({ fallback: 'none', error: 'the endpoint answered with an error: HTTP 503 Service Unavailable: model is loading' })
    expect(await botTexts()).toHaveLength(1)

    now += 11 * 60_000
    fake.script({ reply: '   ' })
    const empty = await customer('Anyone?')
    await settled()
    expect((await log()).find((m) => m.id === empty.id)!.bot!.assistant).toMatchObject({ fallback: 'default', error: 'the answer could not be used: the model answered nothing' })
    expect(await botTexts()).toHaveLength(2)
  })

  it('the owner may choose the hand-off as the fallback', async () => {
    await ok('PUT', '/chatapp/assistant', { fallback: 'handoff' })
    fake.script({ status: 500 })
    await customer('Do you deliver?')
    await settled()
    expect(await botTexts()).toEqual(['I’m passing you to a person on our team; they will answer you here as soon as they can.'])
    expect((await ok('GET', '/chatapp/handoff'))[0]).toMatchObject({ chatId: CHAT, reason: 'assistant' })
  })

  it('once the day’s tokens are spent the model is not called; the next day it is again', async () => {
    await ok('PUT', '/chatapp/assistant', { daily_token_limit: 2000 })
    fake.script({ reply: 'Yes.', usage: { prompt_tokens: 1900, completion_tokens: 50 } })
    await customer('Do you deliver?')
    await settled()
    const asked = await customer('And on Sunday?')
    await settled()
    expect(fake.chats()).toHaveLength(1)
    expect((await log()).find((m) => m.id === asked.id)!.bot!.assistant).toMatchObject({ outcome: 'fallback', fallback: 'default', error: expect.stringMatching(/^daily token limit reached: today’s 2,000 tokens/) })
    expect((await ok('GET', '/chatapp/assistant')).tokens_today).toBe(1950)
    now += 24 * 3_600_000
    await customer('Open today?')
    await settled()
    expect(fake.chats()).toHaveLength(2)
  })

  it('once the day’s tokens are spent the question is not embedded either; the knowledge is still searched by its text', async () => {
    await ok('PUT', '/chatapp/assistant', { embedding_model: 'fake-embed' })
    await internalsOf(h.core).embedder.idle()
    const embeddings = () => fake.requests.filter((r) => r.path === '/v1/embeddings').length
    const before = embeddings()
    expect(before).toBeGreaterThan(0)
    // The knowledge's embedding counted towards the day: the limit lowered to it, the day is used up.
    const spent = (await ok('GET', '/chatapp/assistant')).tokens_today as number
    expect(spent).toBeGreaterThan(0)
    await ok('PUT', '/chatapp/assistant', { daily_token_limit: spent })
    const asked = await customer('Do you deliver on Sunday?')
    await settled()
    expect((await log()).find((m) => m.id === asked.id)!.bot!.assistant).toMatchObject({ outcome: 'fallback', error: `daily token limit reached: today’s ${spent.toLocaleString('en')} tokens are used up` })
    expect(embeddings()).toBe(before)
    expect(fake.chats()).toHaveLength(0)
  })

  it('repeated failures open the circuit: the health says why, answers fall back at once, a working endpoint closes it', async () => {
    for (let i = 0; i < 3; i++) {
      fake.script({ status: 500 })
      await customer(`question ${i}`)
      await settled()
    }
    // The instance's health (the UI's Instances tab) says why.
    const health = await createHandlers(h.core, { baseUrl: () => '', mode: 'web', defaultChannel: 'sandbox' })['instances.health']({ instanceId })
    expect(health.assistant).toEqual({ state: 'open', failures: 3, reason: 'HTTP 500 Internal Server Error: the fake failed on purpose', until: new Date(now + 60_000).toISOString() })
    expect((await ok('GET', '/chatapp/assistant')).circuit).toEqual(health.assistant)
    const calls = fake.chats().length
    const asked = await customer('still there?')
    await settled()
    expect(fake.chats()).toHaveLength(calls)
    expect((await log()).find((m) => m.id === asked.id)!.bot!.assistant!.error).toMatch(/^the endpoint is failing; paused for a while: the endpoint failed 3 times in a row/)
    // After the open time a call goes through; its success closes the circuit.
    now += 61_000
    await customer('and now?')
    await settled()
    expect(fake.chats()).toHaveLength(calls + 1)
    expect((await ok('GET', '/chatapp/assistant')).circuit).toEqual({ state: 'closed', failures: 0, reason: null, until: null })
  })
})

describe('limits and hours', () => {
  it('answers a chat at most max_replies_per_hour times an hour: two bots cannot loop', async () => {
    await ok('PUT', '/chatapp/assistant', { max_replies_per_hour: 3 })
    for (let i = 0; i < 3; i++) {
      await customer(`Beep ${i}: how may I help you?`)
      await settled()
    }
    const fourth = await customer('Beep 3: how may I help you?')
    expect(fourth.bot).toEqual({ action: 'none', reason: 'assistant_cap' })
    await settled()
    expect(fake.chats()).toHaveLength(3)
    now += 61 * 60_000
    expect((await customer('Beep 4')).bot).toMatchObject({ action: 'assistant' })
  })

  it('outside opening hours the away message answers, unless the owner lets the assistant answer (then away is its fallback)', async () => {
    await ok('PUT', '/chatapp/updateActiveHours', { from: '09:00', to: '10:00' })
    await ok('PUT', '/chatapp/away', { enabled: true, message: 'We are closed, back [next_open].' })
    expect((await customer('Open now?')).bot).toEqual({ action: 'away' })
    expect(fake.chats()).toEqual([])
    await ok('PUT', '/chatapp/assistant', { outside_hours: true })
    fake.script({ reply: 'We open tomorrow at 9:00.' })
    expect((await customer('When do you open?')).bot).toMatchObject({ action: 'assistant' })
    await settled()
    expect((await botTexts()).at(-1)).toBe('We open tomorrow at 9:00.')
    expect(fake.chats()[0]!.messages[0]!.content).toContain('- Open now: no (opens tomorrow at 9:00)')
    now += 25 * 3_600_000 // the next day, 14:05: closed again, the away mark expired
    fake.script({ status: 500 })
    await customer('Hello?')
    await settled()
    expect((await botTexts()).at(-1)).toBe('We are closed, back tomorrow at 9:00.')
  })
})

describe('voice notes, embeddings and a customer’s data', () => {
  it('transcribes a voice note first and answers what was said', async () => {
    await ok('PUT', '/chatapp/assistant', { transcribe_voice: true, transcription_model: 'whisper-1' })
    const audio = await h.core.attachments.createFromBytes(h.core.instances.get(instanceId), { filename: 'note.ogg', mimetype: 'audio/ogg', bytes: Buffer.from('OggS fake opus bytes') })
    fake.transcript = 'Do you deliver on Sundays?'
    fake.script({ reply: 'Yes, also on Sundays.' })
    const asked = await customer('', { attachmentId: audio._id })
    expect(asked.type).toBe('audio')
    expect(asked.bot).toMatchObject({ action: 'assistant' })
    await settled()
    const transcription = fake.requests.find((r) => r.path === '/v1/audio/transcriptions')!
    expect(transcription.body).toMatchObject({ model: 'whisper-1', file: 'note.ogg' })
    expect(fake.chats()[0]!.messages.at(-1)).toEqual({ role: 'user', content: 'Do you deliver on Sundays?' })
    expect(await botTexts()).toEqual(['Yes, also on Sundays.'])
  })

  it('with an embedding model the knowledge is embedded and questions are ranked by meaning too; embeddings down, text alone ranks', async () => {
    await ok('PUT', '/chatapp/assistant', { embedding_model: 'fake-embed' })
    await internalsOf(h.core).embedder.idle()
    const embedded = fake.requests.filter((r) => r.path === '/v1/embeddings')
    expect(embedded).toHaveLength(1)
    expect((embedded[0]!.body as { input: string[] }).input).toHaveLength(2)
    const answer = await ok('POST', '/chatapp/assistant/ask', { text: 'deliver euros' })
    expect(answer.sources[0]).toMatchObject({ title: 'Delivery' })
    expect(fake.requests.filter((r) => r.path === '/v1/embeddings')).toHaveLength(2)
    fake.embeddingsStatus = 500
    const textOnly = await ok('POST', '/chatapp/assistant/ask', { text: 'Sunday' })
    expect(textOnly.sources).toEqual([expect.objectContaining({ title: 'Opening hours' })])
    expect(textOnly).not.toHaveProperty('fallback')
  })

  it('a customer’s export holds the assistant’s answers to them; erasure deletes them', async () => {
    fake.script({ reply: 'We open at 18:00 on Sunday.' })
    await customer('Open on Sunday?')
    await settled()
    const exported = await ok('GET', `/chatapp/customer/export?number=${CUSTOMER}`)
    expect(exported.assistant_replies).toEqual([expect.objectContaining({ chatId: CHAT, question: 'Open on Sunday?', reply: 'We open at 18:00 on Sunday.', outcome: 'answered', model: 'fake-chat' })])
    const erased = await ok('DELETE', `/chatapp/customer?number=${CUSTOMER}`)
    expect(erased.deleted.assistant_replies).toBe(1)
    expect((await ok('GET', `/chatapp/customer/export?number=${CUSTOMER}`)).assistant_replies).toEqual([])
  })
})
