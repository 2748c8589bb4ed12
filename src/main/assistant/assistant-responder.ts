/**
 * The assistant answering customers (docs/assistant.md "How a customer's message is answered"): the
 * bot engine asks it after surveys and intents found nothing (./../bot/bot-engine.ts AssistantGate).
 *
 * - The decision is made at once (`assistant`, under the message and in `onMessage`), the answer later:
 *   the inbound pipeline handles an instance's messages one at a time, and a model may take seconds,
 *   so the work leaves the pipeline's queue. Each chat has its own queue: answers to one chat never
 *   overlap, other chats never wait.
 * - A burst of messages is answered once: the answer waits `debounce_ms` after the chat's latest
 *   message and reads them all. "typing…" shows from the first message until the answer (repeated,
 *   since WhatsApp drops it after about 25 s).
 * - Voice notes (with `transcribe_voice`) are transcribed through `/v1/audio/transcriptions` first.
 * - The model answers (sent), hands off (the bot engine's hand-off, then `handoff_message`), or cannot
 *   answer: a timeout, an error, an unusable answer, the day's tokens spent, an open circuit. Then the
 *   fallback: `handoff`, or the default message (at most once in 10 minutes per chat; the away
 *   message outside hours). Never a silent chat unless the fallback was just sent.
 * - At most `max_replies_per_hour` answers (fallbacks included) per chat per hour: two bots writing
 *   to each other stop there.
 * - Each answer is recorded: the chat's answers (the cap, a customer's export), the day's usage, the
 *   bot activity (model, tokens, ms, sources; the UI's "why" line follows its event), and the decision
 *   record of the messages it answered.
 */
import { isGroupJid } from '../channel/jid'
import type { DownloadedMedia, InboundMessage } from '../channel/types'
import type { Clock } from '../clock'
import type { Logger } from '../logger'
import type { Repositories } from '../store/repos'
import type { ActionContext } from '../bot/action-runner'
import type { AssistantGate, AssistantReadsAhead, BotPlan, ChatMessagesRead } from '../bot/bot-engine'
import { renderReply } from '../domain/reply-template'
import type { AssistantOutcome, AssistantSettings } from '../../shared/schemas/assistant'
import type { BotActivity, BotDecisionRecord, Instance, LoggedMessage } from '../../shared/schemas/records'
import { assistantReady } from './assistant-settings'
import { FAILURE_TEXT, type AssistantService } from './assistant-service'
import type { Circuits } from './circuits'
import { turnsOf } from './history'
import type { ModelClient, ModelEndpoint } from './model-client'
import { cpuMs, type ModelTurn, type TurnReads, type TurnResult } from './model-turn'
import { usageDay } from './shop-facts'

/** The default message as a fallback goes to a chat at most once in this window (ms). */
export const FALLBACK_WINDOW_MS = 10 * 60_000
/** "typing…" is sent again this often while the model works (WhatsApp drops it after about 25 s). */
const TYPING_REPEAT_MS = 10_000

/** What the responder does with the instance's channel and the bot engine. */
export interface ResponderPorts {
  /** Sends a text to a chat as the bot (source `bot`). */
  send(inst: Instance, chatId: string, text: string): Promise<void>
  /** "typing…" on or off in a chat; best effort. */
  typing(instanceId: string, chatId: string, on: boolean): Promise<void>
  /** The bytes of an inbound voice note, or null when the channel cannot give them. */
  media(instanceId: string, messageId: string): Promise<DownloadedMedia | null>
  /** The bot engine's hand-off (pause, notice, assignment). */
  handOver(inst: Instance, ctx: ActionContext): Promise<void>
  /** The away message when due; whether it was sent. */
  sendAway(inst: Instance, msg: InboundMessage): Promise<boolean>
  /** Whether a person has the chat now (a pause in force). */
  paused(instanceId: string, chatId: string): Promise<boolean>
  /** An activity entry recorded and announced. */
  recordActivity(entry: BotActivity): Promise<void>
}

