/**
 * Fills in the vectors of an instance's knowledge passages when an embedding model is set
 * (docs/assistant.md "Retrieval"): in the background, a batch of passages a call, one run per instance
 * at a time, after a knowledge change, a settings change, and whenever a question finds some missing.
 * Each batch's tokens count towards the day's limit, and a batch is not sent when the day's remainder
 * does not cover it: the run stops and the next kick (tomorrow's first question) goes on. A failed call
 * stops the run too (logged); passages without a vector are still found by text.
 */
import type { Logger } from '../../logger'
import type { AssistantRepo, KnowledgeRepo } from '../../store/repos'
import type { AssistantSettings } from '../../../shared/schemas/assistant'
import type { ModelClient, ModelEndpoint } from '../model-client'

/** Passages embedded per call. */
export const EMBED_BATCH = 32

export interface EmbedderDeps {
  knowledge: Pick<KnowledgeRepo, 'withoutEmbedding' | 'setEmbeddings'>
  assistant: Pick<AssistantRepo, 'addUsage' | 'tokensOn'>
  model: Pick<ModelClient, 'embed'>
  logger: Logger
  /** The instance's settings and endpoint now, or null when it has none (deleted, no endpoint). */
  config(instanceId: string): Promise<{ settings: AssistantSettings; endpoint: ModelEndpoint } | null>
  /** The local day an instance's tokens count towards now. */
  day(instanceId: string): string
}

export class Embedder {
  private readonly running = new Map<string, Promise<void>>()
  private readonly again = new Set<string>()
  private closed = false

  constructor(private readonly deps: EmbedderDeps) {}

  /** Starts filling an instance's missing vectors, unless a run is under way (it then runs once more). */
  kick(instanceId: string): void {
    if (this.closed) return
    if (this.running.has(instanceId)) {
      this.again.add(instanceId)
      return
    }
    const run = this.run(instanceId)
      .catch((err) => this.deps.logger.warn({ err, instanceId }, 'the knowledge embeddings could not be filled in'))
      .finally(() => {
        this.running.delete(instanceId)
        if (this.again.delete(instanceId)) this.kick(instanceId)
      })
    this.running.set(instanceId, run)
  }

  /** Resolves when no run is under way (tests, close). */
  async idle(): Promise<void> {
    while (this.running.size > 0) await Promise.allSettled([...this.running.values()])
  }

  /** Stops kicking and waits for the runs under way. */
  async close(): Promise<void> {
    this.closed = true
    this.again.clear()
    await this.idle()
  }

  private async run(instanceId: string): Promise<void> {
    for (;;) {
      if (this.closed) return
      const config = await this.deps.config(instanceId)
      const model = config?.settings.embedding_model
      if (!config || !model) return
      const batch = await this.deps.knowledge.withoutEmbedding(instanceId, model, EMBED_BATCH)
      if (batch.length === 0) return
      const texts = batch.map((c) => `${c.title}\n${c.body}`)
      const limit = config.settings.daily_token_limit
      const day = this.deps.day(instanceId)
      if (limit > 0) {
        const estimate = Math.ceil(texts.reduce((n, t) => n + t.length, 0) / 4)
        if ((await this.deps.assistant.tokensOn(instanceId, day)) + estimate > limit) {
          this.deps.logger.info({ instanceId }, 'knowledge embeddings wait for tomorrow: the day’s token limit is reached')
          return
        }
      }
      const { vectors, tokens } = await this.deps.model.embed(config.endpoint, model, texts, config.settings.timeout_ms)
      await this.deps.knowledge.setEmbeddings(model, batch.map((c, i) => ({ seq: c.seq, vector: vectors[i]! })))
      await this.deps.assistant.addUsage(instanceId, day, { prompt_tokens: tokens })
    }
  }
}
