/**
 * Send routes (seed §4.5, DESIGN.md §6) and the message log (DESIGN.md §7). Credentials come from the
 * query string (the seed's placement) or the body / form fields. Every send needs a CONNECTED
 * instance (409 otherwise); media content is checked against the endpoint (415).
 */
import type { FastifyInstance, FastifyRequest } from 'fastify'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import Type, { type TObject } from 'typebox'
import type { Core } from '../../core'
import type { MediaKind } from '../../media/media-inspect'
import { LoggedMessage } from '../../../shared/schemas/records'
import {
  AudioFields,
  CredentialsBody,
  CredentialsQuery,
  DocFields,
  IdParam,
  FileUrlFields,
  MediaFields,
  MessagesQuery,
  SendButtonsBody,
  SendContactBody,
  SendListBody,
  SendMediaButtonBody,
  SendTextBody,
  SendTextDeprecatedBody
} from '../../../shared/schemas/operations'
import { ok, responses } from '../envelope'
import { requestInstance } from '../instance-auth'
import { readMultipart } from '../multipart'
import { multipartBody, skipBodyValidation } from './multipart-doc'
import { ajvProblems, strictAjv, validationError } from '../validation'

const tags = ['messages']
const SENT = 'Message sent successfully'
const SEND_ERRORS = { 409: 'Instance not connected' }
const MEDIA_ERRORS = { ...SEND_ERRORS, 413: 'File over the limit', 415: 'File content does not fit the endpoint' }

const Key = Type.Object({ remoteJid: Type.String(), fromMe: Type.Boolean(), id: Type.String() })
/** Seed 2.11: the sent message as the network returns it. */
export const SentMessageSchema = Type.Object({
  key: Key,
  message: Type.Object({}, { additionalProperties: true, description: 'e.g. imageMessage {url, mimetype, caption, fileSha256, fileLength, height, width, mediaKey, fileEncSha256, directPath, mediaKeyTimestamp, jpegThumbnail}' }),
  messageTimestamp: Type.String({ description: 'Epoch seconds.' }),
  status: Type.String({ examples: ['PENDING'] })
})
const TextResult = Type.Object({
  message: Type.Union([SentMessageSchema, Type.Null()]),
  attachment: Type.Array(Type.String(), { description: 'Ids of the attachments sent.' }),
  media: Type.Array(SentMessageSchema, { description: 'The attachment messages, in order.' }),
  contact: Type.Union([Type.Object({}, { additionalProperties: true }), Type.Null()]),
  image: Type.Union([Type.Object({}, { additionalProperties: true }), Type.Null()]),
  buttons: Type.Null(),
  location: Type.Union([Type.Object({}, { additionalProperties: true }), Type.Null()])
})

