/**
 * Outbound messages (seed §4.5, DESIGN.md §6–§8): every send kind of the API and the bot goes through
 * {@link MessageService.send}, which checks the instance is connected, sends through its channel,
 * logs the message (§7) and announces it on the event bus (webhooks, UI).
 */
import { join } from 'node:path'
import { rm } from 'node:fs/promises'
import { renderButtons, renderList, type RenderedOption } from '../channel/interactive-text'
import { toJid } from '../channel/jid'
import { ChannelError, type ChannelSession, type DownloadedMedia, type MediaSource, type OutboundContent, type SentMessage } from '../channel/types'
import { buildVCard } from '../channel/vcard'
import type { CoreEventBus } from '../events'
import { newObjectId } from '../ids'
import { downloadToFile } from '../media/download'
import { assertMediaKind, detectMimeType, kindOfMime, type MediaKind } from '../media/media-inspect'
import type { Storage } from '../store/storage'
import type { Instance, LoggedMessage, MessageSource } from '../../shared/schemas/records'
import type {
  FileUrlFields,
  MessagesQuery,
  SendButtonsBody,
  SendContactBody,
  SendListBody,
  SendMediaButtonBody,
  SendTextBody
} from '../../shared/schemas/operations'
import type { AttachmentService } from './attachment-service'
import { AppError, conflict, invalid, notFound } from './errors'
import type { SessionManager } from './session-manager'
import type { MessageStatusService } from './message-status'
import { outreachBlocked } from './outreach-limits'

export interface MessageServiceDeps {
  storage: Storage
  sessions: SessionManager
  events: CoreEventBus
  attachments: AttachmentService
  limits: { fileBytes: number; downloadTimeoutMs: number }
  /** Applies delivery statuses that arrived before the send was logged. */
  statuses: Pick<MessageStatusService, 'logged'>
}

export interface SendOptions {
  source: Extract<MessageSource, 'api' | 'bot'>
  /** Options of a buttons/list message sent as text, kept for option replies. */
  options?: RenderedOption[]
  /** Log type override (`buttons`, `list`). */
  type?: string
}

/** The text result of seed 2.11. */
export interface TextSendResult {
  message: SentMessage | null
  attachment: string[]
  media: SentMessage[]
  contact: Record<string, unknown> | null
  image: Record<string, unknown> | null
  buttons: null
  location: Record<string, unknown> | null
}

