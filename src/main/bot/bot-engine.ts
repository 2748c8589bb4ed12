/**
 * The bot engine (docs/design.md §9–§10): what makes an instance answer by itself. Registered on the
 * inbound pipeline, so it runs the same for the sandbox and the real channel.
 *
 * For each inbound message:
 * 0. Hand-off: a message the owner typed on the phone pauses the bot for that chat; a paused chat
 *    gets no answer; a customer's hand-off keyword pauses it until resumed (docs/design.md §13).
 * 1. Gates: own messages, status broadcasts/newsletters, `reply_msgs`, `reply_group_msgs`,
 *    `reply_unread_msgs` (offline backlog), active days and hours in `bot_timezone`. Duplicates: the
 *    pipeline asks the log while the decision runs, which stops before it writes anything when the
 *    message id is logged already; the pipeline drops that plan.
 * 2. A reply with the number or title of an option the bot sent to that chat counts as pressing it.
 * 3. A running survey takes the message as the answer to its current step.
 * 4. Else the first step of a survey whose trigger matches starts it.
 * 5. Else the best intent answers with its reply, then its actions.
 * 6. Else the assistant, when the instance has one (docs/assistant.md): it answers from the shop's
 *    knowledge or hands the chat to a person; outside opening hours only when the owner lets it, with
 *    the away message as its fallback there.
 * 7. Else the default message, at most once per contact per window.
 *
 * Survey runs live in the database; idle runs expire (default 30 min). Every actions run is
 * recorded in the bot activity log (bounded), failures included.
 */
import { AsyncLocalStorage } from 'node:async_hooks'
import { isGroupJid } from '../channel/jid'
import type { ChatIdentity, InboundMessage } from '../channel/types'
import type { CoreEventBus } from '../events'
import { newObjectId } from '../ids'
import type { Logger } from '../logger'
import type { AttachmentService } from '../services/attachment-service'
import type { MessageService } from '../services/messages/message-sender'
import type { Repositories } from '../store/repos'
import type { Clock } from '../clock'
import { DEFAULT_AWAY, defaultOptOut, type Action, type BotActivity, type BotDecisionRecord, type ChatPause, type Instance, type LoggedMessage, type SentBy, type Survey, type SurveyRun } from '../../shared/schemas/records'
import { ActionRunner, type ActionContext, type ActionOutcome } from './action-runner'
import { describeOpening, isOpen, nextOpening, scheduleOf } from '../domain/active-window'
import type { Mailer } from './mailer'
import { keywordList } from '../../shared/domain/keywords'
import { handoffOf, type HandoffService } from '../services/handoff-service'
import type { ContactService } from '../services/contacts/contact-service'
import { contactKeyOf } from '../services/contacts/contact-number'
import { MatcherRegistry } from './matcher-registry'
import { resolveOptionReply } from './option-reply'
import { renderReply } from '../domain/reply-template'
import { answerStep, expireRun, isExpired, startRun, SurveyFlowError } from './survey-flow'
import { DEFAULT_SURVEY_IDLE_MS, orderSteps } from '../domain/survey-steps'

/** At most one default (or away) message per contact in this window by default (docs/design.md §10). */
const DEFAULT_WINDOW_MS = 24 * 60 * 60 * 1000

/** A decision and the work it calls for: `act()` sends the replies and runs the actions. */
export interface BotPlan {
  record: BotDecisionRecord
  act(): Promise<BotDecision>
  /**
   * After `act()`: resolves once the replies it queued are sent and logged (or failed, logged), which
   * `act()` does not wait for (see {@link BotEngine.decide}). Never rejects.
   */
  delivered?(): Promise<void>
}

/** The replies an `act()` queued without waiting for their delivery; `open` while it runs. */
interface Deliveries {
  open: boolean
  sends: Array<Promise<unknown>>
}

/** `[answer:N]` → the answer to step N (1-based, in step order) of a run; unknown steps become ''. */
export function fillAnswers(template: string, steps: readonly Pick<Survey, '_id'>[], answers: readonly { step_id: string; answer: string }[]): string {
  return template.replace(/\[answer:(\d+)\]/gi, (_m, n: string) => {
    const step = steps[Number(n) - 1]
    return step ? (answers.filter((a) => a.step_id === step._id).at(-1)?.answer ?? '') : ''
  })
}

