/**
 * Broadcasts (docs/design.md §18; the original service's `/broadcast`): one message to
 * many people, sent one recipient at a time behind the number's send governor.
 *
 * Each recipient moves `pending` → `current` → `sent` | `failed` | `skipped`, every step written
 * before the next: `current` is stored before the send, so after a crash in the middle of a send the
 * recipient is not sent again (at most once, never twice) — the message log tells whether it went out.
 * Opted-out contacts and numbers that are not on WhatsApp are skipped with the reason. A broadcast
 * pauses by itself, with the reason, when WhatsApp caps or locks the number's outreach (Baileys
 * #2445), after repeated 463 refusals, or when most recent sends failed.
 */
import { renderReply } from '../../domain/reply-template'
import type { Clock, Timers } from '../../clock'
import type { CoreEventBus } from '../../events'
import { newObjectId } from '../../ids'
import type { Logger } from '../../logger'
import type { Draft, Repositories, Stored } from '../../store/repos'
import type { Broadcast, BroadcastRecipient, Instance, InstanceRef, OutreachMessage } from '../../../shared/schemas/records'
import { AppError, conflict, invalid, notFound } from '../../errors'
import type { MessageService } from '../messages/message-sender'
import { NotOnWhatsAppError } from '../messages/outbound'
import { outreachBlocked } from '../../domain/outreach-limits'
import type { SessionManager } from '../instances/session-manager'
import { contactNumber } from '../contacts/contact-number'
import { outreachPolicy, type OutreachGovernor } from './outreach-governor'
import { dailyQuota, numberAgeDays } from './send-governor'
import type { OutreachStatusT } from '../../../shared/operations/results'

/** A broadcast as the API answers it: the record and where it stands. */
export type BroadcastView = Stored<Broadcast> & {
  progress: { total: number; sent: number; failed: number; skipped: number; pending: number; expected_finish: string | null; waiting: string | null }
}

export interface BroadcastInput {
  send_type: 'individual' | 'group'
  /** individual: comma-separated numbers (or chat JIDs); group: a contact group's id (also `group_id`). */
  to?: string
  group_id?: string
  message: OutreachMessage
}

/** 463 refusals (the number may not start these chats) within this window pause the broadcasts. */
const REFUSALS_TO_PAUSE = 3
const REFUSAL_WINDOW_MS = 3_600_000
/** Of the last this-many sends of a broadcast, this many failed: pause (something is wrong). */
const SPIKE_WINDOW = 10
const SPIKE_FAILURES = 5

export interface BroadcastDeps {
  repos: Pick<Repositories, 'broadcasts' | 'contacts' | 'contactGroups' | 'instances' | 'messages' | 'attachments' | 'outreachSends'>
  messages: MessageService
  sessions: Pick<SessionManager, 'limits'>
  governor: OutreachGovernor
  events: CoreEventBus
  clock: Clock
  timers: Timers
  logger: Logger
  random?: () => number
  /**
   * Database mode: whether this worker holds the instance's lease (docs/design.md §22). Only then do
   * its broadcasts run here; the bus's `lease` events resume them on a claim and stop their timers on
   * a loss. Absent: every instance's run (one process).
   */
  mine?: (instanceId: string) => boolean
}

export class BroadcastService {
  private readonly armed = new Map<string, unknown>()
  private readonly running = new Map<string, Promise<void>>()
  private readonly again = new Set<string>()
  /** Why each instance's next send waits (governor), for the progress view. */
  private readonly waiting = new Map<string, string | null>()
  private readonly refusals = new Map<string, number[]>()
  /** Automatic pauses under way (they read and write the database). */
  private readonly pausing = new Set<Promise<void>>()
  private closed = false

  constructor(private readonly deps: BroadcastDeps) {}