export interface AssistantResponderDeps {
  repos: Pick<Repositories, 'assistant' | 'messages' | 'instances'>
  service: Pick<AssistantService, 'settingsOf'>
  turn: Pick<ModelTurn, 'run' | 'startReads'>
  model: Pick<ModelClient, 'transcribe'>
  circuits: Circuits
  ports: ResponderPorts
  clock: Clock
  logger: Logger
  random?: () => number
  /**
   * Told, for each answer sent, the desk's own time around the model call and the model call's (ms;
   * the benchmark): the latest message's decision (from the start of the bot engine's reads, which
   * the assistant's join; from its own plan when it read nothing ahead) until its answer was
   * scheduled, plus the answer's start until the reply was handed to the outbound path, less the
   * model call. Left out: the debounce's wait, while the event loop does other work (the message's
   * own logging, here).
   */
  onAnswered?: (timing: AnswerTiming) => void
}

/** How long an answer took (ms). */
export interface AnswerTiming {
  /** The desk's own time: deciding, scheduling, reading, retrieving, building the prompt, reading the answer. */
  ownMs: number
  /** The main thread's CPU time in the same spans (the SQLite threads' work is not in it). */
  ownCpuMs: number
  /** The model call (the SDK and the endpoint). */
  modelMs: number
}

/** A message's reads started beside the bot engine's ({@link AssistantResponder.prepare}). */
interface ReadsAhead extends AssistantReadsAhead {
  chatId: string
  /** When the reads started (performance.now(), process.threadCpuUsage()): the answer's own time counts from here. */
  began: number
  beganCpu: NodeJS.CpuUsage
  settings: Promise<AssistantSettings>
  /** The chat's answers since an hour before the reads started. */
  lastHour: Promise<number>
  /** The answer's reads, when it was expected to start at once (see {@link AssistantResponder.prepare}). */
  answer?: AnswerReads
}

/** An answer's reads started with its message's decision: the chat's latest messages and the turn's own. */
interface AnswerReads {
  /** How many of the chat's latest messages `history` asked for. */
  limit: number
  history: Promise<LoggedMessage[]>
  turn: TurnReads
}

/** Messages of a chat waiting for their answer. */
interface PendingChat {
  instanceId: string
  chatId: string
  messages: InboundMessage[]
  ctx: ActionContext
  outsideHours: boolean
  /** The settings the latest message was decided with (how much history to read with the others). */
  settings: AssistantSettings
  /** Cancels the debounce's wait. */
  cancel: (() => void) | null
  /** The latest message's decision: how long until it was scheduled (ms, wall and CPU). */
  decidedMs: number
  decidedCpuMs: number
  /** The answer's reads started with the first message's decision, while they still fit (one message, settings as expected). */
  early: AnswerReads | undefined
  /** Whether the answer had to wait for the chat's previous answer (set when it leaves the debounce). */
  queuedBehind: boolean
  /** When the answer began (the debounce over; performance.now(), process.threadCpuUsage()). */
  flushedAt: number
  flushedCpu: NodeJS.CpuUsage
}

export class AssistantResponder implements AssistantGate {
  private readonly pending = new Map<string, PendingChat>()
  private readonly chains = new Map<string, Promise<void>>()
  /** Per instance, its settings as last read: a hint for reading ahead, never a decision. */
  private readonly seen = new Map<string, AssistantSettings>()
  private closed = false

  constructor(private readonly deps: AssistantResponderDeps) {}

  /**
   * Starts a message's reads for {@link plan} while the bot engine reads its own (docs/assistant.md
   * "How a customer's message is answered"): the settings and the chat's answers in the last hour;
   * and when the settings last read say the answer starts at once (no debounce) and no answer of the
   * chat waits or is under way, the answer's reads too (the chat's latest messages, the day's tokens
   * and the key, the knowledge's text search), used if the answer does start at once.
   *
   * The chat's latest messages are the engine's `recent` when it reads enough of them.
   *
   * None for a group's message, or while the instance's assistant was off when last read: its plan
   * then reads the settings itself, so a switch turned on meanwhile counts at once. The reads are
   * wasted when an intent answers: a few keyed reads and a search on the reader threads, while the
   * reply, which does not wait for them, goes out.
   */
  prepare(inst: Instance, msg: InboundMessage, recent: ChatMessagesRead | null = null): ReadsAhead | null {
    const last = this.seen.get(inst._id)
    if (isGroupJid(msg.chatId) || (last && !assistantReady(last))) return null
    const began = performance.now()
    const beganCpu = process.threadCpuUsage()
    const ahead: ReadsAhead = { instanceId: inst._id, chatId: msg.chatId, began, beganCpu, ...this.reads(inst._id, msg.chatId) }
    const key = `${inst._id}\n${msg.chatId}`
    const question = msg.text.trim()
    if (last && last.debounce_ms === 0 && question && msg.type !== 'audio' && !this.pending.has(key) && !this.chains.has(key)) {
      const needed = last.history_messages + 1
      const history = recent && recent.limit >= needed ? recent : { limit: needed, messages: this.deps.repos.messages.list(inst._id, { chatId: msg.chatId, limit: needed }) }
      ahead.answer = { limit: history.limit, history: history.messages, turn: this.deps.turn.startReads(inst, question, last.knowledge_chunks) }
      ahead.answer.history.catch(() => undefined)
    }
    // Unused when an intent answers; a failure reaches the plan that awaits it.
    ahead.settings.then((s) => this.seen.set(inst._id, s)).catch(() => undefined)
    ahead.lastHour.catch(() => undefined)
    return ahead
  }