function silent(record: BotDecisionRecord): BotPlan {
  return { record, act: async () => ({ kind: 'skipped', reason: record.reason ?? 'none' }) }
}

/** What the engine did with a message (for logs and tests). */
export type BotDecision =
  | { kind: 'skipped'; reason: string }
  | { kind: 'survey_answer'; title: string; accepted: boolean; completed: boolean }
  | { kind: 'survey_start'; title: string }
  | { kind: 'intent'; intentId: string; title: string }
  | { kind: 'default_message' }
  | { kind: 'none' }

export interface BotEngineOptions {
  /** Idle time after which a survey run expires (ms). */
  surveyIdleMs?: number
  /** At most one default (and one away) message per contact in this window (ms; default 24 h). */
  defaultMessageWindowMs?: number
  /** Activity entries kept per instance. */
  activityLimit?: number
}

/**
 * The assistant as the engine sees it (implemented by src/main/assistant/assistant-responder.ts): asked
 * after surveys and intents found nothing, before the default message.
 */
export interface AssistantGate {
  /**
   * Starts the assistant's reads for a message the bot may answer, beside the engine's own (one wait
   * for the database threads, not one after the other); null when it has nothing to read ahead. What
   * it answers goes to {@link answersOutsideHours} and {@link plan}. `recent`: the chat's latest
   * messages the engine reads anyway (null when it does not), for the gate to use rather than read.
   */
  prepare(inst: Instance, msg: InboundMessage, recent: ChatMessagesRead | null): AssistantReadsAhead | null
  /** Whether the instance's assistant answers outside opening hours. */
  answersOutsideHours(instanceId: string, ahead: AssistantReadsAhead | null): Promise<boolean>
  /** Its plan for a message, or null to leave it to the default message (off, a group, nothing to answer). */
  plan(inst: Instance, msg: InboundMessage, ctx: ActionContext, outsideHours: boolean, ahead: AssistantReadsAhead | null): Promise<BotPlan | null>
}

/** The chat's latest messages as the engine reads them (the option lookback): at most `limit`, as `messages.list` answers them. */
export interface ChatMessagesRead {
  limit: number
  messages: Promise<LoggedMessage[]>
}

/** What {@link AssistantGate.prepare} started; only the gate looks inside. */
export interface AssistantReadsAhead {
  readonly instanceId: string
}

export interface BotEngineDeps {
  repos: Repositories
  events: CoreEventBus
  logger: Logger
  messages: MessageService
  attachments: AttachmentService
  mailer: Mailer
  clock: Clock
  /** Hand-off: chats paused for a person (docs/design.md §13). */
  handoff: HandoffService
  /** Contact groups, for `add_to_group` with a contact group's id. */
  contacts?: Pick<ContactService, 'addToGroup' | 'setOptedOut'>
  /** The assistant (docs/assistant.md); none: the default message follows the intents. */
  assistant?: AssistantGate
  /** Gives a chat handed to a person to a signed-in agent (the inbox's round-robin); answers whether it did. */
  assign?: (instanceId: string, chatId: string, by: SentBy) => Promise<boolean>
  random?: () => number
  options?: BotEngineOptions
  /**
   * Database mode: true while this worker holds the instance's lease (docs/design.md §22). The idle
   * sweep then expires only the runs of this worker's instances, so with several workers each run's
   * expiry is written once. Absent (SQLite): every instance is this process's.
   */
  mine?: (instanceId: string) => boolean
}

/** How many recent messages of a chat are searched for the last buttons/list sent. */
const OPTION_LOOKBACK = 20

