/**
 * The desk's quick replies (docs/design.md §15): saved snippets the composer inserts when the owner types
 * `/shortcut`. One list for the whole app (every instance's desk uses it), kept in the configuration
 * store; shortcuts are unique.
 */
import type { Clock } from '../../clock'
import type { CoreEventBus } from '../../events'
import { newObjectId } from '../../ids'
import type { Repositories, Stored } from '../../store/repos'
import type { QuickReply } from '../../../shared/schemas/records'
import { AppError, notFound } from '../../errors'

export interface QuickReplyDeps {
  repos: Pick<Repositories, 'quickReplies'>
  events: CoreEventBus
  clock: Clock
}

export class QuickReplyService {
  constructor(private readonly deps: QuickReplyDeps) {}

  /** Every quick reply, by shortcut. */
  list(): Promise<Stored<QuickReply>[]> {
    return this.deps.repos.quickReplies.all()
  }

  /** Saves a new quick reply. 409 when the shortcut is taken. */
  async create(input: { shortcut: string; text: string }): Promise<Stored<QuickReply>> {
    await this.ensureFree(input.shortcut)
    const now = new Date(this.deps.clock.now()).toISOString()
    const record = await this.deps.repos.quickReplies.put({ _id: newObjectId(), shortcut: input.shortcut, text: input.text, createdAt: now, updatedAt: now })
    this.deps.events.emit('quickReplies', {})
    return record
  }

  /** Changes shortcut and/or text. 404 when unknown, 409 when the new shortcut is another's. */
  async update(id: string, change: { shortcut?: string; text?: string }): Promise<Stored<QuickReply>> {
    if (!(await this.deps.repos.quickReplies.find(id))) throw notFound('Quick reply')
    if (change.shortcut !== undefined) await this.ensureFree(change.shortcut, id)
    const now = new Date(this.deps.clock.now()).toISOString()
    const record = await this.deps.repos.quickReplies.update(id, (q) => {
      if (change.shortcut !== undefined) q.shortcut = change.shortcut
      if (change.text !== undefined) q.text = change.text
      q.updatedAt = now
    })
    this.deps.events.emit('quickReplies', {})
    return record!
  }

  /** Deletes one. 404 when unknown. */
  async delete(id: string): Promise<void> {
    if (!(await this.deps.repos.quickReplies.remove(id))) throw notFound('Quick reply')
    this.deps.events.emit('quickReplies', {})
  }

  private async ensureFree(shortcut: string, self?: string): Promise<void> {
    const taken = await this.deps.repos.quickReplies.byShortcut(shortcut)
    if (taken && taken._id !== self) throw new AppError('CONFLICT', `The shortcut /${shortcut} is taken.`, [{ field: 'shortcut', problem: 'is taken' }])
  }
}
