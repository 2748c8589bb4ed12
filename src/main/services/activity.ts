/**
 * What the app is in the middle of (docs/design.md §19), for the desktop shell's updater: it never restarts by
 * itself while a broadcast is sending or a survey waits for a customer's answer, and it installs only
 * once no message is on its way out. Counts only; the rule that reads them is the shell's
 * (src/main/electron/update-policy.ts).
 */
import type { Clock } from '../clock'
import type { Repositories } from '../store/repos'
import { DEFAULT_SURVEY_IDLE_MS } from '../domain/survey-steps'

/** What is running now: broadcasts with status `sending`, survey runs in progress and not idle past their expiry, sends in flight. */
export interface ActivitySnapshot {
  broadcasts: number
  surveys: number
  sends: number
}

export interface ActivityDeps {
  repos: Pick<Repositories, 'broadcasts' | 'surveyRuns'>
  clock: Clock
  /** A survey run idle this long (ms) has expired, even before the bot marks it so. */
  surveyIdleMs?: number
}

export class ActivityMonitor {
  private sending = 0
  private idleWaiters: Array<() => void> = []

  constructor(private readonly deps: ActivityDeps) {}

  /** Runs one send, counted as in flight until it settles (whatever the outcome). */
  async track<T>(send: () => Promise<T>): Promise<T> {
    this.sending++
    try {
      return await send()
    } finally {
      this.sending--
      if (this.sending === 0) for (const done of this.idleWaiters.splice(0)) done()
    }
  }

  async snapshot(): Promise<ActivitySnapshot> {
    const now = this.deps.clock.now()
    const idleMs = this.deps.surveyIdleMs ?? DEFAULT_SURVEY_IDLE_MS
    return {
      broadcasts: await this.deps.repos.broadcasts.countWithStatus('sending'),
      surveys: await this.deps.repos.surveyRuns.countInProgressSince(new Date(now - idleMs).toISOString()),
      sends: this.sending
    }
  }

  /** Resolves once no send is in flight: at once when none is. */
  sendsIdle(): Promise<void> {
    if (this.sending === 0) return Promise.resolve()
    return new Promise((resolve) => this.idleWaiters.push(resolve))
  }
}