  /** Resolves sends cut by a crash, resumes what was sending, and follows connections, limits and refusals. */
  async start(): Promise<() => void> {
    // Another worker's broadcast may be mid-send right now: only this worker's are settled.
    for (const b of await this.deps.repos.broadcasts.interrupted()) if (this.isMine(b.instance_id)) await this.settleInterrupted(b)
    const stops = [
      this.deps.events.on('lease', ({ instanceId, held }) => this.onLease(instanceId, held)),
      this.deps.events.on('state', (e) => {
        if (e.state === 'CONNECTED') this.kick(e.instanceId)
      }),
      this.deps.events.on('limits', (e) => {
        const reason = outreachBlocked(e.limits, this.deps.clock.now(), this.zoneOf(e.instanceId))
        if (reason) this.track(this.pauseAll(e.instanceId, reason))
      }),
      this.deps.events.on('status', (e) => {
        if (e.message.status === 'ERROR' && e.message.error_code === '463' && e.message.source === 'broadcast') this.refused(e.instanceId)
      })
    ]
    for (const id of new Set((await this.deps.repos.broadcasts.withStatus('sending')).map((b) => b.instance_id))) this.kick(id)
    return () => {
      this.closed = true
      for (const s of stops) s()
      for (const t of this.armed.values()) this.deps.timers.clearTimeout(t)
      this.armed.clear()
    }
  }

  /** Resolves once no instance is in the middle of a send or an automatic pause (tests, shutdown). */
  async idle(): Promise<void> {
    while (this.running.size > 0 || this.pausing.size > 0) await Promise.all([...this.running.values(), ...this.pausing])
  }

  /** Keeps an automatic pause started by an event until it is stored (idle() waits for it). */
  private track(p: Promise<void>): void {
    const t = p.catch((err: unknown) => this.deps.logger.error({ err }, 'could not pause the broadcasts')).finally(() => this.pausing.delete(t))
    this.pausing.add(t)
  }

  /** The send governor of the instance's number now: what it counted and when the next message may go. */
  async status(inst: Stored<Instance>): Promise<OutreachStatusT> {
    const now = this.deps.clock.now()
    const settings = outreachPolicy(inst)
    const sends = await this.deps.repos.outreachSends.since(inst._id, now - 86_400_000)
    const slot = await this.deps.governor.slot(inst)
    const limits = this.deps.sessions.limits(inst._id) ?? null
    const age = numberAgeDays(settings.number_since, now)
    return {
      settings,
      daily_quota: dailyQuota(settings.daily_limit, age),
      number_age_days: age,
      sent_last_hour: sends.filter((s) => s.at > now - 3_600_000).length,
      sent_last_24h: sends.filter((s) => s.at > now - 86_400_000).length,
      next_slot: new Date(slot.at).toISOString(),
      waiting: slot.reason,
      blocked: outreachBlocked(limits ?? undefined, now, inst.settings.bot_timezone),
      limits
    }
  }

  /** The instance's broadcasts, newest first, with where each stands. */
  async list(inst: Pick<Instance, '_id'>): Promise<BroadcastView[]> {
    return Promise.all((await this.deps.repos.broadcasts.ofInstance(inst._id)).map((b) => this.view(b)))
  }

  /** One broadcast of the instance; 404 when unknown. */
  async get(inst: Pick<Instance, '_id'>, id: string): Promise<BroadcastView> {
    return this.view(await this.record(inst, id))
  }

