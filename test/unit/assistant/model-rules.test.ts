/**
 * The assistant's pure rules (src/main/assistant/): what a model's answer comes to (a reply, a
 * hand-off, unusable), the circuit breaker, the prompt (facts, hours, history turns), the settings'
 * updates and the token estimate.
 */
import { describe, expect, it } from 'vitest'
import { interpretAnswer, MAX_REPLY_CHARS } from '../../../src/main/assistant/answer'
import { CircuitBreaker } from '../../../src/main/assistant/circuit-breaker'
import { chatMessages, describeWeek, estimateTokens, systemPrompt } from '../../../src/main/assistant/prompt'
import { applyAssistantUpdate, normalizeBaseUrl } from '../../../src/main/assistant/assistant-settings'
import { turnsOf } from '../../../src/main/assistant/history'
import { shopFacts, usageDay } from '../../../src/main/assistant/shop-facts'
import { DEFAULT_ASSISTANT } from '../../../src/shared/schemas/assistant'
import { explainBotDecision } from '../../../src/shared/domain/bot-decision-text'
import type { InstanceSettings, LoggedMessage } from '../../../src/shared/schemas/records'

const answer = (content: string | null, extra: Partial<Parameters<typeof interpretAnswer>[0]> = {}) => interpretAnswer({ content, toolCalls: [], usage: null, finishReason: 'stop', ...extra })

describe('what an answer comes to', () => {
  it('a text is a reply; the tool call, or the call written as text in any usual form, is a hand-off', () => {
    expect(answer('We open at 9.')).toEqual({ kind: 'reply', text: 'We open at 9.' })
    expect(interpretAnswer({ content: null, toolCalls: [{ name: 'handoff_to_human', arguments: '{"reason":"refund"}' }], usage: null, finishReason: 'tool_calls' })).toEqual({ kind: 'handoff', reason: 'refund' })
    expect(interpretAnswer({ content: null, toolCalls: [{ name: 'handoff_to_human', arguments: 'not json' }], usage: null, finishReason: 'tool_calls' })).toEqual({ kind: 'handoff', reason: 'not json' })
    expect(answer('{"name": "handoff_to_human", "arguments": {"reason": "angry"}}')).toEqual({ kind: 'handoff', reason: 'angry' })
    expect(answer('<tool_call>\n{"name": "handoff_to_human", "parameters": {"reason": "asks for Marco"}}\n</tool_call>')).toEqual({ kind: 'handoff', reason: 'asks for Marco' })
    expect(answer('handoff_to_human(reason="complaint")')).toEqual({ kind: 'handoff', reason: 'complaint' })
  })

  it('drops a reasoning block; nothing left, another tool, a filtered answer are unusable', () => {
    expect(answer('<think>The user asks about hours.</think>\nWe open at 9.')).toEqual({ kind: 'reply', text: 'We open at 9.' })
    expect(answer('<think>hmm</think>   ')).toEqual({ kind: 'unusable', why: 'the model answered nothing' })
    expect(answer(null)).toEqual({ kind: 'unusable', why: 'the model answered nothing' })
    expect(interpretAnswer({ content: null, toolCalls: [{ name: 'book_table', arguments: '{}' }], usage: null, finishReason: 'tool_calls' })).toEqual({ kind: 'unusable', why: 'the model called an unknown tool (book_table)' })
    expect(answer('x', { finishReason: 'content_filter' })).toEqual({ kind: 'unusable', why: 'the endpoint filtered the answer' })
  })

  it('an answer cut off by max_tokens keeps its whole sentences; a very long one is cut at a sentence', () => {
    expect(answer('We open at 9. On Sunday we open at', { finishReason: 'length' })).toEqual({ kind: 'reply', text: 'We open at 9.' })
    expect(answer('We open at', { finishReason: 'length' })).toEqual({ kind: 'unusable', why: 'the answer was cut off (raise max_reply_tokens)' })
    const long = answer('A sentence that goes on. '.repeat(400))
    expect(long.kind).toBe('reply')
    expect((long as { text: string }).text.length).toBeLessThanOrEqual(MAX_REPLY_CHARS)
    expect((long as { text: string }).text.endsWith('on.')).toBe(true)
  })
})

describe('the circuit breaker', () => {
  it('opens after 3 failures in a row, lets a call through when the time is up, reopens twice as long on a failure, closes on a success', () => {
    const c = new CircuitBreaker({ threshold: 3, openMs: 1000, maxOpenMs: 3000 })
    c.failure('timeout', 0)
    c.failure('timeout', 10)
    expect(c.allows(20)).toBe(true)
    c.failure('HTTP 500', 20)
    expect(c.allows(21)).toBe(false)
    expect(c.view(21)).toEqual({ state: 'open', reason: 'HTTP 500', until: new Date(1020).toISOString(), failures: 3 })
    expect(c.allows(1020)).toBe(true)
    c.failure('HTTP 500', 1020)
    expect(c.view(1021).until).toBe(new Date(3020).toISOString())
    c.failure('HTTP 500', 3020)
    expect(c.view(3021).until).toBe(new Date(6020).toISOString())
    c.success()
    expect(c.view(3021)).toEqual({ state: 'closed', reason: null, until: null, failures: 0 })
    // A success in between resets the count.
    c.failure('x', 0)
    c.failure('x', 0)
    c.success()
    c.failure('x', 0)
    expect(c.allows(1)).toBe(true)
  })
})