  async answersOutsideHours(instanceId: string, ahead: AssistantReadsAhead | null): Promise<boolean> {
    const s = await (ahead?.instanceId === instanceId ? (ahead as ReadsAhead).settings : this.deps.service.settingsOf(instanceId))
    return assistantReady(s) && s.outside_hours
  }

  async plan(inst: Instance, msg: InboundMessage, ctx: ActionContext, outsideHours: boolean, ahead: AssistantReadsAhead | null = null): Promise<BotPlan | null> {
    if (isGroupJid(msg.chatId)) return null
    const given = ahead as ReadsAhead | null
    const reads = given && given.instanceId === inst._id && given.chatId === msg.chatId ? given : { began: performance.now(), beganCpu: process.threadCpuUsage(), ...this.reads(inst._id, msg.chatId) }
    const { began, beganCpu } = reads
    const [settings, lastHour] = await Promise.all([reads.settings, reads.lastHour])
    this.seen.set(inst._id, settings)
    if (!assistantReady(settings)) return null
    const voice = msg.type === 'audio' && settings.transcribe_voice
    if (!msg.text.trim() && !voice) return null
    if (lastHour >= settings.max_replies_per_hour) {
      return { record: { action: 'none', reason: 'assistant_cap' }, act: async () => ({ kind: 'skipped', reason: 'assistant_cap' }) }
    }
    return {
      record: { action: 'assistant', ref: settings.model },
      act: async () => {
        this.enqueue(inst, msg, ctx, outsideHours, settings, began, beganCpu, 'answer' in reads ? reads.answer : undefined)
        return { kind: 'none' }
      }
    }
  }

  /** The settings and the chat's answers in the last hour, read together (one wait for the reader threads, not two). */
  private reads(instanceId: string, chatId: string): Pick<ReadsAhead, 'settings' | 'lastHour'> {
    const hourAgo = this.deps.clock.now() - 3_600_000
    return { settings: this.deps.service.settingsOf(instanceId), lastHour: this.deps.repos.assistant.repliesSince(instanceId, chatId, hourAgo) }
  }

  /** Resolves when no answer is waiting or being written (tests, benchmarks, close). */
  async idle(): Promise<void> {
    while (this.pending.size > 0 || this.chains.size > 0) {
      for (const key of [...this.pending.keys()]) this.flush(key)
      await Promise.allSettled([...this.chains.values()])
    }
  }

  /** Answers what waits at once, then stops taking messages. */
  async close(): Promise<void> {
    await this.idle()
    this.closed = true
  }

