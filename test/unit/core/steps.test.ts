/**
 * The core's one list of steps (docs/architecture.md "Wiring"): starts run in list order and closes in
 * the reverse order, a step without a start or a close is passed over in that phase, and each step
 * waits for the one before it.
 */
import { expect, it } from 'vitest'
import { closeSteps, startSteps, type Step } from '../../../src/main/wiring/steps'

function recorded(): { steps: Step[]; log: string[] } {
  const log: string[] = []
  const later = (what: string) => new Promise<void>((resolve) => setImmediate(() => (log.push(what), resolve())))
  const steps: Step[] = [
    { name: 'storage', close: () => later('close storage') },
    { name: 'sessions', start: () => void log.push('start sessions'), close: () => void log.push('close sessions') },
    { name: 'outreach', start: () => later('start outreach'), close: () => later('close outreach') },
    { name: 'restore', start: () => later('start restore') }
  ]
  return { steps, log }
}

it('starts in list order and closes in the reverse order, each step after the one before has settled', async () => {
  const { steps, log } = recorded()
  await startSteps(steps)
  expect(log).toEqual(['start sessions', 'start outreach', 'start restore'])
  log.length = 0
  await closeSteps(steps)
  expect(log).toEqual(['close outreach', 'close sessions', 'close storage'])
})

it('stops at the first step that throws and leaves the rest as they were', async () => {
  const { steps, log } = recorded()
  steps[2] = { name: 'outreach', start: () => Promise.reject(new Error('no')) }
  await expect(startSteps(steps)).rejects.toThrow('no')
  expect(log).toEqual(['start sessions'])
})
