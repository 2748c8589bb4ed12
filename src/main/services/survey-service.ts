/**
 * Surveys (docs/api-seed.md §2.3, §4.1; docs/design.md §9): one record per step; steps with the same
 * title form a survey, ordered by sort_id. Runs are kept in the database; their responses are
 * listed per survey in one shape (JSON and CSV).
 */
import { stringify } from 'csv-stringify/sync'
import { isoNow, type Clock } from '../clock'
import type { CoreEventBus } from '../events'
import type { Repositories, Stored } from '../store/repos'
import type { InstanceRef, Survey, SurveyRun } from '../../shared/schemas/records'
import type { CreateSurveyBody, UpdateSurveyBody } from '../../shared/schemas/operations'
import { orderSteps } from '../domain/survey-steps'
import { formatLocal } from '../domain/active-window'
import { safeFileName } from '../../shared/domain/file-name'
import { checkAction } from './action-check'
import { invalid, notFound } from '../errors'
import { applyRecordPatch, newKeywordRecord } from './keyword-record'
import type { SurveyResponseT } from '../../shared/operations/results'

/** A run as the responses list shows it (docs/design.md §9): the one shape of the API, the UI and the CSV. */
/** A run as the responses list shows it (docs/design.md §9): the one shape of the API, the UI and the CSV. */
export type SurveyResponse = SurveyResponseT

function toSortId(v: number | string): number {
  return typeof v === 'number' ? v : Number.parseInt(v.trim(), 10)
}

export class SurveyService {
  constructor(
    private readonly repos: Repositories,
    private readonly events: CoreEventBus,
    private readonly clock: Clock
  ) {}

  /** Every step of the instance, grouped by title and in step order. */
  async list(inst: InstanceRef): Promise<Stored<Survey>[]> {
    const mine = await this.repos.surveySteps.ofInstance(inst._id)
    const titles = [...new Set(mine.map((s) => s.title))]
    return titles.flatMap((t) => orderSteps(mine.filter((s) => s.title === t)))
  }

  /** Whether `id` is one of this instance's survey steps. */
  async exists(inst: InstanceRef, id: string): Promise<boolean> {
    return (await this.repos.surveySteps.owned(inst._id, id)) !== undefined
  }

  /** One step of the instance's surveys; 404 when unknown. */
  async get(inst: InstanceRef, id: string): Promise<Stored<Survey>> {
    const step = await this.repos.surveySteps.owned(inst._id, id)
    if (!step) throw notFound('Survey')
    return step
  }

  /** The ordered steps of the survey `title`. */
  async stepsOf(inst: InstanceRef, title: string): Promise<Stored<Survey>[]> {
    return orderSteps(await this.repos.surveySteps.stepsOf(inst._id, title))
  }

  async create(inst: InstanceRef, body: Omit<CreateSurveyBody, 'session_id' | 'access_token'>): Promise<Stored<Survey>> {
    await checkAction(body.action, inst, this.repos)
    const step = await this.repos.surveySteps.put({
      ...newKeywordRecord(inst, body, isoNow(this.clock)),
      sort_id: toSortId(body.sort_id),
      ...(body.closing_msg ? { closing_msg: body.closing_msg } : {})
    })
    this.events.emit('changed', { instanceId: inst._id, what: 'surveys', recordId: step._id })
    return step
  }

  async update(inst: InstanceRef, id: string, body: Omit<UpdateSurveyBody, 'session_id' | 'access_token'>): Promise<Stored<Survey>> {
    await this.get(inst, id)
    await checkAction(body.action, inst, this.repos)
    const step = (await this.repos.surveySteps.update(id, (d) => {
      if (body.sort_id !== undefined) d.sort_id = toSortId(body.sort_id)
      if (body.closing_msg === null || body.closing_msg === '') delete d.closing_msg
      else if (body.closing_msg !== undefined) d.closing_msg = body.closing_msg
      applyRecordPatch(d, body, isoNow(this.clock))
    }))!
    this.events.emit('changed', { instanceId: inst._id, what: 'surveys', recordId: id })
    return step
  }