  /**
   * Creates a broadcast and starts sending. 400 naming the field: no recipients, a bad number, an
   * unknown group or attachment, an empty message. Opted-out contacts go straight to `skipped`.
   */
  async create(inst: InstanceRef, input: BroadcastInput, scheduleId: string | null = null): Promise<BroadcastView> {
    await checkMessage(this.deps.repos, inst, input.message)
    const recipients = await this.recipients(inst, input)
    const now = new Date(this.deps.clock.now()).toISOString()
    const skipped: Broadcast['skipped'] = []
    const pending: BroadcastRecipient[] = []
    const contacts = await this.deps.repos.contacts.byNumbers(inst._id, recipients.map((r) => r.number))
    for (const r of recipients) {
      const contact = contacts.get(r.number)
      if (contact?.opted_out) skipped.push({ number: r.number, reason: 'opted out (wrote the opt-out word)' })
      else pending.push(r)
    }
    const b = await this.deps.repos.broadcasts.put({
      _id: newObjectId(),
      client_id: inst.user_id,
      instance_id: inst._id,
      send_type: input.send_type,
      to: input.send_type === 'group' ? (input.to ?? input.group_id ?? '') : (input.to ?? ''),
      message: input.message,
      status: pending.length > 0 ? 'sending' : 'done',
      status_reason: null,
      sent: [],
      pending,
      failed: [],
      skipped,
      current: null,
      schedule_id: scheduleId,
      createdAt: now,
      updatedAt: now,
      __v: 0
    })
    this.changed(inst._id)
    this.kick(inst._id)
    return this.view(b)
  }

  /** Pauses a sending broadcast (by the owner). 409 when it is done or cancelled. */
  async pause(inst: Pick<Instance, '_id'>, id: string): Promise<BroadcastView> {
    const b = await this.record(inst, id)
    if (b.status === 'paused') return this.view(b)
    if (b.status !== 'sending') throw conflict(`The broadcast is ${b.status}; only a sending broadcast can be paused.`)
    return this.view(await this.setStatus(b, 'paused', 'paused by you'))
  }

  /** Resumes a paused broadcast. 409 when it is done or cancelled; it pauses again if WhatsApp still caps the number. */
  async resume(inst: Pick<Instance, '_id'>, id: string): Promise<BroadcastView> {
    const b = await this.record(inst, id)
    if (b.status === 'sending') return this.view(b)
    if (b.status !== 'paused') throw conflict(`The broadcast is ${b.status}; only a paused broadcast can be resumed.`)
    this.refusals.delete(inst._id)
    const next = await this.setStatus(b, 'sending', null)
    this.kick(inst._id)
    return this.view(next)
  }

  /** Cancels a broadcast: what is pending is never sent. 409 when it is done. */
  async cancel(inst: Pick<Instance, '_id'>, id: string): Promise<BroadcastView> {
    const b = await this.record(inst, id)
    if (b.status === 'cancelled') return this.view(b)
    if (b.status === 'done') throw conflict('The broadcast is done; there is nothing left to cancel.')
    return this.view(await this.setStatus(b, 'cancelled', null))
  }

  /** Deletes a broadcast (a sending one is cancelled first: nothing more goes out). */
  async delete(inst: Pick<Instance, '_id'>, id: string): Promise<void> {
    await this.record(inst, id)
    await this.deps.repos.broadcasts.remove(id)
    this.changed(inst._id)
  }

  private async record(inst: Pick<Instance, '_id'>, id: string): Promise<Stored<Broadcast>> {
    const b = await this.deps.repos.broadcasts.owned(inst._id, id)
    if (!b) throw notFound('Broadcast')
    return b
  }

  private async view(b: Stored<Broadcast>): Promise<BroadcastView> {
    const inst = this.deps.repos.instances.find(b.instance_id)
    const left = b.pending.length + (b.current ? 1 : 0)
    const expected = b.status === 'sending' && left > 0 && inst ? new Date(await this.deps.governor.estimate(inst, left)).toISOString() : null
    return {
      ...b,
      progress: {
        total: b.sent.length + b.failed.length + b.skipped.length + left,
        sent: b.sent.length,
        failed: b.failed.length,
        skipped: b.skipped.length,
        pending: left,
        expected_finish: expected,
        waiting: b.status === 'sending' ? (this.waiting.get(b.instance_id) ?? null) : null
      }
    }
  }

