/**
 * The assistant's records (docs/assistant.md): its settings per instance with the endpoint's key
 * (kept in a column of its own: {@link AssistantRepo.settings} never reads it, only
 * {@link AssistantRepo.key} does, for the model call), each answer it gave a chat, and its use per day.
 */
import type { AssistantReply, AssistantSettings, AssistantUsageDay } from '../../../shared/schemas/assistant'
import type { Selectable } from 'kysely'
import type { AssistantRepliesTable } from '../db/schema'
import { fromJson, toJson, type Exec } from './exec'
import { timeToMs } from '../db/times'

/** What to do with the stored key on a save. */
export type KeyChange = { keep: true } | { set: string | null }

/** Counts added to a day's usage. */
export type UsageDelta = Partial<Omit<AssistantUsageDay, 'day'>>

const USAGE_FIELDS = ['prompt_tokens', 'completion_tokens', 'replies', 'handoffs', 'fallbacks', 'asks'] as const

/** An answer's row as a record (also what a customer's export shows). */
export function assistantReplyOf(r: Selectable<AssistantRepliesTable>): AssistantReply {
  return {
    at: new Date(Number(r.at)).toISOString(),
    chatId: r.chat_id,
    question: r.question,
    reply: r.reply,
    outcome: r.outcome as AssistantReply['outcome'],
    model: r.model,
    prompt_tokens: Number(r.prompt_tokens),
    completion_tokens: Number(r.completion_tokens),
    ms: Number(r.ms),
    sources: fromJson<AssistantReply['sources']>(r.sources),
    message_ids: fromJson<string[]>(r.message_ids),
    ...(r.error !== null ? { error: r.error } : {}),
    ...(r.fallback !== null ? { fallback: r.fallback as NonNullable<AssistantReply['fallback']> } : {}),
    ...(r.handoff_reason !== null ? { handoff_reason: r.handoff_reason } : {})
  }
}

export class AssistantRepo {
  constructor(private readonly x: Exec) {}

  /** The stored settings (as saved; the caller fills defaults) and whether a key is stored; null when never saved. */
  async settings(instanceId: string): Promise<{ settings: Partial<AssistantSettings>; keySet: boolean } | null> {
    const r = await this.x.db
      .selectFrom('assistant_settings')
      .select((eb) => ['settings', eb('api_key', 'is not', null).as('key_set')])
      .where('instance_id', '=', instanceId)
      .executeTakeFirst()
    return r ? { settings: fromJson<Partial<AssistantSettings>>(r.settings), keySet: Boolean(Number(r.key_set)) } : null
  }

  /** The endpoint's key (the model call only), or null. */
  async key(instanceId: string): Promise<string | null> {
    const r = await this.x.db.selectFrom('assistant_settings').select('api_key').where('instance_id', '=', instanceId).executeTakeFirst()
    return r?.api_key ?? null
  }

  /** Stores the settings, and the key as `key` says, in one statement. `at`: ISO time. */
  async save(instanceId: string, settings: AssistantSettings, key: KeyChange, at: string): Promise<void> {
    await this.x.write(async (trx) => {
      const apiKey = 'set' in key ? key.set : ((await trx.selectFrom('assistant_settings').select('api_key').where('instance_id', '=', instanceId).executeTakeFirst())?.api_key ?? null)
      await trx
        .insertInto('assistant_settings')
        .values({ instance_id: instanceId, settings: toJson(settings), api_key: apiKey, updated_at: timeToMs(at) })
        .onConflict((oc) => oc.column('instance_id').doUpdateSet({ settings: toJson(settings), api_key: apiKey, updated_at: timeToMs(at) }))
        .execute()
    })
  }