  private enqueue(inst: Instance, msg: InboundMessage, ctx: ActionContext, outsideHours: boolean, settings: AssistantSettings, since: number, sinceCpu: NodeJS.CpuUsage, early: AnswerReads | undefined): void {
    if (this.closed) return
    const key = `${inst._id}\n${msg.chatId}`
    let p = this.pending.get(key)
    if (!p) {
      p = { instanceId: inst._id, chatId: msg.chatId, messages: [], ctx, outsideHours, settings, cancel: null, decidedMs: 0, decidedCpuMs: 0, early, queuedBehind: false, flushedAt: 0, flushedCpu: process.threadCpuUsage() }
      this.pending.set(key, p)
      if (!this.chains.has(key)) void this.deps.ports.typing(inst._id, msg.chatId, true).catch(() => undefined)
    }
    // A burst answers several messages: the first one's reads ahead do not hold the others.
    if (p.messages.push(msg) > 1) p.early = undefined
    p.ctx = { ...ctx, text: p.messages.map((m) => m.text).filter(Boolean).join('\n') }
    p.outsideHours = outsideHours
    p.settings = settings
    p.decidedMs = performance.now() - since
    p.decidedCpuMs = cpuMs(sinceCpu)
    p.cancel?.()
    // No debounce: once the pipeline's writes of this turn are queued (a 0 ms timer waits 1 ms).
    if (settings.debounce_ms === 0) {
      const handle = setImmediate(() => this.flush(key))
      p.cancel = () => clearImmediate(handle)
    } else {
      const handle = setTimeout(() => this.flush(key), settings.debounce_ms)
      p.cancel = () => clearTimeout(handle)
    }
  }

  /** The chat's waiting messages go to its queue. */
  private flush(key: string): void {
    const p = this.pending.get(key)
    if (!p) return
    this.pending.delete(key)
    p.cancel?.()
    p.flushedAt = performance.now()
    p.flushedCpu = process.threadCpuUsage()
    p.queuedBehind = this.chains.has(key)
    const previous = this.chains.get(key) ?? Promise.resolve()
    const next = previous
      .then(() => this.answer(p))
      .catch((err) => this.deps.logger.error({ err, instanceId: p.instanceId }, 'the assistant could not answer a chat'))
    this.chains.set(key, next)
    void next.then(() => {
      if (this.chains.get(key) === next) this.chains.delete(key)
    })
  }

  private async answer(p: PendingChat): Promise<void> {
    const inst = this.deps.repos.instances.find(p.instanceId)
    if (!inst) return
    const ids = p.messages.map((m) => m.id)
    const keepTyping = setInterval(() => void this.deps.ports.typing(inst._id, p.chatId, true).catch(() => undefined), TYPING_REPEAT_MS)
    try {
      // Read together, one wait for the database threads: the chat's history and, when the answer
      // waited (the debounce, or the chat's previous answer), the settings and whether a person has
      // the chat, which may have changed meanwhile. An answer that starts right after its decision
      // uses what the decision read a moment ago (the bot engine reads the pause before asking).
      const waited = p.settings.debounce_ms > 0 || p.queuedBehind
      const historyOf = (s: AssistantSettings) => this.deps.repos.messages.list(inst._id, { chatId: p.chatId, limit: s.history_messages + ids.length })
      // Read with the message's decision (prepare): the chat's messages then are its messages now,
      // unless the answer waited, and the turn's reads are of the same question.
      const early = !waited && p.early && p.early.limit >= p.settings.history_messages + ids.length ? p.early : undefined
      // The turn's own reads (budget, key, knowledge) join that wait when the question is already
      // known, i.e. no voice note waits for its transcription.
      const plain = p.messages.some((m) => m.type === 'audio' && !m.text.trim()) ? '' : p.messages.map((m) => m.text.trim()).filter(Boolean).join('\n')
      const reads = early ? early.turn : plain ? this.deps.turn.startReads(inst, plain, p.settings.knowledge_chunks) : undefined
      const [settings, paused, read] = await Promise.all([waited ? this.deps.service.settingsOf(inst._id) : p.settings, waited ? this.deps.ports.paused(inst._id, p.chatId) : false, early ? early.history : historyOf(p.settings)])
      // A person took the chat over meanwhile (a reply, a hand-off): theirs to answer.
      if (paused) {
        const outcome = { outcome: 'fallback' as const, model: settings.model, prompt_tokens: 0, completion_tokens: 0, ms: 0, sources: [], error: 'a person took the chat over before the answer', fallback: 'none' as const, message_ids: ids }
        await this.finish(inst, p, outcome, '', '', false)
        return
      }
      if (!assistantReady(settings)) {
        await this.fallback(inst, p, settings, { model: settings.model, sources: [], usage: { prompt_tokens: 0, completion_tokens: 0 }, ms: 0 }, 'the assistant was switched off', '')
        return
      }
      const question = await this.questionOf(inst, settings, p)
      if ('error' in question) {
        await this.fallback(inst, p, settings, { model: settings.model, sources: [], usage: { prompt_tokens: 0, completion_tokens: 0 }, ms: 0 }, question.error, '')
        return
      }
      const log = settings.history_messages > p.settings.history_messages ? await historyOf(settings) : read
      // The last `history_messages` messages before these, however many were read (the option lookback's 20).
      const history = settings.history_messages > 0 ? turnsOf(log.filter((m) => !ids.includes(m.id)).slice(-settings.history_messages)) : []
      const result = await this.deps.turn.run({
        inst,
        settings,
        question: question.text,
        turns: [...history, { role: 'user', text: question.text }],
        customerName: p.ctx.pushName,
        circuit: this.deps.circuits.of(inst._id),
        ...(reads ? { reads } : {})
      })
      const base = { model: result.model, prompt_tokens: result.usage.prompt_tokens, completion_tokens: result.usage.completion_tokens, ms: result.ms, sources: result.sources, message_ids: ids }
      try {
        if (result.outcome.kind === 'reply') {
          this.deps.onAnswered?.({ ownMs: p.decidedMs + (performance.now() - p.flushedAt) - result.callMs, ownCpuMs: p.decidedCpuMs + cpuMs(p.flushedCpu) - result.callCpuMs, modelMs: result.callMs })
          await this.deps.ports.send(inst, p.chatId, result.outcome.text)
          await this.finish(inst, p, { ...base, outcome: 'answered' }, question.text, result.outcome.text, true, result.embedTokens)
        } else if (result.outcome.kind === 'handoff') {
          const text = await this.handOver(inst, p, settings)
          await this.finish(inst, p, { ...base, outcome: 'handoff', ...(result.outcome.reason ? { handoff_reason: result.outcome.reason } : {}) }, question.text, text, true, result.embedTokens)
        } else {
          await this.fallback(inst, p, settings, result, `${FAILURE_TEXT[result.outcome.reason]}: ${result.outcome.detail}`, question.text)
        }
      } catch (err) {
        // The answer could not go out (the instance lost its connection): recorded, and logged.
        this.deps.logger.warn({ err, instanceId: inst._id }, 'the assistant’s answer could not be sent')
        await this.finish(inst, p, { ...base, outcome: 'fallback', fallback: 'none', error: `the answer could not be sent (${(err as Error).message})` }, question.text, '', true, result.embedTokens)
      }
    } finally {
      clearInterval(keepTyping)
      if (!this.pending.has(`${inst._id}\n${p.chatId}`)) void this.deps.ports.typing(inst._id, p.chatId, false).catch(() => undefined)
    }
  }

