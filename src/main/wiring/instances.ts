/**
 * Wiring of the instances and their channel sessions: the registry, the settings, the connection, and
 * what the sessions hand over (inbound messages, delivery statuses, the phone's history).
 */
import { createSandboxSession } from '../channel/sandbox-channel'
import { InboundPipeline } from '../services/inbound-pipeline'
import { MessageStatusService } from '../services/message-status'
import { PhoneHistoryService } from '../services/history/phone-history-service'
import { SessionManager } from '../services/instances/session-manager'
import { InstanceRegistry } from '../services/instances/instance-registry'
import { InstanceSettingsService } from '../services/instances/instance-settings'
import { InstanceConnection } from '../services/instances/instance-connection'
import type { WebhookService } from '../webhooks/webhook-service'
import type { Step, Wiring } from './steps'

export interface InstancesWiring {
  inbound: InboundPipeline
  statuses: MessageStatusService
  phoneHistory: PhoneHistoryService
  sessions: SessionManager
  instances: InstanceRegistry
  settings: InstanceSettingsService
  connection: InstanceConnection
  step: Step
}

/** `accountId`: the local account's id (a new instance's owner); `webhooks`: checks a webhook URL setting. */
export function wireInstances(w: Wiring, deps: { accountId: () => string; webhooks: Pick<WebhookService, 'checkTarget'> }): InstancesWiring {
  const { opts, repos, events, logger, clock, paths } = w
  const inbound = new InboundPipeline({ repos, events, logger })
  const statuses = new MessageStatusService({ messages: repos.messages, events, logger })
  // The service asks the sessions for a history request; the sessions hand it what the phone sends.
  const phoneHistory: PhoneHistoryService = new PhoneHistoryService({ repos, sessions: { get: (id: string) => sessions.get(id) }, events, logger })
  const sessions: SessionManager = new SessionManager({
    instances: repos.instances,
    channelStore: { auth: repos.channelAuth, messages: repos.waMessages, waWebVersion: repos.appSettings },
    clock,
    events,
    logger,
    factories: { sandbox: createSandboxSession, ...opts.factories },
    onInbound: (id, msg) => inbound.process(id, msg),
    onMessageStatus: (id, update) => statuses.report(id, update),
    onChatIdentity: (id, identity) => inbound.identity(id, identity),
    onMessageChange: (id, change) => inbound.change(id, change),
    onHistory: (id, batch) => phoneHistory.store(id, batch)
  })
  const instances = new InstanceRegistry({
    repos,
    sessions,
    events,
    clock,
    defaultChannel: opts.defaultChannel ?? 'baileys',
    attachmentsDir: paths.attachments,
    mediaDir: paths.media,
    accountId: deps.accountId
  })
  const settings = new InstanceSettingsService(repos.instances, events, clock, (url, field) => deps.webhooks.checkTarget(url, field))
  const connection = new InstanceConnection(instances, settings, sessions)
  return {
    inbound,
    statuses,
    phoneHistory,
    sessions,
    instances,
    settings,
    connection,
    // After everything that sends through the sessions or hears their events has stopped.
    step: { name: 'sessions', close: () => sessions.closeAll() }
  }
}
