/**
 * The assistant's settings, dry run and usage (docs/assistant.md): `GET`/`PUT /chatapp/assistant`
 * (the key write-only: answered only as `api_key_set`), `POST /chatapp/assistant/ask` (the answer a
 * customer would get, sending nothing) and the usage per day. The live answers to customers are
 * ./assistant-responder.ts's; both run the same turn (./model-turn.ts).
 */
import type { Clock } from '../clock'
import type { Logger } from '../logger'
import type { Repositories } from '../store/repos'
import { renderReply } from '../domain/reply-template'
import type { AskBody, AskResult, AssistantCircuit, AssistantSettings, AssistantUpdate, AssistantUsageDay, AssistantView } from '../../shared/schemas/assistant'
import type { Instance } from '../../shared/schemas/records'
import { resolveChat } from '../services/messages/outbound'
import { applyAssistantUpdate, assistantSettingsOf } from './assistant-settings'
import type { Circuits } from './circuits'
import type { EndpointGuard } from './endpoint-guard'
import { turnsOf } from './history'
import type { Embedder } from './knowledge/embedder'
import type { ModelTurn, TurnFailure } from './model-turn'
import { usageDay } from './shop-facts'

type Inst = Pick<Instance, '_id' | 'settings'>

/** What each failure is called in answers and the log. */
export const FAILURE_TEXT: Record<TurnFailure, string> = {
  token_limit: 'daily token limit reached',
  circuit_open: 'the endpoint is failing; paused for a while',
  timeout: 'no answer in time',
  error: 'the endpoint answered with an error',
  unusable: 'the answer could not be used'
}

export interface AssistantServiceDeps {
  repos: Pick<Repositories, 'assistant' | 'messages'>
  guard: Pick<EndpointGuard, 'check'>
  turn: Pick<ModelTurn, 'run'>
  embedder: Pick<Embedder, 'kick'>
  circuits: Circuits
  clock: Clock
  logger: Logger
  random?: () => number
}

export class AssistantService {
  constructor(private readonly deps: AssistantServiceDeps) {}

  /** An instance's settings, defaults filled in. */
  async settingsOf(instanceId: string): Promise<AssistantSettings> {
    return assistantSettingsOf((await this.deps.repos.assistant.settings(instanceId))?.settings)
  }

  /** The settings as answered: no key, whether one is stored, today's tokens, the circuit. */
  async get(inst: Inst): Promise<AssistantView> {
    const stored = await this.deps.repos.assistant.settings(inst._id)
    const now = this.deps.clock.now()
    return {
      ...assistantSettingsOf(stored?.settings),
      api_key_set: stored?.keySet ?? false,
      tokens_today: await this.deps.repos.assistant.tokensOn(inst._id, usageDay(inst, now)),
      circuit: this.deps.circuits.view(inst._id, now)
    }
  }

  /**
   * Changes the settings (only the fields given; `api_key` omitted keeps the key, '' removes it).
   * 400 for an endpoint that is this app's own API, or switching on without an endpoint or model.
   * A change closes the circuit (a fixed endpoint gets calls at once) and, with an embedding model,
   * starts filling the knowledge's vectors.
   */
  async update(inst: Inst, body: AssistantUpdate): Promise<AssistantView> {
    const current = await this.settingsOf(inst._id)
    const { settings, key } = applyAssistantUpdate(current, body)
    await this.deps.guard.check(settings.base_url)
    await this.deps.repos.assistant.save(inst._id, settings, key, new Date(this.deps.clock.now()).toISOString())
    this.deps.circuits.reset(inst._id)
    if (settings.embedding_model) this.deps.embedder.kick(inst._id)
    // Never the key: what changed, by name.
    this.deps.logger.info({ instanceId: inst._id, fields: Object.keys(body).filter((k) => k !== 'api_key'), key: 'set' in key ? (key.set ? 'replaced' : 'removed') : 'kept' }, 'assistant settings changed')
    return this.get(inst)
  }

  /**
   * The dry run: what a customer writing `text` would get (in chat `chat_id`, with its latest messages
   * as history), sending nothing. Calls the endpoint whatever its circuit (the owner is testing it) and
   * a success closes the circuit. A failure answers the fallback the customer would get, and why.
   * The tokens count towards the day.
   */
  async ask(inst: Inst, body: AskBody): Promise<AskResult> {
    const settings = await this.settingsOf(inst._id)
    if (!settings.base_url || !settings.model) {
      return { reply: '', handoff: false, sources: [], usage: { prompt_tokens: 0, completion_tokens: 0 }, ms: 0, model: settings.model, fallback: { reason: 'not_set_up', detail: 'set the endpoint (base_url) and the model first' } }
    }
    const chatId = body.chat_id ? resolveChat(body.chat_id, 'chat_id') : null
    const log = chatId ? await this.deps.repos.messages.list(inst._id, { chatId, limit: settings.history_messages }) : []
    const history = turnsOf(log)
    // `[name]` in the texts: the chat's customer, or shown as the placeholder (no customer to name).
    const known = log.findLast((m) => !m.fromMe && m.pushName?.trim())?.pushName ?? null
    const customer = { name: known ?? (chatId ? null : '[name]'), number: chatId ?? '' }
    const result = await this.deps.turn.run({
      inst,
      settings,
      question: body.text,
      turns: [...history, { role: 'user', text: body.text }],
      customerName: known,
      circuit: null
    })
    await this.deps.repos.assistant.addUsage(inst._id, usageDay(inst, this.deps.clock.now()), { prompt_tokens: result.usage.prompt_tokens + result.embedTokens, completion_tokens: result.usage.completion_tokens, asks: 1 })
    const base = { sources: result.sources, usage: result.usage, ms: result.ms, model: result.model }
    const render = (template: string) => renderReply(template, customer, this.deps.random ?? Math.random)
    if (result.outcome.kind === 'reply') {
      this.deps.circuits.of(inst._id).success()
      return { ...base, reply: result.outcome.text, handoff: false }
    }
    if (result.outcome.kind === 'handoff') {
      this.deps.circuits.of(inst._id).success()
      return { ...base, reply: render(settings.handoff_message), handoff: true, handoff_reason: result.outcome.reason }
    }
    const fallbackText = settings.fallback === 'handoff' ? render(settings.handoff_message) : render(inst.settings.default_msg)
    return { ...base, reply: fallbackText, handoff: settings.fallback === 'handoff', fallback: { reason: result.outcome.reason, detail: `${FAILURE_TEXT[result.outcome.reason]}: ${result.outcome.detail}` } }
  }

  /**
   * The assistant's part of the instance's health: its circuit when it is switched on (why it is not
   * answering, until when), else null.
   */
  async health(instanceId: string): Promise<AssistantCircuit | null> {
    const settings = await this.settingsOf(instanceId)
    return settings.enabled ? this.deps.circuits.view(instanceId, this.deps.clock.now()) : null
  }

  /** The usage of the last `days` days (today included), oldest first; days without use are left out. */
  async usage(inst: Inst, days: number): Promise<AssistantUsageDay[]> {
    const from = usageDay(inst, this.deps.clock.now() - (days - 1) * 86_400_000)
    return this.deps.repos.assistant.usage(inst._id, from)
  }
}
