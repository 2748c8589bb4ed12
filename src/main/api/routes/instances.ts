/**
 * Instance routes (seed §4.4, DESIGN.md §5): create, list, delete (account level, bearer only);
 * init, scan (PNG or base64 text), pairing code, info and logout (instance credentials).
 */
import type { FastifyInstance } from 'fastify'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import Type from 'typebox'
import QRCode from 'qrcode'
import type { Core } from '../../core'
import { notFound } from '../../services/errors'
import { Instance, SendLimitsSchema } from '../../../shared/schemas/records'
import {
  CreateInstanceBody,
  CredentialsBody,
  CredentialsQuery,
  DeleteResult,
  IdParam,
  InitBody,
  InstanceInfoQuery,
  PairingCodeBody,
  ScanQuery
} from '../../../shared/schemas/operations'
import { ok, responses } from '../envelope'
import { requestInstance } from '../instance-auth'

const tags = ['instances']
const StatusData = Type.Object({ status: Type.String() })

export function instanceRoutes(root: FastifyInstance, core: Core): void {
  const app = root.withTypeProvider<TypeBoxTypeProvider>()

  app.post(
    '/chatapp/createNewChatapp',
    {
      schema: {
        tags,
        summary: 'Create an instance',
        description: 'Body may be empty; `channel` picks `baileys` or `sandbox` (default: CHATAPP_CHANNEL).',
        body: Type.Optional(CreateInstanceBody),
        response: responses('Chatapp created successfully!', Instance)
      }
    },
    async (req) => ok('Chatapp created successfully!', await core.instances.create(req.body?.channel))
  )

  app.get(
    '/chatapp',
    { schema: { tags, summary: 'List all instances', response: responses('Chatapp fetched successfully!', Type.Array(Instance)) } },
    async () => ok('Chatapp fetched successfully!', core.instances.list())
  )

  app.delete(
    '/chatapp/:instance_id',
    {
      schema: {
        tags,
        summary: 'Delete an instance and everything it owns',
        params: IdParam('instance_id'),
        response: responses('Chatapp deleted successfully!', DeleteResult, { 404: 'Unknown instance' })
      }
    },
    async (req) => ok('Chatapp deleted successfully!', await core.instances.delete(req.params.instance_id as string))
  )

  app.post(
    '/chatapp/init',
    {
      schema: {
        tags,
        summary: 'Start the session (idempotent)',
        querystring: CredentialsQuery,
        body: Type.Optional(InitBody),
        response: responses('Chatapp initialised successfully!', StatusData, { 409: 'Channel unavailable' })
      }
    },
    async (req) => {
      const inst = requestInstance(req)
      return ok('Chatapp initialised successfully!', await core.instances.init(inst, req.body?.config))
    }
  )

  app.get(
    '/chatapp/scan',
    {
      schema: {
        tags,
        summary: 'The current pairing QR code',
        description: 'A PNG image, or with `format=base64text` the JSON envelope with a data URL. 409 when connected or not started.',
        querystring: ScanQuery,
        body: Type.Optional(CredentialsBody),
        response: {
          ...responses('QR code fetched successfully', Type.Object({ qrcode: Type.String(), status: Type.String() }), { 409: 'Connected or not started' }),
          200: { description: 'PNG image (default) or JSON (format=base64text)', content: { 'image/png': { schema: { type: 'string', format: 'binary' } }, 'application/json': { schema: Type.Object({ status: Type.Literal(true), message: Type.String(), data: Type.Object({ qrcode: Type.String(), status: Type.String() }) }) } } }
        }
      }
    },
    async (req, reply) => {
      const inst = requestInstance(req)
      const { qr, status } = core.instances.currentQr(inst)
      if (req.query.format === 'base64text') {
        const qrcode = await QRCode.toDataURL(qr, { margin: 2, width: 320 })
        return ok('QR code fetched successfully', { qrcode, status })
      }
      const png = await QRCode.toBuffer(qr, { type: 'png', margin: 2, width: 320 })
      // The typed 200 is the JSON form; this branch answers the image.
      return reply.header('Cache-Control', 'no-store').type('image/png').send(png as never)
    }
  )

  app.post(
    '/chatapp/pairingCode',
    {
      schema: {
        tags,
        summary: 'Pair by phone number (extension)',
        description: 'Answers a code to type on the phone (Linked devices → Link with phone number). Needs init first.',
        querystring: CredentialsQuery,
        body: PairingCodeBody,
        response: responses('Pairing code generated successfully', Type.Object({ pairingCode: Type.String(), status: Type.String() }), { 409: 'Not started or already linked' })
      }
    },
    async (req) => {
      const inst = requestInstance(req)
      return ok('Pairing code generated successfully', await core.instances.pairingCode(inst, req.body.phone))
    }
  )

  app.get(
    '/chatapp/instance',
    {
      schema: {
        tags,
        summary: 'Instance info',
        querystring: InstanceInfoQuery,
        body: Type.Optional(CredentialsBody),
        response: responses(
          'Status checked successfully',
          Type.Object({
            error: Type.Boolean(),
            message: Type.String(),
            instance_data: Type.Object({
              instance_key: Type.String(),
              phone_connected: Type.Boolean(),
              webhookUrl: Type.Union([Type.String(), Type.Null()]),
              user: Type.Object({ id: Type.String(), name: Type.String() }),
              status: Type.String(),
              status_reason: Type.Union([Type.String(), Type.Null()], { description: 'Why it is in that state (e.g. the last connection error).' }),
              limits: Type.Union([SendLimitsSchema, Type.Null()], {
                description: "WhatsApp's outreach limits on the number: capping of messages to people who have not answered, and the reach-out time lock. While either holds, messages to people who never wrote are refused with 409."
              })
            })
          })
        )
      }
    },
    async (req) => ok('Status checked successfully', core.instances.info(requestInstance(req)))
  )

  app.get(
    '/chatapp/instance/logout/:instance_id',
    {
      schema: {
        tags,
        summary: 'Log out (unlink the device, delete its credentials)',
        params: IdParam('instance_id'),
        querystring: CredentialsQuery,
        body: Type.Optional(CredentialsBody),
        response: responses('Logged out successfully', StatusData, { 404: 'The credentials do not belong to this instance' })
      }
    },
    async (req) => {
      const inst = requestInstance(req)
      if (inst._id !== req.params.instance_id) throw notFound('Instance')
      return ok('Logged out successfully', await core.instances.logout(inst))
    }
  )
}
