/** Wiring of what the app keeps of each customer: the daily retention run, export and erasure. */
import { CustomerDataService } from '../services/history/customer-data-service'
import { RetentionService } from '../services/history/retention-service'
import type { MessagesWiring } from './messages'
import type { Step, Wiring } from './steps'

export function wireHistory(w: Wiring, deps: Pick<MessagesWiring, 'media'>): { retention: RetentionService; customers: CustomerDataService; step: Step } {
  const { repos, events, logger, clock, timers } = w
  const retention = new RetentionService({ repos, media: deps.media, clock, timers, logger })
  const customers = new CustomerDataService({ repos, media: deps.media, events, clock, logger })
  let stopRetention = () => {}
  return {
    retention,
    customers,
    step: {
      name: 'history',
      start: () => {
        stopRetention = retention.start()
        // Erasures a crash cut short are finished (their customers are hidden meanwhile).
        customers.resumeErasures()
      },
      close: async () => {
        stopRetention()
        await retention.idle()
        await customers.close()
      }
    }
  }
}