  /** The recipients of a new broadcast, each number once, named by their contact. */
  private async recipients(inst: InstanceRef, input: BroadcastInput): Promise<BroadcastRecipient[]> {
    const seen = new Set<string>()
    const out: BroadcastRecipient[] = []
    const add = (number: string, name: string | null, contactId: string | null) => {
      if (seen.has(number)) return
      seen.add(number)
      out.push({ number, name, contact_id: contactId })
    }
    if (input.send_type === 'group') {
      const groupId = input.to ?? input.group_id
      if (!groupId) throw invalid('to', 'must be the contact group id when send_type is group')
      if (!(await this.deps.repos.contactGroups.owned(inst._id, groupId))) throw invalid('to', 'names no contact group of this instance')
      for (const c of await this.deps.repos.contacts.inGroup(inst._id, groupId)) add(c.number, c.name, c._id)
      if (out.length === 0) throw invalid('to', 'names a contact group with no contacts')
      return out
    }
    const parts = (input.to ?? '').split(',').map((p) => p.trim()).filter(Boolean)
    if (parts.length === 0) throw invalid('to', 'must list at least one number (comma-separated)')
    const numbers: string[] = []
    for (const [i, part] of parts.entries()) {
      let number: string
      if (/@(g\.us|s\.whatsapp\.net|lid)$/.test(part)) number = part
      else {
        try {
          number = contactNumber(part)
        } catch {
          throw invalid('to', `has "${part}" (entry ${i + 1}), which is not a phone number with its country code`)
        }
      }
      numbers.push(number)
    }
    const contacts = await this.deps.repos.contacts.byNumbers(inst._id, numbers)
    for (const number of numbers) {
      const contact = contacts.get(number)
      add(number, contact?.name ?? null, contact?._id ?? null)
    }
    return out
  }

  private isMine(instanceId: string): boolean {
    return this.deps.mine?.(instanceId) ?? true
  }

  /**
   * Database mode: a claimed instance's broadcasts resume here (a send the last owner was cut in the
   * middle of is settled first, never sent twice); a lost one's timer stops, its stored state kept.
   */
  private onLease(instanceId: string, held: boolean): void {
    if (!this.deps.mine || this.closed) return
    if (!held) {
      const t = this.armed.get(instanceId)
      if (t !== undefined) this.deps.timers.clearTimeout(t)
      this.armed.delete(instanceId)
      this.waiting.delete(instanceId)
      return
    }
    const resume = async () => {
      for (const b of await this.deps.repos.broadcasts.interrupted()) if (b.instance_id === instanceId) await this.settleInterrupted(b)
      this.kick(instanceId)
    }
    this.track(resume().catch((err: unknown) => this.deps.logger.error({ err, instanceId }, 'could not resume the broadcasts of a claimed instance')))
  }

  private kick(instanceId: string): void {
    if (this.closed || !this.isMine(instanceId)) return
    if (this.running.has(instanceId)) {
      this.again.add(instanceId)
      return
    }
    const run = this.step(instanceId)
      .catch((err: unknown) => this.deps.logger.error({ err, instanceId }, 'broadcast step failed'))
      .finally(() => {
        this.running.delete(instanceId)
        if (this.again.delete(instanceId)) this.kick(instanceId)
      })
    this.running.set(instanceId, run)
  }

  private arm(instanceId: string, at: number): void {
    const old = this.armed.get(instanceId)
    if (old !== undefined) this.deps.timers.clearTimeout(old)
    this.armed.set(
      instanceId,
      this.deps.timers.setTimeout(() => {
        this.armed.delete(instanceId)
        this.kick(instanceId)
      }, at - this.deps.clock.now())
    )
  }

