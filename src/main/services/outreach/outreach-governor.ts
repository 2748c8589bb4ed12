/**
 * The send governor of each number (docs/design.md §18): the rules of send-governor.ts over the
 * outreach messages counted in the database, and the random gap drawn after each message.
 */
import type { Clock } from '../../clock'
import { newObjectId } from '../../ids'
import type { Repositories } from '../../store/repos'
import { DEFAULT_OUTREACH, type InstanceRef, type OutreachSettings } from '../../../shared/schemas/records'
import { estimateFinish, nextSlot, randomGap, type GovernorView, type Slot } from './send-governor'

/** Counted sends are kept this long (ms): the daily window and a day of cooldown. */
const KEEP_MS = 48 * 3_600_000

/** An instance's governor settings (the defaults where never set). */
export function outreachPolicy(inst: InstanceRef<'settings'>): OutreachSettings {
  return { ...DEFAULT_OUTREACH, ...inst.settings.outreach }
}

export class OutreachGovernor {
  /** Per instance: not before this (epoch ms), the gap drawn after its last outreach message. */
  private readonly gapUntil = new Map<string, number>()

  constructor(private readonly deps: { repos: Pick<Repositories, 'outreachSends'>; clock: Clock; random?: () => number }) {}

  private async view(inst: InstanceRef<'settings'>): Promise<GovernorView> {
    const policy = outreachPolicy(inst)
    const history = await this.deps.repos.outreachSends.since(inst._id, this.deps.clock.now() - KEEP_MS)
    // After a restart the drawn gap is gone: the shortest one after the last message stands in.
    const last = Math.max(0, ...history.map((s) => s.at))
    const gapUntil = this.gapUntil.get(inst._id) ?? last + policy.min_gap_seconds * 1000
    return { policy, timezone: inst.settings.bot_timezone, history, gapUntil }
  }

  /** When the next outreach message (to `recipient`, digits or JID) may leave, and why it waits. */
  async slot(inst: InstanceRef<'settings'>, recipient?: string): Promise<Slot> {
    return nextSlot(await this.view(inst), this.deps.clock.now(), recipient)
  }

  /** When `count` more messages would be out (epoch ms), at the average gap. */
  async estimate(inst: InstanceRef<'settings'>, count: number): Promise<number> {
    return estimateFinish(await this.view(inst), this.deps.clock.now(), count)
  }

  /** Counts an outreach message sent now to `to` and draws the gap before the next one. */
  async counted(inst: InstanceRef<'settings'>, to: string): Promise<void> {
    const now = this.deps.clock.now()
    this.gapUntil.set(inst._id, now + randomGap(outreachPolicy(inst), this.deps.random ?? Math.random))
    await this.deps.repos.outreachSends.add({ _id: newObjectId(), instance_id: inst._id, to, at: now }, now - KEEP_MS)
  }
}
