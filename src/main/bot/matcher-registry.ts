/**
 * Keyword indexes per instance (docs/design.md §10 matching): one for intents, one for survey triggers
 * (the first step of each survey). Built on first use from the stored records, then kept current
 * from the event bus: an intent created, updated or deleted is added to or removed from its index
 * incrementally; a survey change re-derives that instance's triggers (which step is first can change
 * with any step's sort_id or title).
 */
import type { CoreEventBus } from '../events'
import type { Repositories } from '../store/repos'
import type { Intent, Survey } from '../../shared/schemas/records'
import { KeywordIndex, type KeywordMatch } from './intent-matcher'
import { orderSteps } from '../domain/survey-steps'
import { splitKeywords } from '../../shared/domain/keywords'

interface InstanceIndexes {
  intents: KeywordIndex<Intent>
  triggers: KeywordIndex<Survey> | null
}

function orderOf(record: { createdAt: string }): number {
  const t = Date.parse(record.createdAt)
  return Number.isFinite(t) ? t : 0
}

export class MatcherRegistry {
  /**
   * Per instance, the indexes as of the last change applied. Changes are chained on the promise, so a
   * match asked after a change sees it, and two changes apply in the order they happened.
   */
  private readonly byInstance = new Map<string, Promise<InstanceIndexes>>()
  private readonly unsubscribe: () => void

  constructor(
    private readonly repos: Pick<Repositories, 'intents' | 'surveySteps'>,
    events: CoreEventBus
  ) {
    this.unsubscribe = events.on('changed', (e) => {
      const current = this.byInstance.get(e.instanceId)
      if (!current) return
      if (e.what === 'deleted') {
        this.byInstance.delete(e.instanceId)
        return
      }
      if (e.what !== 'surveys' && e.what !== 'intents') return
      const next = current.then(async (idx) => {
        if (e.what === 'surveys') idx.triggers = null
        else await this.syncIntent(e.instanceId, idx, e.recordId)
        return idx
      })
      // A change that could not be applied (the database failed): the next match builds afresh.
      this.byInstance.set(
        e.instanceId,
        next.catch(() => this.build(e.instanceId))
      )
    })
  }

  /** The best intent for `text` (exact, then longest keyword, then oldest), or null. */
  async matchIntent(instanceId: string, text: string): Promise<KeywordMatch<Intent> | null> {
    return (await this.indexes(instanceId)).intents.match(text)
  }

  /** The first step of the survey whose trigger matches `text`, or null. */
  async matchSurveyTrigger(instanceId: string, text: string): Promise<KeywordMatch<Survey> | null> {
    const idx = await this.indexes(instanceId)
    idx.triggers ??= await this.buildTriggers(instanceId)
    return idx.triggers.match(text)
  }

  dispose(): void {
    this.unsubscribe()
    this.byInstance.clear()
  }

  private indexes(instanceId: string): Promise<InstanceIndexes> {
    let idx = this.byInstance.get(instanceId)
    if (!idx) {
      idx = this.build(instanceId)
      this.byInstance.set(instanceId, idx)
      // A failed build is not kept: the next match tries again.
      idx.catch(() => this.byInstance.get(instanceId) === idx && this.byInstance.delete(instanceId))
    }
    return idx
  }

  private async build(instanceId: string): Promise<InstanceIndexes> {
    const intents = new KeywordIndex<Intent>()
    for (const intent of await this.repos.intents.ofInstance(instanceId)) intents.add(intent._id, splitKeywords(intent.keyword), orderOf(intent), intent)
    return { intents, triggers: null }
  }

  private async syncIntent(instanceId: string, idx: InstanceIndexes, recordId: string | undefined): Promise<void> {
    if (!recordId) {
      const fresh = await this.build(instanceId)
      idx.intents = fresh.intents
      return
    }
    const intent = await this.repos.intents.owned(instanceId, recordId)
    if (intent) idx.intents.add(intent._id, splitKeywords(intent.keyword), orderOf(intent), intent)
    else idx.intents.remove(recordId)
  }

  private async buildTriggers(instanceId: string): Promise<KeywordIndex<Survey>> {
    const index = new KeywordIndex<Survey>()
    const byTitle = new Map<string, Survey[]>()
    for (const s of await this.repos.surveySteps.ofInstance(instanceId)) {
      const list = byTitle.get(s.title) ?? []
      list.push(s)
      byTitle.set(s.title, list)
    }
    for (const [title, steps] of byTitle) {
      const first = orderSteps(steps)[0]!
      const keywords = splitKeywords(first.keyword)
      if (keywords.length) index.add(title, keywords, orderOf(first), first)
    }
    return index
  }
}