export class BotEngine {
  readonly matcher: MatcherRegistry
  private readonly actions: ActionRunner
  /** Per `<instance>:<chat>`, when the customer last wrote (epoch ms), for bursts. */
  private readonly lastInbound = new Map<string, number>()
  /** At most one default (and one away) message per contact per window (ms). */
  private readonly windowMs: number
  private readonly now: () => Date
  private readonly random: () => number
  private readonly idleMs: number
  private readonly activityLimit: number
  private readonly sweepTimer: NodeJS.Timeout
  /** The replies of the `act()` running in this async context (see {@link decide}). */
  private readonly deliveries = new AsyncLocalStorage<Deliveries>()

  constructor(private readonly deps: BotEngineDeps) {
    this.now = () => new Date(deps.clock.now())
    this.random = deps.random ?? Math.random
    this.idleMs = deps.options?.surveyIdleMs ?? DEFAULT_SURVEY_IDLE_MS
    this.activityLimit = deps.options?.activityLimit ?? 200
    this.matcher = new MatcherRegistry(deps.repos, deps.events)
    this.windowMs = deps.options?.defaultMessageWindowMs ?? DEFAULT_WINDOW_MS
    if (!(this.windowMs > 0)) throw new RangeError(`default message window must be > 0 ms, got ${this.windowMs}`)
    this.actions = new ActionRunner({
      messages: deps.messages,
      attachments: deps.attachments,
      mailer: deps.mailer,
      logger: deps.logger,
      startSurvey: (inst, ctx, stepId) => this.startSurveyAt(inst, ctx, stepId),
      addToContactGroup: async (inst, ctx, groupId) => {
        if (!deps.contacts || !(await deps.repos.contactGroups.owned(inst._id, groupId))) return false
        const key = contactKeyOf(ctx.contactJid)
        if (!key) return false
        await deps.contacts.addToGroup(inst, key, ctx.pushName, groupId)
        return true
      }
    })
    this.sweepTimer = setInterval(() => {
      this.expireIdleRuns().catch((err) => deps.logger.error({ err }, 'survey expiry sweep failed'))
    }, 60_000)
    this.sweepTimer.unref()
  }

  /**
   * Decides what to do with an inbound message (gates, option replies, surveys, intents, the default
   * message) without doing it yet: the decision record goes into the log entry and the `onMessage`
   * webhook before the replies go out (docs/design.md §13). `act()` sends the replies and runs the
   * actions; errors are the pipeline's to log.
   */
  async decide(instanceId: string, msg: InboundMessage, isNew: Promise<boolean> = Promise.resolve(true)): Promise<BotPlan> {
    const plan = await this.plan(instanceId, msg, isNew)
    // A reply of `act()` is awaited until it has its place in the send queue, not until it is sent
    // and logged: the pipeline handles the instance's next message once `act()` is done, and waiting
    // for the delivery (the "typing…" pause, the Signal session's commit, the log write) held every
    // later message of the instance for it (docs/benchmarks.md "Where a bot reply's time goes"). What
    // a later decision reads (a pause, a survey's step, a claimed default message) is written before
    // the reply is queued; the replies go out in queue order. `delivered()` waits for the rest.
    const deliveries: Deliveries = { open: true, sends: [] }
    return {
      record: plan.record,
      act: () =>
        this.deliveries.run(deliveries, async () => {
          try {
            return await plan.act()
          } finally {
            // Sends started later in this context (an assistant's answer, long after) wait whole.
            deliveries.open = false
          }
        }),
      delivered: async () => void (await Promise.allSettled(deliveries.sends))
    }
  }