  /** The customer's words: the burst's texts, voice notes transcribed; or why they cannot be had. */
  private async questionOf(inst: Instance, settings: AssistantSettings, p: PendingChat): Promise<{ text: string } | { error: string }> {
    const parts: string[] = []
    for (const m of p.messages) {
      if (m.type === 'audio' && !m.text.trim() && settings.transcribe_voice) {
        const heard = await this.transcribe(inst, settings, m)
        if ('error' in heard) return heard
        parts.push(heard.text)
      } else if (m.text.trim()) parts.push(m.text.trim())
    }
    return parts.length > 0 ? { text: parts.join('\n') } : { error: 'the messages held no text' }
  }

  private async transcribe(inst: Instance, settings: AssistantSettings, m: InboundMessage): Promise<{ text: string } | { error: string }> {
    const audio = await this.deps.ports.media(inst._id, m.id).catch(() => null)
    if (!audio) return { error: 'the voice note could not be downloaded' }
    const endpoint: ModelEndpoint = { baseUrl: settings.base_url, apiKey: await this.deps.repos.assistant.key(inst._id) }
    try {
      const ext = /ogg|opus/.test(audio.mimetype) ? 'ogg' : /mpeg|mp3/.test(audio.mimetype) ? 'mp3' : /mp4|m4a|aac/.test(audio.mimetype) ? 'm4a' : 'ogg'
      const text = (await this.deps.model.transcribe(endpoint, settings.transcription_model, { data: audio.data, mimetype: audio.mimetype.split(';')[0]!, fileName: audio.fileName ?? `voice-note.${ext}` }, settings.timeout_ms)).trim()
      return text ? { text } : { error: 'the voice note’s transcription was empty' }
    } catch (err) {
      return { error: `the voice note could not be transcribed (${(err as Error).message})` }
    }
  }