  /** Adds to an instance's usage of `day` (YYYY-MM-DD, bot_timezone). */
  async addUsage(instanceId: string, day: string, delta: UsageDelta): Promise<void> {
    const row = { instance_id: instanceId, day, ...Object.fromEntries(USAGE_FIELDS.map((f) => [f, delta[f] ?? 0])) } as { instance_id: string; day: string } & Record<(typeof USAGE_FIELDS)[number], number>
    await this.x.write((trx) =>
      trx
        .insertInto('assistant_usage')
        .values(row)
        .onConflict((oc) => oc.columns(['instance_id', 'day']).doUpdateSet((eb) => Object.fromEntries(USAGE_FIELDS.map((f) => [f, eb(eb.ref(`assistant_usage.${f}`), '+', row[f])]))))
        .execute()
    )
  }

  /** An instance's usage of the days from `fromDay` (inclusive), oldest first. */
  async usage(instanceId: string, fromDay: string): Promise<AssistantUsageDay[]> {
    const rows = await this.x.db.selectFrom('assistant_usage').selectAll().where('instance_id', '=', instanceId).where('day', '>=', fromDay).orderBy('day').execute()
    return rows.map((r) => ({ day: r.day, ...(Object.fromEntries(USAGE_FIELDS.map((f) => [f, Number(r[f])])) as Omit<AssistantUsageDay, 'day'>) }))
  }

  /** Tokens (prompt and completion) an instance used on `day`. */
  async tokensOn(instanceId: string, day: string): Promise<number> {
    const r = await this.x.db.selectFrom('assistant_usage').select(['prompt_tokens', 'completion_tokens']).where('instance_id', '=', instanceId).where('day', '=', day).executeTakeFirst()
    return r ? Number(r.prompt_tokens) + Number(r.completion_tokens) : 0
  }

  /**
   * What a model call needs before it is made: the tokens used on `day` and the endpoint's key (null
   * when none is stored). One call, so one round trip to a reader thread on SQLite instead of two.
   */
  async callBudget(instanceId: string, day: string): Promise<{ tokens: number; key: string | null }> {
    const [tokens, key] = await Promise.all([this.tokensOn(instanceId, day), this.key(instanceId)])
    return { tokens, key }
  }

  /** Records an answer (or fallback) given to a chat at `atMs` (epoch ms). */
  async addReply(instanceId: string, reply: Omit<AssistantReply, 'at'>, atMs: number): Promise<void> {
    await this.x.write((trx) =>
      trx
        .insertInto('assistant_replies')
        .values({
          instance_id: instanceId,
          chat_id: reply.chatId,
          at: atMs,
          message_ids: toJson(reply.message_ids),
          question: reply.question,
          reply: reply.reply,
          outcome: reply.outcome,
          model: reply.model,
          prompt_tokens: reply.prompt_tokens,
          completion_tokens: reply.completion_tokens,
          ms: reply.ms,
          sources: toJson(reply.sources),
          error: reply.error ?? null,
          fallback: reply.fallback ?? null,
          handoff_reason: reply.handoff_reason ?? null
        })
        .execute()
    )
  }

  /** How many answers a chat got since `sinceMs` (epoch ms); `outcome` counts only those. */
  async repliesSince(instanceId: string, chatId: string, sinceMs: number, outcome?: AssistantReply['outcome']): Promise<number> {
    const { n } = await this.x.db
      .selectFrom('assistant_replies')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('instance_id', '=', instanceId)
      .where('chat_id', '=', chatId)
      .where('at', '>=', sinceMs)
      .$if(outcome !== undefined, (q) => q.where('outcome', '=', outcome!))
      .executeTakeFirstOrThrow()
    return Number(n)
  }

  /** A chat's latest answers, oldest first (the fallback's text of a voice note, the UI). */
  async latestReplies(instanceId: string, chatId: string, limit: number): Promise<AssistantReply[]> {
    const rows = await this.x.db.selectFrom('assistant_replies').selectAll().where('instance_id', '=', instanceId).where('chat_id', '=', chatId).orderBy('seq', 'desc').limit(limit).execute()
    return rows.reverse().map(assistantReplyOf)
  }
}