describe('the prompt', () => {
  const settings = {
    bot_name: 'Trattoria Roma',
    bot_timezone: 'Europe/Rome',
    active_days: { monday: false, tuesday: true, wednesday: true, thursday: true, friday: true, saturday: true, sunday: true },
    active_hours: { from: '12:00', to: '23:00' },
    opening_hours: { ranges: { sunday: [{ from: '18:00', to: '23:00' }] }, holidays: ['2026-12-25', '2026-01-01'] }
  } as unknown as InstanceSettings

  it('states the shop’s facts: name, local time, hours per day, open now, next opening, holidays ahead', () => {
    // Monday 2026-11-23 10:00 in Rome: closed all day (Monday off).
    const facts = shopFacts({ settings }, Date.parse('2026-11-23T09:00:00.000Z'))
    expect(facts).toEqual({
      name: 'Trattoria Roma',
      now: 'Monday 2026-11-23 10:00 (Europe/Rome)',
      openNow: false,
      nextOpening: 'tomorrow at 12:00',
      hours: ['Monday: closed', 'Tuesday: 12:00–23:00', 'Wednesday: 12:00–23:00', 'Thursday: 12:00–23:00', 'Friday: 12:00–23:00', 'Saturday: 12:00–23:00', 'Sunday: 18:00–23:00'],
      holidays: ['2026-12-25']
    })
    expect(describeWeek({ days: settings.active_days, hours: { from: 'always', to: 'always' } })[1]).toBe('Tuesday: open all day')
    // The day the tokens count towards is the shop's: 23:30 UTC is already tomorrow in Rome.
    expect(usageDay({ settings }, Date.parse('2026-11-23T23:30:00.000Z'))).toBe('2026-11-24')
    const system = systemPrompt('Be brief.', facts, [{ title: 'Hours', body: 'We open at 12.' }], 'Ann')
    expect(system).toMatch(/^Be brief\.\n\nRules:\n- Answer only from/)
    expect(system).toContain('- Open now: no (opens tomorrow at 12:00)')
    expect(system).toContain('- Closed on: 2026-12-25')
    expect(system).toContain('- The customer’s WhatsApp name: Ann')
    expect(system).toContain('<knowledge>\n[1] Hours\nWe open at 12.\n\n</knowledge>')
    expect(systemPrompt('x', facts, [], null)).toContain('(nothing in the shop’s knowledge matches this question)')
  })

  it('turns the chat into alternating turns starting with the customer, media as notes', () => {
    const m = (fromMe: boolean, text: string, type = 'text'): LoggedMessage => ({ id: text, chatId: 'c', fromMe, pushName: null, type, text, timestamp: 0, status: 'x', source: fromMe ? 'bot' : 'inbound' })
    const turns = turnsOf([m(true, 'Hello from the shop'), m(false, 'hi'), m(false, '', 'image'), m(false, 'what is this?'), m(true, 'A pizza.'), m(false, '', 'undecryptable')])
    expect(chatMessages('S', turns)).toEqual([
      { role: 'system', content: 'S' },
      { role: 'user', content: 'hi\n(an image)\nwhat is this?' },
      { role: 'assistant', content: 'A pizza.' }
    ])
    expect(estimateTokens(chatMessages('x'.repeat(400), []))).toBe(Math.ceil(408 / 4) + 120)
  })
})

describe('settings updates', () => {
  it('keeps, replaces or removes the key; normalises the endpoint; trims names', () => {
    expect(applyAssistantUpdate(DEFAULT_ASSISTANT, { model: ' llama3.1 ' })).toEqual({ settings: { ...DEFAULT_ASSISTANT, model: 'llama3.1' }, key: { keep: true } })
    expect(applyAssistantUpdate(DEFAULT_ASSISTANT, { api_key: ' sk-1 ' }).key).toEqual({ set: 'sk-1' })
    expect(applyAssistantUpdate(DEFAULT_ASSISTANT, { api_key: '' }).key).toEqual({ set: null })
    expect(normalizeBaseUrl(' http://127.0.0.1:11434/v1/ ')).toBe('http://127.0.0.1:11434/v1')
    expect(normalizeBaseUrl('')).toBe('')
  })

  it('explains each outcome under the message in plain words', () => {
    const base = { model: 'llama3.1', prompt_tokens: 800, completion_tokens: 12, ms: 1400, sources: [{ id: 'k', title: 'Hours' }] }
    expect(explainBotDecision({ action: 'assistant', ref: 'llama3.1' })).toBe('Sent to the assistant (llama3.1)…')
    expect(explainBotDecision({ action: 'assistant', assistant: { ...base, outcome: 'answered' } })).toBe('Answered by the assistant (llama3.1 · 812 tokens · 1.4 s) from: Hours')
    expect(explainBotDecision({ action: 'assistant', assistant: { ...base, sources: [], outcome: 'answered' } })).toBe('Answered by the assistant (llama3.1 · 812 tokens · 1.4 s) (no knowledge matched)')
    expect(explainBotDecision({ action: 'assistant', assistant: { ...base, outcome: 'handoff', handoff_reason: 'refund' } })).toBe('The assistant handed the chat to a person: refund (llama3.1 · 812 tokens · 1.4 s)')
    expect(explainBotDecision({ action: 'assistant', assistant: { ...base, outcome: 'fallback', error: 'no answer in time: timed out after 30000 ms', fallback: 'default' } })).toBe(
      'The assistant could not answer (no answer in time: timed out after 30000 ms): sent the default message'
    )
    expect(explainBotDecision({ action: 'none', reason: 'assistant_cap' })).toMatch(/hourly cap/)
  })
})
