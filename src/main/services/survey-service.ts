/**
 * Surveys (seed §2.3, §4.1; DESIGN.md §9): one record per step; steps with the same title form a
 * survey, ordered by sort_id. Runs are kept in the runtime store and listed per survey.
 */
import type { CoreEventBus } from '../events'
import type { Storage } from '../store/storage'
import type { Instance, Survey, SurveyRun } from '../../shared/schemas/records'
import type { CreateSurveyBody, DeleteResult, UpdateSurveyBody } from '../../shared/schemas/operations'
import { stringify } from 'csv-stringify/sync'
import { orderSteps } from '../bot/survey-flow'
import { checkAction } from './action-check'
import { notFound } from './errors'
import { applyRecordPatch, newKeywordRecord } from './keyword-record'

export interface SurveyServiceDeps {
  storage: Storage
  events: CoreEventBus
}

/** A run as listed by the responses route. */
export type SurveyResponse = Pick<SurveyRun, 'chatId' | 'pushName' | 'status' | 'answers' | 'startedAt' | 'completedAt'> & {
  _id: string
}

function toSortId(v: number | string): number {
  return typeof v === 'number' ? v : Number.parseInt(v.trim(), 10)
}

export class SurveyService {
  constructor(private readonly deps: SurveyServiceDeps) {}

  private get data() {
    return this.deps.storage.config.data
  }

  /** Every step of the instance, grouped by title and in step order. */
  list(inst: Instance): Survey[] {
    const mine = this.data.surveys.filter((s) => s.instance_id === inst._id)
    const titles = [...new Set(mine.map((s) => s.title))]
    return titles.flatMap((t) => orderSteps(mine.filter((s) => s.title === t)))
  }

  get(inst: Instance, id: string): Survey {
    const step = this.data.surveys.find((s) => s._id === id && s.instance_id === inst._id)
    if (!step) throw notFound('Survey')
    return step
  }

  /** The ordered steps of the survey a step belongs to. */
  stepsOf(inst: Instance, title: string): Survey[] {
    return orderSteps(this.data.surveys.filter((s) => s.instance_id === inst._id && s.title === title))
  }

  async create(inst: Instance, body: CreateSurveyBody): Promise<Survey> {
    checkAction(body.action, inst, this.data)
    const step: Survey = { ...newKeywordRecord(inst, body), sort_id: toSortId(body.sort_id) }
    await this.deps.storage.config.update((d) => {
      d.surveys.push(step)
    })
    this.deps.events.emit('changed', { instanceId: inst._id, what: 'surveys', recordId: step._id })
    return step
  }

  async update(inst: Instance, id: string, body: UpdateSurveyBody): Promise<Survey> {
    const step = this.get(inst, id)
    checkAction(body.action, inst, this.data)
    await this.deps.storage.config.update(() => {
      if (body.sort_id !== undefined) step.sort_id = toSortId(body.sort_id)
      applyRecordPatch(step, body)
    })
    this.deps.events.emit('changed', { instanceId: inst._id, what: 'surveys', recordId: step._id })
    return step
  }

  async delete(inst: Instance, id: string): Promise<DeleteResult> {
    this.get(inst, id)
    await this.deps.storage.config.update((d) => {
      d.surveys = d.surveys.filter((s) => s._id !== id)
    })
    this.deps.events.emit('changed', { instanceId: inst._id, what: 'surveys', recordId: id })
    return { n: 1, ok: 1, deletedCount: 1 }
  }

  /**
   * The runs as CSV for a spreadsheet: one row per run, one column per step (its question), in step
   * order; answers to steps since deleted get their own columns at the end.
   */
  responsesCsv(inst: Instance, stepId: string): string {
    const step = this.get(inst, stepId)
    const runs = this.responses(inst, stepId)
    const columns = this.stepsOf(inst, step.title).map((s) => ({ id: s._id, question: s.reply }))
    for (const run of runs) {
      for (const a of run.answers) if (!columns.some((c) => c.id === a.step_id)) columns.push({ id: a.step_id, question: a.question })
    }
    const header = ['run_id', 'chatId', 'pushName', 'status', 'startedAt', 'completedAt', ...columns.map((c) => c.question)]
    const rows = runs.map((r) => [
      r._id,
      r.chatId,
      r.pushName ?? '',
      r.status,
      r.startedAt,
      r.completedAt ?? '',
      ...columns.map((c) => r.answers.filter((a) => a.step_id === c.id).at(-1)?.answer ?? '')
    ])
    return stringify([header, ...rows])
  }

  /** Runs of the survey that `stepId` belongs to, oldest first (DESIGN.md §9). */
  responses(inst: Instance, stepId: string): SurveyResponse[] {
    const step = this.get(inst, stepId)
    return this.deps.storage.runtime.data.surveyRuns
      .filter((r) => r.instance_id === inst._id && r.survey_title === step.title)
      .map((r) => ({
        _id: r._id,
        chatId: r.chatId,
        pushName: r.pushName,
        status: r.status,
        answers: r.answers,
        startedAt: r.startedAt,
        completedAt: r.completedAt
      }))
  }
}