  /** Hands the chat to a person and tells the customer; answers the text sent. */
  private async handOver(inst: Instance, p: PendingChat, settings: AssistantSettings): Promise<string> {
    await this.deps.ports.handOver(inst, { ...p.ctx, matched: 'the assistant (it handed the chat to a person)' })
    const text = renderReply(settings.handoff_message, { name: p.ctx.pushName, number: p.ctx.contactJid }, this.deps.random ?? Math.random)
    await this.deps.ports.send(inst, p.chatId, text)
    return text
  }

  /** The owner's fallback for a turn that gave nothing to send, recorded with why. */
  private async fallback(inst: Instance, p: PendingChat, settings: AssistantSettings, result: Pick<TurnResult, 'model' | 'sources' | 'usage' | 'ms'> & { embedTokens?: number }, why: string, question: string): Promise<void> {
    const embed = result.embedTokens ?? 0
    const base = { outcome: 'fallback' as const, model: result.model, prompt_tokens: result.usage.prompt_tokens, completion_tokens: result.usage.completion_tokens, ms: result.ms, sources: result.sources, error: why, message_ids: p.messages.map((m) => m.id) }
    this.deps.logger.warn({ instanceId: inst._id, reason: why }, 'the assistant could not answer; the fallback answers')
    if (settings.fallback === 'handoff') {
      const text = await this.handOver(inst, p, settings)
      await this.finish(inst, p, { ...base, fallback: 'handoff' }, question, text, true, embed)
      return
    }
    if (p.outsideHours) {
      const sent = await this.deps.ports.sendAway(inst, p.messages.at(-1)!)
      await this.finish(inst, p, { ...base, fallback: sent ? 'away' : 'none' }, question, sent ? '(the away message)' : '', true, embed)
      return
    }
    const recent = await this.deps.repos.assistant.repliesSince(inst._id, p.chatId, this.deps.clock.now() - FALLBACK_WINDOW_MS, 'fallback')
    if (recent > 0 || !inst.settings.default_msg.trim()) {
      await this.finish(inst, p, { ...base, fallback: 'none' }, question, '', true, embed)
      return
    }
    const text = renderReply(inst.settings.default_msg, { name: p.ctx.pushName, number: p.ctx.contactJid }, this.deps.random ?? Math.random)
    await this.deps.ports.send(inst, p.chatId, text)
    await this.finish(inst, p, { ...base, fallback: 'default' }, question, text, true, embed)
  }

  /**
   * Records an answer: the chat's answers and the day's counts and tokens (`embedTokens`: the
   * question's embedding; unless `counted` is false: nothing was sent because a person has the
   * chat), the activity, the messages' decision records.
   */
  private async finish(inst: Instance, p: PendingChat, outcome: AssistantOutcome & { message_ids: string[] }, question: string, reply: string, counted = true, embedTokens = 0): Promise<void> {
    const now = this.deps.clock.now()
    const { message_ids, ...rest } = outcome
    const counts = outcome.outcome === 'answered' ? { replies: 1 } : outcome.outcome === 'handoff' ? { handoffs: 1 } : { fallbacks: 1 }
    const record: BotDecisionRecord = { action: 'assistant', ref: outcome.model, assistant: outcome }
    // Independent writes, started together: they share the group commit.
    await Promise.all([
      ...(counted
        ? [
            this.deps.repos.assistant.addReply(inst._id, { chatId: p.chatId, question, reply, ...rest, message_ids }, now),
            this.deps.repos.assistant.addUsage(inst._id, usageDay(inst, now), { ...counts, prompt_tokens: outcome.prompt_tokens + embedTokens, completion_tokens: outcome.completion_tokens })
          ]
        : []),
      ...message_ids.map((id) => this.deps.repos.messages.update(inst._id, id, { bot: record })),
      this.deps.ports.recordActivity({
        at: new Date(now).toISOString(),
        instance_id: inst._id,
        chatId: p.chatId,
        messageId: message_ids.at(-1)!,
        matched: 'the assistant',
        actions: [{ action: outcome.outcome === 'answered' ? 'assistant_reply' : outcome.outcome === 'handoff' || outcome.fallback === 'handoff' ? 'handoff' : `fallback_${outcome.fallback ?? 'none'}`, ok: true }],
        assistant: outcome
      })
    ])
  }

}