  /** Sends to the next recipient of the instance's oldest sending broadcast, if the governor lets it now. */
  private async step(instanceId: string): Promise<void> {
    const inst = this.deps.repos.instances.find(instanceId)
    const [b] = await this.deps.repos.broadcasts.withStatus('sending', instanceId)
    if (!inst || !b) {
      this.waiting.delete(instanceId)
      return
    }
    // Not connected: the 'state' event kicks again on CONNECTED.
    if (inst.settings.status !== 'CONNECTED') return void this.waiting.set(instanceId, 'the instance is not connected')
    const blocked = outreachBlocked(this.deps.sessions.limits(instanceId), this.deps.clock.now(), inst.settings.bot_timezone)
    if (blocked) return this.pauseAll(instanceId, blocked)
    const next = b.pending[0]
    if (!next) return void (await this.finish(b))
    const slot = await this.deps.governor.slot(inst, next.number)
    if (slot.at > this.deps.clock.now()) {
      this.waiting.set(instanceId, slot.reason)
      this.changed(instanceId)
      return this.arm(instanceId, slot.at)
    }
    this.waiting.set(instanceId, null)
    const contact = await this.deps.repos.contacts.byNumber(instanceId, next.number)
    const startedAt = new Date(this.deps.clock.now()).toISOString()
    if (contact?.opted_out) {
      await this.update(b._id, (d) => {
        d.pending.shift()
        d.skipped.push({ number: next.number, reason: 'opted out (wrote the opt-out word)' })
      })
      return this.kick(instanceId)
    }
    const current = await this.update(b._id, (d) => {
      d.pending.shift()
      d.current = { number: next.number, started_at: startedAt }
    })
    let outcome: { sent: string } | { failed: string } | { skipped: string } | { retry: string }
    try {
      const result = await this.deps.messages.as(b.schedule_id ? 'schedule' : 'broadcast').sendText(inst, {
        chatId: next.number,
        ...(b.message.text ? { message: renderReply(b.message.text, { name: contact?.name ?? next.name, number: next.number }, this.deps.random) } : {}),
        ...(b.message.attachments?.length ? { attachments: [...b.message.attachments] } : {}),
        ...(b.message.location ? { location: { ...b.message.location } } : {}),
        ...(b.message.contactId ? { contactId: b.message.contactId } : {})
      })
      const keyOf = (m: unknown) => (m as { key?: { id?: string } } | null)?.key?.id
      const id = keyOf(result.message) ?? keyOf(result.media[0]) ?? keyOf(result.location) ?? keyOf(result.contact) ?? ''
      outcome = { sent: id }
    } catch (err) {
      if (err instanceof NotOnWhatsAppError) outcome = { skipped: 'not on WhatsApp' }
      // Not connected, or capped for this person: nothing went out; the recipient waits its turn again.
      else if (err instanceof AppError && err.code === 'CONFLICT') outcome = { retry: err.message }
      else outcome = { failed: err instanceof AppError ? err.message : 'the send failed (see the app log)' }
      if (!(err instanceof AppError)) this.deps.logger.error({ err, instanceId, broadcastId: b._id }, 'broadcast send failed')
    }
    const at = new Date(this.deps.clock.now()).toISOString()
    if ('sent' in outcome) await this.deps.governor.counted(inst, next.number)
    const after = await this.update(current._id, (d) => {
      d.current = null
      if ('sent' in outcome) d.sent.push({ number: next.number, message_id: outcome.sent, at })
      else if ('skipped' in outcome) d.skipped.push({ number: next.number, reason: outcome.skipped })
      else if ('failed' in outcome) d.failed.push({ number: next.number, reason: outcome.failed, at })
      else d.pending.unshift(next)
    })
    if ('retry' in outcome) {
      const still = outreachBlocked(this.deps.sessions.limits(instanceId), this.deps.clock.now(), inst.settings.bot_timezone)
      return still ? this.pauseAll(instanceId, still) : void this.waiting.set(instanceId, outcome.retry)
    }
    if (this.spiking(after)) return void (await this.setStatus(after, 'paused', `paused: ${SPIKE_FAILURES} of the last ${SPIKE_WINDOW} messages failed (${after.failed.at(-1)?.reason ?? ''})`))
    if (after.pending.length === 0) await this.finish(after)
    this.kick(instanceId)
  }

  private spiking(b: Stored<Broadcast>): boolean {
    const recent = [...b.sent.map((s) => ({ at: s.at, ok: true })), ...b.failed.map((f) => ({ at: f.at, ok: false }))].sort((x, y) => x.at.localeCompare(y.at)).slice(-SPIKE_WINDOW)
    return recent.filter((r) => !r.ok).length >= SPIKE_FAILURES
  }

