/**
 * Wiring of the single outbound path and the message log: attachments, sends (typed, files fetched from
 * a URL), hand-off, edits and reactions, media files, the log's queries and the sandbox's phone.
 */
import { AttachmentService } from '../services/attachment-service'
import { HandoffService } from '../services/handoff-service'
import { ActivityMonitor } from '../services/activity'
import { Outbound } from '../services/messages/outbound'
import { RemoteFiles } from '../services/messages/remote-file'
import { MessageService } from '../services/messages/message-sender'
import { MediaFiles } from '../services/messages/media-files'
import { MessageChangeService } from '../services/messages/message-changes'
import { MessageQueries } from '../services/messages/message-queries'
import { SandboxService } from '../services/sandbox-service'
import type { InstancesWiring } from './instances'
import type { Step, Wiring } from './steps'

export interface MessagesWiring {
  attachments: AttachmentService
  handoff: HandoffService
  activity: ActivityMonitor
  outbound: Outbound
  messages: MessageService
  media: MediaFiles
  changes: MessageChangeService
  log: MessageQueries
  sandbox: SandboxService
  step: Step
}

export function wireMessages(w: Wiring, { inbound, sessions, statuses }: Pick<InstancesWiring, 'inbound' | 'sessions' | 'statuses'>): MessagesWiring {
  const { opts, repos, events, logger, clock, paths, limits } = w
  const attachments = new AttachmentService({ repos, events, clock, dir: paths.attachments, tmpDir: paths.tmp, maxBytes: limits.fileBytes })
  const handoff = new HandoffService({ repos, events, clock })
  const activity = new ActivityMonitor({ repos, clock, surveyIdleMs: opts.bot?.surveyIdleMs })
  const outbound = new Outbound({ repos, sessions, events, clock, statuses, onHumanReply: (id, chatId, sentBy) => handoff.humanReplied(id, chatId, 'desk', undefined, sentBy), inFlight: activity })
  const remoteFiles = new RemoteFiles({ tmpDir: paths.tmp, maxBytes: limits.fileBytes, timeoutMs: limits.downloadTimeoutMs, allow: opts.fetchAllow })
  const messages = new MessageService(outbound, attachments, remoteFiles, (instanceId, id) => repos.contacts.owned(instanceId, id))
  const media = new MediaFiles(paths.media)
  const changes = new MessageChangeService({ messages: repos.messages, media, outbound, events, clock, logger })
  inbound.useChanges((instanceId, change) => changes.apply(instanceId, change))
  return {
    attachments,
    handoff,
    activity,
    outbound,
    messages,
    media,
    changes,
    log: new MessageQueries(repos.messages, sessions, media),
    sandbox: new SandboxService({ log: repos.messages, events, sessions, attachments }),
    step: { name: 'remote files', close: () => remoteFiles.close() }
  }
}