  /** The plan (see {@link decide}); nothing is written before `isNew` says the message is not a redelivery. */
  private async plan(instanceId: string, msg: InboundMessage, isNew: Promise<boolean>): Promise<BotPlan> {
    const inst = this.deps.repos.instances.find(instanceId)
    if (!inst) return silent({ action: 'none', reason: 'instance_deleted' })
    // The owner wrote from the phone: a person is handling this chat, the bot pauses there.
    if (msg.fromMe) {
      return { record: { action: 'none', reason: 'own_message' }, act: async () => {
        await this.deps.handoff.humanReplied(inst._id, msg.chatId, 'phone', msg.timestamp * 1000)
        return { kind: 'skipped', reason: 'own_message' }
      } }
    }
    // Opting out is honoured whatever else holds (hours, a pause): the customer's word is final.
    const opt = this.optWord(inst, msg)
    if (opt) {
      return {
        record: { action: opt },
        act: async () => {
          // Their number when WhatsApp gave it, else the LID (a customer known by username): the key broadcasts check.
          const number = contactKeyOf(msg.senderPn ?? msg.chatId)
          if (number) await this.deps.contacts?.setOptedOut(inst, number, msg.pushName?.trim() || (msg.username ? `@${msg.username}` : null), opt === 'opt_out')
          const s = { ...defaultOptOut(inst.settings.bot_lang), ...inst.settings.opt_out }
          const text = opt === 'opt_out' ? s.optout_reply : s.optin_reply
          if (text) await this.reply(inst, { chatId: msg.chatId, contactJid: msg.senderPn ?? msg.senderId, pushName: msg.pushName?.trim() || null, text: msg.text, matched: '' }, text)
          return { kind: 'skipped', reason: opt }
        }
      }
    }
    // The reads a decision may need start together: one wait for the database threads instead of one
    // each in turn, on the way of every reply. The option lookback and the survey run are read beside
    // the pause only when the bot may answer at all (`gate` reads no storage); an earlier end of the
    // decision leaves them unused, a keyed read each.
    // They reach the reader threads in the order asked, which is the order they are awaited in.
    const gated = this.gate(inst, msg)
    const mayAnswer = gated === null || gated === 'outside_hours'
    const pauseRead = this.deps.handoff.activePause(inst._id, msg.chatId)
    const recent = mayAnswer && !msg.selectedId ? { limit: OPTION_LOOKBACK, messages: this.deps.repos.messages.list(inst._id, { chatId: msg.chatId, limit: OPTION_LOOKBACK }) } : null
    const inputRead = mayAnswer ? this.resolveInput(inst, msg, recent?.messages) : undefined
    const runRead = mayAnswer ? this.deps.repos.surveyRuns.inProgress(inst._id, msg.chatId, msg.senderId) : undefined
    // The assistant's reads (its settings, the chat's answers this hour; the chat's latest messages
    // are the option lookback's) come last: wasted when an intent answers, but off the way of the
    // assistant's answers, which waited for them after these.
    const assistantAhead = mayAnswer ? (this.deps.assistant?.prepare(inst, msg, recent) ?? null) : null
    recent?.messages.catch(() => undefined)
    inputRead?.catch(() => undefined)
    runRead?.catch(() => undefined)
    // Whether the log holds it already is asked meanwhile: past this point the decision may write.
    const [paused, fresh] = await Promise.all([pauseRead, isNew])
    if (!fresh) return silent({ action: 'none', reason: 'duplicate' })
    if (paused) return silent({ action: 'none', reason: 'paused' })
    if (this.deps.handoff.asksForPerson(inst, msg.text)) {
      return {
        record: { action: 'none', reason: 'handoff_requested' },
        act: async () => {
          const ctx: ActionContext = { chatId: msg.chatId, contactJid: msg.senderPn ?? msg.senderId, pushName: msg.pushName?.trim() || null, text: msg.text, matched: 'the hand-off keyword (they asked for a person)' }
          await this.handOver(inst, ctx, 'keyword')
          this.deps.logger.info({ instanceId, chatId: msg.chatId }, 'a customer asked for a person: the bot is paused for that chat')
          return { kind: 'skipped', reason: 'handoff_requested' }
        }
      }
    }
    // Outside hours the assistant answers only when the owner lets it; the away message is then its fallback.
    const afterHours = gated === 'outside_hours' && (await this.deps.assistant?.answersOutsideHours(inst._id, assistantAhead)) === true
    const skip = afterHours ? null : gated
    if (skip === 'outside_hours') return await this.away(inst, msg)
    if (!skip && this.inBurst(inst, msg)) return silent({ action: 'none', reason: 'burst' })
    if (skip) {
      this.deps.logger.debug({ instanceId, messageId: msg.id, reason: skip }, 'bot skipped message')
      return silent({ action: 'none', reason: skip })
    }
    const ctx: ActionContext = {
      chatId: msg.chatId,
      contactJid: msg.senderPn ?? msg.senderId,
      pushName: msg.pushName?.trim() || null,
      text: msg.text,
      matched: ''
    }
    const input = await (inputRead ?? this.resolveInput(inst, msg))

    const run = await this.activeRun(inst, msg, runRead)
    if (run) {
      const step = run.current_step_id ? await this.deps.repos.surveySteps.owned(inst._id, run.current_step_id) : undefined
      return { record: { action: 'survey', ref: step ? `${run.survey_title}, step ${step.sort_id}` : run.survey_title }, act: () => this.answer(inst, run, input.text, ctx, msg) }
    }

    const trigger = (await this.matcher.matchSurveyTrigger(inst._id, input.text)) ?? (input.id ? await this.matcher.matchSurveyTrigger(inst._id, input.id) : null)
    if (trigger) {
      return {
        record: { action: 'survey', ref: trigger.value.title },
        act: async () => {
          await this.startSurveyAt(inst, ctx, trigger.value._id)
          return { kind: 'survey_start', title: trigger.value.title }
        }
      }
    }

    const hit = (await this.matcher.matchIntent(inst._id, input.text)) ?? (input.id ? await this.matcher.matchIntent(inst._id, input.id) : null)
    if (hit) {
      const intent = hit.value
      return {
        record: { action: 'intent', ref: intent.title },
        act: async () => {
          if (intent.reply.trim()) await this.reply(inst, ctx, intent.reply)
          await this.runActions(inst, msg, { ...ctx, matched: `intent "${intent.title}"` }, intent.action)
          return { kind: 'intent', intentId: intent._id, title: intent.title }
        }
      }
    }

    const assisted = await this.deps.assistant?.plan(inst, msg, ctx, afterHours, assistantAhead)
    if (assisted) return assisted
    if (afterHours) return await this.away(inst, msg)

    if (!inst.settings.actions.send_default_msg) return silent({ action: 'none', reason: 'no_match' })
    // Claimed (and stored) now: a second message arriving during the send does not get it too.
    if (!(await this.deps.repos.replyMarks.claim('default', inst._id, ctx.contactJid, this.now().getTime(), this.windowMs))) return silent({ action: 'none', reason: 'default_sent_recently' })
    return {
      record: { action: 'default' },
      act: async () => {
        await this.reply(inst, ctx, inst.settings.default_msg)
        return { kind: 'default_message' }
      }
    }
  }

