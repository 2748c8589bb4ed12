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
import { orderSteps } from './survey-flow'
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
  private readonly byInstance = new Map<string, InstanceIndexes>()
  private readonly unsubscribe: () => void

  constructor(
    private readonly repos: Pick<Repositories, 'intents' | 'surveySteps'>,
    events: CoreEventBus
  ) {
    this.unsubscribe = events.on('changed', (e) => {
      const idx = this.byInstance.get(e.instanceId)
      if (!idx) return
      if (e.what === 'deleted') this.byInstance.delete(e.instanceId)
      else if (e.what === 'surveys') idx.triggers = null
      else if (e.what === 'intents') this.syncIntent(e.instanceId, idx, e.recordId)
    })
  }

  /** The best intent for `text` (exact, then longest keyword, then oldest), or null. */
  matchIntent(instanceId: string, text: string): KeywordMatch<Intent> | null {
    return this.indexes(instanceId).intents.match(text)
  }

  /** The first step of the survey whose trigger matches `text`, or null. */
  matchSurveyTrigger(instanceId: string, text: string): KeywordMatch<Survey> | null {
    const idx = this.indexes(instanceId)
    if (!idx.triggers) idx.triggers = this.buildTriggers(instanceId)
    return idx.triggers.match(text)
  }

  dispose(): void {
    this.unsubscribe()
    this.byInstance.clear()
  }

  private indexes(instanceId: string): InstanceIndexes {
    let idx = this.byInstance.get(instanceId)
    if (!idx) {
      const intents = new KeywordIndex<Intent>()
      for (const intent of this.repos.intents.ofInstance(instanceId)) intents.add(intent._id, splitKeywords(intent.keyword), orderOf(intent), intent)
      idx = { intents, triggers: null }
      this.byInstance.set(instanceId, idx)
    }
    return idx
  }

  private syncIntent(instanceId: string, idx: InstanceIndexes, recordId: string | undefined): void {
    if (!recordId) {
      this.byInstance.delete(instanceId)
      return
    }
    const intent = this.repos.intents.owned(instanceId, recordId)
    if (intent) idx.intents.add(intent._id, splitKeywords(intent.keyword), orderOf(intent), intent)
    else idx.intents.remove(recordId)
  }

  private buildTriggers(instanceId: string): KeywordIndex<Survey> {
    const index = new KeywordIndex<Survey>()
    const byTitle = new Map<string, Survey[]>()
    for (const s of this.repos.surveySteps.ofInstance(instanceId)) {
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
