/**
 * The single outbound path (docs/design.md §6–§7): every message the API, the bot or the desk sends
 * goes through {@link Outbound.send}, which checks the instance is connected and may reach that chat
 * now (WhatsApp's outreach limits), sends through its channel, logs the message and announces it on
 * the event bus (webhooks, UI).
 */
import type { RenderedOption } from '../../channel/interactive-text'
import { toJid } from '../../channel/jid'
import { usernameOf } from '../../channel/usernames'
import { ChannelError, type ChannelSession, type OutboundContent, type SentMessage } from '../../channel/types'
import type { Clock } from '../../clock'
import type { CoreEventBus } from '../../events'
import type { Repositories } from '../../store/repos'
import type { Instance, LoggedMessage, MessageSource, SentBy } from '../../../shared/schemas/records'
import { AppError, conflict, invalid } from '../../errors'
import { sentByOfSource } from '../../../shared/domain/sent-by'
import type { MessageStatusService } from '../message-status'
import { outreachBlocked } from '../../domain/outreach-limits'
import type { SessionManager } from '../instances/session-manager'
import type { ActivityMonitor } from '../activity'

/** Sends that show "typing…" first: the bot's, and outreach (the governor's rule, docs/design.md §18). */
const COMPOSING_SOURCES: ReadonlySet<MessageSource> = new Set(['bot', 'broadcast', 'schedule'])

export interface SendOptions {
  /** api: a script; bot: the bot; desk: a person in this app (pauses the bot for the chat). */
  source: Extract<MessageSource, 'api' | 'bot' | 'desk' | 'broadcast' | 'schedule'>
  /** Options of a buttons/list message sent as text, kept for option replies. */
  options?: RenderedOption[]
  /** Log type override (`buttons`, `list`). */
  type?: string
  /** Who sent it when a person or a script key did (the bot, outreach and the phone are known by `source`). */
  sentBy?: SentBy
  /**
   * Told once the message has its place in the instance's send queue (it goes out in that order,
   * after those queued before it), before it is sent and logged: what the bot's replies wait for.
   */
  onQueued?: () => void
}

/** The text a log entry shows for a content. */
export function logText(content: OutboundContent): string {
  switch (content.kind) {
    case 'text':
      return content.text
    case 'image':
    case 'video':
      return content.caption ?? ''
    case 'document':
      return content.caption || content.fileName
    case 'audio':
      return ''
    case 'location':
      return content.name ?? `${content.latitude},${content.longitude}`
    case 'contact':
      return content.displayName
  }
}

/** 400: the number of `jid` has no WhatsApp account (the network said so; nothing was sent). */
export class NotOnWhatsAppError extends AppError {
  constructor(jid: string) {
    const problem = `names a number that is not on WhatsApp (${jid.split('@')[0]})`
    super('VALIDATION_ERROR', `Invalid request: chatId ${problem}`, [{ field: 'chatId', problem }])
  }
}

/** The JID for a `chatId`-like field; 400 naming the field otherwise. */
export function resolveChat(value: string, field = 'chatId'): string {
  const jid = toJid(value)
  if (!jid) throw invalid(field, 'must be a phone number or a JID (…@s.whatsapp.net, …@g.us, …@lid)')
  return jid
}

/**
 * The JID for a `chatId`-like field that may name a WhatsApp username (`@name`, docs/baileys.md
 * "Usernames"): looked up through the instance's channel (its LID); else {@link resolveChat}. 400
 * naming the field for a username nobody has, 409 when the instance is not connected.
 */
export async function resolveRecipient(value: string, session: () => ChannelSession, field = 'chatId'): Promise<string> {
  if (!value.trim().startsWith('@')) return resolveChat(value, field)
  const username = usernameOf(value)
  if (!username) throw invalid(field, 'must be a phone number, a JID or a WhatsApp username (@name: letters, digits, "." and "_")')
  const s = session()
  if (!s.resolveUsername) throw invalid(field, 'names a username, which this channel cannot look up')
  let lid: string | undefined
  try {
    lid = await s.resolveUsername(username)
  } catch (err) {
    if (err instanceof ChannelError) throw conflict(err.message)
    throw err
  }
  if (!lid) throw invalid(field, `names a username nobody has on WhatsApp (@${username})`)
  return lid
}

export interface OutboundDeps {
  repos: Pick<Repositories, 'instances' | 'messages'>
  sessions: SessionManager
  events: CoreEventBus
  clock: Clock
  /** Applies delivery statuses that arrived before the send was logged. */
  statuses: Pick<MessageStatusService, 'logged'>
  /** A person answered a chat from the desk (hand-off: the bot pauses there). */
  onHumanReply?: (instanceId: string, chatId: string, sentBy?: SentBy) => Promise<unknown>
  /** Counts each send while it is in flight (the updater waits for none before installing). */
  inFlight?: Pick<ActivityMonitor, 'track'>
}

