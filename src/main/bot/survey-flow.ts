/**
 * The survey state machine of docs/design.md §9 (and §10 steps 2–3). Pure: steps, run state, text and
 * time in; new run state and what to say out. Storage, rendering (`renderReply`) and running actions
 * are the caller's.
 *
 * Model: one Survey record = one step; records with the same `title` form a survey, ordered by
 * `sort_id`, then `createdAt`, then `_id` (`orderSteps`; every function here orders its `steps`
 * itself, so any order may be passed). A step's `reply` is its question.
 *
 * Interpretation of "on the first step `keyword` lists the trigger words, and its answer is free; on
 * a later step a non-empty `keyword` lists the answers that step accepts":
 * - A trigger (first step's keyword) starts a run at step 1 and asks step 1's question; the
 *   trigger message itself is not an answer. The next message answers step 1, and any non-blank
 *   text is accepted there.
 * - Every other step validates its answer against its own `keyword` list when that list is
 *   non-empty, with the matching rules of §10 (normalised, whole word or phrase, exact or
 *   contained: "yes please" is accepted by `yes,no`). An empty list accepts any non-blank text.
 *   Which rule applies depends on the step's place in the survey, not on where the run started: a
 *   run started by `start_survey` at a later step validates that step too (its keyword was never a
 *   trigger), and one started at the first step gets a free first answer.
 * - A rejected or blank answer stores nothing and asks the same question again (`reask`); it does
 *   refresh `updatedAt`, since the contact is still active.
 * - An accepted answer is stored as `{step_id, question: step.reply (the template, as defined), answer:
 *   the trimmed text as sent, at: ISO time}`; the step's `action` is returned to run (`actionsToRun`);
 *   then the next step's question is asked (`next`) or, after the last step, the run is completed.
 * - Runs expire after `idleMs` (default 30 min) without a message (`isExpired`); the caller checks
 *   that before `answerStep`, marks the run with `expireRun` and treats the message as a new one.
 *
 * Errors: `SurveyFlowError` with `code` `empty_survey` (no steps), `step_not_found` (the start step
 * or the run's current step is not among `steps`, e.g. it was deleted mid-run) or `not_running`
 * (`answerStep` on a run that is not in progress).
 */
import type { Action, SurveyAnswer, SurveyRun } from '../../shared/schemas/records'
import { DEFAULT_SURVEY_IDLE_MS, orderSteps, type SurveyStep } from '../domain/survey-steps'
import { findKeyword } from './intent-matcher'
import { splitKeywords } from '../../shared/domain/keywords'

/** The fields of a SurveyRun the flow reads and writes; extra fields are carried through untouched. */
export type SurveyRunState = Pick<
  SurveyRun,
  'status' | 'current_step_id' | 'answers' | 'startedAt' | 'updatedAt' | 'completedAt'
>

/** A question to ask: the step's `reply` template (render it with `renderReply`). */
export interface SurveyQuestion {
  step_id: string
  text: string
}

export interface StartResult {
  run: SurveyRunState
  question: SurveyQuestion
}

export interface AnswerResult<R extends SurveyRunState> {
  run: R
  accepted: boolean
  /** Set when the answer was rejected: the same step's question again. */
  reask?: SurveyQuestion
  /** Set when accepted and a step follows: its question. */
  next?: SurveyQuestion
  completed: boolean
  /** The answered step's action, when it has any member. */
  actionsToRun?: Action
  /** The accepted keyword (normalised), when the step validates against a keyword list. */
  matchedKeyword?: string
}

export type SurveyFlowErrorCode = 'empty_survey' | 'step_not_found' | 'not_running'

export class SurveyFlowError extends Error {
  constructor(
    readonly code: SurveyFlowErrorCode,
    message: string
  ) {
    super(message)
    this.name = 'SurveyFlowError'
  }
}

function question(step: SurveyStep): SurveyQuestion {
  return { step_id: step._id, text: step.reply }
}

function hasAction(action: Action | undefined): action is Action {
  return !!action && Object.values(action).some((v) => v !== undefined)
}

/**
 * Starts a run at the first step, or at `startStepId` (a `start_survey` action), and gives the
 * question to ask. Throws `SurveyFlowError` (`empty_survey`, `step_not_found`).
 */
export function startRun(steps: readonly SurveyStep[], startStepId?: string, now: Date = new Date()): StartResult {
  const ordered = orderSteps(steps)
  if (ordered.length === 0) throw new SurveyFlowError('empty_survey', 'survey has no steps')
  const step = startStepId === undefined ? ordered[0]! : ordered.find((s) => s._id === startStepId)
  if (!step) throw new SurveyFlowError('step_not_found', `survey step ${startStepId} not found`)
  const at = now.toISOString()
  return {
    run: { status: 'in_progress', current_step_id: step._id, answers: [], startedAt: at, updatedAt: at, completedAt: null },
    question: question(step)
  }
}

/**
 * Applies an incoming message to a running survey (see module doc). Returns a new run object (the
 * input is not mutated). Throws `SurveyFlowError` (`not_running`, `step_not_found`).
 */
export function answerStep<R extends SurveyRunState>(
  steps: readonly SurveyStep[],
  run: R,
  text: string,
  now: Date = new Date()
): AnswerResult<R> {
  if (run.status !== 'in_progress') throw new SurveyFlowError('not_running', `survey run is ${run.status}`)
  const ordered = orderSteps(steps)
  const index = ordered.findIndex((s) => s._id === run.current_step_id)
  const step = ordered[index]
  if (!step) throw new SurveyFlowError('step_not_found', `survey step ${run.current_step_id} not found`)
  const at = now.toISOString()
  const answer = text.trim()

  let matchedKeyword: string | undefined
  let accepted = answer.length > 0
  if (accepted && index > 0) {
    const accepts = splitKeywords(step.keyword)
    if (accepts.length > 0) {
      const found = findKeyword(answer, accepts)
      accepted = found !== null
      matchedKeyword = found?.keyword
    }
  }
  if (!accepted) {
    return { run: { ...run, updatedAt: at }, accepted: false, reask: question(step), completed: false }
  }

  const answers: SurveyAnswer[] = [...run.answers, { step_id: step._id, question: step.reply, answer, at }]
  const nextStep = ordered[index + 1]
  const actionsToRun = hasAction(step.action) ? step.action : undefined
  const extra = {
    ...(actionsToRun ? { actionsToRun } : {}),
    ...(matchedKeyword !== undefined ? { matchedKeyword } : {})
  }
  if (nextStep) {
    return {
      run: { ...run, answers, current_step_id: nextStep._id, updatedAt: at },
      accepted: true,
      next: question(nextStep),
      completed: false,
      ...extra
    }
  }
  return {
    run: { ...run, answers, status: 'completed', current_step_id: null, updatedAt: at, completedAt: at },
    accepted: true,
    completed: true,
    ...extra
  }
}

/**
 * True when an in-progress run has been idle for `idleMs` or more. A run whose timestamps cannot be
 * read counts as expired, so corrupt data never traps a contact in a survey.
 */
export function isExpired(run: SurveyRunState, nowMs: number, idleMs: number = DEFAULT_SURVEY_IDLE_MS): boolean {
  if (run.status !== 'in_progress') return false
  const last = Date.parse(run.updatedAt)
  const since = Number.isNaN(last) ? Date.parse(run.startedAt) : last
  return Number.isNaN(since) || nowMs - since >= idleMs
}

/** The run marked expired (answers kept, no current step). */
export function expireRun<R extends SurveyRunState>(run: R, now: Date = new Date()): R {
  return { ...run, status: 'expired', current_step_id: null, updatedAt: now.toISOString() }
}
