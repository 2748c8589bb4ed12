/** The decision record in plain words (docs/design.md §13), as the UI shows it. */
import { expect, it } from 'vitest'
import { explainBotDecision } from '../../src/shared/domain/bot-decision-text'

it('says what answered, or why nothing did', () => {
  expect(explainBotDecision({ action: 'intent', ref: 'Hours' })).toBe('Answered by intent "Hours"')
  expect(explainBotDecision({ action: 'default' })).toBe('Answered with the default message')
  expect(explainBotDecision({ action: 'none', reason: 'outside_hours' })).toBe('No reply: outside business hours')
  expect(explainBotDecision({ action: 'none', reason: 'default_sent_recently' })).toMatch(/already got the default message/)
  expect(explainBotDecision({ action: 'none', reason: 'something_new' })).toBe('No reply: something_new')
})