  private async finish(b: Stored<Broadcast>): Promise<void> {
    if (b.pending.length === 0 && b.current === null && b.status === 'sending') await this.setStatus(b, 'done', null)
  }

  /** A send cut by a crash: sent if the log has it, else failed — never sent twice. */
  private async settleInterrupted(b: Stored<Broadcast>): Promise<void> {
    const cur = b.current!
    const since = Date.parse(cur.started_at)
    const chat = cur.number.includes('@') ? cur.number : `${cur.number}@s.whatsapp.net`
    const log = await this.deps.repos.messages.list(b.instance_id, { chatId: chat, limit: 20 })
    const out = log.find((m) => m.fromMe && (m.source === 'broadcast' || m.source === 'schedule') && m.timestamp >= since - 1000)
    const at = new Date(this.deps.clock.now()).toISOString()
    await this.update(b._id, (d) => {
      d.current = null
      if (out) d.sent.push({ number: cur.number, message_id: out.id, at: new Date(out.timestamp).toISOString() })
      else d.failed.push({ number: cur.number, reason: 'the app stopped while sending; not sent again so nobody gets it twice', at })
    })
  }

  private refused(instanceId: string): void {
    const now = this.deps.clock.now()
    const recent = [...(this.refusals.get(instanceId) ?? []).filter((t) => t > now - REFUSAL_WINDOW_MS), now]
    this.refusals.set(instanceId, recent)
    if (recent.length >= REFUSALS_TO_PAUSE) {
      this.track(this.pauseAll(instanceId, `paused: WhatsApp refused ${recent.length} messages within an hour (error 463: this number may not start chats with these people now)`))
    }
  }

  /** Pauses every sending broadcast of the instance with `reason` (the governor's automatic pause). */
  private async pauseAll(instanceId: string, reason: string): Promise<void> {
    const sending = await this.deps.repos.broadcasts.withStatus('sending', instanceId)
    for (const b of sending) await this.setStatus(b, 'paused', reason)
    if (sending.length > 0) this.deps.logger.warn({ instanceId, reason, broadcasts: sending.length }, 'broadcasts paused')
  }

  private async setStatus(b: Stored<Broadcast>, status: Broadcast['status'], reason: string | null): Promise<Stored<Broadcast>> {
    const next = await this.update(b._id, (d) => {
      d.status = status
      d.status_reason = reason
    })
    if (status !== 'sending') this.waiting.delete(b.instance_id)
    return next
  }

  private async update(id: string, recipe: (d: Draft<Broadcast>) => void): Promise<Stored<Broadcast>> {
    const now = new Date(this.deps.clock.now()).toISOString()
    const next = await this.deps.repos.broadcasts.update(id, (d) => {
      recipe(d)
      d.updatedAt = now
      d.__v += 1
    })
    if (!next) throw notFound('Broadcast')
    this.changed(next.instance_id)
    return next
  }

  private zoneOf(instanceId: string): string {
    return this.deps.repos.instances.find(instanceId)?.settings.bot_timezone ?? 'UTC'
  }

  private changed(instanceId: string): void {
    this.deps.events.emit('changed', { instanceId, what: 'broadcasts' })
  }
}

/** 400 unless the message has something to send and its attachments are this instance's. */
export async function checkMessage(repos: Pick<Repositories, 'attachments'>, inst: Pick<Instance, '_id'>, m: OutreachMessage): Promise<void> {
  if (!m.text?.trim() && !m.attachments?.length && !m.location && !m.contactId) throw invalid('message', 'needs text, attachments, a location or a contactId')
  for (const [i, id] of (m.attachments ?? []).entries()) {
    if (!(await repos.attachments.owned(inst._id, id))) throw invalid(`message.attachments.${i}`, 'names no attachment of this instance')
  }
}