/** The text a log entry shows for a content. */
function logText(content: OutboundContent): string {
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

export class MessageService {
  constructor(private readonly deps: MessageServiceDeps) {}

  /** The JID for a `chatId`-like field; 400 naming the field otherwise. */
  resolveChat(value: string, field = 'chatId'): string {
    const jid = toJid(value)
    if (!jid) throw invalid(field, 'must be a phone number or a JID (…@s.whatsapp.net, …@g.us, …@lid)')
    return jid
  }

  /** The session of a connected instance; 409 otherwise. */
  connectedSession(inst: Instance): ChannelSession {
    const session = this.deps.sessions.get(inst._id)
    if (!session || inst.settings.status !== 'CONNECTED') {
      throw conflict(`The instance is not connected (status ${inst.settings.status}). Call /chatapp/init and link a phone first.`)
    }
    return session
  }

  /** Sends one message, logs it and announces it. The single outbound path. */
  async send(inst: Instance, jid: string, content: OutboundContent, opts: SendOptions): Promise<SentMessage> {
    const session = this.connectedSession(inst)
    await this.assertOutreachAllowed(inst, jid)
    let sent: SentMessage
    try {
      // Bot replies show "typing…" first, like a person answering; API sends go out at once.
      sent = await session.send(jid, content, { composing: opts.source === 'bot' })
    } catch (err) {
      // The network refused or lost the send: not a bug of ours, and nothing was sent.
      if (err instanceof ChannelError && (err.code === 'NOT_CONNECTED' || err.code === 'SEND_FAILED')) throw conflict(err.message)
      if (err instanceof ChannelError && err.code === 'NOT_ON_WHATSAPP') throw invalid('chatId', `names a number that is not on WhatsApp (${jid.split('@')[0]})`)
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
      ...(opts.options ? { options: opts.options } : {})
    }
    await this.deps.storage.messages.append(inst._id, entry)
    await this.deps.events.emitDurable('message', { instanceId: inst._id, message: { ...entry } })
    await this.deps.statuses.logged(inst._id, entry.id)
    return sent
  }

  /**
   * 409 while WhatsApp's outreach limits hold (capping, reach-out lock) and `jid` is a person who
   * never wrote to this instance: such a message counts against the number. Replies and groups pass.
   */
  private async assertOutreachAllowed(inst: Instance, jid: string): Promise<void> {
    const blocked = outreachBlocked(this.deps.sessions.limits(inst._id), Date.now())
    if (!blocked || !(jid.endsWith('@s.whatsapp.net') || jid.endsWith('@lid'))) return
    const history = await this.deps.storage.messages.list(inst._id, { chatId: jid, limit: 1000 })
    if (history.some((m) => !m.fromMe)) return
    throw conflict(blocked)
  }

  /** The seed's text send: text, then attachments, location and a contact card, in that order. */
  async sendText(inst: Instance, body: SendTextBody): Promise<TextSendResult> {
    const jid = this.resolveChat(body.chatId)
    if (!body.message && !body.attachments?.length && !body.location && !body.contactId) {
      throw invalid('message', 'is required (or attachments, location or contactId)')
    }
    const files = (body.attachments ?? []).map((id, i) => {
      try {
        return this.deps.attachments.get(inst, id)
      } catch {
        throw invalid(`attachments.${i}`, 'names no attachment of this instance')
      }
    })
    const contactJid = body.contactId !== undefined ? this.resolveChat(body.contactId, 'contactId') : undefined
    this.connectedSession(inst)
    const result: TextSendResult = { message: null, attachment: [], media: [], contact: null, image: null, buttons: null, location: null }
    if (body.message) result.message = await this.send(inst, jid, { kind: 'text', text: body.message }, { source: 'api' })
    for (const a of files) {
      const kind = kindOfMime(a.mimetype)
      const sent = await this.sendMediaKind(inst, jid, kind, { path: this.deps.attachments.filePath(a._id), mimetype: a.mimetype, size: a.size, fileName: a.filename }, {})
      result.attachment.push(a._id)
      result.media.push(sent)
      if (kind === 'image' && !result.image) result.image = { ...sent.message, key: sent.key }
    }
    if (body.location) {
      const sent = await this.send(
        inst,
        jid,
        { kind: 'location', latitude: Number(body.location.lat), longitude: Number(body.location.lng), name: body.location.name },
        { source: 'api' }
      )
      result.location = { ...sent.message, key: sent.key }
    }
    if (contactJid) {
      const digits = contactJid.split('@')[0]!
      const vcard = buildVCard({ fullName: `+${digits}`, phoneNumber: digits })
      const sent = await this.send(inst, jid, { kind: 'contact', displayName: `+${digits}`, vcard }, { source: 'api' })
      result.contact = { ...sent.message, key: sent.key }
    }
    return result
  }

  /** Sends a media file of `kind`; checks its content fits the kind (415 otherwise). */
  async sendMedia(
    inst: Instance,
    chatId: string,
    kind: MediaKind,
    media: MediaSource,
    extra: { caption?: string; fileName?: string; voiceNote?: boolean },
    endpoint: string
  ): Promise<SentMessage> {
    const jid = this.resolveChat(chatId)
    this.connectedSession(inst)
    const mimetype = await detectMimeType(media.path, media.fileName, media.mimetype)
    assertMediaKind(kind, mimetype, endpoint)
    return this.sendMediaKind(inst, jid, kind, { ...media, mimetype }, extra)
  }

  /** Downloads `url` and sends it as `type` (seed fileurl). */
  async sendFileUrl(inst: Instance, fields: FileUrlFields): Promise<SentMessage> {
    this.resolveChat(fields.chatId)
    this.connectedSession(inst)
    return this.withDownload(fields.url, 'url', async (file) => {
      const fileName = fields.filename || file.fileName
      return this.sendMedia(
        inst,
        fields.chatId,
        fields.type,
        { path: file.path, size: file.size, mimetype: fields.mimetype || file.contentType || 'application/octet-stream', fileName },
        { caption: fields.caption, fileName },
        '/chatapp/message/fileurl'
      )
    })
  }

  async sendButtons(inst: Instance, body: SendButtonsBody): Promise<SentMessage> {
    const jid = this.resolveChat(body.chatId)
    const r = renderButtons(body.btndata.text, body.btndata.buttons, body.btndata.footerText)
    return this.send(inst, jid, { kind: 'text', text: r.text }, { source: 'api', options: r.options, type: 'buttons' })
  }

  async sendList(inst: Instance, body: SendListBody): Promise<SentMessage> {
    const jid = this.resolveChat(body.chatId)
    const r = renderList(body.msgdata)
    return this.send(inst, jid, { kind: 'text', text: r.text }, { source: 'api', options: r.options, type: 'list' })
  }

  /** The image from `btndata.image` with the rendered buttons as its caption. */
  async sendMediaButton(inst: Instance, body: SendMediaButtonBody): Promise<SentMessage> {
    const jid = this.resolveChat(body.chatId)
    this.connectedSession(inst)
    const r = renderButtons(body.btndata.text, body.btndata.buttons, body.btndata.footerText)
    return this.withDownload(body.btndata.image, 'btndata.image', async (file) => {
      const mimetype = await detectMimeType(file.path, file.fileName, body.btndata.mimeType ?? file.contentType)
      assertMediaKind('image', mimetype, '/chatapp/message/MediaButton')
      return this.send(
        inst,
        jid,
        { kind: 'image', media: { path: file.path, size: file.size, mimetype, fileName: file.fileName }, caption: r.text },
        { source: 'api', options: r.options, type: 'buttons' }
      )
    })
  }

  async sendContact(inst: Instance, body: SendContactBody): Promise<SentMessage> {
    const jid = this.resolveChat(body.chatId)
    const v = body.vcard
    const displayName = v.displayName || v.fullName
    const vcard = buildVCard({ fullName: v.fullName, organization: v.organization, phoneNumber: v.phoneNumber })
    return this.send(inst, jid, { kind: 'contact', displayName, vcard }, { source: 'api' })
  }

  /**
   * The bytes of an inbound media message, downloaded on demand through the channel. 404 when the
   * message is not in the log, has no media, or the network no longer has it; 409 when not started.
   */
  async inboundMedia(inst: Instance, messageId: string): Promise<DownloadedMedia> {
    const logged = await this.deps.storage.messages.find(inst._id, messageId)
    if (!logged) throw notFound('Message')
    if (!logged.media) throw new AppError('NOT_FOUND', 'That message has no media.')
    const session = this.deps.sessions.get(inst._id)
    if (!session?.downloadMedia) throw conflict(`The instance is not started (status ${inst.settings.status}); media is fetched through its connection.`)
    try {
      return await session.downloadMedia(messageId)
    } catch (err) {
      if (err instanceof ChannelError && err.code === 'MEDIA_UNAVAILABLE') throw new AppError('NOT_FOUND', err.message)
      throw err
    }
  }

  /** Log entries of an instance (DESIGN.md §7). */
  async list(inst: Instance, query: MessagesQuery): Promise<LoggedMessage[]> {
    const chatId = query.chatId !== undefined ? this.resolveChat(query.chatId) : undefined
    return this.deps.storage.messages.list(inst._id, { chatId, limit: query.limit, before: query.before })
  }

  private sendMediaKind(
    inst: Instance,
    jid: string,
    kind: MediaKind,
    media: MediaSource,
    extra: { caption?: string; fileName?: string; voiceNote?: boolean }
  ): Promise<SentMessage> {
    const content: OutboundContent =
      kind === 'image'
        ? { kind, media, caption: extra.caption }
        : kind === 'video'
          ? { kind, media, caption: extra.caption }
          : kind === 'audio'
            ? { kind, media, voiceNote: extra.voiceNote }
            : { kind, media, fileName: extra.fileName || media.fileName || 'file', caption: extra.caption }
    return this.send(inst, jid, content, { source: 'api' })
  }

  private async withDownload<T>(
    url: string,
    field: string,
    fn: (file: { path: string; size: number; contentType?: string; fileName: string }) => Promise<T>
  ): Promise<T> {
    const dest = join(this.deps.storage.paths.tmp, `dl-${newObjectId()}`)
    try {
      const file = await downloadToFile(url, dest, { maxBytes: this.deps.limits.fileBytes, timeoutMs: this.deps.limits.downloadTimeoutMs }, field)
      return await fn(file)
    } finally {
      await rm(dest, { force: true })
    }
  }
}