  async delete(inst: InstanceRef, id: string): Promise<void> {
    await this.get(inst, id)
    await this.repos.surveySteps.remove(id)
    this.events.emit('changed', { instanceId: inst._id, what: 'surveys', recordId: id })
  }

  /** Gives the steps of one survey the sort ids 1…n in the order given, in one write; answers the steps. */
  async reorder(inst: InstanceRef, stepIds: string[]): Promise<Stored<Survey>[]> {
    const steps = await Promise.all(stepIds.map((id) => this.get(inst, id)))
    const title = steps[0]!.title
    if (steps.some((s) => s.title !== title)) throw invalid('stepIds', 'must all belong to one survey')
    if (new Set(stepIds).size !== stepIds.length) throw invalid('stepIds', 'must not repeat a step')
    await this.repos.surveySteps.reorder(steps, isoNow(this.clock))
    this.events.emit('changed', { instanceId: inst._id, what: 'surveys' })
    return this.stepsOf(inst, title)
  }

  /** Runs of the survey that `stepId` belongs to, oldest first (docs/design.md §9), with the customer's number and local times. */
  async responses(inst: InstanceRef, stepId: string): Promise<SurveyResponse[]> {
    const step = await this.get(inst, stepId)
    return (await this.repos.surveyRuns.ofSurvey(inst._id, step.title)).map((r) => this.view(inst, r))
  }

  /** Marks a response handled (or not); 404 for an unknown run or another instance's. */
  async markHandled(inst: InstanceRef, runId: string, handled: boolean): Promise<SurveyResponse> {
    const run = await this.repos.surveyRuns.find(runId)
    if (!run || run.instance_id !== inst._id) throw notFound('Survey response')
    const updated = (await this.repos.surveyRuns.update(runId, (d) => void (d.handled = handled)))!
    this.events.emit('changed', { instanceId: inst._id, what: 'surveys' })
    return this.view(inst, updated)
  }

  private view(inst: InstanceRef, r: Stored<SurveyRun>): SurveyResponse {
    const zone = this.repos.instances.find(inst._id)?.settings.bot_timezone ?? 'UTC'
    const local = (iso: string) => {
      try {
        return formatLocal(new Date(iso), zone)
      } catch {
        return iso
      }
    }
    const contact = r.contactId ?? r.chatId
    return {
      _id: r._id,
      chatId: r.chatId,
      pushName: r.pushName,
      phone: contact.endsWith('@s.whatsapp.net') ? `+${contact.split('@')[0]}` : contact,
      status: r.status,
      handled: r.handled === true,
      answers: r.answers,
      startedAt: r.startedAt,
      completedAt: r.completedAt,
      started_local: local(r.startedAt),
      completed_local: r.completedAt ? local(r.completedAt) : null
    }
  }

  /**
   * The responses as CSV for a spreadsheet, with a file name: one row per run, one column per step (its
   * question), in step order; answers to steps since deleted get their own columns at the end.
   */
  async responsesCsv(inst: InstanceRef, stepId: string): Promise<{ fileName: string; csv: string }> {
    const step = await this.get(inst, stepId)
    const runs = await this.responses(inst, stepId)
    const columns = (await this.stepsOf(inst, step.title)).map((s) => ({ id: s._id, question: s.reply }))
    for (const run of runs) {
      for (const a of run.answers) if (!columns.some((c) => c.id === a.step_id)) columns.push({ id: a.step_id, question: a.question })
    }
    const header = ['run_id', 'name', 'phone', 'status', 'handled', 'started', 'completed', ...columns.map((c) => c.question)]
    const rows = runs.map((r) => [
      r._id,
      r.pushName ?? '',
      r.phone,
      r.status,
      r.handled ? 'yes' : 'no',
      r.started_local,
      r.completed_local ?? '',
      ...columns.map((c) => r.answers.filter((a) => a.step_id === c.id).at(-1)?.answer ?? '')
    ])
    // Anyone who writes to the bot controls answers and push names: cells a spreadsheet would run as a
    // formula (=, +, -, @, tab, CR and their fullwidth forms) get a leading ' (OWASP "CSV Injection").
    return { fileName: `${safeFileName(step.title, 'survey')}-responses.csv`, csv: stringify([header, ...rows], { escape_formulas: true }) }
  }
}
