/** Wiring of the desk's inbox: conversations, who answers them, saved snippets; both follow messages from now on. */
import { InboxService } from '../services/inbox/inbox-service'
import { AssignmentService } from '../services/inbox/assignment-service'
import { QuickReplyService } from '../services/inbox/quick-reply-service'
import type { ContactService } from '../services/contacts/contact-service'
import type { InstancesWiring } from './instances'
import type { MessagesWiring } from './messages'
import type { Step, Wiring } from './steps'

export function wireInbox(
  w: Wiring,
  deps: Pick<InstancesWiring, 'sessions'> & Pick<MessagesWiring, 'handoff'> & { contacts: ContactService }
): { inbox: InboxService; assignments: AssignmentService; quickReplies: QuickReplyService; step: Step } {
  const { repos, events, clock, logger } = w
  const assignments = new AssignmentService({ repos, events, clock, logger })
  const inbox = new InboxService({ repos, handoff: deps.handoff, sessions: deps.sessions, contacts: deps.contacts, events, clock, logger })
  const quickReplies = new QuickReplyService({ repos, events, clock })
  const stopInbox = inbox.start()
  const stopAssignments = assignments.start()
  return {
    inbox,
    assignments,
    quickReplies,
    step: {
      name: 'inbox',
      close: () => {
        stopInbox()
        stopAssignments()
      }
    }
  }
}
