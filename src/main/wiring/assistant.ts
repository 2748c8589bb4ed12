/**
 * Wiring of the assistant (docs/assistant.md): its calls to the model go through the endpoint guard's
 * dispatcher; answers to customers go out through the single outbound path, and hand over to the bot.
 */
import { AssistantService } from '../assistant/assistant-service'
import { AssistantResponder } from '../assistant/assistant-responder'
import { Circuits } from '../assistant/circuits'
import { EndpointGuard } from '../assistant/endpoint-guard'
import { Embedder } from '../assistant/knowledge/embedder'
import { IndexMerger } from '../assistant/knowledge/index-merger'
import { KnowledgeService } from '../assistant/knowledge/knowledge-service'
import { Retriever } from '../assistant/knowledge/retriever'
import { ModelClient } from '../assistant/model-client'
import { ModelTurn } from '../assistant/model-turn'
import { assistantSettingsOf } from '../assistant/assistant-settings'
import { usageDay } from '../assistant/shop-facts'
import type { BotEngine } from '../bot/bot-engine'
import type { InstancesWiring } from './instances'
import type { MessagesWiring } from './messages'
import type { Step, Wiring } from './steps'

export interface AssistantWiring {
  assistant: AssistantService
  knowledge: KnowledgeService
  responder: AssistantResponder
  embedder: Embedder
  indexMerger: IndexMerger
  guard: EndpointGuard
  /** The answers under way and the background embeddings, and what follows deleted instances. */
  answers: Step
  /** The guard's dispatcher, closed once nothing can call a model any more. */
  endpoint: Step
}

/** `bot`: the bot engine, made after the assistant; the responder reaches it only once messages flow. */
export function wireAssistant(w: Wiring, deps: Pick<InstancesWiring, 'sessions'> & Pick<MessagesWiring, 'messages' | 'handoff'> & { bot: () => BotEngine }): AssistantWiring {
  const { opts, repos, events, logger, clock } = w
  const { messages, sessions, handoff } = deps
  const guard = new EndpointGuard()
  const modelClient = new ModelClient(() => guard.dispatcher())
  const circuits = new Circuits()
  const embedder: Embedder = new Embedder({
    knowledge: repos.knowledge,
    assistant: repos.assistant,
    model: modelClient,
    logger,
    config: async (id) => {
      const stored = await repos.assistant.settings(id)
      if (!stored || !repos.instances.find(id)) return null
      const settings = assistantSettingsOf(stored.settings)
      return settings.base_url ? { settings, endpoint: { baseUrl: settings.base_url, apiKey: await repos.assistant.key(id) } } : null
    },
    day: (id) => {
      const inst = repos.instances.find(id)
      return inst ? usageDay(inst, clock.now()) : new Date(clock.now()).toISOString().slice(0, 10)
    }
  })
  const retriever = new Retriever({ knowledge: repos.knowledge, model: modelClient, logger, onMissingEmbeddings: (id) => embedder.kick(id) })
  const turn = new ModelTurn({ assistant: repos.assistant, retriever, model: modelClient, clock })
  const assistant = new AssistantService({ repos, guard, turn, embedder, circuits, clock, logger, random: opts.random })
  const indexMerger = new IndexMerger({ knowledge: repos.knowledge, logger })
  const knowledge = new KnowledgeService({
    knowledge: repos.knowledge,
    clock,
    onChange: (id) => {
      embedder.kick(id)
      indexMerger.kick()
    }
  })
  const responder = new AssistantResponder({
    repos,
    service: assistant,
    turn,
    model: modelClient,
    circuits,
    clock,
    logger,
    random: opts.random,
    ...opts.assistant,
    ports: {
      send: async (inst, chatId, text) => void (await messages.send(inst, chatId, { kind: 'text', text }, { source: 'bot' })),
      typing: async (id, chatId, on) => sessions.get(id)?.setTyping?.(chatId, on),
      media: async (id, messageId) => (await sessions.get(id)?.downloadMedia?.(messageId)) ?? null,
      handOver: (inst, ctx) => deps.bot().handOver(inst, ctx, 'assistant'),
      sendAway: (inst, msg) => deps.bot().sendAway(inst, msg),
      paused: async (id, chatId) => (await handoff.activePause(id, chatId)) !== null,
      recordActivity: (entry) => deps.bot().recordActivity(entry)
    }
  })
  const stopAssistantEvents = events.on('changed', (e) => {
    if (e.what !== 'deleted') return
    retriever.forget(e.instanceId)
    circuits.reset(e.instanceId)
  })
  return {
    assistant,
    knowledge,
    responder,
    embedder,
    indexMerger,
    guard,
    answers: {
      name: 'assistant',
      // The answers under way go out (or fall back) while the sessions are still up.
      close: async () => {
        stopAssistantEvents()
        await responder.close()
        await embedder.close()
        await indexMerger.close()
      }
    },
    endpoint: { name: 'assistant endpoint', close: () => guard.close() }
  }
}
