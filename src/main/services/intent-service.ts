/**
 * Intents: keyword-triggered replies of one instance (seed §2.4, §4.2; DESIGN.md §9). A request with
 * one instance's credentials never sees or changes another instance's intents: those are 404s.
 */
import type { CoreEventBus } from '../events'
import type { Storage } from '../store/storage'
import type { Instance, Intent } from '../../shared/schemas/records'
import type { CreateIntentBody, DeleteResult, UpdateIntentBody } from '../../shared/schemas/operations'
import { checkAction } from './action-check'
import { invalid, notFound } from './errors'
import { applyRecordPatch, newKeywordRecord } from './keyword-record'

export interface IntentServiceDeps {
  storage: Storage
  events: CoreEventBus
}

/** Throws 400 when a comma-separated keyword list holds no keyword. */
export function requireKeywords(field: string, csv: string): void {
  if (!csv.split(',').some((k) => k.trim())) throw invalid(field, 'must list at least one keyword (comma-separated)')
}

export class IntentService {
  constructor(private readonly deps: IntentServiceDeps) {}

  private get data() {
    return this.deps.storage.config.data
  }

  list(inst: Instance): Intent[] {
    return this.data.intents.filter((i) => i.instance_id === inst._id)
  }

  get(inst: Instance, id: string): Intent {
    const intent = this.data.intents.find((i) => i._id === id && i.instance_id === inst._id)
    if (!intent) throw notFound('Intent')
    return intent
  }

  async create(inst: Instance, body: CreateIntentBody): Promise<Intent> {
    requireKeywords('keyword', body.keyword)
    checkAction(body.action, inst, this.data)
    const intent: Intent = newKeywordRecord(inst, body)
    await this.deps.storage.config.update((d) => {
      d.intents.push(intent)
    })
    this.deps.events.emit('changed', { instanceId: inst._id, what: 'intents', recordId: intent._id })
    return intent
  }

  async update(inst: Instance, id: string, body: UpdateIntentBody): Promise<Intent> {
    const intent = this.get(inst, id)
    if (body.keyword !== undefined) requireKeywords('keyword', body.keyword)
    checkAction(body.action, inst, this.data)
    await this.deps.storage.config.update(() => applyRecordPatch(intent, body))
    this.deps.events.emit('changed', { instanceId: inst._id, what: 'intents', recordId: intent._id })
    return intent
  }

  async delete(inst: Instance, id: string): Promise<DeleteResult> {
    this.get(inst, id)
    await this.deps.storage.config.update((d) => {
      d.intents = d.intents.filter((i) => i._id !== id)
    })
    this.deps.events.emit('changed', { instanceId: inst._id, what: 'intents', recordId: id })
    return { n: 1, ok: 1, deletedCount: 1 }
  }
}