export class Outbound {
  constructor(private readonly deps: OutboundDeps) {}

  /** The session of a connected instance; 409 otherwise. */
  connectedSession(inst: Pick<Instance, '_id'>): ChannelSession {
    const session = this.deps.sessions.get(inst._id)
    const status = this.deps.repos.instances.find(inst._id)?.settings.status
    if (!session || status !== 'CONNECTED') {
      // Saved CONNECTED with no session here: the worker that had the connection stopped and this one
      // has not taken it over yet (docs/design.md §22 "Take-over"); its CONNECTED is not true here.
      if (status === 'CONNECTED' || (session && status === 'CONNECTING')) {
        throw conflict('The instance is not connected (status CONNECTING): its connection is being taken over or restored. Try again in a few seconds.')
      }
      throw conflict(`The instance is not connected (status ${status ?? 'unknown'}). Call /chatapp/init and link a phone first.`)
    }
    return session
  }

  /** The JID a `chatId`-like field names, usernames looked up ({@link resolveRecipient}). */
  recipient(inst: Pick<Instance, '_id'>, value: string, field = 'chatId'): Promise<string> {
    return resolveRecipient(value, () => this.connectedSession(inst), field)
  }

  /** Sends one message, logs it and announces it. */
  async send(inst: Pick<Instance, '_id'>, jid: string, content: OutboundContent, opts: SendOptions): Promise<SentMessage> {
    const inFlight = this.deps.inFlight
    return inFlight ? inFlight.track(() => this.sendNow(inst, jid, content, opts)) : this.sendNow(inst, jid, content, opts)
  }

  private async sendNow(inst: Pick<Instance, '_id'>, jid: string, content: OutboundContent, opts: SendOptions): Promise<SentMessage> {
    const session = this.connectedSession(inst)
    await this.assertOutreachAllowed(inst._id, jid)
    let sent: SentMessage
    try {
      // Bot replies and outreach show "typing…" first, like a person writing; API sends go out at once.
      const sending = session.send(jid, content, { composing: COMPOSING_SOURCES.has(opts.source) })
      opts.onQueued?.()
      sent = await sending
    } catch (err) {
      // The network refused or lost the send: not a bug of ours, and nothing was sent.
      if (err instanceof ChannelError && (err.code === 'NOT_CONNECTED' || err.code === 'SEND_FAILED')) throw conflict(err.message)
      if (err instanceof ChannelError && err.code === 'NOT_ON_WHATSAPP') throw new NotOnWhatsAppError(jid)
      throw err
    }
    const entry: LoggedMessage = {
      id: sent.key.id,
      chatId: jid,
      fromMe: true,
      pushName: null,
      type: opts.type ?? content.kind,
      text: logText(content),
      timestamp: Number(sent.messageTimestamp) * 1000,
      status: sent.status,
      source: opts.source,
      ...(content.kind === 'location' ? { location: { latitude: content.latitude, longitude: content.longitude } } : {}),
      ...(opts.options ? { options: opts.options } : {}),
      ...(opts.sentBy ? { sent_by: opts.sentBy } : sentByOfSource(opts.source))
    }
    // The message is out: logging it and queueing its webhooks are independent writes, each group-
    // committed, so they run side by side (one disk wait per send instead of two in a row). The
    // answer waits for both; a failed log write still answers an error, though the webhook tells the
    // truth (the message was sent).
    // The UI hears of it once it is logged (emitDurable's `stored`).
    const logging = this.deps.repos.messages.append(inst._id, entry)
    await Promise.all([logging, this.deps.events.emitDurable('message', { instanceId: inst._id, message: { ...entry } }, logging)])
    await this.deps.statuses.logged(inst._id, entry.id)
    if (opts.source === 'desk') await this.deps.onHumanReply?.(inst._id, jid, opts.sentBy)
    return sent
  }

  /**
   * 409 while WhatsApp's outreach limits hold (capping, reach-out lock) and `jid` is a person who
   * never wrote to this instance: such a message counts against the number. Replies and groups pass.
   */
  private async assertOutreachAllowed(instanceId: string, jid: string): Promise<void> {
    const zone = this.deps.repos.instances.find(instanceId)?.settings.bot_timezone
    const blocked = outreachBlocked(this.deps.sessions.limits(instanceId), this.deps.clock.now(), zone)
    if (!blocked || !(jid.endsWith('@s.whatsapp.net') || jid.endsWith('@lid'))) return
    if (await this.deps.repos.messages.hasInbound(instanceId, jid)) return
    throw conflict(blocked)
  }
}