  /**
   * Marks idle runs expired (the minute sweep); answers how many. In database mode only the runs of
   * instances this worker holds (`mine`): another worker's are its own sweep's, and an instance no
   * worker holds is swept by the one that claims it (a message meanwhile finds its run expired anyway:
   * the check on read, `isExpired`, needs no sweep).
   */
  async expireIdleRuns(): Promise<number> {
    const nowMs = this.now().getTime()
    const mine = this.deps.mine ?? (() => true)
    const idle = await this.deps.repos.surveyRuns.idleSince(new Date(nowMs - this.idleMs).toISOString())
    const stale = idle.filter((r) => mine(r.instance_id) && isExpired(r, nowMs, this.idleMs))
    for (const r of stale) await this.saveRun(expireRun(r, this.now()))
    return stale.length
  }

  /**
   * A LID is now known by its phone number (docs/design.md §13): running surveys and the
   * default-message window follow the contact to the number's chat.
   */
  async rekeyContact(instanceId: string, identity: ChatIdentity): Promise<void> {
    const { lid, pn } = identity
    const runs = await this.deps.repos.surveyRuns.ofChatOrContact(instanceId, lid)
    for (const r of runs) {
      await this.deps.repos.surveyRuns.update(r._id, (d) => {
        if (d.chatId === lid) d.chatId = pn
        if (d.contactId === lid) d.contactId = pn
      })
    }
    await this.deps.repos.replyMarks.rekey(instanceId, lid, pn)
  }

