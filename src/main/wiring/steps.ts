/**
 * The core's life as one ordered list of steps (docs/architecture.md "Wiring"): `startSteps` runs each
 * step's `start` in list order, `closeSteps` each step's `close` in the reverse order, so a part closes
 * only after every part started after it. A step may have only one of the two: a part started while it
 * was made (an event subscription) has only a close, a part that only has to go last (restoring the
 * sessions) only a start.
 */
import type { Clock, Timers } from '../clock'
import type { CoreEventBus } from '../events'
import type { Logger } from '../logger'
import type { Storage } from '../store/storage'
import type { DataPaths } from '../store/data-paths'
import type { CoreOptions, Limits } from './options'

export interface Step {
  /** For the reader and the logs; not used to order anything. */
  name: string
  start?: () => void | Promise<void>
  close?: () => void | Promise<void>
}

/** Runs the steps' starts in order; the first that throws stops the start (nothing is closed). */
export async function startSteps(steps: readonly Step[]): Promise<void> {
  for (const step of steps) await step.start?.()
}

/** Runs the steps' closes in reverse order; the first that throws stops the close. */
export async function closeSteps(steps: readonly Step[]): Promise<void> {
  for (const step of [...steps].reverse()) await step.close?.()
}

/** What every wiring module is given: the core's options and the parts made before any service. */
export interface Wiring {
  opts: CoreOptions
  logger: Logger
  /** The services' clock (tests: a manual one). */
  clock: Clock
  /** Timers of broadcasts, schedules and retention (tests: the manual clock). */
  timers: Timers
  /** The core's bus; the faces' bus hears everything on it. */
  events: CoreEventBus
  /** The faces' bus, which outlives a restore. */
  faces: CoreEventBus
  store: Storage
  repos: Storage['repos']
  paths: DataPaths
  limits: Limits
  /** Database mode: whether this worker holds `instanceId`'s lease (its background jobs run here); absent with one process. */
  mine?: (instanceId: string) => boolean
}
