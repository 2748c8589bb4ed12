/**
 * One turn of the assistant (docs/design.md §23 "One answer"), the same for a customer's
 * message and the dry run: the circuit and the day's budget checked, the knowledge passages found,
 * the prompt made, the model called within `timeout_ms`, its answer interpreted. Every way it can
 * fail comes back as a reason and a detail, never as a throw, so the caller always has something to
 * send. The caller counts the tokens towards the day with what it records (one write, after the
 * answer went out: the customer does not wait for it).
 */
import type { Clock } from '../clock'
import type { AssistantRepo } from '../store/repos'
import type { AssistantSettings, KnowledgeSource, TokenUsage } from '../../shared/schemas/assistant'
import type { Instance } from '../../shared/schemas/records'
import { interpretAnswer, type Interpretation } from './answer'
import type { CircuitBreaker } from './circuit-breaker'
import type { Retriever, TextHits } from './knowledge/retriever'
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
  /** The turn's reads, started ahead for this instance and question ({@link ModelTurn.startReads}). */
  reads?: TurnReads
}

/**
 * The reads of a turn that need neither the settings nor the history: the day's tokens, the key and
 * the knowledge's text search. Started ahead, they share a wait for the database threads with the
 * caller's own reads (the answer's settings, pause and history) instead of coming after them.
 */
export interface TurnReads {
  instanceId: string
  question: string
  /** The usage day the tokens were read for. */
  day: string
  budget: Promise<[spent: number, key: string | null]>
  text: Promise<TextHits>
}

export interface TurnResult {
  model: string
  /** The knowledge entries the passages came from, in rank order. */
  sources: KnowledgeSource[]
  usage: TokenUsage
  /** Tokens the question's embedding used (counted towards the day with `usage`). */
  embedTokens: number
  /** How long the model took (ms, whole; 0 when it was not called). */
  ms: number
  /** The same, unrounded, and the main thread's CPU time meanwhile (ms; the benchmark's subtraction). */
  callMs: number
  callCpuMs: number
  outcome: Exclude<Interpretation, { kind: 'unusable' }> | { kind: 'failed'; reason: TurnFailure; detail: string }
}

export interface ModelTurnDeps {
  assistant: Pick<AssistantRepo, 'callBudget'>
  retriever: Pick<Retriever, 'find' | 'textSearch'>
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

  /**
   * Starts the reads of a turn on `question` (see {@link TurnReads}), the text search bringing its
   * `passages` best passages (the settings' `knowledge_chunks`); pass them to {@link run} in
   * `reads`. Reads never awaited (the chat was taken over meanwhile) are dropped quietly; their
   * failures reach the turn that uses them.
   */
  startReads(inst: Pick<Instance, '_id' | 'settings'>, question: string, passages: number): TurnReads {
    const day = usageDay(inst, this.deps.clock.now())
    const budget = this.deps.assistant.callBudget(inst._id, day).then(({ tokens, key }): [number, string | null] => [tokens, key])
    const text = this.deps.retriever.textSearch(inst._id, question, passages)
    budget.catch(() => undefined)
    text.catch(() => undefined)
    return { instanceId: inst._id, question, day, budget, text }
  }

