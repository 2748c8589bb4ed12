/**
 * Hand-off to a person (docs/design.md §13): the bot stays silent in a chat a person is
 * handling. A reply from the desk or from the phone pauses it for the instance's `pause_minutes`
 * (default 30; 0 = never); the owner pauses, resumes or hands back by hand; a customer's hand-off
 * keyword pauses it until resumed and tells the owner. Pauses are per chat and kept in the database,
 * so they survive a restart; an expired one is simply no longer active (and dropped at the next
 * change of that chat).
 */
import type { Clock } from '../clock'
import type { CoreEventBus } from '../events'
import type { Repositories } from '../store/repos'
import { DEFAULT_HANDOFF, type ChatPause, type HandoffSettings, type Instance, type SentBy } from '../../shared/schemas/records'
import { keywordList } from '../../shared/domain/keywords'

export interface HandoffDeps {
  repos: Pick<Repositories, 'chatPauses' | 'instances'>
  events: CoreEventBus
  clock: Clock
}

/** The hand-off settings of an instance, defaults filled in (older records have none). */
export function handoffOf(inst: Pick<Instance, 'settings'>): HandoffSettings {
  return { ...DEFAULT_HANDOFF, ...inst.settings.handoff }
}

export class HandoffService {
  constructor(private readonly deps: HandoffDeps) {}

  /** The chat's pause when it is in force now, else null. */
  async activePause(instanceId: string, chatId: string): Promise<ChatPause | null> {
    const p = await this.deps.repos.chatPauses.find(instanceId, chatId)
    return p && this.inForce(p) ? p : null
  }

  /** Pauses in force of an instance, newest first. */
  async list(instanceId: string): Promise<ChatPause[]> {
    return this.deps.repos.chatPauses.inForce(instanceId, new Date(this.deps.clock.now()).toISOString())
  }

  /**
   * Pauses the bot for a chat: for `minutes` (null: until resumed). Replaces the chat's earlier pause.
   * Resolves once stored; announced as a `handoff` event.
   */
  async pause(instanceId: string, chatId: string, minutes: number | null, reason: ChatPause['reason'], by: ChatPause['by'], sinceMs?: number, takenBy?: SentBy): Promise<ChatPause> {
    const since = sinceMs ?? this.deps.clock.now()
    const pause: ChatPause = {
      _id: pauseId(instanceId, chatId),
      instance_id: instanceId,
      chatId,
      since: new Date(since).toISOString(),
      until: minutes === null ? null : new Date(since + minutes * 60_000).toISOString(),
      reason,
      by,
      ...(takenBy ? { taken_by: takenBy } : {})
    }
    await this.deps.repos.chatPauses.put(pause)
    this.deps.events.emit('handoff', { instanceId, chatId, pause })
    return pause
  }

  /** Hands the chat back to the bot; false when it was not paused. */
  async resume(instanceId: string, chatId: string): Promise<boolean> {
    const removed = await this.deps.repos.chatPauses.remove(instanceId, chatId)
    if (removed) this.deps.events.emit('handoff', { instanceId, chatId, pause: null })
    return removed
  }

  /**
   * A person answered the chat (desk or phone) at `atMs` (default now): the bot pauses for the
   * instance's `pause_minutes` from then. A reply older than that (the phone's messages delivered
   * after the app was off) pauses nothing. `takenBy` names the person who replied.
   */
  async humanReplied(instanceId: string, chatId: string, by: 'desk' | 'phone', atMs?: number, takenBy?: SentBy): Promise<ChatPause | null> {
    const inst = this.deps.repos.instances.find(instanceId)
    if (!inst) return null
    const { pause_minutes } = handoffOf(inst)
    const at = Math.min(atMs ?? this.deps.clock.now(), this.deps.clock.now())
    if (pause_minutes === 0 || at + pause_minutes * 60_000 <= this.deps.clock.now()) return null
    // A pause "until resumed" (the customer asked for a person) is not shortened by the reply.
    const current = await this.activePause(instanceId, chatId)
    if (current && current.until === null) return current
    return this.pause(instanceId, chatId, pause_minutes, 'human_reply', by, at, takenBy ?? (by === 'phone' ? { kind: 'phone', name: 'Phone' } : undefined))
  }

  /** Whether `text` asks for a person by the instance's hand-off keyword (whole words, any case). */
  asksForPerson(inst: Pick<Instance, 'settings'>, text: string): boolean {
    const words = keywordList(handoffOf(inst).keyword)
    if (words.length === 0) return false
    const said = ` ${text.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, ' ')} `
    return words.some((w) => said.includes(` ${w.toLowerCase()} `))
  }

  private inForce(p: ChatPause): boolean {
    return p.until === null || Date.parse(p.until) > this.deps.clock.now()
  }
}

function pauseId(instanceId: string, chatId: string): string {
  return `${instanceId}:${chatId}`
}
