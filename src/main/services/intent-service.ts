/**
 * Intents: keyword-triggered replies of one instance (docs/api-seed.md §2.4, §4.2; docs/design.md §9).
 * A request with one instance's credentials never sees or changes another instance's intents: those
 * are 404s.
 */
import { isoNow, type Clock } from '../clock'
import type { CoreEventBus } from '../events'
import type { Repositories, Stored } from '../store/repos'
import type { InstanceRef, Intent } from '../../shared/schemas/records'
import type { CreateIntentBody, UpdateIntentBody } from '../../shared/schemas/operations'
import { checkAction } from './action-check'
import { notFound } from '../errors'
import { applyRecordPatch, newKeywordRecord, requireKeywords } from './keyword-record'

export class IntentService {
  constructor(
    private readonly repos: Repositories,
    private readonly events: CoreEventBus,
    private readonly clock: Clock
  ) {}

  list(inst: InstanceRef): Promise<Stored<Intent>[]> {
    return this.repos.intents.ofInstance(inst._id)
  }

  /** Whether `id` is one of this instance's intents. */
  async exists(inst: InstanceRef, id: string): Promise<boolean> {
    return (await this.repos.intents.owned(inst._id, id)) !== undefined
  }

  /** One intent of the instance; 404 when unknown. */
  async get(inst: InstanceRef, id: string): Promise<Stored<Intent>> {
    const intent = await this.repos.intents.owned(inst._id, id)
    if (!intent) throw notFound('Intent')
    return intent
  }

  async create(inst: InstanceRef, body: Omit<CreateIntentBody, 'session_id' | 'access_token'>): Promise<Stored<Intent>> {
    requireKeywords('keyword', body.keyword)
    await checkAction(body.action, inst, this.repos)
    const intent = await this.repos.intents.put(newKeywordRecord(inst, body, isoNow(this.clock)))
    this.events.emit('changed', { instanceId: inst._id, what: 'intents', recordId: intent._id })
    return intent
  }

  async update(inst: InstanceRef, id: string, body: Omit<UpdateIntentBody, 'session_id' | 'access_token'>): Promise<Stored<Intent>> {
    await this.get(inst, id)
    if (body.keyword !== undefined) requireKeywords('keyword', body.keyword)
    await checkAction(body.action, inst, this.repos)
    const intent = (await this.repos.intents.update(id, (d) => applyRecordPatch(d, body, isoNow(this.clock))))!
    this.events.emit('changed', { instanceId: inst._id, what: 'intents', recordId: id })
    return intent
  }

  async delete(inst: InstanceRef, id: string): Promise<void> {
    await this.get(inst, id)
    await this.repos.intents.remove(id)
    this.events.emit('changed', { instanceId: inst._id, what: 'intents', recordId: id })
  }
}
