/**
 * The send kinds of the API, the bot and the UI (docs/api-seed.md §4.5): text with attachments,
 * location and contact card, media files (checked to fit the endpoint's kind), files by URL, buttons and
 * lists (as numbered text, docs/design.md §6), media with buttons, contact cards. Each builds channel
 * content and goes through the single outbound path ({@link Outbound}).
 */
import { renderButtons, renderList } from '../../channel/interactive-text'
import type { MediaSource, SentMessage } from '../../channel/types'
import { buildVCard } from '../../channel/vcard'
import { assertMediaKind, detectMimeType, type MediaKind } from '../../media/media-inspect'
import type { InstanceRef, SentBy } from '../../../shared/schemas/records'
import type { FileUrlFields, SendButtonsBody, SendContactBody, SendListBody, SendMediaButtonBody, SendTextBody } from '../../../shared/schemas/operations'
import type { AttachmentService } from '../attachment-service'
import { invalid } from '../../errors'
import { resolveChat, type Outbound } from './outbound'
import type { RemoteFiles } from './remote-file'
import { mediaContent, planTextSend, type MediaExtras } from './send-planner'
import type { TextSendResultT } from '../../../shared/operations/results'

type Body<T> = Omit<T, 'session_id' | 'access_token'>
/** Who sends through a {@link MessageService}. */
export type SenderSource = 'api' | 'desk' | 'broadcast' | 'schedule'

/** The text send's result (docs/api-seed.md §2.11); its schema is the operation table's. */
export type TextSendResult = TextSendResultT

export class MessageService {
  constructor(
    private readonly outbound: Outbound,
    private readonly attachments: AttachmentService,
    private readonly remote: RemoteFiles,
    /** A contact record of the instance by id (the text send's `contactId` may name one, docs/design.md §17). */
    private readonly contactRecord: (instanceId: string, id: string) => Promise<{ name: string; number: string } | undefined> = async () => undefined,
    /** Who sends through this service: a script (`api`, the HTTP API), a person in the desk (the UI), or outreach. */
    private readonly source: SenderSource = 'api',
    /** The person or key behind the sends (docs/design.md §21 "`sent_by`"). */
    private readonly sentBy?: SentBy
  ) {}

  /** The same sends, labelled as sent by `source` (the UI sends as `desk`, which pauses the bot for the chat) and by `sentBy`. */
  as(source: SenderSource, sentBy?: SentBy): MessageService {
    return source === this.source && sentBy === this.sentBy ? this : new MessageService(this.outbound, this.attachments, this.remote, this.contactRecord, source, sentBy)
  }

  /** The single outbound path (for the bot's replies and actions). */
  get send(): Outbound['send'] {
    return this.outbound.send.bind(this.outbound)
  }

  /** The connected session of an instance (the bot's add-to-group action); 409 otherwise. */
  connectedSession(inst: InstanceRef): ReturnType<Outbound['connectedSession']> {
    return this.outbound.connectedSession(inst)
  }

  /** The seed's text send: text, then attachments, location and a contact card, in that order. */
  async sendText(inst: InstanceRef, body: Body<SendTextBody>): Promise<TextSendResult> {
    const jid = await this.outbound.recipient(inst, body.chatId)
    if (!body.message && !body.attachments?.length && !body.location && !body.contactId) {
      throw invalid('message', 'is required (or attachments, location or contactId)')
    }
    const attachments = await Promise.all(
      (body.attachments ?? []).map(async (id, i) => {
        const a = await this.attachments.find(inst, id)
        if (!a) throw invalid(`attachments.${i}`, 'names no attachment of this instance')
        return { _id: a._id, media: await this.attachments.source(a) }
      })
    )
    // `contactId`: a contact record's id (its name and number on the card), or a number or JID.
    const record = body.contactId !== undefined ? await this.contactRecord(inst._id, body.contactId) : undefined
    const contact = record
      ? { jid: `${record.number}@s.whatsapp.net`, name: record.name }
      : body.contactId !== undefined
        ? { jid: resolveChat(body.contactId, 'contactId') }
        : undefined
    this.outbound.connectedSession(inst)
    const result: TextSendResult = { message: null, attachment: [], media: [], contact: null, image: null, buttons: null, location: null }
    for (const step of planTextSend({ message: body.message, attachments, location: body.location, contact })) {
      const sent = await this.outbound.send(inst, jid, step.content, { source: this.source, sentBy: this.sentBy })
      if (step.fills === 'message') result.message = sent
      else if (step.fills === 'media') {
        result.attachment.push(step.attachmentId)
        result.media.push(sent)
        if (step.kind === 'image' && !result.image) result.image = { ...sent.message, key: sent.key }
      } else result[step.fills] = { ...sent.message, key: sent.key }
    }
    return result
  }

