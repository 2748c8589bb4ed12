/** Wiring of the bot: it decides on every inbound message and sends through the single outbound path. */
import { BotEngine } from '../bot/bot-engine'
import { createSmtpMailer, type Mailer } from '../bot/mailer'
import type { AssistantResponder } from '../assistant/assistant-responder'
import type { AppSettingsService } from '../services/app-settings-service'
import type { ContactService } from '../services/contacts/contact-service'
import type { AssignmentService } from '../services/inbox/assignment-service'
import type { InstancesWiring } from './instances'
import type { MessagesWiring } from './messages'
import type { Step, Wiring } from './steps'

export interface BotWiring {
  bot: BotEngine
  mailer: Mailer
  /** The bot's timers and caches. */
  engine: Step
  /** The mail transport of notifications, closed after the bot that uses it. */
  mail: Step
}

export function wireBot(
  w: Wiring,
  deps: Pick<InstancesWiring, 'inbound'> &
    Pick<MessagesWiring, 'messages' | 'attachments' | 'handoff'> & {
      appSettings: AppSettingsService
      contacts: ContactService
      responder: AssistantResponder
      assignments: Pick<AssignmentService, 'handOver'>
    }
): BotWiring {
  const { opts, repos, events, logger, clock, mine } = w
  const mailer = opts.mailer ?? createSmtpMailer(() => deps.appSettings.smtpSecret())
  const bot = new BotEngine({
    repos,
    events,
    logger,
    messages: deps.messages,
    attachments: deps.attachments,
    mailer,
    clock,
    handoff: deps.handoff,
    contacts: deps.contacts,
    assistant: deps.responder,
    assign: (id, chatId, by) => deps.assignments.handOver(id, chatId, by),
    options: opts.bot,
    ...(mine ? { mine } : {})
  })
  deps.inbound.use((instanceId, message, isNew) => bot.decide(instanceId, message, isNew))
  deps.inbound.useIdentity((instanceId, identity) => bot.rekeyContact(instanceId, identity))
  return { bot, mailer, engine: { name: 'bot', close: () => bot.close() }, mail: { name: 'mailer', close: () => mailer.close() } }
}