  /**
   * Hands a chat to a person, the one way for the customer's hand-off keyword and the assistant's
   * tool (docs/design.md §13, docs/assistant.md): the bot paused for the chat until resumed (the
   * `handoff` event: the UI, the `onHandoff` webhook, the desktop's notification), the owner told as
   * the hand-off settings say, and the chat given to a signed-in agent when it has nobody. A failing
   * notice or assignment is logged; the pause stands.
   */
  async handOver(inst: Instance, ctx: ActionContext, reason: Extract<ChatPause['reason'], 'keyword' | 'assistant'>): Promise<void> {
    await this.deps.handoff.pause(inst._id, ctx.chatId, null, reason, 'customer')
    const notify = handoffOf(inst).notify
    if (notify?.email || notify?.chatapp_number) {
      await this.actions.notify(inst, notify, ctx).catch((err: unknown) => this.deps.logger.warn({ err, instanceId: inst._id }, 'could not tell the owner about a hand-off'))
    }
    // After the pause's write: the message that asked is committed, so its conversation exists.
    await this.deps.assign?.(inst._id, ctx.chatId, { kind: 'bot', name: reason === 'assistant' ? 'Assistant' : 'Bot' }).catch((err: unknown) => this.deps.logger.warn({ err, instanceId: inst._id }, 'could not assign a handed-off chat'))
  }

  /** Sends the away message to a chat outside opening hours, when it is on and due (the assistant's fallback there); answers whether it did. */
  async sendAway(inst: Instance, msg: InboundMessage): Promise<boolean> {
    const plan = await this.away(inst, msg)
    if (plan.record.action !== 'away') return false
    await plan.act()
    return true
  }

  /** Records an entry in the instance's activity log and announces it (`activity`). */
  async recordActivity(entry: BotActivity): Promise<void> {
    await this.deps.repos.botActivity.add(entry, this.activityLimit)
    this.deps.events.emit('activity', { instanceId: entry.instance_id, entry })
  }

  /** Activity log of an instance, newest last. */
  activity(instanceId: string, limit = 100): Promise<BotActivity[]> {
    return this.deps.repos.botActivity.ofInstance(instanceId, limit)
  }

  close(): void {
    clearInterval(this.sweepTimer)
    this.matcher.dispose()
  }

  /**
   * Outside active days/hours: the away message when it is on and this contact has not had it in the
   * window, with `[next_open]` (in bot_timezone) and `[name]`; else silence, saying why.
   */
  private async away(inst: Instance, msg: InboundMessage): Promise<BotPlan> {
    const away = { ...DEFAULT_AWAY, ...inst.settings.away }
    const contact = msg.senderPn ?? msg.senderId
    if (!away.enabled || !(await this.deps.repos.replyMarks.claim('away', inst._id, contact, this.now().getTime(), this.windowMs))) {
      this.deps.logger.debug({ instanceId: inst._id, messageId: msg.id }, 'bot silent: outside active hours')
      return silent({ action: 'none', reason: 'outside_hours' })
    }
    return {
      record: { action: 'away' },
      act: async () => {
        const s = inst.settings
        const now = this.now()
        const opens = nextOpening(now, s.bot_timezone, scheduleOf(s), 40)
        const text = away.message.replace(/\[next_open\]/gi, opens ? describeOpening(now, opens, s.bot_timezone) : 'soon')
        await this.reply(inst, { chatId: msg.chatId, contactJid: contact, pushName: msg.pushName?.trim() || null, text: msg.text, matched: '' }, text)
        return { kind: 'skipped', reason: 'away' }
      }
    }
  }

  /** `opt_out` / `opt_in` when the whole message (1:1 chats) is one of the instance's opt-out / opt-in words. */
  private optWord(inst: Instance, msg: InboundMessage): 'opt_out' | 'opt_in' | null {
    if (isGroupJid(msg.chatId)) return null
    const s = { ...defaultOptOut(inst.settings.bot_lang), ...inst.settings.opt_out }
    const said = msg.text.trim().toLowerCase()
    if (!said) return null
    if (keywordList(s.optout_keyword).some((w) => w.toLowerCase() === said)) return 'opt_out'
    if (keywordList(s.optin_keyword).some((w) => w.toLowerCase() === said)) return 'opt_in'
    return null
  }

