import { describe, expect, it } from 'vitest'
import { answerStep, expireRun, isExpired, startRun, SurveyFlowError } from '../../../src/main/bot/survey-flow'
import { orderSteps, surveyStepsOf, type SurveyStep } from '../../../src/main/domain/survey-steps'

const T0 = new Date('2026-06-05T12:00:00.000Z')
const later = (ms: number) => new Date(T0.getTime() + ms)

function step(id: string, sort_id: number, keyword: string, reply: string, extra: Partial<SurveyStep> = {}): SurveyStep {
  return { _id: id, title: 'Feedback', keyword, reply, sort_id, createdAt: '2026-01-01T00:00:00.000Z', ...extra }
}

// Given out of order on purpose: the flow orders steps itself.
const STEPS: SurveyStep[] = [
  step('s3', 3, 'yes, no', 'Would you come again?', { action: { send_notification: { email: 'owner@example.com' } } }),
  step('s1', 1, 'feedback, review', 'How was your visit, [name]?'),
  step('s2', 2, '', 'What did you order?', { action: {} })
]

describe('orderSteps / surveyStepsOf', () => {
  it('orders by sort_id, then createdAt, then _id', () => {
    const a = step('b', 1, '', 'q', { createdAt: '2026-01-02T00:00:00.000Z' })
    const b = step('a', 1, '', 'q', { createdAt: '2026-01-02T00:00:00.000Z' })
    const c = step('z', 1, '', 'q', { createdAt: '2026-01-01T00:00:00.000Z' })
    const d = step('y', 0, '', 'q', { createdAt: '2026-01-03T00:00:00.000Z' })
    expect(orderSteps([a, b, c, d]).map((s) => s._id)).toEqual(['y', 'z', 'a', 'b'])
  })

  it('finds the survey of a step by title', () => {
    const other = { ...step('o1', 1, 'x', 'q'), title: 'Other' }
    expect(surveyStepsOf([...STEPS, other], 's2').map((s) => s._id)).toEqual(['s1', 's2', 's3'])
    expect(surveyStepsOf([...STEPS, other], 'o1').map((s) => s._id)).toEqual(['o1'])
    expect(surveyStepsOf(STEPS, 'missing')).toEqual([])
  })
})