  /** Runs one turn (see the module doc). Never throws for the model's failures; storage errors propagate. */
  async run(req: TurnRequest): Promise<TurnResult> {
    const { inst, settings } = req
    const model = settings.model
    const none: TokenUsage = { prompt_tokens: 0, completion_tokens: 0 }
    const failed = (reason: TurnFailure, detail: string, extra: Partial<TurnResult> = {}): TurnResult => ({ model, sources: [], usage: none, embedTokens: 0, ms: 0, callMs: 0, callCpuMs: 0, ...extra, outcome: { kind: 'failed', reason, detail } })
    const now = this.deps.clock.now()
    if (req.circuit && !req.circuit.allows(now)) {
      const view = req.circuit.view(now)
      return failed('circuit_open', `the endpoint failed ${view.failures} times in a row (last: ${view.reason ?? 'unknown'}); calls resume at ${view.until}`)
    }
    const limit = settings.daily_token_limit
    // The day's tokens, the key and the knowledge read together (or started ahead by the caller): the
    // text search costs no tokens and goes on meanwhile; the question's embedding, which does, waits
    // for the budget (none once spent).
    const ahead = req.reads
    const reads = ahead && ahead.instanceId === inst._id && ahead.question === req.question && ahead.day === usageDay(inst, now) ? ahead : this.startReads(inst, req.question, settings.knowledge_chunks)
    const budget = reads.budget
    const embedWith = budget.then(([spentSoFar, key]): ModelEndpoint | null => (limit > 0 && spentSoFar >= limit ? null : { baseUrl: settings.base_url, apiKey: key }))
    // A failed read rejects through `budget` below; the search may never await this one (no embedding model).
    embedWith.catch(() => undefined)
    const [[spent, apiKey], found] = await Promise.all([budget, this.deps.retriever.find(inst._id, req.question, settings, embedWith, reads.text)])
    if (limit > 0 && spent >= limit) return failed('token_limit', `today’s ${limit.toLocaleString('en')} tokens are used up`)

    const endpoint: ModelEndpoint = { baseUrl: settings.base_url, apiKey }
    const sources = distinctSources(found.passages)
    const messages = chatMessages(systemPrompt(settings.instructions, shopFacts(inst, now), found.passages, req.customerName), req.turns)
    const estimate = estimateTokens(messages) + settings.max_reply_tokens
    const afterEmbedding = spent + found.embedTokens
    if (limit > 0 && afterEmbedding + estimate > limit) {
      return failed('token_limit', `today’s ${limit.toLocaleString('en')} tokens would be exceeded (${afterEmbedding.toLocaleString('en')} used, this answer needs about ${estimate.toLocaleString('en')})`, { sources, embedTokens: found.embedTokens })
    }

    const started = this.hr()
    const cpu = process.threadCpuUsage()
    let answer
    try {
      answer = await this.deps.model.chat(endpoint, { model, messages, tools: TOOLS, maxTokens: settings.max_reply_tokens, timeoutMs: settings.timeout_ms })
    } catch (err) {
      const callMs = this.hr() - started
      const callCpuMs = cpuMs(cpu)
      const ms = Math.round(callMs)
      const e = err instanceof ModelCallError ? err : new ModelCallError('network', (err as Error).message)
      req.circuit?.failure(e.message, this.deps.clock.now())
      return failed(e.kind === 'timeout' ? 'timeout' : 'error', e.message, { sources, ms, callMs, callCpuMs, embedTokens: found.embedTokens })
    }
    const callMs = this.hr() - started
    const callCpuMs = cpuMs(cpu)
    const ms = Math.round(callMs)
    req.circuit?.success()
    // Some local servers report no usage: the estimate counts instead, so the limit still holds.
    const usage: TokenUsage = answer.usage ?? { prompt_tokens: estimate - settings.max_reply_tokens, completion_tokens: Math.ceil((answer.content ?? '').length / 4) }
    const embedTokens = found.embedTokens
    const interpretation = interpretAnswer(answer)
    if (interpretation.kind === 'unusable') return { model, sources, usage, embedTokens, ms, callMs, callCpuMs, outcome: { kind: 'failed', reason: 'unusable', detail: interpretation.why } }
    return { model, sources, usage, embedTokens, ms, callMs, callCpuMs, outcome: interpretation }
  }
}

/**
 * The main thread's CPU time (user and system, ms) since `since` (`process.threadCpuUsage()`, Node
 * 23.9+): what a turn costs the thread that serves every request; the SQLite threads' share is not in it.
 */
export function cpuMs(since: NodeJS.CpuUsage): number {
  const d = process.threadCpuUsage(since)
  return (d.user + d.system) / 1000
}

/** The entries behind passages, each once, in rank order. */
function distinctSources(passages: ReadonlyArray<{ knowledgeId: string; title: string }>): KnowledgeSource[] {
  const seen = new Map<string, KnowledgeSource>()
  for (const p of passages) if (!seen.has(p.knowledgeId)) seen.set(p.knowledgeId, { id: p.knowledgeId, title: p.title })
  return [...seen.values()]
}
