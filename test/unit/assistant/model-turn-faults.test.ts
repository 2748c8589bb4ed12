/**
 * A turn whose storage fails (src/main/assistant/model-turn.ts): the error reaches the caller (the
 * responder logs it and the chat's queue goes on), and nothing else rejects unheard — the budget is
 * read beside the knowledge search, which need not wait for it (no embedding model), and an
 * unhandled rejection would end the process. The fault is injected where the day's tokens are read.
 */
import { expect, it } from 'vitest'
import { ModelTurn } from '../../../src/main/assistant/model-turn'
import { DEFAULT_ASSISTANT } from '../../../src/shared/schemas/assistant'

it('a failed read of the day’s tokens rejects the turn, with nothing left unhandled and no model call', async () => {
  let chats = 0
  const turn = new ModelTurn({
    assistant: { callBudget: () => Promise.reject(new Error('SQLITE_IOERR: disk I/O error')) },
    retriever: { find: async () => ({ passages: [], embedTokens: 0 }), textSearch: async () => ({ total: 0, revision: 0, hits: [] }) },
    model: {
      chat: async () => {
        chats++
        throw new Error('not called')
      }
    },
    clock: { now: () => Date.parse('2026-11-28T12:00:00.000Z') }
  })
  const settings = { ...DEFAULT_ASSISTANT, enabled: true, base_url: 'http://127.0.0.1:9/v1', model: 'm', daily_token_limit: 1000 }
  await expect(turn.run({ inst: { _id: 'i1', settings: { timezone: 'UTC' } as never }, settings, question: 'open?', turns: [{ role: 'user', text: 'open?' }], customerName: null, circuit: null })).rejects.toThrow('SQLITE_IOERR')
  expect(chats).toBe(0)
})
