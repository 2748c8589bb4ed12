/**
 * Who answers a conversation (docs/design.md §21 "Assignment"): a conversation is assigned to a person by hand, or
 * round-robin among the agents of its instance who are signed in; a person's reply to an unassigned
 * conversation assigns it to them. Every change goes into the conversation's timeline and fires the
 * `assignment` event (the UI, and the `onAssignment` webhook).
 *
 * Rules: the assignee is `owner` or a staff member who has accepted their invite and works on the
 * instance; an agent may take a conversation (assign it to themselves) or give back their own, not
 * hand conversations to others (a manager or the owner does).
 */
import type { Clock } from '../../clock'
import type { CoreEventBus, CoreEvents } from '../../events'
import type { Logger } from '../../logger'
import type { Repositories } from '../../store/repos'
import { OWNER_ASSIGNEE } from '../../store/repos/conversation-repo'
import { mayReach, sentByOf, type Caller } from '../../../shared/access'
import type { SentBy } from '../../../shared/schemas/records'
import { AppError, conflict, forbidden, invalid } from '../../errors'

export interface AssignmentDeps {
  repos: Pick<Repositories, 'conversations' | 'staff' | 'sessions'>
  events: CoreEventBus
  clock: Clock
  logger: Logger
}

/** One entry of a conversation's timeline. */
export interface TimelineEntry {
  /** ISO 8601. */
  at: string
  kind: 'assigned'
  by: SentBy
  assigned_to: { id: string; name: string } | null
}

export class AssignmentService {
  constructor(private readonly deps: AssignmentDeps) {}

  /** Follows sent messages: a staff member's reply to an unassigned conversation assigns it to them. */
  start(): () => void {
    return this.deps.events.on('message', (e) => void this.onMessage(e))
  }

  /**
   * Assigns the chat to `to` (a staff id or `owner`) or unassigns it (null), for `by`. 400 for an
   * assignee who cannot take it, 403 for an agent handing it to someone else, 404 without messages.
   */
  async assign(instanceId: string, chatId: string, to: string | null, by: Caller): Promise<{ assigned_to: { id: string; name: string } | null }> {
    if (by.kind === 'staff' && by.role === 'agent' && to !== null && to !== by.id) throw forbidden('inbox:assign-others', '(an agent may take a conversation, not hand it to someone else)')
    if (by.kind === 'staff' && by.role === 'agent' && to === null) {
      const current = await this.deps.repos.conversations.get(instanceId, chatId, this.deps.clock.now())
      if (current?.assigned_to && current.assigned_to.id !== by.id) throw forbidden('inbox:assign-others', '(an agent may give back only their own conversations)')
    }
    const assignee = to === null ? null : await this.assignee(instanceId, to)
    return this.apply(instanceId, chatId, assignee, sentByOf(by), false)
  }

  /** Assigns the chat to the agent of the instance, signed in now, who was given a conversation longest ago. 409 when none is signed in. */
  async roundRobin(instanceId: string, chatId: string, by: Caller): Promise<{ assigned_to: { id: string; name: string } | null }> {
    const member = await this.nextAgent(instanceId)
    if (!member) throw conflict('No agent of this instance is signed in; assign the conversation by hand.')
    return this.apply(instanceId, chatId, member, sentByOf(by), false)
  }

  /**
   * A chat handed to a person by the bot (the hand-off keyword, the assistant): when it is unassigned,
   * it goes to the instance's signed-in agent given a conversation longest ago, as round-robin does.
   * Answers whether it was assigned; false when it already had someone or no agent is signed in.
   */
  async handOver(instanceId: string, chatId: string, by: SentBy): Promise<boolean> {
    if ((await this.deps.repos.conversations.assignee(instanceId, chatId)) !== null) return false
    const member = await this.nextAgent(instanceId)
    if (!member) return false
    return (await this.apply(instanceId, chatId, member, by, true)).assigned_to?.id === member.id
  }

  /** The instance's agent, signed in now, who was given a conversation longest ago; null when none is signed in. */
  private async nextAgent(instanceId: string): Promise<{ id: string; name: string } | null> {
    const online = new Set(await this.deps.repos.sessions.signedIn(this.deps.clock.now()))
    const agents = (await this.deps.repos.staff.list()).filter((m) => m.role === 'agent' && m.active && online.has(m.id) && (m.instanceIds === null || m.instanceIds.includes(instanceId)))
    const pick = await this.deps.repos.conversations.leastRecentlyAssigned(instanceId, agents.map((m) => m.id))
    const member = pick ? agents.find((m) => m.id === pick) : undefined
    return member ? { id: member.id, name: member.name } : null
  }

  /** The chat's timeline of desk events, oldest first. */
  async timeline(instanceId: string, chatId: string): Promise<TimelineEntry[]> {
    const events = await this.deps.repos.conversations.events(instanceId, chatId)
    return events.map((e) => ({ at: new Date(e.at).toISOString(), kind: 'assigned', by: e.actor as SentBy, assigned_to: (e.detail as { to: TimelineEntry['assigned_to'] }).to }))
  }

  private async assignee(instanceId: string, to: string): Promise<{ id: string; name: string }> {
    if (to === OWNER_ASSIGNEE) return { id: OWNER_ASSIGNEE, name: 'Owner' }
    const member = await this.deps.repos.staff.find(to)
    if (!member) throw invalid('staff_id', 'names no staff member')
    if (!member.active) throw invalid('staff_id', 'names a person who has not accepted their invite yet')
    if (!mayReach({ kind: 'staff', id: member.id, name: member.name, role: member.role, instanceIds: member.instanceIds }, instanceId)) throw invalid('staff_id', 'names a person who does not work on this instance')
    return { id: member.id, name: member.name }
  }

  private async apply(instanceId: string, chatId: string, to: { id: string; name: string } | null, by: SentBy, onlyIfUnassigned: boolean): Promise<{ assigned_to: { id: string; name: string } | null }> {
    const result = await this.deps.repos.conversations.assign(instanceId, chatId, to?.id ?? null, this.deps.clock.now(), { actor: JSON.stringify(by), detail: JSON.stringify({ to }) }, onlyIfUnassigned)
    if (!result) throw new AppError('NOT_FOUND', 'There are no messages with this chat.')
    if (result.changed) this.deps.events.emit('assignment', { instanceId, chatId, assigned_to: to, by })
    return { assigned_to: result.changed ? to : result.before === null ? null : (await this.deps.repos.conversations.get(instanceId, chatId, this.deps.clock.now()))!.assigned_to }
  }

  private async onMessage({ instanceId, message }: CoreEvents['message']): Promise<void> {
    const by = message.sent_by
    if (!message.fromMe || by?.kind !== 'staff' || !by.id) return
    try {
      // A read first: most replies are to a chat already assigned, and need no write.
      if ((await this.deps.repos.conversations.assignee(instanceId, message.chatId)) !== null) return
      await this.apply(instanceId, message.chatId, { id: by.id, name: by.name }, by, true)
    } catch (err) {
      this.deps.logger.warn({ err, instanceId }, 'could not assign a conversation to the person who replied')
    }
  }
}
