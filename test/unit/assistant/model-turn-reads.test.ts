/**
 * A turn's reads started ahead (src/main/assistant/model-turn.ts `startReads`): the answer starts the
 * day's tokens, the key and the knowledge's text search beside its own reads of the settings, the
 * pause and the history, and the turn then uses them instead of reading again; reads started for
 * another question or instance are not used.
 */
import { expect, it } from 'vitest'
import { ModelTurn } from '../../../src/main/assistant/model-turn'
import { defaultSettings } from '../../../src/main/services/instances/instance-registry'
import { DEFAULT_ASSISTANT } from '../../../src/shared/schemas/assistant'

function counted() {
  const calls: string[] = []
  const searched: Array<Promise<unknown> | undefined> = []
  const turn = new ModelTurn({
    assistant: {
      callBudget: async () => (calls.push('callBudget'), { tokens: 0, key: 'sk-test' })
    },
    retriever: {
      textSearch: async (_id, question) => (calls.push(`textSearch ${question}`), { total: 0, revision: 0, hits: [] }),
      find: async (_id, _q, _s, _e, text) => (searched.push(text), await text, { passages: [], embedTokens: 0 })
    },
    model: { chat: async () => ({ content: 'We open at 9.', toolCalls: [], usage: { prompt_tokens: 10, completion_tokens: 4 }, finishReason: 'stop' }) },
    clock: { now: () => Date.parse('2026-11-28T12:00:00.000Z') }
  })
  return { turn, calls, searched }
}

const inst = { _id: 'i1', settings: { ...defaultSettings('sandbox'), bot_timezone: 'UTC' } }
const settings = { ...DEFAULT_ASSISTANT, enabled: true, base_url: 'http://127.0.0.1:9/v1', model: 'm' }
const request = (question: string) => ({ inst, settings, question, turns: [{ role: 'user' as const, text: question }], customerName: null, circuit: null })

it('a turn given its reads started ahead reads nothing again', async () => {
  const { turn, calls, searched } = counted()
  const reads = turn.startReads(inst, 'open?', settings.knowledge_chunks)
  expect(calls).toEqual(['callBudget', 'textSearch open?'])
  const result = await turn.run({ ...request('open?'), reads })
  expect(result.outcome).toEqual({ kind: 'reply', text: 'We open at 9.' })
  expect(calls).toEqual(['callBudget', 'textSearch open?'])
  expect(searched).toEqual([reads.text])
})

it('reads started for another question are not used: the turn reads for its own', async () => {
  const { turn, calls } = counted()
  const reads = turn.startReads(inst, 'open?', settings.knowledge_chunks)
  await turn.run({ ...request('closed on Sunday?'), reads })
  expect(calls).toEqual(['callBudget', 'textSearch open?', 'callBudget', 'textSearch closed on Sunday?'])
})