  /**
   * Whether `msg` continues a burst (docs/design.md §16 "Bursts"): the same chat wrote less than `burst_seconds` before
   * it. Each message extends the burst, so only its first one is answered. Kept in memory: a restart
   * starts a new burst.
   */
  private inBurst(inst: Instance, msg: InboundMessage): boolean {
    const seconds = handoffOf(inst).burst_seconds ?? 0
    const key = `${inst._id}:${msg.chatId}`
    const at = msg.timestamp * 1000
    const previous = this.lastInbound.get(key)
    this.lastInbound.set(key, at)
    // Only recent chats are worth remembering; an old entry is a burst long over.
    if (this.lastInbound.size > 10_000) this.lastInbound.delete(this.lastInbound.keys().next().value!)
    return seconds > 0 && previous !== undefined && at - previous < seconds * 1000 && at >= previous
  }

  /** The reason to stay silent (a decision record's reason), or null (§10 step 1). */
  private gate(inst: Instance, msg: InboundMessage): string | null {
    const a = inst.settings.actions
    if (msg.fromMe) return 'own_message'
    if (msg.chatId === 'status@broadcast' || msg.chatId.endsWith('@broadcast') || msg.chatId.endsWith('@newsletter')) return 'broadcast'
    if (!a.reply_msgs) return 'reply_msgs_off'
    if (isGroupJid(msg.chatId) && !a.reply_group_msgs) return 'group_off'
    if (msg.offline && !a.reply_unread_msgs) return 'backlog'
    const s = inst.settings
    try {
      if (!isOpen(this.now(), s.bot_timezone, scheduleOf(s))) return 'outside_hours'
    } catch (err) {
      // Settings are validated on save; a bad value from an old file must not silence the bot.
      this.deps.logger.warn({ err, instanceId: inst._id }, 'active window check failed; answering anyway')
    }
    return null
  }

  /** The text to match: a pressed option's title (and its id), else the message text. `read`: the chat's latest {@link OPTION_LOOKBACK} messages, when read already. */
  private async resolveInput(inst: Instance, msg: InboundMessage, read?: Promise<LoggedMessage[]>): Promise<{ text: string; id?: string }> {
    if (msg.selectedId) return { text: msg.text, id: msg.selectedId }
    const recent = await (read ?? this.deps.repos.messages.list(inst._id, { chatId: msg.chatId, limit: OPTION_LOOKBACK }))
    for (let i = recent.length - 1; i >= 0; i--) {
      const m = recent[i]!
      if (!m.fromMe || !m.options?.length) continue
      const chosen = resolveOptionReply(msg.text, m.options)
      if (chosen) return { text: chosen.title, id: chosen.id }
      break
    }
    return { text: msg.text }
  }

  /** The chat's survey run in progress (`read`: its read, when started already), expired on the way when idle too long. */
  private async activeRun(inst: Instance, msg: InboundMessage, read?: Promise<SurveyRun[]>): Promise<SurveyRun | null> {
    const [run] = await (read ?? this.deps.repos.surveyRuns.inProgress(inst._id, msg.chatId, msg.senderId))
    if (!run) return null
    if (isExpired(run, this.now().getTime(), this.idleMs)) {
      await this.saveRun(expireRun(run, this.now()))
      return null
    }
    return run
  }

  private stepsOf(inst: Instance, title: string): Promise<Survey[]> {
    return this.deps.repos.surveySteps.stepsOf(inst._id, title)
  }