  /** A plain text to `to` (the deprecated sendText routes); `field` names the recipient field in errors. */
  sendPlainText(inst: InstanceRef, to: string, text: string, field = 'chatId'): Promise<SentMessage> {
    return this.outbound.send(inst, resolveChat(to, field), { kind: 'text', text }, { source: this.source, sentBy: this.sentBy })
  }

  /** Sends a media file of `kind`; checks its content fits the kind (415 otherwise, naming `endpoint`). */
  async sendMedia(inst: InstanceRef, chatId: string, kind: MediaKind, media: MediaSource, extra: MediaExtras, endpoint: string): Promise<SentMessage> {
    const jid = await this.outbound.recipient(inst, chatId)
    this.outbound.connectedSession(inst)
    const mimetype = await detectMimeType(media.path, media.fileName, media.mimetype)
    assertMediaKind(kind, mimetype, endpoint)
    return this.outbound.send(inst, jid, mediaContent(kind, { ...media, mimetype }, extra), { source: this.source, sentBy: this.sentBy })
  }

  /** Sends a stored attachment as a message of `kind` (the UI's media form). 400 when it is not this instance's. */
  async sendAttachment(inst: InstanceRef, input: { chatId: string; kind: MediaKind; attachmentId: string; caption?: string; voiceNote?: boolean }): Promise<SentMessage> {
    const a = await this.attachments.find(inst, input.attachmentId)
    if (!a) throw invalid('attachmentId', 'names no attachment of this instance')
    return this.sendMedia(
      inst,
      input.chatId,
      input.kind,
      await this.attachments.source(a),
      { caption: input.caption, fileName: a.filename, voiceNote: input.voiceNote },
      `a ${input.kind} message`
    )
  }

  /** Downloads `url` and sends it as `type` (docs/api-seed.md fileurl). */
  async sendFileUrl(inst: InstanceRef, fields: Body<FileUrlFields>): Promise<SentMessage> {
    resolveChat(fields.chatId)
    this.outbound.connectedSession(inst)
    return this.remote.with(fields.url, 'url', async (file) => {
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

  async sendButtons(inst: InstanceRef, body: Body<SendButtonsBody>): Promise<SentMessage> {
    const jid = await this.outbound.recipient(inst, body.chatId)
    const r = renderButtons(body.btndata.text, body.btndata.buttons, body.btndata.footerText)
    return this.outbound.send(inst, jid, { kind: 'text', text: r.text }, { source: this.source, sentBy: this.sentBy, options: r.options, type: 'buttons' })
  }

  async sendList(inst: InstanceRef, body: Body<SendListBody>): Promise<SentMessage> {
    const jid = await this.outbound.recipient(inst, body.chatId)
    const r = renderList(body.msgdata)
    return this.outbound.send(inst, jid, { kind: 'text', text: r.text }, { source: this.source, sentBy: this.sentBy, options: r.options, type: 'list' })
  }

  /** The image from `btndata.image` with the rendered buttons as its caption. */
  async sendMediaButton(inst: InstanceRef, body: Body<SendMediaButtonBody>): Promise<SentMessage> {
    const jid = await this.outbound.recipient(inst, body.chatId)
    this.outbound.connectedSession(inst)
    const r = renderButtons(body.btndata.text, body.btndata.buttons, body.btndata.footerText)
    return this.remote.with(body.btndata.image, 'btndata.image', async (file) => {
      const mimetype = await detectMimeType(file.path, file.fileName, body.btndata.mimeType ?? file.contentType)
      assertMediaKind('image', mimetype, '/chatapp/message/MediaButton')
      return this.outbound.send(
        inst,
        jid,
        { kind: 'image', media: { path: file.path, size: file.size, mimetype, fileName: file.fileName }, caption: r.text },
        { source: this.source, sentBy: this.sentBy, options: r.options, type: 'buttons' }
      )
    })
  }

  async sendContact(inst: InstanceRef, body: Body<SendContactBody>): Promise<SentMessage> {
    const jid = await this.outbound.recipient(inst, body.chatId)
    const v = body.vcard
    const displayName = v.displayName || v.fullName
    const vcard = buildVCard({ fullName: v.fullName, organization: v.organization, phoneNumber: v.phoneNumber })
    return this.outbound.send(inst, jid, { kind: 'contact', displayName, vcard }, { source: this.source, sentBy: this.sentBy })
  }
}