describe('survey run', () => {
  it('starts at the first step and asks its question', () => {
    const { run, question } = startRun(STEPS, undefined, T0)
    expect(question).toEqual({ step_id: 's1', text: 'How was your visit, [name]?' })
    expect(run).toEqual({
      status: 'in_progress',
      current_step_id: 's1',
      answers: [],
      startedAt: T0.toISOString(),
      updatedAt: T0.toISOString(),
      completedAt: null
    })
  })

  it('walks through every step: free first answer, any answer on an empty list, re-ask on a wrong one', () => {
    let { run } = startRun(STEPS, undefined, T0)

    // Step 1 (first): its keyword is the trigger, its answer is free.
    const r1 = answerStep(STEPS, run, '  Great, thanks! ', later(1000))
    expect(r1).toMatchObject({ accepted: true, completed: false, next: { step_id: 's2', text: 'What did you order?' } })
    expect(r1.actionsToRun).toBeUndefined()
    expect(r1.run.answers).toEqual([
      { step_id: 's1', question: 'How was your visit, [name]?', answer: 'Great, thanks!', at: later(1000).toISOString() }
    ])
    run = r1.run

    // Step 2: empty keyword accepts any answer; its empty action is not returned.
    const r2 = answerStep(STEPS, run, 'Pizza', later(2000))
    expect(r2).toMatchObject({ accepted: true, completed: false, next: { step_id: 's3' } })
    expect(r2.actionsToRun).toBeUndefined()
    run = r2.run

    // Step 3: only yes/no. A wrong answer re-asks and stores nothing.
    const bad = answerStep(STEPS, run, 'maybe', later(3000))
    expect(bad).toMatchObject({ accepted: false, completed: false, reask: { step_id: 's3', text: 'Would you come again?' } })
    expect(bad.next).toBeUndefined()
    expect(bad.run.answers).toHaveLength(2)
    expect(bad.run.current_step_id).toBe('s3')
    expect(bad.run.updatedAt).toBe(later(3000).toISOString())

    // "nope" contains no whole-word "no".
    expect(answerStep(STEPS, bad.run, 'nope', later(3500)).accepted).toBe(false)

    const good = answerStep(STEPS, bad.run, 'Yes, definitely!', later(4000))
    expect(good.accepted).toBe(true)
    expect(good.completed).toBe(true)
    expect(good.matchedKeyword).toBe('yes')
    expect(good.actionsToRun).toEqual({ send_notification: { email: 'owner@example.com' } })
    expect(good.run).toMatchObject({
      status: 'completed',
      current_step_id: null,
      completedAt: later(4000).toISOString()
    })
    expect(good.run.answers.map((a) => [a.step_id, a.answer])).toEqual([
      ['s1', 'Great, thanks!'],
      ['s2', 'Pizza'],
      ['s3', 'Yes, definitely!']
    ])
  })

  it('re-asks on a blank answer, even on the free first step', () => {
    const { run } = startRun(STEPS, undefined, T0)
    const r = answerStep(STEPS, run, '   ', later(1))
    expect(r).toMatchObject({ accepted: false, reask: { step_id: 's1' } })
    expect(r.run.answers).toEqual([])
  })

  it('does not mutate the run it is given and carries extra fields through', () => {
    const { run } = startRun(STEPS, undefined, T0)
    const stored = { ...run, _id: 'run1', chatId: '1555@s.whatsapp.net' }
    const snapshot = structuredClone(stored)
    const r = answerStep(STEPS, stored, 'ok', later(1))
    expect(stored).toEqual(snapshot)
    expect(r.run._id).toBe('run1')
    expect(r.run.chatId).toBe('1555@s.whatsapp.net')
  })

  it('starts at a named step and continues through the later steps, validating that step', () => {
    const { run, question } = startRun(STEPS, 's2', T0)
    expect(question.step_id).toBe('s2')
    const r2 = answerStep(STEPS, run, 'Pasta', later(1))
    expect(r2.next?.step_id).toBe('s3')
    const r3 = answerStep(STEPS, r2.run, 'no', later(2))
    expect(r3.completed).toBe(true)
    expect(r3.run.answers.map((a) => a.step_id)).toEqual(['s2', 's3'])

    // Started at the last step: its keyword lists accepted answers, not triggers.
    const last = startRun(STEPS, 's3', T0)
    expect(answerStep(STEPS, last.run, 'whatever', later(1)).accepted).toBe(false)
    expect(answerStep(STEPS, last.run, 'NO', later(1)).completed).toBe(true)
  })

  it('completes a one-step survey after its free answer', () => {
    const one = [step('only', 1, 'quick', 'Anything to add?')]
    const { run } = startRun(one, undefined, T0)
    const r = answerStep(one, run, 'all good', later(1))
    expect(r).toMatchObject({ accepted: true, completed: true, run: { status: 'completed' } })
  })

  it('throws SurveyFlowError for empty surveys, unknown steps and finished runs', () => {
    const code = (f: () => unknown) => {
      try {
        f()
      } catch (e) {
        expect(e).toBeInstanceOf(SurveyFlowError)
        return (e as SurveyFlowError).code
      }
      return 'no error'
    }
    expect(code(() => startRun([], undefined, T0))).toBe('empty_survey')
    expect(code(() => startRun(STEPS, 'nope', T0))).toBe('step_not_found')
    const { run } = startRun(STEPS, undefined, T0)
    expect(code(() => answerStep(STEPS.filter((s) => s._id !== 's1'), run, 'x', T0))).toBe('step_not_found')
    expect(code(() => answerStep(STEPS, { ...run, status: 'completed' as const }, 'x', T0))).toBe('not_running')
  })
})

describe('expiry', () => {
  const MIN = 60_000

  it('expires an in-progress run after 30 idle minutes by default', () => {
    const { run } = startRun(STEPS, undefined, T0)
    expect(isExpired(run, T0.getTime() + 30 * MIN - 1)).toBe(false)
    expect(isExpired(run, T0.getTime() + 30 * MIN)).toBe(true)
    expect(isExpired(run, T0.getTime() + 5 * MIN, 5 * MIN)).toBe(true)
  })

  it('counts idle time from the last message, re-asks included', () => {
    const { run } = startRun(STEPS, undefined, T0)
    const r1 = answerStep(STEPS, run, 'fine', later(20 * MIN))
    const r2 = answerStep(STEPS, r1.run, 'pizza', later(40 * MIN))
    expect(isExpired(r2.run, T0.getTime() + 65 * MIN)).toBe(false)
    const bad = answerStep(STEPS, r2.run, 'maybe', later(60 * MIN))
    expect(isExpired(bad.run, T0.getTime() + 85 * MIN)).toBe(false)
    expect(isExpired(bad.run, T0.getTime() + 90 * MIN)).toBe(true)
  })

  it('never expires finished runs and treats unreadable timestamps as expired', () => {
    const { run } = startRun(STEPS, undefined, T0)
    expect(isExpired({ ...run, status: 'completed' }, T0.getTime() + 999 * MIN)).toBe(false)
    expect(isExpired({ ...run, updatedAt: 'garbage', startedAt: 'garbage' }, T0.getTime())).toBe(true)
  })

  it('expireRun keeps the answers and clears the current step', () => {
    const { run } = startRun(STEPS, undefined, T0)
    const r1 = answerStep(STEPS, run, 'fine', later(1))
    const expired = expireRun(r1.run, later(31 * MIN))
    expect(expired).toMatchObject({ status: 'expired', current_step_id: null, updatedAt: later(31 * MIN).toISOString() })
    expect(expired.answers).toHaveLength(1)
    expect(isExpired(expired, T0.getTime() + 999 * MIN)).toBe(false)
  })
})
