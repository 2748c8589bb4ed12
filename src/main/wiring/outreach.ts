/** Wiring of outreach: broadcasts behind the send governor, and scheduled messages (each run starts a broadcast). */
import { BroadcastService } from '../services/outreach/broadcast-service'
import { OutreachGovernor } from '../services/outreach/outreach-governor'
import { ScheduleService } from '../services/outreach/schedule-service'
import type { InstancesWiring } from './instances'
import type { MessagesWiring } from './messages'
import type { Step, Wiring } from './steps'

export interface OutreachWiring {
  broadcasts: BroadcastService
  schedules: ScheduleService
  /** Starts the broadcasts (resuming those under way), then the schedules; closed last of outreach: the sends under way finish. */
  sends: Step
  /** Closed first of outreach: no schedule fires and no broadcast takes a next step any more. */
  timers: Step
}

export function wireOutreach(w: Wiring, deps: Pick<InstancesWiring, 'sessions'> & Pick<MessagesWiring, 'messages'>): OutreachWiring {
  const { opts, repos, events, logger, clock, timers, mine } = w
  const governor = new OutreachGovernor({ repos, clock, random: opts.random })
  const broadcasts = new BroadcastService({ repos, messages: deps.messages, sessions: deps.sessions, governor, events, clock, timers, logger, random: opts.random, ...(mine ? { mine } : {}) })
  const schedules = new ScheduleService({ repos, broadcasts, events, clock, timers, logger, ...(mine ? { mine } : {}) })
  let stopBroadcasts = () => {}
  let stopSchedules = () => {}
  return {
    broadcasts,
    schedules,
    sends: {
      name: 'outreach',
      // Before the sessions are restored, so a resumed broadcast hears its instance reach CONNECTED.
      start: async () => {
        stopBroadcasts = await broadcasts.start()
        stopSchedules = await schedules.start()
      },
      close: () => broadcasts.idle()
    },
    timers: {
      name: 'outreach timers',
      close: () => {
        stopSchedules()
        stopBroadcasts()
      }
    }
  }
}
