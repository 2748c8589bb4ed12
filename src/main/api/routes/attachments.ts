/** Attachment routes (DESIGN.md §8): upload (multipart `file`), list, get, download, delete. */
import { createReadStream } from 'node:fs'
import type { FastifyInstance } from 'fastify'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import Type from 'typebox'
import type { Core } from '../../core'
import { Attachment } from '../../../shared/schemas/records'
import { CredentialsBody, CredentialsQuery, DeleteResult, IdParam } from '../../../shared/schemas/operations'
import { ok, responses } from '../envelope'
import { requestInstance } from '../instance-auth'
import { readMultipart } from '../multipart'
import { multipartBody, skipBodyValidation } from './multipart-doc'

const tags = ['attachments']
const NF = { 404: 'Unknown attachment (or another instance’s)' }

export function attachmentRoutes(root: FastifyInstance, core: Core): void {
  const app = root.withTypeProvider<TypeBoxTypeProvider>()
  const params = IdParam('attachment_id')
  const UploadFields = Type.Object({ session_id: Type.Optional(Type.String()), access_token: Type.Optional(Type.String()) })

  app.post(
    '/attachment',
    {
      ...skipBodyValidation,
      schema: {
        tags,
        summary: 'Upload a file',
        consumes: ['multipart/form-data'],
        querystring: CredentialsQuery,
        body: multipartBody(UploadFields),
        response: responses('Attachment uploaded successfully!', Attachment, { 413: 'File over the limit' })
      }
    },
    async (req) => {
      const upload = await readMultipart(req, UploadFields, { requireFile: true })
      try {
        const inst = requestInstance(req, upload.fields)
        return ok('Attachment uploaded successfully!', await core.attachments.create(inst, upload.file!))
      } finally {
        await upload.cleanup()
      }
    }
  )
  app.get(
    '/attachment',
    { schema: { tags, summary: "The instance's attachments", querystring: CredentialsQuery, body: Type.Optional(CredentialsBody), response: responses('Attachment fetched successfully!', Type.Array(Attachment)) } },
    async (req) => ok('Attachment fetched successfully!', core.attachments.list(requestInstance(req)))
  )
  app.get(
    '/attachment/:attachment_id',
    { schema: { tags, summary: 'One attachment record', params, querystring: CredentialsQuery, body: Type.Optional(CredentialsBody), response: responses('Attachment fetched successfully!', Attachment, NF) } },
    async (req) => ok('Attachment fetched successfully!', core.attachments.get(requestInstance(req), req.params.attachment_id as string))
  )
  app.get(
    '/attachment/:attachment_id/file',
    { schema: { tags, summary: 'The attachment bytes', params, querystring: CredentialsQuery, body: Type.Optional(CredentialsBody) } },
    async (req, reply) => {
      const a = core.attachments.get(requestInstance(req), req.params.attachment_id as string)
      return reply
        .type(a.mimetype)
        .header('Content-Length', a.size)
        .header('Content-Disposition', `attachment; filename*=UTF-8''${encodeURIComponent(a.filename)}`)
        .send(createReadStream(core.attachments.filePath(a._id)))
    }
  )
  app.delete(
    '/attachment/:attachment_id',
    { schema: { tags, summary: 'Delete an attachment', params, querystring: CredentialsQuery, body: Type.Optional(CredentialsBody), response: responses('Attachment deleted successfully!', DeleteResult, NF) } },
    async (req) => ok('Attachment deleted successfully!', await core.attachments.delete(requestInstance(req), req.params.attachment_id as string))
  )
}
