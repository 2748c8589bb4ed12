/**
 * Scheduled messages (docs/design.md §18): one-off or recurring messages to a contact, a
 * contact group or a chat, at a local time in the instance's zone (schedule-time.ts). A run starts a
 * broadcast, so it goes out behind the same send governor (quiet hours included) and skips opted-out
 * contacts. A run missed while the app was off is sent once at start when it is at most
 * `missed_run_grace_minutes` late, else skipped and reported in the schedule's `runs`.
 */
import { formatLocal } from '../../domain/active-window'
import type { Clock, Timers } from '../../clock'
import type { CoreEventBus } from '../../events'
import { newObjectId } from '../../ids'
import type { Logger } from '../../logger'
import type { Draft, Repositories, Stored } from '../../store/repos'
import type { Instance, InstanceRef, OutreachMessage, ScheduledMessage } from '../../../shared/schemas/records'
import { AppError, invalid, notFound } from '../../errors'
import { resolveChat } from '../messages/outbound'
import { checkMessage, type BroadcastService } from './broadcast-service'
import { outreachPolicy } from './outreach-governor'
import { nextRun } from './schedule-time'

export interface ScheduleInput {
  title?: string
  target: ScheduledMessage['target']
  message: OutreachMessage
  repeat: ScheduledMessage['repeat']
  start_at: string
  days?: ScheduledMessage['days']
  active?: boolean
}

/** Runs kept per schedule (newest first). */
const RUNS_KEPT = 20

export class ScheduleService {
  private timer: unknown = null
  private firing: Promise<void> = Promise.resolve()
  /** A run is waiting to start (fire() called since the last run began). */
  private queued = false
  private closed = false

  constructor(
    private readonly deps: {
      repos: Pick<Repositories, 'schedules' | 'instances' | 'contacts' | 'contactGroups' | 'attachments'>
      broadcasts: BroadcastService
      events: CoreEventBus
      clock: Clock
      timers: Timers
      logger: Logger
      /**
       * Database mode: whether this worker holds the instance's lease (docs/design.md §22). Only then
       * do its schedules run here; a claim runs what is due and re-arms, a loss re-arms without it.
       * Absent: every instance's run (one process).
       */
      mine?: (instanceId: string) => boolean
    }
  ) {}

  /** Settles runs missed while the app was off, then waits for the next run. */
  async start(): Promise<() => void> {
    await this.runDue()
    const stop = this.deps.mine ? this.deps.events.on('lease', () => this.fire()) : () => {}
    return () => {
      stop()
      this.closed = true
      if (this.timer !== null) this.deps.timers.clearTimeout(this.timer)
    }
  }

  /** Resolves once no run is being started (tests). */
  async idle(): Promise<void> {
    await this.firing
  }

  /** The instance's scheduled messages, the soonest next run first (finished ones last). */
  async list(inst: Pick<Instance, '_id'>): Promise<Stored<ScheduledMessage>[]> {
    return (await this.deps.repos.schedules.ofInstance(inst._id)).sort((a, b) => (a.next_run_at ?? '~').localeCompare(b.next_run_at ?? '~'))
  }

  /** One scheduled message of the instance; 404 when unknown. */
  async get(inst: Pick<Instance, '_id'>, id: string): Promise<Stored<ScheduledMessage>> {
    const s = await this.deps.repos.schedules.owned(inst._id, id)
    if (!s) throw notFound('Scheduled message')
    return s
  }

  /** Saves a scheduled message. 400 naming the field: bad target, message, time (a one-off in the past). */
  async create(inst: InstanceRef<'settings'>, input: ScheduleInput): Promise<Stored<ScheduledMessage>> {
    const now = new Date(this.deps.clock.now()).toISOString()
    const draft: ScheduledMessage = {
      _id: newObjectId(),
      client_id: inst.user_id,
      instance_id: inst._id,
      title: input.title?.trim() || defaultTitle(input),
      target: input.target,
      message: input.message,
      repeat: input.repeat,
      start_at: input.start_at,
      days: input.days ?? [],
      active: input.active ?? true,
      next_run_at: null,
      runs: [],
      createdAt: now,
      updatedAt: now,
      __v: 0
    }
    const s = await this.deps.repos.schedules.put(await this.checked(inst, draft))
    this.changed(inst._id)
    await this.arm()
    return s
  }

  /** Changes a scheduled message (its next run is worked out again). 404 / 400 as create. */
  async update(inst: InstanceRef<'settings'>, id: string, change: Partial<ScheduleInput>): Promise<Stored<ScheduledMessage>> {
    const current = await this.get(inst, id)
    const next = await this.checked(inst, { ...current, ...change, days: change.days ?? current.days, title: change.title?.trim() || current.title, __v: current.__v + 1, updatedAt: new Date(this.deps.clock.now()).toISOString() })
    const s = await this.deps.repos.schedules.put(next)
    this.changed(inst._id)
    await this.arm()
    return s
  }

  async delete(inst: Pick<Instance, '_id'>, id: string): Promise<void> {
    await this.get(inst, id)
    await this.deps.repos.schedules.remove(id)
    this.changed(inst._id)
    await this.arm()
  }

