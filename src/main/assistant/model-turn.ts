/**
 * One turn of the assistant (docs/assistant.md "One answer, step by step"), the same for a customer's
 * message and the dry run: the circuit and the day's budget checked, the knowledge passages found,
 * the prompt made, the model called within `timeout_ms`, its tokens counted towards the day, its
 * answer interpreted. Every way it can fail comes back as a reason and a detail, never as a throw, so
 * the caller always has something to send.
 */
import type { Clock } from '../clock'
import type { AssistantRepo } from '../store/repos'
import type { AssistantSettings, KnowledgeSource, TokenUsage } from '../../shared/schemas/assistant'
import type { Instance } from '../../shared/schemas/records'
import { interpretAnswer, type Interpretation } from './answer'
import type { CircuitBreaker } from './circuit-breaker'
import type { Retriever } from './knowledge/retriever'
import { ModelCallError, type ModelClient, type ModelEndpoint } from './model-client'
import { chatMessages, estimateTokens, systemPrompt, TOOLS, type Turn } from './prompt'
import { shopFacts, usageDay } from './shop-facts'

/** Why a turn gave no answer to send. */
export type TurnFailure = 'token_limit' | 'circuit_open' | 'timeout' | 'error' | 'unusable'

export interface TurnRequest {
  inst: Pick<Instance, '_id' | 'settings'>
  settings: AssistantSettings
  /** What the knowledge is searched for: the customer's latest messages. */
  question: string
  /** The chat's latest messages and the question, oldest first. */
  turns: Turn[]
  customerName: string | null
  /** The endpoint's circuit breaker, or null to call whatever its state (the dry run). */
  circuit: CircuitBreaker | null
}

export interface TurnResult {
  model: string
  /** The knowledge entries the passages came from, in rank order. */
  sources: KnowledgeSource[]
  usage: TokenUsage
  /** How long the model took (ms; 0 when it was not called). */
  ms: number
  outcome: Exclude<Interpretation, { kind: 'unusable' }> | { kind: 'failed'; reason: TurnFailure; detail: string }
}

export interface ModelTurnDeps {
  assistant: Pick<AssistantRepo, 'key' | 'tokensOn' | 'addUsage'>
  retriever: Pick<Retriever, 'find'>
  model: Pick<ModelClient, 'chat'>
  clock: Clock
  /** High-resolution time (ms) for the model's share of a turn. */
  now?: () => number
}

export class ModelTurn {
  private readonly hr: () => number

  constructor(private readonly deps: ModelTurnDeps) {
    this.hr = deps.now ?? (() => performance.now())
  }

  /** Runs one turn (see the module doc). Never throws for the model's failures; storage errors propagate. */
  async run(req: TurnRequest): Promise<TurnResult> {
    const { inst, settings } = req
    const model = settings.model
    const none: TokenUsage = { prompt_tokens: 0, completion_tokens: 0 }
    const failed = (reason: TurnFailure, detail: string, extra: Partial<TurnResult> = {}): TurnResult => ({ model, sources: [], usage: none, ms: 0, ...extra, outcome: { kind: 'failed', reason, detail } })
    const now = this.deps.clock.now()
    if (req.circuit && !req.circuit.allows(now)) {
      const view = req.circuit.view(now)
      return failed('circuit_open', `the endpoint failed ${view.failures} times in a row (last: ${view.reason ?? 'unknown'}); calls resume at ${view.until}`)
    }
    const day = usageDay(inst, now)
    const limit = settings.daily_token_limit
    const spent = await this.deps.assistant.tokensOn(inst._id, day)
    if (limit > 0 && spent >= limit) return failed('token_limit', `today’s ${limit.toLocaleString('en')} tokens are used up`)

    const endpoint: ModelEndpoint = { baseUrl: settings.base_url, apiKey: await this.deps.assistant.key(inst._id) }
    const found = await this.deps.retriever.find(inst._id, req.question, settings, endpoint)
    const sources = distinctSources(found.passages)
    const messages = chatMessages(systemPrompt(settings.instructions, shopFacts(inst, now), found.passages, req.customerName), req.turns)
    const estimate = estimateTokens(messages) + settings.max_reply_tokens
    const afterEmbedding = spent + found.embedTokens
    if (limit > 0 && afterEmbedding + estimate > limit) {
      await this.count(inst._id, day, { prompt_tokens: found.embedTokens, completion_tokens: 0 })
      return failed('token_limit', `today’s ${limit.toLocaleString('en')} tokens would be exceeded (${afterEmbedding.toLocaleString('en')} used, this answer needs about ${estimate.toLocaleString('en')})`, { sources })
    }

    const started = this.hr()
    let answer
    try {
      answer = await this.deps.model.chat(endpoint, { model, messages, tools: TOOLS, maxTokens: settings.max_reply_tokens, timeoutMs: settings.timeout_ms })
    } catch (err) {
      const ms = Math.round(this.hr() - started)
      const e = err instanceof ModelCallError ? err : new ModelCallError('network', (err as Error).message)
      req.circuit?.failure(e.message, this.deps.clock.now())
      await this.count(inst._id, day, { prompt_tokens: found.embedTokens, completion_tokens: 0 })
      return failed(e.kind === 'timeout' ? 'timeout' : 'error', e.message, { sources, ms })
    }
    const ms = Math.round(this.hr() - started)
    req.circuit?.success()
    // Some local servers report no usage: the estimate counts instead, so the limit still holds.
    const usage: TokenUsage = answer.usage ?? { prompt_tokens: estimate - settings.max_reply_tokens, completion_tokens: Math.ceil((answer.content ?? '').length / 4) }
    await this.count(inst._id, day, { prompt_tokens: usage.prompt_tokens + found.embedTokens, completion_tokens: usage.completion_tokens })
    const interpretation = interpretAnswer(answer)
    if (interpretation.kind === 'unusable') return { model, sources, usage, ms, outcome: { kind: 'failed', reason: 'unusable', detail: interpretation.why } }
    return { model, sources, usage, ms, outcome: interpretation }
  }

  /** Adds a call's tokens to the instance's day. */
  private async count(instanceId: string, day: string, usage: TokenUsage): Promise<void> {
    if (usage.prompt_tokens === 0 && usage.completion_tokens === 0) return
    await this.deps.assistant.addUsage(instanceId, day, usage)
  }
}

/** The entries behind passages, each once, in rank order. */
function distinctSources(passages: ReadonlyArray<{ knowledgeId: string; title: string }>): KnowledgeSource[] {
  const seen = new Map<string, KnowledgeSource>()
  for (const p of passages) if (!seen.has(p.knowledgeId)) seen.set(p.knowledgeId, { id: p.knowledgeId, title: p.title })
  return [...seen.values()]
}