export function messageRoutes(root: FastifyInstance, core: Core): void {
  const app = root.withTypeProvider<TypeBoxTypeProvider>()
  const m = core.messages

  app.post(
    '/chatapp/message',
    { schema: { tags, summary: 'Send a text (with attachments, location, contact)', querystring: CredentialsQuery, body: SendTextBody, response: responses(SENT, TextResult, SEND_ERRORS) } },
    async (req) => ok(SENT, await m.sendText(requestInstance(req), req.body))
  )

  const mediaRoute = (path: string, kind: MediaKind, fields: TObject, summary: string) =>
    app.post(
      path,
      {
        ...skipBodyValidation,
        schema: { tags, summary, consumes: ['multipart/form-data'], querystring: CredentialsQuery, body: multipartBody(fields), response: responses(SENT, SentMessageSchema, MEDIA_ERRORS) }
      },
      async (req: FastifyRequest) => {
        const upload = await readMultipart(req, fields, { requireFile: true })
        try {
          const f = upload.fields as Record<string, string | boolean | undefined>
          const inst = requestInstance(req, f)
          const file = upload.file!
          const sent = await m.sendMedia(
            inst,
            String(f.chatId),
            kind,
            { path: file.path, size: file.size, mimetype: file.declaredMimetype ?? 'application/octet-stream', fileName: file.filename },
            {
              caption: f.caption as string | undefined,
              fileName: (f.filename as string | undefined) || file.filename,
              voiceNote: f.ptt === true || f.ptt === 'true'
            },
            path
          )
          return ok(SENT, sent)
        } finally {
          await upload.cleanup()
        }
      }
    )
  mediaRoute('/chatapp/message/image', 'image', MediaFields, 'Send an image')
  mediaRoute('/chatapp/message/video', 'video', MediaFields, 'Send a video')
  mediaRoute('/chatapp/message/audio', 'audio', AudioFields, 'Send audio (ptt=true for a voice note)')
  mediaRoute('/chatapp/message/doc', 'document', DocFields, 'Send a document')

  app.post(
    '/chatapp/message/fileurl',
    {
      ...skipBodyValidation,
      schema: {
        tags,
        summary: 'Send a file downloaded from a URL',
        description: 'Multipart form (or JSON). The file is downloaded with a timeout and the file size limit.',
        consumes: ['multipart/form-data', 'application/json'],
        querystring: CredentialsQuery,
        body: multipartBody(FileUrlFields, false),
        response: responses(SENT, SentMessageSchema, MEDIA_ERRORS)
      }
    },
    async (req: FastifyRequest) => {
      // The seed sends a form; scripts often send JSON. Both carry the same fields.
      let fields: Record<string, unknown>
      if (req.isMultipart()) {
        fields = (await readMultipart(req, FileUrlFields, { requireFile: false })).fields as unknown as Record<string, unknown>
      } else {
        const validate = strictAjv.compile(FileUrlFields)
        if (!validate(req.body)) throw validationError(ajvProblems(validate.errors ?? []))
        fields = req.body as unknown as Record<string, unknown>
      }
      const inst = requestInstance(req, fields)
      return ok(SENT, await m.sendFileUrl(inst, fields as never))
    }
  )

  app.post(
    '/chatapp/message/button',
    { schema: { tags, summary: 'Send buttons (delivered as numbered text)', querystring: CredentialsQuery, body: SendButtonsBody, response: responses(SENT, SentMessageSchema, SEND_ERRORS) } },
    async (req) => ok(SENT, await m.sendButtons(requestInstance(req), req.body))
  )
  app.post(
    '/chatapp/message/contact',
    { schema: { tags, summary: 'Send a contact card (vCard)', querystring: CredentialsQuery, body: SendContactBody, response: responses(SENT, SentMessageSchema, SEND_ERRORS) } },
    async (req) => ok(SENT, await m.sendContact(requestInstance(req), req.body))
  )
  app.post(
    '/chatapp/message/list',
    { schema: { tags, summary: 'Send a list (delivered as numbered text)', querystring: CredentialsQuery, body: SendListBody, response: responses(SENT, SentMessageSchema, SEND_ERRORS) } },
    async (req) => ok(SENT, await m.sendList(requestInstance(req), req.body))
  )
  app.post(
    '/chatapp/message/MediaButton',
    { schema: { tags, summary: 'Send an image with buttons (the buttons as its caption)', querystring: CredentialsQuery, body: SendMediaButtonBody, response: responses(SENT, SentMessageSchema, MEDIA_ERRORS) } },
    async (req) => ok(SENT, await m.sendMediaButton(requestInstance(req), req.body))
  )

  const deprecated = {
    schema: {
      tags,
      summary: 'Send a text (deprecated; use /chatapp/message)',
      deprecated: true,
      querystring: CredentialsQuery,
      body: SendTextDeprecatedBody,
      response: responses(SENT, Type.String({ description: 'Id of the sent message.' }), SEND_ERRORS)
    }
  }
  const sendDeprecated = async (req: FastifyRequest<{ Body: SendTextDeprecatedBody }>) => {
    const inst = requestInstance(req)
    const jid = m.resolveChat(req.body.to, 'to')
    const sent = await m.send(inst, jid, { kind: 'text', text: req.body.message }, { source: 'api' })
    return ok(SENT, sent.key.id)
  }
  app.post('/chatapp/message/sendText', deprecated, sendDeprecated)
  app.post('/chatapp/sendText', deprecated, sendDeprecated)

  app.get(
    '/chatapp/messages/:message_id/media',
    {
      schema: {
        tags,
        summary: 'The file of an inbound media message (downloaded on demand)',
        params: IdParam('message_id'),
        querystring: CredentialsQuery,
        body: Type.Optional(CredentialsBody),
        response: {
          ...responses('', Type.Null(), { 404: 'No such message, no media, or no longer available', 409: 'Instance not started' }),
          200: { description: 'The file', content: { 'application/octet-stream': { schema: { type: 'string', format: 'binary' } } } }
        }
      }
    },
    async (req, reply) => {
      const media = await m.inboundMedia(requestInstance(req), req.params.message_id as string)
      reply.type(media.mimetype)
      if (media.fileName) reply.header('Content-Disposition', `attachment; filename*=UTF-8''${encodeURIComponent(media.fileName)}`)
      // The typed 200 is JSON for other routes; this one answers the file's bytes.
      return reply.send(media.data as never)
    }
  )

  app.get(
    '/chatapp/messages',
    {
      schema: {
        tags,
        summary: 'The message log (extension), newest last',
        querystring: MessagesQuery,
        body: Type.Optional(CredentialsBody),
        response: responses('Messages fetched successfully!', Type.Array(LoggedMessage))
      }
    },
    async (req) => ok('Messages fetched successfully!', await m.list(requestInstance(req), req.query))
  )
}