  /** Validates a record and works out its next run (null when inactive or a past one-off). */
  private async checked(inst: InstanceRef<'settings'>, s: ScheduledMessage): Promise<ScheduledMessage> {
    await checkMessage(this.deps.repos, inst, s.message)
    await this.recipientOf(inst, s)
    if (s.repeat !== 'weekly' && s.days.length > 0) throw invalid('days', 'is only for weekly schedules')
    let next: number | null
    try {
      next = nextRun(s, inst.settings.bot_timezone, this.deps.clock.now())
    } catch {
      throw invalid('start_at', `is not a local date and time (YYYY-MM-DDTHH:MM) in ${inst.settings.bot_timezone}`)
    }
    if (next === null && s.active && s.runs.length === 0) throw invalid('start_at', 'is in the past')
    return { ...s, next_run_at: s.active && next !== null ? new Date(next).toISOString() : null }
  }

  /** The broadcast a run starts: to the contact's number, the group, or the chat. 400 when the target is gone. */
  private async recipientOf(inst: Pick<Instance, '_id'>, s: Pick<ScheduledMessage, 'target'>): Promise<{ send_type: 'individual' | 'group'; to: string }> {
    const { type, id } = s.target
    if (type === 'contact') {
      const c = await this.deps.repos.contacts.owned(inst._id, id)
      if (!c) throw invalid('target.id', 'names no contact of this instance')
      return { send_type: 'individual', to: c.number }
    }
    if (type === 'group') {
      if (!(await this.deps.repos.contactGroups.owned(inst._id, id))) throw invalid('target.id', 'names no contact group of this instance')
      return { send_type: 'group', to: id }
    }
    const jid = resolveChat(id, 'target.id')
    return { send_type: 'individual', to: jid.endsWith('@s.whatsapp.net') ? jid.split('@')[0]! : jid }
  }

  /** Arms one timer for the soonest run of every instance. */
  private async arm(): Promise<void> {
    if (this.closed) return
    // Database mode: the soonest of this worker's instances (another's stays due until its owner runs it).
    const next = this.deps.mine ? ((await this.deps.repos.schedules.due()).find((s) => this.isMine(s.instance_id))?.next_run_at ?? null) : await this.deps.repos.schedules.soonest()
    // Read before touching the timer: two arms in a row must leave one timer, for the latest state.
    if (this.closed) return
    if (this.timer !== null) this.deps.timers.clearTimeout(this.timer)
    this.timer = null
    if (next === null) return
    const soonest = Date.parse(next)
    this.timer = this.deps.timers.setTimeout(() => {
      this.timer = null
      this.fire()
    }, soonest - this.deps.clock.now())
  }

  /**
   * Runs what is due (after any run under way), then re-arms. Fires that come while a run waits to
   * start share it: a worker claiming a hundred instances at once reads the due runs once, not a
   * hundred times.
   */
  private fire(): void {
    if (this.closed || this.queued) return
    this.queued = true
    this.firing = this.firing
      .then(() => {
        this.queued = false
        return this.runDue()
      })
      .catch((err: unknown) => this.deps.logger.error({ err }, 'scheduled messages failed'))
  }

  private isMine(instanceId: string): boolean {
    return this.deps.mine?.(instanceId) ?? true
  }

  /** Starts every run that is due: on time, or late within the grace; later ones are skipped and reported. */
  private async runDue(): Promise<void> {
    const now = this.deps.clock.now()
    for (const s of await this.deps.repos.schedules.due(new Date(now).toISOString())) {
      const inst = this.deps.repos.instances.find(s.instance_id)
      if (!inst || !this.isMine(s.instance_id)) continue
      const due = Date.parse(s.next_run_at!)
      const graceMs = outreachPolicy(inst).missed_run_grace_minutes * 60_000
      // A timer fires on time; a run found due at start was missed while the app was off.
      const late = now - due > Math.max(graceMs, 60_000)
      let run: ScheduledMessage['runs'][number]
      if (late) {
        run = { at: new Date(due).toISOString(), result: 'skipped', detail: `missed: the app was not running at ${formatLocal(new Date(due), inst.settings.bot_timezone)} and it is more than ${graceMs / 60_000} min late`, broadcast_id: null }
      } else {
        try {
          const b = await this.deps.broadcasts.create(inst, { ...(await this.recipientOf(inst, s)), message: s.message }, s._id)
          run = { at: new Date(now).toISOString(), result: 'sent', detail: `started a broadcast to ${b.progress.total} recipient${b.progress.total === 1 ? '' : 's'}`, broadcast_id: b._id }
        } catch (err) {
          run = { at: new Date(now).toISOString(), result: 'failed', detail: err instanceof AppError ? err.message : 'could not start (see the app log)', broadcast_id: null }
          if (!(err instanceof AppError)) this.deps.logger.error({ err, scheduleId: s._id }, 'scheduled message failed')
        }
      }
      const next = nextRun(s, inst.settings.bot_timezone, Math.max(now, due))
      await this.deps.repos.schedules.update(s._id, (d: Draft<ScheduledMessage>) => {
        d.runs.unshift(run)
        d.runs.splice(RUNS_KEPT)
        d.next_run_at = next === null ? null : new Date(next).toISOString()
        if (next === null) d.active = false
        d.__v += 1
      })
      this.changed(s.instance_id)
    }
    await this.arm()
  }

  private changed(instanceId: string): void {
    this.deps.events.emit('changed', { instanceId, what: 'schedules' })
  }
}

function defaultTitle(input: ScheduleInput): string {
  const text = input.message.text?.trim() ?? ''
  return text ? text.slice(0, 40) : 'Scheduled message'
}
