/**
 * A survey's steps and their order (docs/design.md §9): one Survey record is one step; the records of
 * one instance with the same `title` form a survey, ordered by `sort_id`, then `createdAt`, then `_id`.
 * The bot's survey flow (bot/survey-flow.ts), the matcher and the surveys' service all order steps by
 * this rule. Pure, never throws.
 */
import type { Action, Survey } from '../../shared/schemas/records'

/** How long a survey run waits for the contact's next message before it expires, ms (30 min). */
export const DEFAULT_SURVEY_IDLE_MS = 30 * 60 * 1000

/** The fields of a Survey record the flow needs. */
export type SurveyStep = Pick<Survey, '_id' | 'title' | 'keyword' | 'reply' | 'sort_id' | 'createdAt'> & {
  action?: Action | undefined
}

/** Steps in survey order: `sort_id`, then `createdAt`, then `_id`. Returns a new array. */
export function orderSteps<S extends SurveyStep>(steps: readonly S[]): S[] {
  return [...steps].sort(
    (a, b) =>
      Number(a.sort_id) - Number(b.sort_id) ||
      (a.createdAt < b.createdAt ? -1 : a.createdAt > b.createdAt ? 1 : 0) ||
      (a._id < b._id ? -1 : a._id > b._id ? 1 : 0)
  )
}

/**
 * The ordered steps of the survey that step `stepId` belongs to (same `title`), from all survey
 * records of one instance; empty when there is no such step. For `start_survey` actions.
 */
export function surveyStepsOf<S extends SurveyStep>(records: readonly S[], stepId: string): S[] {
  const step = records.find((r) => r._id === stepId)
  return step ? orderSteps(records.filter((r) => r.title === step.title)) : []
}