  private async answer(inst: Instance, run: SurveyRun, text: string, ctx: ActionContext, msg: InboundMessage): Promise<BotDecision> {
    const steps = await this.stepsOf(inst, run.survey_title)
    let result
    try {
      result = answerStep(steps, run, text, this.now())
    } catch (err) {
      if (!(err instanceof SurveyFlowError)) throw err
      // The step was deleted mid-run: end the run and treat the message as a new one next time.
      await this.saveRun(expireRun(run, this.now()))
      return { kind: 'skipped', reason: `survey_step_deleted: ${err.message}` }
    }
    const next = { ...result.run, pushName: ctx.pushName ?? run.pushName }
    await this.saveRun(next)
    if (result.reask) await this.reply(inst, ctx, result.reask.text)
    if (result.accepted) {
      const answers = result.completed ? next.answers.map((a) => ({ question: a.question, answer: a.answer })) : undefined
      await this.runActions(inst, msg, { ...ctx, matched: `survey "${run.survey_title}"`, ...(answers ? { answers } : {}) }, result.actionsToRun)
      if (result.next) await this.reply(inst, ctx, result.next.text)
      if (result.completed) {
        const ordered = orderSteps(steps)
        const closing = ordered.find((s) => s.closing_msg?.trim())?.closing_msg
        if (closing) await this.reply(inst, ctx, closing, (text) => fillAnswers(text, ordered, next.answers))
      }
    }
    return { kind: 'survey_answer', title: run.survey_title, accepted: result.accepted, completed: result.completed }
  }

  /** Starts a run at a step (trigger or `start_survey`); an older run of the contact expires. */
  private async startSurveyAt(inst: Instance, ctx: ActionContext, stepId: string): Promise<void> {
    const step = await this.deps.repos.surveySteps.owned(inst._id, stepId)
    if (!step) throw new Error(`survey step ${stepId} does not exist`)
    const { run, question } = startRun(await this.stepsOf(inst, step.title), stepId, this.now())
    const contactId = ctx.contactJid
    const record: SurveyRun = {
      _id: newObjectId(),
      instance_id: inst._id,
      survey_title: step.title,
      chatId: ctx.chatId,
      contactId: isGroupJid(ctx.chatId) ? contactId : ctx.chatId,
      pushName: ctx.pushName,
      ...run
    }
    const older = (await this.deps.repos.surveyRuns.inProgress(inst._id, record.chatId)).filter((r) => r.contactId === record.contactId)
    for (const r of older) await this.saveRun(expireRun(r, this.now()))
    await this.deps.repos.surveyRuns.put(record)
    await this.reply(inst, ctx, question.text)
  }

  /** Stores a run's new state, unless the run is gone (its instance was deleted meanwhile). */
  private async saveRun(run: SurveyRun): Promise<void> {
    await this.deps.repos.surveyRuns.replace(run)
  }

  /**
   * Sends a reply. Inside an `act()` (see {@link decide}) it resolves once the reply is queued, and
   * its delivery is awaited by `delivered()`, a failure then logged here; a failure before it was
   * queued (not connected) rejects as elsewhere, where it resolves once sent and logged.
   */
  private async reply(inst: Instance, ctx: ActionContext, template: string, fill?: (text: string) => string): Promise<void> {
    const text = renderReply(template, { name: ctx.pushName, number: ctx.contactJid }, this.random, fill)
    const deliveries = this.deliveries.getStore()
    if (!deliveries?.open) {
      await this.deps.messages.send(inst, ctx.chatId, { kind: 'text', text }, { source: 'bot' })
      return
    }
    let queued = false
    let onQueued!: () => void
    const inQueue = new Promise<void>((resolve) => (onQueued = resolve))
    const sending = this.deps.messages.send(inst, ctx.chatId, { kind: 'text', text }, { source: 'bot', onQueued: () => ((queued = true), onQueued()) })
    // Before it was queued, the failure is this act's to throw (the pipeline logs it); after, ours to log.
    deliveries.sends.push(sending.catch((err: unknown) => queued && this.deps.logger.error({ err, instanceId: inst._id, chatId: ctx.chatId }, 'a bot reply could not be sent')))
    await Promise.race([inQueue, sending])
  }

  private async runActions(inst: Instance, msg: InboundMessage, ctx: ActionContext, action: Action | undefined): Promise<ActionOutcome[]> {
    if (!action || Object.keys(action).length === 0) return []
    const outcomes = await this.actions.run(inst, action, ctx)
    await this.recordActivity({ at: this.now().toISOString(), instance_id: inst._id, chatId: ctx.chatId, messageId: msg.id, matched: ctx.matched, actions: outcomes })
    return outcomes
  }
}
